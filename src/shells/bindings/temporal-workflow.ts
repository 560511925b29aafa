/**
 * The Temporal workflow `maintainTable` (floe/temporal ships it; bundle it once with `workflowBundle()` or
 * point a Worker's `workflowsPath` at `workflowsPath`).
 *
 * Workflow code runs in Temporal's deterministic sandbox: this module imports only @temporalio/workflow at
 * run time (everything else is `import type`, erased by the bundler). The table work happens in the
 * activities of src/shells/bindings/temporal.ts.
 *
 * A compaction (Iceberg or Paimon): floePlan (takes the table lease, stores the plan) → floeRewriteGroup per task, at
 * most `maxParallelGroups` at once → floeCommit (one atomic commit, idempotent by run id). Cancelling the
 * workflow cancels the running rewrites (heartbeat-delivered, mapped to their AbortSignal), waits for them
 * to stop, then floeAbandon removes the run's outputs and frees the table. A cancel that arrives once the
 * commit has started lets the commit finish and says so in the result. Everything else (expire,
 * remove-orphans, rewrite-manifests, dry runs) is one floeMaintain activity.
 */
import {
  ActivityCancellationType,
  CancellationScope,
  CancelledFailure,
  defineQuery,
  isCancellation,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { MaintenanceJobSpec } from '../../orchestration/job-types.js';
import type { FloeRunResult } from '../../distributed/run-support.js';
import type { GroupOutput } from '../../distributed/seam.js';
import type { FloeActivities } from './temporal.js';

export interface MaintainTableInput {
  spec: MaintenanceJobSpec;
  /** Rewrite activities running at once (default 4). */
  maxParallelGroups?: number;
  /** Commit the groups that were rewritten even when some failed (default: the spec's compact.partialProgress). */
  partialProgress?: boolean;
  /** Default: a new id per workflow run (deterministic: Temporal's seeded uuid4). */
  runId?: string;
  /** Heartbeat timeout of the rewrite and maintain activities (default '60s'); cancellation reaches them within it. */
  heartbeatTimeout?: string;
  /** Attempts per rewrite group (default 3) and per commit (default 10). */
  rewriteAttempts?: number;
  commitAttempts?: number;
}

export type MaintainTablePhase =
  'planning' | 'rewriting' | 'committing' | 'maintaining' | 'cleaning-up' | 'done' | 'cancelled' | 'failed';

export interface MaintainTableProgress {
  runId: string;
  job: MaintenanceJobSpec['job'];
  phase: MaintainTablePhase;
  /** Planned rewrite groups, the ones running now, finished and failed (partial progress). */
  tasks: number;
  running: string[];
  done: number;
  failed: { id: string; reason: string }[];
  snapshotId?: string;
  message?: string;
}

/** `handle.query(progressQuery)` (or `handle.query('progress')`). */
export const progressQuery = defineQuery<MaintainTableProgress>('progress');

const messageOf = (e: unknown): string => {
  const c = (e as { cause?: { message?: string } })?.cause;
  return c?.message ?? (e instanceof Error ? e.message : String(e));
};

export async function maintainTable(input: MaintainTableInput): Promise<FloeRunResult> {
  const spec = input.spec;
  const runId = input.runId ?? uuid4();
  const heartbeatTimeout = input.heartbeatTimeout ?? '60s';
  const progress: MaintainTableProgress = {
    runId,
    job: spec.job,
    phase: 'planning',
    tasks: 0,
    running: [],
    done: 0,
    failed: [],
  };
  setHandler(progressQuery, () => progress);

  const short = proxyActivities<FloeActivities>({
    startToCloseTimeout: '10 minutes',
    retry: { maximumAttempts: 5, initialInterval: '1s' },
  });
  const { floeRewriteGroup } = proxyActivities<FloeActivities>({
    startToCloseTimeout: '6 hours',
    heartbeatTimeout,
    // wait for a cancelled rewrite to stop (and remove what it wrote) before cleaning up after it
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { maximumAttempts: input.rewriteAttempts ?? 3, initialInterval: '2s' },
  });
  const { floeCommit } = proxyActivities<FloeActivities>({
    startToCloseTimeout: '30 minutes',
    retry: { maximumAttempts: input.commitAttempts ?? 10, initialInterval: '2s' },
  });
  const { floeMaintain } = proxyActivities<FloeActivities>({
    startToCloseTimeout: '12 hours',
    heartbeatTimeout,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { maximumAttempts: 3, initialInterval: '2s' },
  });

  const single = async (): Promise<FloeRunResult> => {
    progress.phase = 'maintaining';
    try {
      const r = await floeMaintain({ spec, runId });
      progress.phase = 'done';
      progress.snapshotId = r.snapshotIds[0];
      return r;
    } catch (e) {
      progress.phase = isCancellation(e) ? 'cancelled' : 'failed';
      progress.message = messageOf(e);
      throw e;
    }
  };
  if (spec.job !== 'compact' || spec.dryRun) return single();

  // planning is short and takes the lease: let it finish, then honour a cancel that came meanwhile
  const planned = await CancellationScope.nonCancellable(() =>
    short.floePlan({ spec, runId, holder: `temporal:${workflowInfo().workflowId}` }),
  );
  if (planned.kind === 'single') return single();
  const { ref, lease } = planned;
  progress.tasks = ref.taskIds.length;
  const partialProgress = input.partialProgress ?? spec.compact?.partialProgress ?? false;
  const startedAtMs = Date.now();

  let outputs: GroupOutput[];
  try {
    if (CancellationScope.current().consideredCancelled)
      throw new CancelledFailure('workflow cancelled while planning');
    progress.phase = 'rewriting';
    outputs = [];
    const queue = [...ref.taskIds];
    let stop: unknown;
    const scope = new CancellationScope();
    const lane = async (): Promise<void> => {
      while (queue.length > 0 && stop === undefined && !scope.consideredCancelled) {
        const taskId = queue.shift()!;
        progress.running.push(taskId);
        try {
          outputs.push(await floeRewriteGroup({ ref, taskId, lease }));
          progress.done++;
        } catch (e) {
          if (isCancellation(e)) stop ??= e;
          else if (partialProgress) progress.failed.push({ id: taskId, reason: messageOf(e) });
          else {
            // without partial progress one failed group fails the run: stop the others
            stop ??= e;
            scope.cancel();
          }
        } finally {
          progress.running = progress.running.filter((t) => t !== taskId);
        }
      }
    };
    const lanes = Math.max(1, Math.min(input.maxParallelGroups ?? 4, ref.taskIds.length));
    await scope.run(() => Promise.all(Array.from({ length: lanes }, lane)));
    if (stop === undefined && CancellationScope.current().consideredCancelled)
      stop = new CancelledFailure('workflow cancelled');
    if (stop !== undefined) throw stop;
  } catch (e) {
    progress.phase = 'cleaning-up';
    progress.message = messageOf(e);
    await CancellationScope.nonCancellable(() => short.floeAbandon({ ref, lease }));
    progress.phase = isCancellation(e) ? 'cancelled' : 'failed';
    throw e;
  }

  // once the commit has started it runs to its end, even when the workflow is cancelled meanwhile
  progress.phase = 'committing';
  try {
    const result = await CancellationScope.nonCancellable(() =>
      floeCommit({ ref, outputs, partialProgress, startedAtMs, lease }),
    );
    if (progress.failed.length > 0)
      result.failures.push(...progress.failed.map((f) => `${f.id}: rewrite failed: ${f.reason}`));
    if (progress.failed.length > 0) result.ok = false;
    if (CancellationScope.current().consideredCancelled)
      result.warnings.push('the workflow was cancelled after the commit had started; the commit finished');
    progress.phase = 'done';
    progress.snapshotId = result.snapshotIds[0];
    return result;
  } catch (e) {
    // the commit's outcome may be unknown: keep every file (the lease expires on its own)
    progress.phase = 'failed';
    progress.message = `${messageOf(e)}; the run's files are kept`;
    throw e;
  }
}
