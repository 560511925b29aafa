/**
 * Re-planning what a concurrent commit invalidated (issue 22.2, Iceberg): a group whose commit validation
 * failed — a replaced file removed meanwhile, or a concurrent position delete / DV that cannot be carried
 * over (an eq→pos task's new DV, outputs that do not map their rows) — is planned again on the newest
 * snapshot, only in the partitions of those groups, a bounded number of times (DEFAULT_ICEBERG_REPLANS).
 * The groups still racing after that are reported failed, their reasons naming the files, with the count.
 *
 * Each round is a full compactIceberg run (its own commits, retries and carry-over); the rounds' reports
 * are merged into one: the re-planned tasks' ids get a `replan-N:` prefix, and a raced task whose
 * partition a later round settled is reported skipped (re-planned), not failed.
 */
import { parseMetadata } from '../../connectors/iceberg/metadata.js';
import type { IcebergTable } from '../../connectors/iceberg/table.js';
import type { CommitIO, TableOperations } from '../../connectors/iceberg/transaction.js';
import { isFloeError } from '../../util/errors.js';
import { partitionKey } from '../../model/index.js';
import { compactIceberg, type CompactOptions, type CompactReport } from './compact-iceberg.js';

/** Re-plans of the groups a concurrent commit invalidated (compactIcebergReplanning). */
export const DEFAULT_ICEBERG_REPLANS = 3;

export interface ReplanOptions {
  /** Re-plans after validation failures (default DEFAULT_ICEBERG_REPLANS; 0: report them at once). */
  maxReplans?: number;
}

export async function compactIcebergReplanning(
  table: IcebergTable,
  out: CommitIO,
  ops: TableOperations,
  opts: CompactOptions & ReplanOptions = {},
): Promise<CompactReport> {
  const { maxReplans, ...copts } = opts;
  const report = await compactIceberg(table, out, ops, copts);
  const max = copts.dryRun ? 0 : (maxReplans ?? DEFAULT_ICEBERG_REPLANS);
  let raced = racedOf(report);
  let n = 0;
  let stopped = false;
  while (raced.length && n < max && !report.cancelled) {
    n++;
    const partitions = new Set(raced.map((f) => taskPartition(report, f.id)).filter((k): k is string => !!k));
    if (!partitions.size) break;
    const now = await ops.refresh();
    const fresh: IcebergTable = {
      ...table,
      metadata: parseMetadata(now.metadata, now.location),
      metadataLocation: now.location,
    };
    let again: CompactReport;
    try {
      again = await compactIceberg(fresh, out, ops, { ...copts, onlyPartitions: partitions });
    } catch (e) {
      // the earlier rounds' commits stand: the raced tasks stay failed, saying why the re-plan stopped
      if (!isFloeError(e)) throw e;
      for (const f of raced) f.reason = `${f.reason}; re-planning it failed: ${e.message}`;
      n--;
      stopped = true;
      break;
    }
    raced = mergeRound(report, again, raced, `replan-${n}:`);
  }
  if (n > 0) report.replans = n;
  if (raced.length && (n > 0 || stopped)) {
    const still = new Map(raced.map((f) => [f.id, f]));
    if (!stopped)
      for (const f of raced) f.reason = `${f.reason} (re-planned ${n} time${n > 1 ? 's' : ''}, each time raced)`;
    for (const t of report.tasks) if (still.has(t.id)) t.reason = still.get(t.id)!.reason;
  }
  delete report.racedTasks;
  return report;
}

/** The failed tasks of `r` that a concurrent commit invalidated. */
function racedOf(r: CompactReport): { id: string; reason: string }[] {
  const raced = new Set(r.racedTasks ?? []);
  return r.failedTasks.filter((f) => raced.has(f.id));
}

function taskPartition(r: CompactReport, id: string): string | undefined {
  const t = r.plan.tasks.find((x) => x.id === id);
  return t ? partitionKey(t.specId, t.partition) : undefined;
}

/**
 * Folds a re-plan round into `report`: its tasks (ids prefixed), commits and counters; the raced tasks it
 * re-planned become skipped. Returns the round's own raced tasks (prefixed ids) for the next round.
 */
function mergeRound(
  report: CompactReport,
  again: CompactReport,
  raced: readonly { id: string; reason: string }[],
  prefix: string,
): { id: string; reason: string }[] {
  const p = (id: string) => prefix + id;
  const ids = new Set(raced.map((f) => f.id));
  const replannedAs = again.plan.tasks.map((t) => p(t.id));
  const why = (reason: string) =>
    `${reason}; re-planned on the newest snapshot${replannedAs.length ? ` as ${replannedAs.join(', ')}` : ' (nothing left to do)'}`;
  report.failedTasks = report.failedTasks.filter((f) => !ids.has(f.id));
  for (const f of raced) report.skippedTasks.push({ id: f.id, reason: why(f.reason) });
  for (const t of report.tasks)
    if (ids.has(t.id)) Object.assign(t, { outcome: 'skipped' as const, reason: why(t.reason ?? 'raced') });
  report.plan = {
    ...report.plan,
    tasks: [...report.plan.tasks, ...again.plan.tasks.map((t) => ({ ...t, id: p(t.id) }))],
  };
  report.snapshots.push(...again.snapshots);
  report.committedTasks.push(...again.committedTasks.map(p));
  report.failedTasks.push(...again.failedTasks.map((f) => ({ ...f, id: p(f.id) })));
  report.skippedTasks.push(...again.skippedTasks.map((f) => ({ ...f, id: p(f.id) })));
  report.tasks.push(...again.tasks.map((t) => ({ ...t, id: p(t.id) })));
  report.danglingDeletes = [...new Set([...report.danglingDeletes, ...again.danglingDeletes])];
  report.bytesRead += again.bytesRead;
  report.bytesWritten += again.bytesWritten;
  report.rowsIn += again.rowsIn;
  report.rowsOut += again.rowsOut;
  report.durationMs += again.durationMs;
  if (again.after) report.after = again.after;
  if (again.carriedDeletes) report.carriedDeletes = (report.carriedDeletes ?? 0) + again.carriedDeletes;
  if (again.cancelled) report.cancelled = again.cancelled;
  report.racedTasks = (again.racedTasks ?? []).map(p);
  return racedOf(report);
}
