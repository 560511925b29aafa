/**
 * MaintenanceJobResult — what `floe serve` stores and the BullMQ/Temporal bindings return — as a view of
 * each job's one result: a compaction's CompactResult (compact-result.ts; for an engine run, the same fields
 * from the seam's commit outcome), an expiry's or orphan removal's MaintenanceReport. One mapping per job,
 * so the service and the bindings say what the CLI's `--json` document says.
 */
import type { MaintenanceJobResult, PlanSummary } from '../orchestration/job-types.js';
import type { CommitOutcome, GroupOutput, PlanRef } from '../distributed/seam.js';
import type { FloeRunResult } from '../distributed/run-support.js';
import type { TieredStateJson } from '../core/planning/tiered/state-json.js';
import type { DecisionStep } from '../core/planning/plan.js';
import type { CompactResultPlan, CompactResult, CompactResultPaimon } from './compact-result.js';
import { totalBytes, type MaintenanceReport } from './maintenance-report.js';
import type { TableFormat } from './table-format.js';

/** The fields of a compaction's result the job view reads (an engine run has no plan or buckets). */
export type CompactResultFields = Pick<
  CompactResult,
  | 'format'
  | 'dryRun'
  | 'snapshots'
  | 'failedTasks'
  | 'before'
  | 'after'
  | 'bytesRead'
  | 'bytesWritten'
  | 'rowsIn'
  | 'rowsOut'
> &
  Partial<Pick<CompactResult, 'plan' | 'paimon'>>;

export interface CompactJobContext {
  /** The table as the job spec names it (the result's own `table` is where it was opened). */
  table: string;
  startedAtMs: number;
  warnings: string[];
  /** Files the run removed (an engine run's uncommitted attempts); 0 in process. */
  filesDeleted?: number;
  /** The tiered planner state the next run starts from. */
  tieredState?: TieredStateJson;
}

/** A compaction's job result, without its duration (the caller times the whole job). */
export function compactJobResult(
  r: CompactResultFields,
  ctx: CompactJobContext,
): Omit<MaintenanceJobResult, 'durationMs'> {
  // a run that committed nothing leaves the table as it was
  const after = r.after ?? (r.dryRun ? undefined : r.before);
  // the Paimon report does not count deletion vectors, so Paimon results have no delete-file numbers
  const deletes = r.format === 'iceberg';
  const plan = r.plan ? icebergPlanSummary(r.plan) : r.paimon ? paimonPlanSummary(r.paimon) : undefined;
  return {
    table: ctx.table,
    job: 'compact',
    dryRun: r.dryRun,
    startedAtMs: ctx.startedAtMs,
    expiredSnapshotIds: [],
    bytesDeleted: 0,
    filesDeleted: ctx.filesDeleted ?? 0,
    warnings: ctx.warnings,
    format: r.format,
    ok: r.failedTasks.length === 0,
    snapshotIds: r.snapshots,
    bytesRead: r.bytesRead,
    bytesWritten: r.bytesWritten,
    filesBefore: r.before.dataFiles,
    ...(after ? { filesAfter: after.dataFiles } : {}),
    bytesBefore: r.before.dataBytes,
    ...(deletes ? { deleteFilesBefore: r.before.deleteFiles } : {}),
    ...(after ? { bytesAfter: after.dataBytes } : {}),
    ...(after && deletes ? { deleteFilesAfter: after.deleteFiles } : {}),
    rowsIn: r.rowsIn,
    rowsOut: r.rowsOut,
    ...(plan ? { plan } : {}),
    failures: r.failedTasks.map((f) => `${f.id}: ${f.reason}`),
    ...(ctx.tieredState ? { tieredState: ctx.tieredState } : {}),
  };
}

/** An engine run's result fields, from its commit step's outcome and the rewrite steps' outputs. */
export function seamCompactResult(
  ref: PlanRef,
  outcome: CommitOutcome,
  outputs: readonly GroupOutput[],
): CompactResultFields {
  const sum = (f: (g: GroupOutput) => number) => outputs.reduce((n, g) => n + f(g), 0);
  return {
    format: ref.format,
    dryRun: false,
    snapshots: outcome.snapshotId ? [outcome.snapshotId] : [],
    failedTasks: outcome.failedTasks,
    before: outcome.before,
    after: outcome.after ?? null,
    bytesRead: sum((g) => g.bytesRead),
    bytesWritten: sum((g) => g.bytesWritten),
    rowsIn: sum((g) => g.rowsIn),
    rowsOut: sum((g) => g.rowsOut),
  };
}

