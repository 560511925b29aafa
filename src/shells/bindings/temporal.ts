/**
 * floe on Temporal (`import { … } from 'floe/temporal'`): Temporal does the distribution, retries, timeouts
 * and scheduling; floe does the table work through the distributed seam (src/distributed/seam.ts).
 *
 * - Activities: floePlan (takes the table lease, stores the plan), floeRewriteGroup (one group; heartbeats
 *   carry its progress; a Temporal cancellation aborts it between row groups and removes what it wrote),
 *   floeCommit (one atomic commit, idempotent by run id, retried), floeMaintain (expire, remove-orphans,
 *   rewrite-manifests and dry runs as one job through runMaintenanceJob; a compaction of either format is
 *   planned, rewritten per task and committed), floeAbandon
 *   (cleanup of a cancelled or failed run).
 * - The workflow `maintainTable` lives in its own module (temporal-workflow.ts, deterministic); bundle it
 *   once with `workflowBundle()` or hand `workflowsPath` to Worker.create.
 * - `upsertTableSchedule` creates (or updates) one Schedule per table with overlap policy SKIP.
 *
 * @temporalio/{client,worker,workflow,activity} are optional peer dependencies: install them to use this.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleSpec,
  type WorkflowHandle,
} from '@temporalio/client';
import { bundleWorkflowCode, Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { isFloeError } from '../../../util/errors.js';
import type { ProgressEvent } from '../../core/execution/events.js';
import type { MaintenanceJobSpec } from '../../orchestration/job-types.js';
import { runMaintenanceJob } from '../../app/maintenance-job.js';
import {
  abandonCompaction,
  commitCompaction,
  discardGroupOutput,
  planCompaction,
  rewriteGroup,
  type CommitOutcome,
  type GroupOutput,
  type PlanRef,
} from '../../distributed/seam.js';
import { adoptTableLease } from '../../lease/lease.js';
import {
  DEFAULT_RUN_LEASE_TTL_MS,
  leaseTarget,
  takeRunLease,
  withRunLease,
  type FloeRunResult,
} from '../../distributed/run-support.js';
import { compactionRunResult } from '../../app/job-result.js';
import type { MaintainTableInput, MaintainTableProgress } from './temporal-workflow.js';

export type { MaintainTableInput, MaintainTableProgress, MaintainTablePhase } from './temporal-workflow.js';
export type { FloeRunResult } from '../../distributed/run-support.js';

/** Whether a run holds the table lease, and for how long each renewal keeps it. */
export interface RunLeaseRef {
  enabled: boolean;
  ttlMs: number;
}

export interface FloePlanInput {
  spec: MaintenanceJobSpec;
  runId: string;
  /** Lease holder name (default `temporal:<runId>`). */
  holder?: string;
  leaseTtlMs?: number;
}
/** A planned compaction (`flow`, Iceberg or Paimon), or a job the workflow runs as one floeMaintain activity (`single`). */
export type FloePlanOutput = { kind: 'flow'; ref: PlanRef; lease: RunLeaseRef } | { kind: 'single' };

export interface FloeRewriteInput {
  ref: PlanRef;
  taskId: string;
  lease: RunLeaseRef;
}
export interface FloeCommitInput {
  ref: PlanRef;
  outputs: GroupOutput[];
  partialProgress: boolean;
  startedAtMs: number;
  lease: RunLeaseRef;
}
export interface FloeAbandonInput {
  ref: PlanRef;
  lease: RunLeaseRef;
}
export interface FloeMaintainInput {
  spec: MaintenanceJobSpec;
  runId: string;
}

export interface FloeActivities {
  floePlan(input: FloePlanInput): Promise<FloePlanOutput>;
  floeRewriteGroup(input: FloeRewriteInput): Promise<GroupOutput>;
  floeCommit(input: FloeCommitInput): Promise<FloeRunResult>;
  floeAbandon(input: FloeAbandonInput): Promise<{ removedFiles: string[] }>;
  floeMaintain(input: FloeMaintainInput): Promise<FloeRunResult>;
}

export interface FloeActivitiesOptions {
  /** Called after a run's commit, before the activity completes (notifications). */
  onCommitted?: (runId: string, outcome: CommitOutcome) => void | Promise<void>;
}

