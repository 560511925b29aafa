/**
 * floe on BullMQ (`import { createFloeWorkers, enqueueMaintenance } from 'floe/bullmq'`): Redis does the
 * distribution, retries and scheduling; floe does the table work through the distributed seam.
 *
 * - A compaction (Iceberg or Paimon) is a flow: the parent is the commit job, its children the rewrite jobs,
 *   one per planned task (a Paimon task is a bucket). Job ids derive from the run id, so enqueueing a run
 *   again adds nothing.
 * - Expire, remove-orphans, rewrite-manifests and dry runs are single jobs (`runMaintenanceJob`).
 * - The table lease is held around the run: taken when the run is enqueued (a busy table fails the enqueue
 *   with `table busy …`), renewed by every rewrite job while it runs, released by the commit job.
 * - Progress goes through `job.updateProgress`; failures retry with exponential backoff; a FloeError that
 *   cannot succeed on retry (bad input, unsupported) fails at once.
 *
 * bullmq and ioredis are optional peer dependencies: install both (`npm install bullmq ioredis`).
 */
import { randomUUID } from 'node:crypto';
import { FlowProducer, Queue, QueueEvents, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { FloeError, isFloeError } from '../../../util/errors.js';
import type { MaintenanceJobResult, MaintenanceJobSpec } from '../../orchestration/job-types.js';
import { runMaintenanceJob } from '../../app/maintenance-job.js';
import type { ProgressEvent } from '../../core/execution/events.js';
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
import { readTableLease, type TableLease } from '../../lease/lease.js';
import { DEFAULT_RUN_LEASE_TTL_MS, leaseTarget, takeRunLease, withRunLease } from '../../distributed/run-support.js';
import { compactionRunResult } from '../../app/job-result.js';

export const DEFAULT_QUEUE = 'floe';
export { DEFAULT_RUN_LEASE_TTL_MS } from '../../distributed/run-support.js';

export interface FloeQueueOptions {
  /** Redis connection (`{ host, port }`, or any BullMQ/ioredis connection option). */
  connection: ConnectionOptions;
  /** Queue name (default `floe`). */
  queueName?: string;
  /** BullMQ key prefix. */
  prefix?: string;
}

export interface EnqueueOptions extends FloeQueueOptions {
  /** Default: a new UUID. Enqueueing the same run id again adds nothing and returns the same run. */
  runId?: string;
  /** Attempts per job (default 3), with exponential backoff from `backoffMs` (default 2000). */
  attempts?: number;
  backoffMs?: number;
  /** Commit the groups that were written even when some failed (Spark partial-progress). */
  partialProgress?: boolean;
  leaseTtlMs?: number;
}

export interface FloeWorkersOptions extends FloeQueueOptions {
  /** Jobs one worker runs at once (default 1). */
  concurrency?: number;
  /** BullMQ lock settings (how fast a killed worker's job is handed to another). */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  maxStalledCount?: number;
  /** Called after a run's commit, before its job is acknowledged (notifications; tests kill the worker here). */
  onCommitted?: (runId: string, outcome: CommitOutcome) => void | Promise<void>;
}

export type FloeRunResult = MaintenanceJobResult & { runId: string };

export interface FloeRun {
  runId: string;
  /** The job whose result is the run's: the commit job of a compaction flow, else the single job. */
  jobId: string;
  waitUntilFinished(timeoutMs?: number): Promise<FloeRunResult>;
}

export interface FloeWorkers {
  worker: Worker;
  waitUntilReady(): Promise<void>;
  close(): Promise<void>;
}

interface CommitData {
  kind: 'commit';
  ref: PlanRef;
  partialProgress: boolean;
  lease: boolean;
  leaseTtlMs: number;
  startedAtMs: number;
}
interface RewriteData {
  kind: 'rewrite';
  ref: PlanRef;
  taskId: string;
  lease: boolean;
  leaseTtlMs: number;
}
interface MaintainData {
  kind: 'maintain';
  spec: MaintenanceJobSpec;
  runId: string;
}
interface ScheduleData {
  kind: 'schedule';
  spec: MaintenanceJobSpec;
  enqueue: Omit<EnqueueOptions, 'connection' | 'queueName' | 'prefix' | 'runId'>;
}
type FloeJobData = CommitData | RewriteData | MaintainData | ScheduleData;

const connectionOf = (o: FloeQueueOptions) => ({ connection: o.connection, ...(o.prefix ? { prefix: o.prefix } : {}) });
const workerConnection = (c: ConnectionOptions): ConnectionOptions =>
  // BullMQ workers block on Redis; ioredis must not give up on those commands
  typeof c === 'object' && c !== null && !('options' in c)
    ? ({ maxRetriesPerRequest: null, ...c } as ConnectionOptions)
    : c;

/** Job ids: derived from the run id (no ':' — BullMQ reserves it). */
const commitJobId = (runId: string) => `floe-commit-${runId}`;
const rewriteJobId = (runId: string, taskId: string) => `floe-rewrite-${runId}-${taskId}`;
const singleJobId = (runId: string, job: string) => `floe-${job}-${runId}`;

function retryOpts(o: EnqueueOptions) {
  return {
    attempts: o.attempts ?? 3,
    backoff: { type: 'exponential' as const, delay: o.backoffMs ?? 2000 },
    removeOnComplete: { age: 7 * 24 * 3600 },
    removeOnFail: { age: 30 * 24 * 3600 },
  };
}

/**
 * Enqueues one maintenance job. An Iceberg compaction is planned here (under the table lease) and enqueued
 * as a flow; everything else is one job that a worker runs with `runMaintenanceJob`.
 */
export async function enqueueMaintenance(o: EnqueueOptions, spec: MaintenanceJobSpec): Promise<FloeRun> {
  const runId = o.runId ?? randomUUID();
  const queueName = o.queueName ?? DEFAULT_QUEUE;
  const flowish = spec.job === 'compact' && !spec.dryRun;
  let ref: PlanRef | undefined;
  let lease: TableLease | undefined;
  if (flowish) {
    const useLease = spec.lease !== false;
    const leaseTtlMs = o.leaseTtlMs ?? DEFAULT_RUN_LEASE_TTL_MS;
    const target = useLease ? await leaseTarget(spec) : undefined;
    try {
      if (target) lease = await takeRunLease(target, spec, runId, `bullmq:${queueName}:${runId}`, leaseTtlMs);
      // Iceberg and Paimon alike (src/distributed/paimon-seam.ts): one rewrite job per planned task
      ref = await planCompaction(spec, { runId });
      if (ref) {
        const flow = new FlowProducer(connectionOf(o));
        try {
          const opts = retryOpts(o);
          const pp = !!(o.partialProgress ?? spec.compact?.partialProgress);
          await flow.add({
            name: 'floe:commit',
            queueName,
            data: {
              kind: 'commit',
              ref,
              partialProgress: pp,
              lease: useLease,
              leaseTtlMs,
              startedAtMs: Date.now(),
            } satisfies CommitData,
            opts: { ...opts, jobId: commitJobId(runId) },
            children: ref.taskIds.map((taskId) => ({
              name: 'floe:rewrite',
              queueName,
              data: { kind: 'rewrite', ref: ref!, taskId, lease: useLease, leaseTtlMs } satisfies RewriteData,
              opts: {
                ...opts,
                jobId: rewriteJobId(runId, taskId),
                ...(pp ? { ignoreDependencyOnFailure: true } : { failParentOnFailure: true }),
              },
            })),
          });
        } finally {
          await flow.close();
        }
        await lease?.detach();
        return runHandle(o, runId, commitJobId(runId));
      }
    } catch (e) {
      await lease?.release().catch(() => {});
      throw e;
    } finally {
      target?.close();
    }
  }
  const queue = new Queue(queueName, connectionOf(o));
  try {
    const jobId = singleJobId(runId, spec.job);
    await queue.add(`floe:${spec.job}`, { kind: 'maintain', spec, runId } satisfies MaintainData, {
      ...retryOpts(o),
      jobId,
    });
    return runHandle(o, runId, jobId);
  } finally {
    await queue.close();
  }
}

function runHandle(o: FloeQueueOptions, runId: string, jobId: string): FloeRun {
  const queueName = o.queueName ?? DEFAULT_QUEUE;
  return {
    runId,
    jobId,
    async waitUntilFinished(timeoutMs = 600_000) {
      const queue = new Queue(queueName, connectionOf(o));
      const events = new QueueEvents(queueName, connectionOf(o));
      try {
        await events.waitUntilReady();
        const job = await queue.getJob(jobId);
        if (!job)
          throw new FloeError(
            'NotFound',
            `BullMQ job ${jobId} of run ${runId} is not in queue ${queueName} (removed after completion?)`,
          );
        return (await job.waitUntilFinished(events, timeoutMs)) as FloeRunResult;
      } finally {
        await events.close();
        await queue.close();
      }
    },
  };
}

/**
 * Per-table schedules (`upsertJobScheduler`): each tick enqueues a run of `spec` (a compaction flow, or a
 * single job). Upserting the same id replaces the schedule.
 */
export async function upsertTableSchedule(
  o: FloeQueueOptions,
  schedulerId: string,
  repeat: { pattern?: string; every?: number; tz?: string },
  spec: MaintenanceJobSpec,
  enqueue: ScheduleData['enqueue'] = {},
): Promise<void> {
  const queue = new Queue(o.queueName ?? DEFAULT_QUEUE, connectionOf(o));
  try {
    await queue.upsertJobScheduler(schedulerId, repeat, {
      name: 'floe:schedule',
      data: { kind: 'schedule', spec, enqueue } satisfies ScheduleData,
    });
  } finally {
    await queue.close();
  }
}

/** Throttled `job.updateProgress`: every task/commit event, other events at most once a second. */
function progressOf(job: Job) {
  let last = 0;
  return (e: ProgressEvent) => {
    const now = Date.now();
    const milestone = e.type !== 'file-read' && e.type !== 'file-written' && e.type !== 'message';
    if (!milestone && now - last < 1000) return;
    last = now;
    void job.updateProgress({ ...(e as unknown as Record<string, unknown>), at: now }).catch(() => {});
  };
}

/** Non-retryable FloeErrors fail the job at once; everything else is retried with backoff. */
function rethrow(e: unknown): never {
  if (isFloeError(e) && !e.retryable && e.context.cancelled !== true)
    throw new UnrecoverableError(`${e.kind}: ${e.message}`);
  throw e;
}

/** Starts a worker on the floe queue (run it in as many processes as you like). */
export function createFloeWorkers(o: FloeWorkersOptions): FloeWorkers {
  const queueName = o.queueName ?? DEFAULT_QUEUE;
  const processor = async (job: Job<FloeJobData>, _token?: string, signal?: AbortSignal): Promise<unknown> => {
    const d = job.data;
    try {
      switch (d.kind) {
        case 'rewrite':
          return await runRewrite(job, d, signal);
        case 'commit':
          return await runCommit(job, d, o);
        case 'maintain': {
          const r = await runMaintenanceJob(d.spec, { onProgress: progressOf(job), ...(signal ? { signal } : {}) });
          return { ...r, runId: d.runId } satisfies FloeRunResult;
        }
        case 'schedule': {
          const run = await enqueueMaintenance(
            { ...d.enqueue, connection: o.connection, queueName, ...(o.prefix ? { prefix: o.prefix } : {}) },
            d.spec,
          );
          return { runId: run.runId, jobId: run.jobId };
        }
        default:
          throw new UnrecoverableError(`unknown floe job ${job.name}`);
      }
    } catch (e) {
      rethrow(e);
    }
  };
  const worker = new Worker(queueName, processor, {
    connection: workerConnection(o.connection),
    ...(o.prefix ? { prefix: o.prefix } : {}),
    concurrency: o.concurrency ?? 1,
    ...(o.lockDurationMs ? { lockDuration: o.lockDurationMs } : {}),
    ...(o.stalledIntervalMs ? { stalledInterval: o.stalledIntervalMs } : {}),
    maxStalledCount: o.maxStalledCount ?? 2,
  });
  worker.on('failed', (job) => {
    // a rewrite that failed for good fails its flow (without partial progress): free the table now rather
    // than when the lease expires, and remove what the run wrote
    const d = job?.data;
    if (
      !job ||
      d?.kind !== 'rewrite' ||
      job.attemptsMade < (job.opts.attempts ?? 1) ||
      job.opts.ignoreDependencyOnFailure
    )
      return;
    void (async () => {
      // release first: a sibling rewrite finishing later sees the released lease and removes its own output
      if (d.lease)
        await withRunLease(d.ref, true, d.leaseTtlMs ?? DEFAULT_RUN_LEASE_TTL_MS, async (lease) =>
          lease?.release(),
        ).catch(() => {});
      await abandonCompaction(d.ref).catch(() => {});
    })();
  });
  worker.on('error', () => {
    // connection errors are retried by ioredis; without a listener Node would crash the process
  });
  return {
    worker,
    waitUntilReady: async () => void (await worker.waitUntilReady()),
    close: () => worker.close(),
  };
}

async function runRewrite(
  job: Job<FloeJobData>,
  d: RewriteData,
  signal: AbortSignal | undefined,
): Promise<GroupOutput> {
  return withRunLease(d.ref, d.lease, d.leaseTtlMs ?? DEFAULT_RUN_LEASE_TTL_MS, async (lease) => {
    try {
      const signals = [signal, lease?.signal].filter((s): s is AbortSignal => s !== undefined);
      const out = await rewriteGroup(d.ref, d.taskId, {
        attemptId: randomUUID(),
        onProgress: progressOf(job),
        ...(signals.length ? { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) } : {}),
      });
      if (lease) {
        // the run may have been given up (or the table taken over) while we wrote: then our files are garbage
        try {
          await lease.renew();
        } catch (e) {
          await discardGroupOutput(d.ref, out);
          throw e;
        }
      }
      return out;
    } finally {
      await lease?.detach();
    }
  });
}