/** The job result of a distributed compaction run (what the BullMQ and Temporal commit steps return). */
export function compactionRunResult(
  ref: PlanRef,
  startedAtMs: number,
  outcome: CommitOutcome,
  outputs: readonly GroupOutput[],
): FloeRunResult {
  const warnings = outcome.alreadyCommitted
    ? [`run ${ref.runId} was already committed (snapshot ${outcome.snapshotId}); nothing was committed again`]
    : [];
  const r = compactJobResult(seamCompactResult(ref, outcome, outputs), {
    table: ref.spec.table,
    startedAtMs,
    warnings,
    filesDeleted: outcome.removedFiles.length,
  });
  return { runId: ref.runId, ...r, durationMs: Date.now() - startedAtMs };
}

/** An expiry's or orphan removal's job result, without its duration. */
export function maintenanceJobResult(
  r: MaintenanceReport,
  ctx: Pick<MaintenanceJobResult, 'table' | 'job' | 'dryRun' | 'startedAtMs'> & { format: TableFormat },
): Omit<MaintenanceJobResult, 'durationMs'> {
  const expired = Array.isArray(r.details.expiredSnapshots)
    ? (r.details.expiredSnapshots as unknown[]).map(String)
    : [];
  const deleted = new Set(r.deleted);
  return {
    table: ctx.table,
    job: ctx.job,
    dryRun: ctx.dryRun,
    startedAtMs: ctx.startedAtMs,
    format: ctx.format,
    ok: r.failed.length === 0,
    snapshotIds: [],
    expiredSnapshotIds: expired,
    bytesRead: 0,
    bytesWritten: 0,
    bytesDeleted: totalBytes(r.dryRun ? r.candidates : r.candidates.filter((c) => deleted.has(c.location))),
    filesDeleted: r.dryRun ? r.candidates.length : r.deleted.length,
    failures: r.failed.map((f) => `${f.location}: ${f.error}`),
    warnings: r.warnings,
  };
}

const stepJson = (d: DecisionStep) => ({ gate: d.gate, detail: d.detail, outcome: d.outcome });
const partitionText = (p: readonly unknown[]) =>
  p.length === 0
    ? '(unpartitioned)'
    : p.map((x) => (typeof x === 'bigint' ? x.toString() : (JSON.stringify(x) ?? 'null'))).join(', ');

/** At most this many tasks are listed (`tasks` has the full count). */
const LISTED_TASKS = 50;

function icebergPlanSummary(plan: CompactResultPlan): PlanSummary {
  return {
    planner: plan.planner,
    tasks: plan.tasks.length,
    inputFiles: plan.tasks.reduce((n, t) => n + t.inputs.length, 0),
    inputBytes: plan.tasks.reduce((n, t) => n + t.inputBytes, 0),
    trail: plan.trail.map(stepJson),
    taskList: plan.tasks.slice(0, LISTED_TASKS).map((t) => ({
      id: t.id,
      kind: t.kind,
      partition: partitionText(t.partition),
      inputFiles: t.inputs.length,
      inputBytes: t.inputBytes,
      deletes: t.deletes.length,
      trail: t.trail.map(stepJson),
    })),
  };
}

function paimonPlanSummary(r: CompactResultPaimon): PlanSummary {
  const picked = r.buckets.filter((b) => b.compact);
  return {
    planner: 'paimon-lsm',
    tasks: picked.length,
    inputFiles: picked.reduce((n, b) => n + b.filesBefore.length, 0),
    inputBytes: picked.reduce((n, b) => n + b.runs.reduce((m, run) => m + run.bytes, 0), 0),
    trail: r.buckets
      .filter((b) => !b.compact)
      .slice(0, 20)
      .flatMap((b) =>
        b.decision.slice(-1).map((d) => ({
          ...stepJson(d),
          detail: `partition ${partitionText(b.partition)} bucket ${b.bucket}: ${d.detail}`,
        })),
      ),
    taskList: picked.slice(0, LISTED_TASKS).map((b) => ({
      id: `bucket-${partitionText(b.partition)}-${b.bucket}`,
      kind: b.outputLevel === undefined ? 'compact' : `to level ${b.outputLevel}`,
      partition: partitionText(b.partition),
      inputFiles: b.filesBefore.length,
      inputBytes: b.runs.reduce((m, run) => m + run.bytes, 0),
      deletes: 0,
      trail: [...b.decision, ...b.steps].map(stepJson),
    })),
  };
}