/** FloeErrors that cannot succeed on retry fail the activity for good; everything else is retried. */
function rethrow(e: unknown): never {
  if (Context.current().cancellationSignal.aborted)
    throw new CancelledFailure(`cancelled: ${e instanceof Error ? e.message : String(e)}`);
  if (isFloeError(e) && !e.retryable && e.context.cancelled !== true)
    throw ApplicationFailure.create({
      message: `${e.kind}: ${e.message}`,
      type: `FloeError.${e.kind}`,
      nonRetryable: true,
      cause: e,
    });
  throw e;
}

/** Heartbeats carrying the latest progress event: milestones at once, the rest at most once a second. */
function heartbeats(ctx: Context): { onProgress: (e: ProgressEvent) => void; stop: () => void } {
  let last: ProgressEvent | undefined;
  let at = 0;
  const beat = () => ctx.heartbeat(last ? { ...last, at: Date.now() } : { at: Date.now() });
  beat();
  // a rewrite between events still heartbeats, so a live worker is never taken for dead
  const timer = setInterval(beat, 1000);
  timer.unref?.();
  return {
    onProgress: (e) => {
      last = e;
      const now = Date.now();
      if (e.type !== 'file-read' && e.type !== 'file-written' && e.type !== 'message') beat();
      else if (now - at >= 1000) beat();
      else return;
      at = now;
    },
    stop: () => clearInterval(timer),
  };
}

