/**
 * Setting table properties: a metadata-only commit (no snapshot) through the one commit path
 * (commitTransaction), as Java's `UpdateProperties`. Re-run on a fresh base after a lost race: properties are
 * merged onto whatever the winner committed, so a concurrent writer's snapshot is never undone.
 */
import { commitTransaction, type TableOperations } from './transaction.js';
import { tableUuidRequirement } from './table-requirement.js';
import type { CommitIO } from './transaction.js';

export interface SetPropertiesResult {
  /** The properties whose value changed (or that were added), with their new values. */
  changed: Record<string, string>;
  /** The published metadata file; undefined when every property already had its value (nothing committed). */
  metadataLocation: string | undefined;
}

export async function setTableProperties(
  ops: TableOperations,
  io: Pick<CommitIO, 'remove'>,
  updates: Readonly<Record<string, string>>,
  options: { table?: string; now?: () => number } = {},
): Promise<SetPropertiesResult> {
  const now = options.now ?? Date.now;
  return commitTransaction(
    ops,
    io,
    {
      prepare: (base) => {
        const current = (base.metadata.properties as Record<string, string> | undefined) ?? {};
        const changed: Record<string, string> = {};
        for (const [k, v] of Object.entries(updates)) if (current[k] !== v) changed[k] = v;
        const any = Object.keys(changed).length > 0;
        return Promise.resolve({
          updates: any ? [{ action: 'set-properties' as const, updates: changed }] : [],
          requirements: tableUuidRequirement(base.metadata),
          timestampMs: now(),
          result: (metadataLocation: string | undefined) => ({ changed, metadataLocation }),
        });
      },
    },
    options.table ? { table: options.table } : {},
  );
}
