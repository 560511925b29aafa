/**
 * Run records for commits whose process died before it could record them (SIGKILL, OOM, a node drain
 * between the commit and the history write). At start, each table's snapshots that carry floe's commit
 * identity (Iceberg: `floe.commit-id` in the summary; Paimon: floe's `commitUser`; src/app/floe-snapshots.ts)
 * and were committed since the service first saw the table are compared with the snapshot ids of the
 * recorded runs; each one the state database does not know gets a run row: outcome `ok`, reason
 * `reconstructed`, the times and counts the snapshot gives.
 * A table that cannot be opened is skipped (and logged): reconciling never stops the service starting.
 */
import { floeSnapshotsSince, type FloeSnapshot } from '../../app/floe-snapshots.js';
import type { TableConfig } from './config.js';
import type { DbStateStore, RunRecord } from './state-db.js';
import type { TableState } from './state.js';

export const RECONSTRUCTED_REASON = 'reconstructed';

export interface ReconcileTable {
  cfg: TableConfig;
  state: TableState;
}

type Log = (level: 'info' | 'warn', event: string, fields: Record<string, unknown>) => void;

const count = (summary: Record<string, string>, k: string): number | undefined => {
  const v = summary[k];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
};

/** The run row a floe snapshot stands for. */
function reconstructedRun(table: string, s: FloeSnapshot): RunRecord {
  const rec: RunRecord = {
    table,
    job: 'compact',
    reason: RECONSTRUCTED_REASON,
    dryRun: false,
    startedAtMs: s.timestampMs,
    finishedAtMs: s.timestampMs,
    durationMs: 0,
    outcome: 'ok',
    format: s.format,
    snapshotIds: [s.snapshotId],
    warnings: [
      `reconstructed at start from snapshot ${s.snapshotId} (${s.identity}): the process that committed it ended before recording its run`,
    ],
  };
  // Iceberg summaries count files; a Paimon snapshot states only records (no file counts without its manifests)
  const { summary } = s;
  const removed = count(summary, 'deleted-data-files');
  const added = count(summary, 'added-data-files');
  const total = count(summary, 'total-data-files');
  if (total !== undefined) {
    rec.filesAfter = total;
    if (removed !== undefined && added !== undefined) rec.filesBefore = total - added + removed;
  }
  const bytesAdded = count(summary, 'added-files-size');
  if (bytesAdded !== undefined) rec.bytesWritten = bytesAdded;
  return rec;
}

/** Records the missing runs of `tables`; returns how many rows were added. */
export async function reconcileRuns(
  db: DbStateStore,
  tables: readonly ReconcileTable[],
  log: Log,
  startedAtMs: number,
): Promise<number> {
  let added = 0;
  for (const { cfg, state } of tables) {
    const firstSeen = Math.min(...Object.values(state.jobs).map((j) => j?.firstSeenMs ?? Infinity));
    // first seen by this start: no earlier process of the service can have committed to it
    if (!Number.isFinite(firstSeen) || firstSeen >= startedAtMs) continue;
    let ours: FloeSnapshot[];
    try {
      ours = await floeSnapshotsSince(cfg.table, cfg.access ?? {}, firstSeen, cfg.format);
    } catch (e) {
      // unreachable now, or not a table (yet): nothing to add
      log('info', 'reconcile-skipped', { table: cfg.name, reason: e instanceof Error ? e.message : String(e) });
      continue;
    }
    if (ours.length === 0) continue;
    const known = await db.recordedSnapshotIds(cfg.name);
    for (const s of ours) {
      const id = s.snapshotId;
      if (known.has(id)) continue;
      await db.recordRun(reconstructedRun(cfg.name, s));
      added++;
      log('warn', 'run-reconstructed', {
        table: cfg.name,
        format: s.format,
        snapshotId: id,
        committedAt: new Date(s.timestampMs).toISOString(),
      });
    }
  }
  return added;
}