/** The activities, to register on a Worker (`activities: createFloeActivities()`). */
export function createFloeActivities(options: FloeActivitiesOptions = {}): FloeActivities {
  return {
    async floePlan({ spec, runId, holder, leaseTtlMs }) {
      const lease: RunLeaseRef = { enabled: spec.lease !== false, ttlMs: leaseTtlMs ?? DEFAULT_RUN_LEASE_TTL_MS };
      const target = lease.enabled ? await leaseTarget(spec) : undefined;
      try {
        const held = target
          ? await takeRunLease(target, spec, runId, holder ?? `temporal:${runId}`, lease.ttlMs)
          : undefined;
        try {
          const ref = await planCompaction(spec, { runId });
          return { kind: 'flow', ref, lease };
        } catch (e) {
          // nothing was planned: free the table
          await held?.release().catch(() => {});
          throw e;
        }
      } catch (e) {
        rethrow(e);
      } finally {
        target?.close();
      }
    },

    async floeRewriteGroup({ ref, taskId, lease: l }) {
      const ctx = Context.current();
      const hb = heartbeats(ctx);
      try {
        return await withRunLease(ref, l.enabled, l.ttlMs, async (lease) => {
          const signals = [ctx.cancellationSignal, lease?.signal].filter((s): s is AbortSignal => s !== undefined);
          const out = await rewriteGroup(ref, taskId, {
            attemptId: randomUUID(),
            onProgress: hb.onProgress,
            signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals),
          });
          if (lease) {
            // the run may have been given up (or the table taken over) while we wrote: our files are garbage then
            try {
              await lease.renew();
            } catch (e) {
              await discardGroupOutput(ref, out);
              throw e;
            }
          }
          return out;
        });
      } catch (e) {
        rethrow(e);
      } finally {
        hb.stop();
      }
    },

    async floeCommit({ ref, outputs, partialProgress, startedAtMs, lease: l }) {
      try {
        return await withRunLease(ref, l.enabled, l.ttlMs, async (lease) => {
          const outcome = await commitCompaction(ref, outputs, { partialProgress });
          await options.onCommitted?.(ref.runId, outcome);
          await lease?.release();
          return compactionRunResult(ref, startedAtMs, outcome, outputs);
        });
      } catch (e) {
        rethrow(e);
      }
    },

    async floeAbandon({ ref, lease: l }) {
      try {
        if (l.enabled) {
          // free the table first; a lease another run holds by now is not ours to touch
          const target = await leaseTarget(ref.spec);
          try {
            const lease = await adoptTableLease(target.store, target.key, {
              runId: ref.runId,
              table: target.location,
              ttlMs: l.ttlMs,
              heartbeatMs: 0,
            }).catch(() => undefined);
            await lease?.release();
          } finally {
            target.close();
          }
        }
        return { removedFiles: await abandonCompaction(ref) };
      } catch (e) {
        rethrow(e);
      }
    },

    async floeMaintain({ spec, runId }) {
      const ctx = Context.current();
      const hb = heartbeats(ctx);
      try {
        const r = await runMaintenanceJob(spec, { onProgress: hb.onProgress, signal: ctx.cancellationSignal });
        return { ...r, runId };
      } catch (e) {
        rethrow(e);
      } finally {
        hb.stop();
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Workflow code and workers

const here = path.dirname(fileURLToPath(import.meta.url));
/** The shipped workflow module (`maintainTable`): `Worker.create({ workflowsPath, … })`. */
export const workflowsPath: string = existsSync(path.join(here, 'temporal-workflow.js'))
  ? path.join(here, 'temporal-workflow.js')
  : path.join(here, 'temporal-workflow.ts');

let bundled: ReturnType<typeof bundleWorkflowCode> | undefined;
/**
 * The workflow code bundled once per process (webpack takes seconds): `Worker.create({ workflowBundle:
 * await workflowBundle(), … })`. To bundle at build time instead, write `(await workflowBundle()).code` to a
 * file and pass `workflowBundle: { codePath }`.
 */
export function workflowBundle(): ReturnType<typeof bundleWorkflowCode> {
  bundled ??= bundleWorkflowCode({ workflowsPath }).catch((e: unknown) => {
    bundled = undefined;
    throw e;
  });
  return bundled;
}

export const DEFAULT_TASK_QUEUE = 'floe';

export interface FloeWorkerOptions extends FloeActivitiesOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** Activities at once (default 2: each rewrite decodes and encodes Parquet on this process's CPU). */
  maxConcurrentActivityTaskExecutions?: number;
  /** Anything else Worker.create takes (e.g. `activities` to wrap the floe ones). */
  worker?: Partial<WorkerOptions>;
}

/** A Worker running the floe activities and `maintainTable`. `await worker.run()` until `worker.shutdown()`. */
export async function createFloeWorker(o: FloeWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: o.connection,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    taskQueue: o.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowBundle: await workflowBundle(),
    activities: createFloeActivities(o),
    maxConcurrentActivityTaskExecutions: o.maxConcurrentActivityTaskExecutions ?? 2,
    ...o.worker,
  });
}

// ---------------------------------------------------------------------------------------------------------
// Clients

export interface StartOptions {
  taskQueue?: string;
  /** Default `floe-<job>-<runId>`; the run id defaults to a new UUID. */
  workflowId?: string;
}

/** Starts `maintainTable`. `await handle.result()` is the FloeRunResult; `handle.query('progress')` its progress. */
export async function startMaintainTable(
  client: Client,
  input: MaintainTableInput,
  o: StartOptions = {},
): Promise<WorkflowHandle> {
  const runId = input.runId ?? randomUUID();
  return client.workflow.start('maintainTable', {
    taskQueue: o.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowId: o.workflowId ?? `floe-${input.spec.job}-${runId}`,
    args: [{ ...input, runId }],
  });
}

export interface TableScheduleOptions {
  scheduleId: string;
  /** When: `{ cronExpressions: ['0 3 * * *'] }` or `{ intervals: [{ every: '1h' }] }`. */
  spec: ScheduleSpec;
  /** Each run's input (its run id is left out: every scheduled run gets its own). */
  input: Omit<MaintainTableInput, 'runId'>;
  taskQueue?: string;
}

/**
 * One Schedule per table: each tick starts `maintainTable`; a tick while the previous run still runs is
 * skipped (overlap SKIP — the table lease would refuse it anyway). Updates the schedule when it exists.
 */
export async function upsertTableSchedule(client: Client, o: TableScheduleOptions): Promise<void> {
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'maintainTable',
    workflowId: `floe-${o.scheduleId}`,
    taskQueue: o.taskQueue ?? DEFAULT_TASK_QUEUE,
    args: [o.input],
  };
  try {
    await client.schedule.create({
      scheduleId: o.scheduleId,
      spec: o.spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (e) {
    if (!(e instanceof ScheduleAlreadyRunning)) throw e;
    await client.schedule.getHandle(o.scheduleId).update((prev) => ({
      ...prev,
      spec: o.spec,
      action,
      policies: { ...prev.policies, overlap: ScheduleOverlapPolicy.SKIP },
    }));
  }
}

/** The workflow's progress (`maintainTable`'s `progress` query). */
export async function maintainTableProgress(handle: WorkflowHandle): Promise<MaintainTableProgress> {
  return handle.query<MaintainTableProgress>('progress');
}
