/**
 * Commit requirements, spelled as the Iceberg REST spec's CommitTableRequest spells them: what must still
 * hold of the table for a commit prepared on a base to apply. A REST catalog checks them itself (409 when one
 * fails); for filesystem and SQL tables `checkRequirements` checks them against the base floe is about to
 * replace (whose atomic create / compare-and-swap then makes "the base is still current" true at publish).
 */
import { FloeError } from '../../util/errors.js';
import { toBigInt } from '../../util/json.js';
import type { RawMetadata } from './commit-metadata.js';

export interface AssertTableUuid {
  type: 'assert-table-uuid';
  uuid: string;
}

export interface AssertRefSnapshotId {
  type: 'assert-ref-snapshot-id';
  ref: string;
  /** null: the ref must not exist. */
  'snapshot-id': bigint | null;
}

export type TableRequirement = AssertTableUuid | AssertRefSnapshotId;

/** The snapshot a named ref points at in the metadata's `refs`, or null when there is no such ref. */
export function refSnapshotId(meta: RawMetadata, ref: string): bigint | null {
  const raw = (meta.refs as Record<string, RawMetadata> | undefined)?.[ref]?.['snapshot-id'];
  return raw === undefined || raw === null ? null : toBigInt(raw, 'snapshot-id');
}

/** The table-uuid requirement of a base (none for a v1 table written without one). */
export function tableUuidRequirement(meta: RawMetadata): AssertTableUuid[] {
  return typeof meta['table-uuid'] === 'string' ? [{ type: 'assert-table-uuid', uuid: meta['table-uuid'] }] : [];
}

/** Why `requirement` does not hold for `meta`, or undefined when it does. */
function violation(meta: RawMetadata, r: TableRequirement): string | undefined {
  switch (r.type) {
    case 'assert-table-uuid': {
      const uuid = meta['table-uuid'];
      return uuid === r.uuid ? undefined : `table uuid is ${String(uuid)}, expected ${r.uuid} (the table was replaced)`;
    }
    case 'assert-ref-snapshot-id': {
      const at = refSnapshotId(meta, r.ref);
      if (at === r['snapshot-id']) return undefined;
      const want = r['snapshot-id'] === null ? 'to be absent' : `at snapshot ${r['snapshot-id']}`;
      return `ref ${r.ref} is ${at === null ? 'absent' : `at snapshot ${at}`}, expected ${want}`;
    }
  }
}

/**
 * Throws a retryable CommitConflict naming the first requirement `meta` (read from `location`) breaks: another
 * writer changed the table since the base was read, so the action is re-run on a fresh base.
 */
export function checkRequirements(
  meta: RawMetadata,
  requirements: readonly TableRequirement[],
  location: string,
): void {
  for (const r of requirements) {
    const why = violation(meta, r);
    if (why === undefined) continue;
    throw new FloeError('CommitConflict', `${location}: requirement ${r.type} failed: ${why}`, {
      context: { file: location, requirement: r.type },
    });
  }
}
