/**
 * One maintenance job on one table, as a plain async function: the seam every host calls. `floe serve`
 * schedules it; a Temporal activity or a BullMQ processor calls it with the same spec. Specs and results
 * are plain JSON (no bigint, no class instances) so they travel through any queue or workflow history.
 *
 * The work itself is the app layer's jobs, the same ones the CLI commands run: expireTable,
 * removeTableOrphans and compactTable; this module only builds their options from the spec and summarises
 * their reports.
 */
import { FloeError } from '../../util/errors.js';
import { safeEmitter, type ProgressListener } from '../core/execution/events.js';
import {
  JOB_KINDS,
  type MaintenanceJobResult,
  type MaintenanceJobSpec,
  type PlanSummary,
  type RunJobOptions,
  type TableAccess,
} from '../orchestration/job-types.js';
import type { CompactReport } from '../orchestration/compact-iceberg.js';
import type { PaimonCompactReport } from '../orchestration/compact-paimon.js';
import { totalBytes, type MaintenanceReport } from './maintenance-report.js';
import { tableFormatOf, type TableFormat } from './table-format.js';
import { advanceTieredState } from '../core/planning/tiered/index.js';
import { decodeTieredState, encodeTieredState, type TieredStateJson } from '../core/planning/tiered/state-json.js';
import type { DecisionStep, Plan } from '../core/planning/plan.js';
import { takeoverMessage, type JobLeaseOptions } from '../lease/job-lease.js';
import type { LeaseTakeover } from '../lease/lease.js';
import { expireTable } from './expire.js';
import { removeTableOrphans } from './remove-orphans.js';
import { runCompaction } from './compact.js';
import { icebergCompactOptions } from '../orchestration/compact-spec.js';

export { JOB_KINDS } from '../orchestration/job-types.js';
export type {
  JobKind,
  TableAccess,
  CompactSpec,
  ExpireSpec,
  RemoveOrphansSpec,
  RewriteManifestsSpec,
  ExpirePartitionsSpec,
  MaintenanceJobSpec,
  MaintenanceJobResult,
  RunJobOptions,
} from '../orchestration/job-types.js';

export async function runMaintenanceJob(
  spec: MaintenanceJobSpec,
  opts: RunJobOptions = {},
): Promise<MaintenanceJobResult> {
  const startedAtMs = Date.now();
  checkAborted(spec, opts.signal);
  const access = spec.access ?? {};
  const base = { table: spec.table, job: spec.job, dryRun: !!spec.dryRun, startedAtMs };
  // a dead predecessor's lease taken over is said through the job's progress (floe serve logs it)
  const onLeaseTakeover = (t: LeaseTakeover) =>
    safeEmitter(opts.onProgress)({ type: 'message', level: 'warn', text: takeoverMessage(t) });
  // the lease is the job's own (runCompaction, expireTable, removeTableOrphans take it: src/lease/job-lease.ts)
  const lease = { onLeaseTakeover, ...(spec.lease === false ? { lease: false } : {}) };
  switch (spec.job) {
    case 'compact':
      return finish(await compact(spec, access, lease, opts), startedAtMs);
    case 'expire': {
      const format = await tableFormatOf(spec.table, access, { require: true });
      checkAborted(spec, opts.signal);
      const report = await expireTable(spec.table, {
        ...access,
        ...(spec.expire ?? {}),
        dryRun: !!spec.dryRun,
        ...lease,
      });
      return finish({ ...base, ...fromMaintenance(report, format) }, startedAtMs);
    }
    case 'remove-orphans': {
      const format = await tableFormatOf(spec.table, access, { require: true });
      checkAborted(spec, opts.signal);
      const report = await removeTableOrphans(spec.table, {
        ...access,
        ...(spec.removeOrphans ?? {}),
        dryRun: !!spec.dryRun,
        ...lease,
      });
      return finish({ ...base, ...fromMaintenance(report, format) }, startedAtMs);
    }
    default:
      throw new FloeError(
        'InvalidArgument',
        `unknown job "${String(spec.job)}" for table ${spec.table} (expected ${JOB_KINDS.join(', ')})`,
      );
  }
}

function checkAborted(spec: MaintenanceJobSpec, signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new FloeError('Transient', `${spec.job} of ${spec.table} was cancelled before it started`, {
      context: { table: spec.table, job: spec.job },
      retryable: true,
    });
  }
}

function finish(r: Omit<MaintenanceJobResult, 'durationMs'>, startedAtMs: number): MaintenanceJobResult {
  return { ...r, durationMs: Date.now() - startedAtMs };
}

function fromMaintenance(r: MaintenanceReport, format: TableFormat) {
  const expired = Array.isArray(r.details.expiredSnapshots)
    ? (r.details.expiredSnapshots as unknown[]).map(String)
    : [];
  const deleted = new Set(r.deleted);
  return {
    format,
    ok: r.failed.length === 0,
    snapshotIds: [] as string[],
    expiredSnapshotIds: expired,
    bytesRead: 0,
    bytesWritten: 0,
    bytesDeleted: totalBytes(r.dryRun ? r.candidates : r.candidates.filter((c) => deleted.has(c.location))),
    filesDeleted: r.dryRun ? r.candidates.length : r.deleted.length,
    failures: r.failed.map((f) => `${f.location}: ${f.error}`),
    warnings: r.warnings,
  };
}

