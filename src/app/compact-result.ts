/**
 * The compaction result, the same fields for Iceberg and Paimon (schema/floe-result.schema.json
 * `compact`): table statistics before/after, committed snapshot ids, and every planned task with its
 * outcome — committed, failed or skipped (with the reason), or planned in a dry run.
 */
import type { CompactReport } from '../orchestration/compact-iceberg.js';
import type { PaimonBucketReport, PaimonCompactReport } from '../orchestration/compact-paimon.js';
import type { DecisionStep, RewriteTask } from '../core/planning/plan.js';
import { EXIT, exitCodeForOutcome, type ExitCode } from './exit-codes.js';

export type TaskOutcome = 'planned' | 'committed' | 'failed' | 'skipped';

export interface CompactTaskResult {
  id: string;
  kind: string;
  outcome: TaskOutcome;
  reason?: string;
  partition: unknown[];
  bucket?: number;
  inputFiles: number;
  inputBytes: number;
  /** The snapshot that committed it, when the job says (decimal string). */
  snapshotId?: string;
}

export interface CompactStatsResult {
  dataFiles: number;
  dataBytes: number;
  deleteFiles: number;
  records: number;
}

/** Iceberg: the plan the run made, files by path (`plan` of the compact document). */
export interface CompactResultPlan {
  planner: string;
  tasks: (Pick<RewriteTask, 'id' | 'kind' | 'partition' | 'inputBytes' | 'targetFileSizeBytes' | 'trail'> & {
    inputs: string[];
    deletes: string[];
    removableDeletes: string[];
  })[];
  removableDeletes: string[];
  trail: DecisionStep[];
}

/** Paimon: the table's kind and every bucket the picker looked at (`paimon` of the compact document). */
export interface CompactResultPaimon {
  tableKind: PaimonCompactReport['tableKind'];
  mergeEngine?: string;
  full: boolean;
  commitAttempts?: number;
  where?: string;
  sort?: PaimonCompactReport['sort'];
  buckets: PaimonBucketReport[];
}

/**
 * The one result of a compaction, whichever format and driver ran it: the CLI renders it, compactJobResult
 * (job-result.ts) makes the service's and the bindings' MaintenanceJobResult of it.
 */
export interface CompactResult {
  format: 'iceberg' | 'paimon';
  table: string;
  dryRun: boolean;
  baseSnapshotId: string | null;
  /** Snapshots this run committed, oldest first (empty in a dry run or when nothing was done). */
  snapshots: string[];
  tasks: CompactTaskResult[];
  committedTasks: string[];
  failedTasks: { id: string; reason: string }[];
  skippedTasks: { id: string; reason: string }[];
  before: CompactStatsResult;
  after: CompactStatsResult | null;
  bytesRead: number;
  bytesWritten: number;
  rowsIn: number;
  rowsOut: number;
  durationMs: number;
  /** Delete files no live data file needs, dropped (or that would be dropped in a dry run). */
  danglingDeletes: string[];
  /** Iceberg: the plan. */
  plan?: CompactResultPlan;
  /** Paimon: the table kind and buckets. */
  paimon?: CompactResultPaimon;
  [formatSpecific: string]: unknown;
}

/** Outcomes the orchestration may report beyond committed/failed (issue 13.19); read defensively. */
interface TaskOutcomeLike {
  id: string;
  outcome?: string;
  status?: string;
  reason?: string;
  snapshotId?: string;
}

function reportedOutcomes(r: object): Map<string, TaskOutcomeLike> {
  const out = new Map<string, TaskOutcomeLike>();
  const x = r as {
    skippedTasks?: { id: string; reason: string }[];
    taskOutcomes?: TaskOutcomeLike[];
    tasks?: TaskOutcomeLike[];
  };
  for (const t of x.skippedTasks ?? []) out.set(t.id, { id: t.id, outcome: 'skipped', reason: t.reason });
  for (const t of x.taskOutcomes ?? x.tasks ?? []) if (t && typeof t.id === 'string') out.set(t.id, t);
  return out;
}

