/**
 * One maintenance job on one table, as a plain async function: the seam every host calls. `floe serve`
 * schedules it; a Temporal activity or a BullMQ processor calls it with the same spec. Specs and results
 * are plain JSON (no bigint, no class instances) so they travel through any queue or workflow history.
 *
 * The work itself is the app layer's jobs, the same ones the CLI commands run: expireTable,
 * removeTableOrphans and runCompaction; this module only builds their options from the spec, and the job
 * result is a view of each job's own result (job-result.ts).
 */
import { FloeError } from '../../util/errors.js';
import { safeEmitter, type ProgressListener } from '../core/execution/events.js';
import {
  JOB_KINDS,
  type MaintenanceJobResult,
  type MaintenanceJobSpec,
  type RunJobOptions,
  type TableAccess,
} from '../orchestration/job-types.js';
import type { CompactReport } from '../orchestration/compact-iceberg.js';
import { tableFormatOf } from './table-format.js';
import { advanceTieredState } from '../core/planning/tiered/index.js';
import { decodeTieredState, encodeTieredState, type TieredStateJson } from '../core/planning/tiered/state-json.js';
import { takeoverMessage, type JobLeaseOptions } from '../lease/job-lease.js';
import type { LeaseTakeover } from '../lease/lease.js';
import { expireTable } from './expire.js';
import { removeTableOrphans } from './remove-orphans.js';
import { compactResult, runCompaction } from './compact.js';
import { compactJobResult, maintenanceJobResult } from './job-result.js';
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
      return finish(maintenanceJobResult(report, { ...base, format }), startedAtMs);
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
      return finish(maintenanceJobResult(report, { ...base, format }), startedAtMs);
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

async function compact(
  spec: MaintenanceJobSpec,
  access: TableAccess,
  lease: JobLeaseOptions,
  opts: RunJobOptions,
): Promise<Omit<MaintenanceJobResult, 'durationMs'>> {
  const startedAtMs = Date.now();
  const warnings: string[] = [];
  const warn = (listener: ProgressListener | undefined): ProgressListener => {
    const emit = safeEmitter(listener);
    return (e) => {
      if (e.type === 'message' && e.level === 'warn') warnings.push(e.text);
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
  // the tiered state follows runs of the tiered strategy (a full run with it too), as the spec resolves it
  const next =
    run.format === 'iceberg' && icebergCompactOptions(spec.compact ?? {}).strategy === 'tiered'
      ? nextTieredState(spec.tieredState, run.report)
      : undefined;
  const tieredState = next ? encodeTieredState(next) : run.format === 'iceberg' ? spec.tieredState : undefined;
  return compactJobResult(compactResult(run), {
    table: spec.table,
    startedAtMs,
    warnings,
    ...(tieredState ? { tieredState } : {}),
  });
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