async function compact(
  spec: MaintenanceJobSpec,
  access: TableAccess,
  lease: JobLeaseOptions,
  opts: RunJobOptions,
): Promise<Omit<MaintenanceJobResult, 'durationMs'>> {
  const startedAtMs = Date.now();
  const base = {
    table: spec.table,
    job: 'compact' as const,
    dryRun: !!spec.dryRun,
    startedAtMs,
    expiredSnapshotIds: [],
    bytesDeleted: 0,
    filesDeleted: 0,
    warnings: [] as string[],
  };
  const warn = (listener: ProgressListener | undefined): ProgressListener => {
    const emit = safeEmitter(listener);
    return (e) => {
      if (e.type === 'message' && e.level === 'warn') base.warnings.push(e.text);
      emit(e);
    };
  };
  const format = await tableFormatOf(spec.table, access);
  // the spec as it is: resolveCompactSpec (src/orchestration/compact-spec.ts) gives its defaults and folds
  const run = await runCompaction(spec.table, {
    ...access,
    ...lease,
    ...(spec.compact ?? {}),
    format,
    dryRun: !!spec.dryRun,
    options: { ...(spec.properties ?? {}) },
    // `tieredState` feeds the planner's time triggers; `signal` is the service's wall-clock limit and shutdown
    ...(format === 'iceberg' && spec.tieredState ? { tieredState: spec.tieredState } : {}),
    onProgress: warn(opts.onProgress),
    ...(opts.signal ? { signal: opts.signal } : {}),
    beforeRun: () => checkAborted(spec, opts.signal),
  });
  if (run.format === 'paimon') {
    const r: PaimonCompactReport = run.report;
    return {
      ...base,
      format: 'paimon',
      ok: true,
      snapshotIds: r.snapshotId ? [r.snapshotId] : [],
      bytesRead: r.bytesRead,
      bytesWritten: r.bytesWritten,
      // a run that committed nothing leaves the table as it was
      filesBefore: r.before.files,
      ...(r.after ? { filesAfter: r.after.files } : r.dryRun ? {} : { filesAfter: r.before.files }),
      bytesBefore: r.before.bytes,
      ...(r.after ? { bytesAfter: r.after.bytes } : r.dryRun ? {} : { bytesAfter: r.before.bytes }),
      // (the Paimon report does not count deletion vectors, so no delete-file numbers here)
      rowsIn: r.rowsIn,
      rowsOut: r.rowsOut,
      plan: paimonPlanSummary(r),
      failures: [],
    };
  }
  const r: CompactReport = run.report;
  // the tiered state follows runs of the tiered strategy (a full run with it too), as the spec resolves it
  const next =
    icebergCompactOptions(spec.compact ?? {}).strategy === 'tiered' ? nextTieredState(spec.tieredState, r) : undefined;
  return {
    ...base,
    format: 'iceberg',
    ok: r.failedTasks.length === 0,
    snapshotIds: r.snapshots,
    bytesRead: r.bytesRead,
    bytesWritten: r.bytesWritten,
    filesBefore: r.before.dataFiles,
    ...(r.after ? { filesAfter: r.after.dataFiles } : r.dryRun ? {} : { filesAfter: r.before.dataFiles }),
    bytesBefore: r.before.dataBytes,
    deleteFilesBefore: r.before.deleteFiles,
    ...(r.after
      ? { bytesAfter: r.after.dataBytes, deleteFilesAfter: r.after.deleteFiles }
      : r.dryRun
        ? {}
        : { bytesAfter: r.before.dataBytes, deleteFilesAfter: r.before.deleteFiles }),
    rowsIn: r.rowsIn,
    rowsOut: r.rowsOut,
    plan: icebergPlanSummary(r.plan),
    failures: r.failedTasks.map((f) => `${f.id}: ${f.reason}`),
    ...(next ? { tieredState: encodeTieredState(next) } : spec.tieredState ? { tieredState: spec.tieredState } : {}),
  };
}

const stepJson = (d: DecisionStep) => ({ gate: d.gate, detail: d.detail, outcome: d.outcome });
const partitionText = (p: readonly unknown[]) =>
  p.length === 0
    ? '(unpartitioned)'
    : p.map((x) => (typeof x === 'bigint' ? x.toString() : (JSON.stringify(x) ?? 'null'))).join(', ');

export function icebergPlanSummary(plan: Plan): PlanSummary {
  return {
    planner: plan.planner,
    tasks: plan.tasks.length,
    inputFiles: plan.tasks.reduce((n, t) => n + t.inputs.length, 0),
    inputBytes: plan.tasks.reduce((n, t) => n + t.inputBytes, 0),
    trail: plan.trail.map(stepJson),
    taskList: plan.tasks.slice(0, 50).map((t) => ({
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

function paimonPlanSummary(r: PaimonCompactReport): PlanSummary {
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
    taskList: picked.slice(0, 50).map((b) => ({
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

/** Stamps the partitions whose tasks committed; a dry run or a plan that committed nothing leaves the state. */
function nextTieredState(prev: TieredStateJson | undefined, r: CompactReport) {
  if (r.dryRun || r.committedTasks.length === 0) return undefined;
  const committed = new Set(r.committedTasks);
  return advanceTieredState(prev ? decodeTieredState(prev) : undefined, {
    ...r.plan,
    tasks: r.plan.tasks.filter((t) => committed.has(t.id)),
  });
}