export function icebergCompactResult(r: CompactReport, _metadataFormatVersion?: number): CompactResult {
  const committed = new Set(r.committedTasks);
  const failed = new Map(r.failedTasks.map((f) => [f.id, f.reason]));
  const reported = reportedOutcomes(r);
  const tasks: CompactTaskResult[] = r.plan.tasks.map((t) => {
    const base = {
      id: t.id,
      kind: t.kind,
      partition: t.partition,
      inputFiles: t.inputs.length,
      inputBytes: t.inputBytes,
    };
    if (r.dryRun) return { ...base, outcome: 'planned' as const };
    const rep = reported.get(t.id);
    if (failed.has(t.id)) return { ...base, outcome: 'failed' as const, reason: failed.get(t.id)! };
    if (committed.has(t.id))
      return { ...base, outcome: 'committed' as const, ...(rep?.snapshotId ? { snapshotId: rep.snapshotId } : {}) };
    const said = rep?.outcome ?? rep?.status;
    if (said === 'committed')
      return { ...base, outcome: 'committed' as const, ...(rep?.snapshotId ? { snapshotId: rep.snapshotId } : {}) };
    if (said === 'failed') return { ...base, outcome: 'failed' as const, reason: rep?.reason ?? 'failed' };
    // (v3 eq→pos is no longer skipped: it writes deletion vectors, issue 14.2)
    const reason = rep?.reason ?? 'not committed (the job reported no outcome for this task)';
    return { ...base, outcome: 'skipped' as const, reason };
  });
  return {
    format: 'iceberg',
    table: r.table,
    dryRun: r.dryRun,
    baseSnapshotId: r.baseSnapshotId ?? null,
    snapshots: r.snapshots,
    tasks,
    committedTasks: tasks.filter((t) => t.outcome === 'committed').map((t) => t.id),
    failedTasks: tasks.filter((t) => t.outcome === 'failed').map((t) => ({ id: t.id, reason: t.reason ?? 'failed' })),
    skippedTasks: tasks
      .filter((t) => t.outcome === 'skipped')
      .map((t) => ({ id: t.id, reason: t.reason ?? 'skipped' })),
    before: {
      dataFiles: r.before.dataFiles,
      dataBytes: r.before.dataBytes,
      deleteFiles: r.before.deleteFiles,
      records: r.before.records,
    },
    after: r.after
      ? {
          dataFiles: r.after.dataFiles,
          dataBytes: r.after.dataBytes,
          deleteFiles: r.after.deleteFiles,
          records: r.after.records,
        }
      : null,
    bytesRead: r.bytesRead,
    bytesWritten: r.bytesWritten,
    rowsIn: r.rowsIn,
    rowsOut: r.rowsOut,
    durationMs: r.durationMs,
    danglingDeletes: r.danglingDeletes,
    ...(r.carriedDeletes ? { carriedDeletes: r.carriedDeletes } : {}),
    ...(r.replans ? { replans: r.replans } : {}),
    ...(r.cancelled ? { cancelled: r.cancelled } : {}),
    ...(r.deleteCleanup ? { deleteCleanup: r.deleteCleanup } : {}),
    plan: {
      planner: r.plan.planner,
      tasks: r.plan.tasks.map((t) => ({
        id: t.id,
        kind: t.kind,
        partition: t.partition,
        inputs: t.inputs.map((f) => f.path),
        inputBytes: t.inputBytes,
        deletes: t.deletes.map((d) => d.path),
        removableDeletes: t.removableDeletes.map((d) => d.path),
        targetFileSizeBytes: t.targetFileSizeBytes,
        trail: t.trail,
      })),
      removableDeletes: r.plan.removableDeletes.map((d) => d.path),
      trail: r.plan.trail,
    },
  };
}

export function paimonCompactResult(r: PaimonCompactReport): CompactResult {
  const committedSnapshot = r.snapshotId !== undefined && !r.dryRun;
  const tasks: CompactTaskResult[] = r.buckets
    .filter((b) => b.compact)
    .map((b) => ({
      id: `bucket-${b.bucket}${b.partition.length ? `@${JSON.stringify(b.partition, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}` : ''}`,
      kind: r.tableKind === 'primary-key' ? 'merge' : r.sort ? 'sort' : 'append-rewrite',
      outcome: r.dryRun ? ('planned' as const) : committedSnapshot ? ('committed' as const) : ('skipped' as const),
      ...(!r.dryRun && !committedSnapshot ? { reason: 'no snapshot was committed' } : {}),
      partition: b.partition,
      bucket: b.bucket,
      inputFiles: b.filesBefore.length,
      inputBytes: b.runs.reduce((n, x) => n + x.bytes, 0),
    }));
  const stats = (s: { files: number; bytes: number; records: number }): CompactStatsResult => ({
    dataFiles: s.files,
    dataBytes: s.bytes,
    deleteFiles: 0,
    records: s.records,
  });
  const { buckets, tableKind, mergeEngine, full, commitAttempts } = r;
  return {
    format: 'paimon',
    table: r.table,
    dryRun: r.dryRun,
    baseSnapshotId: r.baseSnapshotId ?? null,
    snapshots: committedSnapshot ? [r.snapshotId!] : [],
    tasks,
    committedTasks: tasks.filter((t) => t.outcome === 'committed').map((t) => t.id),
    failedTasks: [],
    skippedTasks: tasks
      .filter((t) => t.outcome === 'skipped')
      .map((t) => ({ id: t.id, reason: t.reason ?? 'skipped' })),
    before: stats(r.before),
    after: r.after ? stats(r.after) : null,
    bytesRead: r.bytesRead,
    bytesWritten: r.bytesWritten,
    rowsIn: r.rowsIn,
    rowsOut: r.rowsOut,
    durationMs: r.durationMs,
    danglingDeletes: [],
    ...(r.carriedDeletes ? { carriedDeletes: r.carriedDeletes } : {}),
    ...(r.replans ? { replans: r.replans } : {}),
    paimon: {
      tableKind,
      ...(mergeEngine ? { mergeEngine } : {}),
      full,
      ...(commitAttempts !== undefined ? { commitAttempts } : {}),
      ...(r.where !== undefined ? { where: r.where } : {}),
      ...(r.sort ? { sort: r.sort } : {}), // [sort] Paimon sort compaction: strategy, order_strategy, order
      buckets,
    },
  };
}

/** 0, or 3/1 when tasks failed (3 only when a snapshot was committed). */
export function compactExitCode(r: CompactResult): ExitCode {
  if (r.failedTasks.length === 0) return EXIT.ok;
  return exitCodeForOutcome(r.failedTasks.length, r.snapshots.length > 0);
}

/** The per-task outcome lines of the text output. */
export function renderTaskOutcomes(r: CompactResult): string[] {
  if (r.dryRun) return [];
  const lines: string[] = [];
  for (const t of r.tasks) {
    if (t.outcome === 'committed') continue;
    lines.push(`  ${t.outcome.toUpperCase()} ${t.id}: ${t.reason ?? ''}`.trimEnd());
  }
  const n = (o: TaskOutcome) => r.tasks.filter((t) => t.outcome === o).length;
  if (r.tasks.length)
    lines.push(`  tasks: ${n('committed')} committed, ${n('failed')} failed, ${n('skipped')} skipped`);
  return lines;
}