async function runCommit(job: Job<FloeJobData>, d: CommitData, o: FloeWorkersOptions): Promise<FloeRunResult> {
  const values = await job.getChildrenValues<GroupOutput>();
  const outputs = Object.values(values).filter((v): v is GroupOutput => !!v && typeof v === 'object' && 'taskId' in v);
  return withRunLease(d.ref, d.lease, d.leaseTtlMs ?? DEFAULT_RUN_LEASE_TTL_MS, async (lease) => {
    try {
      const outcome = await commitCompaction(d.ref, outputs, {
        partialProgress: d.partialProgress,
        onProgress: progressOf(job),
      });
      await o.onCommitted?.(d.ref.runId, outcome);
      await lease?.release();
      return compactionRunResult(d.ref, d.startedAtMs, outcome, outputs);
    } finally {
      await lease?.detach();
    }
  });
}

/** The run id a table's lease names now, if any (for dashboards and tests). */
export async function currentLeaseRun(spec: MaintenanceJobSpec): Promise<string | undefined> {
  const t = await leaseTarget(spec);
  try {
    const r = await readTableLease(t.store, t.key);
    return r && r.releasedAtMs === undefined && r.expiresAtMs > Date.now() ? r.runId : undefined;
  } finally {
    t.close();
  }
}
