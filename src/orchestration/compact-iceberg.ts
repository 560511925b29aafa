/**
 * `floe compact` for Iceberg: plan (tiered or bin-pack) → rewrite tasks → atomic `replace` commits. With
 * partial progress each task group commits as soon as it is written; otherwise one commit at the end. A
 * group whose commit fails validation has its outputs deleted — they were never referenced, so a crash at
 * any point leaves only garbage for orphan cleanup, never a broken table.
 *
 * The rewrite and commit steps are the distributed seam's (src/orchestration/iceberg-steps.ts, which
 * seam.ts wraps for workflow engines): outputs are named `floe-run-<runId>-<attemptId>-…` and every commit
 * carries `floe.run-id`. A single process keeps its plan in memory instead of storing plan.json: nothing
 * crosses a process boundary, and a run that is refused or cancelled early then leaves nothing under the
 * table to clean up.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { isFloeError } from '../../util/errors.js';
import type { TableModel } from '../../model/index.js';
import type { Plan, RewriteTask } from '../core/planning/plan.js';
import type { TieredState } from '../core/planning/tiered/index.js';
import type { SortStrategyOptions } from '../core/planning/sort-planner.js'; // [sort]
import { safeEmitter, type ProgressListener } from '../core/execution/events.js';
import {
  type CommitIO,
  type NewContentFile,
  type RewriteGroup,
  type TableOperations,
} from '../../connectors/iceberg/commit-rewrite.js';
import { isCommitStateUnknown } from '../../connectors/commit-state.js';
import { REBASE_OPTION } from '../../connectors/iceberg/rebase-deletes.js';
import { loadRefreshedModel } from '../../connectors/iceberg/refreshed-model.js';
import { loadTableModel, type IcebergTable } from '../../connectors/iceberg/table.js';
import { dataDirOf, metadataDirOf } from '../../connectors/iceberg/write-locations.js';
import { findDanglingDeletes } from './dangling-deletes.js';
import { outcomeTracker } from './task-outcomes.js';
import { newCompactReport, statsOf, type CompactReport } from './compact-report.js';
import { cancelledError, isCancelled } from './cancel.js';
import { probeWritable } from './write-probe.js';
import { deleteFileId } from '../core/planning/deletes.js';
import { discardFiles } from './discard-files.js';
import {
  commitGroupOf,
  commitRunGroups,
  outputPrefix,
  rewriteContext,
  rewritePlannedTask,
  type RewriteContext,
  type TaskOutput,
} from './iceberg-steps.js';
import { groupPool, type GroupPool } from './group-runner.js';
import { planInputsOf, type TableSource } from './group-job.js';
import { NEWEST_PARTITION, planRun, threadsFor } from './iceberg-plan.js';
import { hasRecentWriterCommits, type LeaveNewest } from './writer-activity.js';
import { removeUnneededDeletes, settleInputOf } from './unneeded-deletes.js';

export interface CompactOptions {
  strategy?: 'tiered' | 'binpack' | 'sort' | 'zorder';
  /** [sort] `--strategy sort|zorder`: the order, z columns, memory budget and spill directory (sort-planner.ts). */
  sort?: SortStrategyOptions;
  /**
   * Full compaction: every data file of the selected partitions (`self-optimizing.filter`, `--where`) is
   * rewritten into target-size files — bin-pack with Spark's `rewrite-all=true` (see planFull).
   */
  full?: boolean;
  /** Planner properties layered over the table's own (`--option k=v`, `--target-size`). */
  options?: Record<string, string>;
  dryRun?: boolean;
  /**
   * Commit each group as soon as it is written (Spark `partial-progress.enabled`). `'hot'` (floe serve's
   * default): only when a writer other than floe committed within HOT_TABLE_WINDOW_MS — small commits
   * leave a streaming writer small conflict windows; a quiet table gets one all-or-nothing commit.
   */
  partialProgress?: boolean | 'hot';
  /** With partial progress, at most this many commits per run (Spark `partial-progress.max-commits`, 10). */
  maxCommits?: number;
  /**
   * Leave the newest partitions alone (as managed optimizers do): a task whose partition got a data file
   * from one of the last `commits` writer snapshots, or from a writer snapshot within `withinMs`, is skipped.
   */
  leaveNewest?: LeaveNewest;
  /**
   * Plan only tasks of these partitions (partitionKey of spec id and tuple): a re-plan of the groups a
   * concurrent commit invalidated (compact-iceberg-replan.ts). Tasks elsewhere are not part of the run.
   */
  onlyPartitions?: ReadonlySet<string>;
  /**
   * Position deletes / DVs that writers commit during the run against files it replaces are carried over to
   * the rewritten files (default true); false fails those groups, as Java's RewriteFiles does. Also
   * `--option floe.rebase-concurrent-deletes=false`.
   */
  rebaseConcurrentDeletes?: boolean;
  /** Tasks written at once (Spark `max-concurrent-file-group-rewrites`). */
  maxConcurrentGroups?: number;
  nowMs?: number;
  onProgress?: ProgressListener;
  /** After rewriting, drop delete files no live data file needs (default true). */
  removeDanglingDeletes?: boolean;
  /** Skip rewriting; only drop dangling delete files. */
  onlyDanglingDeletes?: boolean;
  /** Tiered planner memory (per-partition last optimize times) from the previous run; the service persists it. */
  tieredState?: TieredState;
  /**
   * Cancels the job (cancel.ts): it stops between row groups and tasks, removes the files it wrote and did
   * not commit, and throws `cancelledError` — or, when a commit had started, lets it finish and returns
   * with `cancelled` set.
   */
  signal?: AbortSignal;
  /** The run id in output names and commit summaries (`floe.run-id`); default a new UUID. */
  runId?: string;
  /**
   * Where the data tasks run: in this process (default), or on another runner — the worker-thread pool
   * (group-runner.ts) — given the same task and signal. `maxConcurrentGroups` bounds them either way.
   */
  taskRunner?: TaskRunner;
  /**
   * Worker threads for the data tasks (`--parallelism`): above 1, and with `source` to open the table again
   * in each worker, the tasks run on a worker-thread pool (src/orchestration/group-runner.ts); 1 runs them
   * in this process (the default). `'auto'` (the CLI's and runMaintenanceJob's default) uses
   * os.availableParallelism() threads when the data tasks read at least AUTO_PARALLEL_MIN_BYTES — below
   * that, starting the workers costs more than it saves.
   */
  parallelism?: number | 'auto';
  /** How the table was opened (reference and access options), for the worker threads. */
  source?: TableSource;
  /**
   * Split tasks far bigger than their target by input files (execution/split-tasks.ts). Set for runs on
   * worker threads — one huge task would keep one thread busy while the others idle — and passed to the
   * workers so they plan the same tasks.
   */
  splitTasks?: boolean;
}

/**
 * Runs one planned data task of the run (the rewrite step) and resolves with the files it wrote, or throws
 * the task's error. A runner stopped by `signal` removes what it wrote.
 */
export type TaskRunner = (
  task: RewriteTask,
  opts: { ctx: RewriteContext; onProgress: ProgressListener; signal?: AbortSignal },
) => Promise<TaskOutput>;

export { statsOf, type CompactReport, type TableStats } from './compact-report.js';
export { AUTO_PARALLEL_MIN_BYTES, planIceberg } from './iceberg-plan.js';
export { HOT_TABLE_WINDOW_MS, hasRecentWriterCommits, newestPartitions } from './writer-activity.js';

export async function compactIceberg(
  table: IcebergTable,
  out: CommitIO,
  ops: TableOperations,
  opts: CompactOptions = {},
): Promise<CompactReport> {
  const run = await IcebergCompactionRun.start(table, out, ops, opts);
  if (opts.dryRun || run.model.currentSnapshotId === undefined) return run.finishWithoutWriting();
  await run.preflight();
  const pool = run.workerPool();
  try {
    await run.rewriteDataTasks(pool);
  } finally {
    await pool?.close();
  }
  await run.commitWritten();
  await run.convertDeleteTasks();
  await run.commitPending();
  if (run.stopped) await run.finishCancelled();
  else if (!run.allOrNothingAborted) await run.dropUnneededDeletes();
  await run.measureAfter();
  return run.finish();
}

type Item = { group: RewriteGroup; outputs: NewContentFile[] };

/** Batches of `items` for at most `maxCommits` commits, in order. */
function commitBatches<T>(items: readonly T[], maxCommits: number): T[][] {
  const size = Math.max(1, Math.ceil(items.length / Math.max(1, maxCommits)));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Runs `tasks` on `runner`, at most `concurrency` at a time: the outputs in the order they finished, and the
 * tasks that threw with their errors (a failed task does not stop the others).
 */
async function runTasks(
  tasks: readonly RewriteTask[],
  runner: TaskRunner,
  concurrency: number,
  opts: Parameters<TaskRunner>[1],
): Promise<{ done: TaskOutput[]; failed: { task: RewriteTask; error: unknown }[] }> {
  const limit = pLimit(Math.max(1, concurrency));
  const failed: { task: RewriteTask; error: unknown }[] = [];
  const done: TaskOutput[] = [];
  await Promise.all(
    tasks.map((task) =>
      limit(async () => {
        try {
          done.push(await runner(task, opts));
        } catch (error) {
          failed.push({ task, error });
        }
      }),
    ),
  );
  return { done, failed };
}

const CANCELLED_BEFORE_COMMIT = 'cancelled before its commit; its output was removed';

/**
 * One single-process compaction run: its plan, its report, and what it wrote. The public steps run in the
 * order compactIceberg calls them. A cancel before anything was committed throws the cancelled error from
 * the step that sees it (after removing the run's files); a cancel once a commit started lets that commit
 * finish, the later steps skip their work, and finishCancelled says what was committed.
 */
class IcebergCompactionRun {
  private readonly emit: ProgressListener;
  private readonly signal: AbortSignal | undefined;
  private readonly runId: string;
  private ctx!: RewriteContext;
  /** Tasks at once in this process when they run inside the native codec instead of on workers (workerPool). */
  private inProcessThreads = 0;
  /** Groups written and waiting for the one commit at the end (without partial progress). */
  private readonly pending: Item[] = [];
  /** Every group this run wrote, for removing what a cancel left uncommitted. */
  private readonly every: Item[] = [];
  /** Data files our commits added (rewrite outputs), for settling the plan's table-wide deletes. */
  private readonly added = new Set<string>();
  /** Written data-task groups, in the order they finished. */
  private written: Item[] = [];
  /** A cancel seen once a commit had started: that commit finished, nothing after it runs. */
  private cancelledAfterCommit = false;
  /** The table after our last commit, when the final cleanup loaded it and committed nothing on top. */
  private latest: TableModel | undefined;
  private readonly tracker: ReturnType<typeof outcomeTracker<CompactReport>>;
  /** Whether groups commit as they are written (partialProgress, resolved for 'hot'). */
  private readonly partial: boolean;

  private constructor(
    private readonly table: IcebergTable,
    private readonly out: CommitIO,
    private readonly ops: TableOperations,
    private readonly opts: CompactOptions,
    readonly model: TableModel,
    private readonly plan: Plan,
    private readonly report: CompactReport,
    started: number,
    /** The planner's clock: worker threads plan again with it. */
    private readonly plannedAtMs: number,
    /** Planned tasks of the newest partitions, left alone (`leaveNewest`): reported as skipped. */
    leftAlone: readonly RewriteTask[] = [],
  ) {
    this.emit = safeEmitter(opts.onProgress);
    this.signal = opts.signal;
    this.runId = opts.runId ?? randomUUID();
    this.tracker = outcomeTracker(report, [...plan.tasks, ...leftAlone], started);
    for (const t of leftAlone) this.tracker.skipped.set(t.id, NEWEST_PARTITION);
    this.partial =
      opts.partialProgress === 'hot' ? hasRecentWriterCommits(model, plannedAtMs) : opts.partialProgress === true;
  }

  /** Loads the table, plans, and reports the plan. */
  static async start(
    table: IcebergTable,
    out: CommitIO,
    ops: TableOperations,
    opts: CompactOptions,
  ): Promise<IcebergCompactionRun> {
    const started = Date.now();
    const now = opts.nowMs ?? Date.now();
    if (isCancelled(opts.signal)) throw cancelledError(table.metadataLocation, 0, opts.signal!.reason);
    const model = await loadTableModel(table);
    const { plan, left } = planRun(model, opts, now);
    const report = newCompactReport(table.metadataLocation, plan, model, { dryRun: !!opts.dryRun });
    const run = new IcebergCompactionRun(table, out, ops, opts, model, plan, report, started, now, left);
    run.emit({
      type: 'plan',
      tasks: plan.tasks.length,
      inputFiles: plan.tasks.reduce((n, t) => n + t.inputs.length, 0),
      inputBytes: plan.tasks.reduce((n, t) => n + t.inputBytes, 0),
    });
    return run;
  }

  /** True once a cancel stopped the run (before or while a commit). */
  get stopped(): boolean {
    return isCancelled(this.signal) || this.cancelledAfterCommit;
  }

  finish(): CompactReport {
    return this.tracker.finish();
  }

  /** A dry run, or a table without a snapshot: the plan (and the removable dangling deletes) only. */
  finishWithoutWriting(): CompactReport {
    if (this.opts.removeDanglingDeletes !== false)
      this.report.danglingDeletes = findDanglingDeletes(this.model).map(deleteFileId);
    for (const t of this.plan.tasks)
      this.tracker.skipped.set(
        t.id,
        this.opts.dryRun ? 'dry run: nothing was written' : 'the table has no current snapshot',
      );
    return this.finish();
  }

  /**
   * Refuses what cannot be committed before a single byte is written (a catalog table opened by path, a
   * read-only directory), and stops here when cancelled meanwhile.
   */
  async preflight(): Promise<void> {
    const { table, out, ops } = this;
    if (ops.preflight) await ops.preflight(await ops.refresh());
    if (this.plan.tasks.length > 0)
      await probeWritable(out, [dataDirOf(table.metadata), metadataDirOf(table.metadata)], table.metadataLocation);
    if (isCancelled(this.signal)) throw cancelledError(table.metadataLocation, 0, this.signal!.reason);
    this.ctx = rewriteContext(this.table, this.model, this.out, {
      outputPrefix: outputPrefix(this.runId, randomUUID().slice(0, 8)),
      ...(this.opts.options ? { propertyOverrides: this.opts.options } : {}),
    });
  }

  /**
   * Worker threads for the data tasks, when `parallelism` asks for them and there are two tasks or more —
   * unless every task is rewritten inside the native codec (inProcessThreads), whose heavy calls already run
   * on libuv's threads from this one.
   */
  workerPool(): GroupPool | undefined {
    const { source, taskRunner } = this.opts;
    const tasks = this.plan.tasks.filter((t) => t.kind !== 'eq-to-pos');
    const threads = Math.min(this.threads(tasks), tasks.length);
    if (taskRunner || !source || threads <= 1) return undefined;
    if (this.inCodec(tasks, threads)) {
      this.inProcessThreads = threads;
      this.ctx.adapter.codecThreads = true;
      this.emit({
        type: 'message',
        level: 'info',
        text: `rewriting ${tasks.length} task(s), ${threads} at a time, inside the native codec`,
      });
      return undefined;
    }
    this.emit({
      type: 'message',
      level: 'info',
      text: `rewriting ${tasks.length} task(s) on ${threads} worker threads`,
    });
    // the plan was split for threads (start): the workers plan with the same split
    return groupPool(threads, source, planInputsOf({ ...this.opts, splitTasks: true }, this.plannedAtMs));
  }

  private threads(tasks: readonly RewriteTask[]): number {
    return threadsFor(this.opts, tasks);
  }

  /**
   * Whether the tasks run as well in this process: the codec decodes and encodes them on libuv's pool (4
   * threads, shared with file I/O, hence at most 3 at once), no task sorts, and this process writes what
   * the workers would (no FLOE_REWRITE_WORKERS=1, which keeps the worker pool). Worker threads would only
   * add an isolate each: ~20 MiB of heap, a second plan of the table, their own garbage (issue 27's memory).
   */
  private inCodec(tasks: readonly RewriteTask[], threads: number): boolean {
    if (threads > 3 || process.env.FLOE_REWRITE_WORKERS === '1') return false;
    if (tasks.some((t) => t.order)) return false;
    return this.ctx.adapter.rewritesInCodec();
  }

  /**
   * The rewrite step for every data task on the task runner (this process, or the worker pool), at most
   * `maxConcurrentGroups` at a time in this process; a pool runs as many as it has workers.
   */
  async rewriteDataTasks(pool?: GroupPool): Promise<void> {
    const tasks = this.plan.tasks.filter((t) => t.kind !== 'eq-to-pos');
    // inside the codec: one task per codec thread, as on workers (more would take libuv's I/O thread too)
    const concurrency = this.inProcessThreads || (this.opts.maxConcurrentGroups ?? 2);
    const runner: TaskRunner =
      pool?.runner ?? this.opts.taskRunner ?? ((task, o) => rewritePlannedTask(o.ctx, task, o));
    const { done, failed } = await runTasks(tasks, runner, pool ? Math.max(concurrency, pool.threads) : concurrency, {
      ctx: this.ctx,
      onProgress: this.emit,
      ...(this.signal ? { signal: this.signal } : {}),
    });
    this.recordWritten(tasks, done);
    if (isCancelled(this.signal)) {
      // tasks stopped mid-way removed their own outputs; the finished ones are removed here
      for (const f of failed)
        this.tracker.skipped.set(f.task.id, 'cancelled before it finished; nothing of it was kept');
      await this.cancelNow(this.written, CANCELLED_BEFORE_COMMIT);
    }
    for (const f of failed)
      this.report.failedTasks.push({
        id: f.task.id,
        reason: f.error instanceof Error ? f.error.message : String(f.error),
      });
  }

  /**
   * With partial progress the written groups commit now, in the order they finished, in at most
   * `maxCommits` commits; else they wait for the one commit at the end.
   */
  async commitWritten(): Promise<void> {
    if (!this.partial) {
      this.pending.push(...this.written);
      return;
    }
    for (const batch of commitBatches(this.written, this.opts.maxCommits ?? 10)) {
      await this.commitBatch(batch);
      if (this.cancelledAfterCommit) break;
    }
  }

  /** The rewrite step for the `eq-to-pos` tasks, one at a time, after the data tasks. */
  async convertDeleteTasks(): Promise<void> {
    if (this.cancelledAfterCommit) return;
    for (const t of this.plan.tasks.filter((x) => x.kind === 'eq-to-pos')) {
      if (isCancelled(this.signal)) {
        await this.cancelNow(this.pending, CANCELLED_BEFORE_COMMIT);
        this.pending.length = 0;
        break;
      }
      try {
        const r = await rewritePlannedTask(this.ctx, t, this.signal ? { signal: this.signal } : {});
        this.report.bytesWritten += r.bytesWritten;
        const item = this.itemOf(t, r.files);
        this.every.push(item);
        if (this.partial) await this.commitBatch([item]);
        else this.pending.push(item);
        if (this.cancelledAfterCommit) break;
      } catch (e) {
        if (isCancelled(this.signal)) continue; // handled at the top of the next round or after the loop
        this.report.failedTasks.push({ id: t.id, reason: e instanceof Error ? e.message : String(e) });
      }
    }
  }

  /**
   * The one commit of everything that waited (without partial progress). That is all or nothing, as in
   * Spark's rewrite_data_files: when a task failed, nothing is committed and the written files are removed
   * (`--partial-progress` commits the groups that succeeded instead).
   */
  async commitPending(): Promise<void> {
    if (this.cancelledAfterCommit) return;
    const failed = this.report.failedTasks;
    if (failed.length > 0 && this.pending.length > 0) {
      await discardFiles(
        this.out,
        this.pending.flatMap((b) => b.outputs),
      );
      const why = `not committed: ${failed.length} task(s) failed (${failed[0]!.id}: ${failed[0]!.reason}) and partial progress is off (all or nothing); its output was removed`;
      for (const b of this.pending) this.tracker.skipped.set(b.group.id, why);
      this.pending.length = 0;
      this.allOrNothingAborted = true;
      return;
    }
    if (failed.length > 0) this.allOrNothingAborted = !this.opts.partialProgress;
    await this.commitBatch(this.pending);
  }

  /** A task failed without partial progress: the run commits nothing at all (no clean-up commit either). */
  allOrNothingAborted = false;

  /** A cancel after something was committed: remove what was not, and say what was. */
  async finishCancelled(): Promise<void> {
    const { report, tracker } = this;
    const failedIds = new Set(report.failedTasks.map((f) => f.id));
    const left = this.every.filter((b) => !tracker.committedIn.has(b.group.id) && !failedIds.has(b.group.id));
    await discardFiles(
      this.out,
      left.flatMap((b) => b.outputs),
    );
    for (const b of left) tracker.skipped.set(b.group.id, CANCELLED_BEFORE_COMMIT);
    this.skipTheRest('cancelled');
    report.cancelled = {
      afterCommitStarted: this.cancelledAfterCommit,
      committedSnapshots: [...report.snapshots],
      message: this.cancelledAfterCommit
        ? `cancelled while committing: the commit finished (snapshot ${report.snapshots.join(', ')}); nothing after it ran`
        : `cancelled after committing snapshot ${report.snapshots.join(', ')}; the rest was not committed and its files were removed`,
    };
  }

  /** The extra commit dropping dangling deletes and the plan's settled table-wide deletes. */
  async dropUnneededDeletes(): Promise<void> {
    this.latest = await removeUnneededDeletes(this.table, this.out, this.ops, this.report, this.emit, {
      dangling: this.opts.removeDanglingDeletes !== false,
      settle: settleInputOf(this.plan, this.report.committedTasks, this.added),
    });
  }

  /**
   * The table as it stands after our commits, for the before/after summary: loaded again only when the
   * cleanup did not just load it (it commits nothing, or it committed and changed the table once more).
   */
  async measureAfter(): Promise<void> {
    if (this.report.snapshots.length === 0) return;
    this.report.after = statsOf(this.latest ?? (await loadRefreshedModel(this.table, this.ops)));
  }

  /** The finished data tasks' figures and outputs, in the order they finished. */
  private recordWritten(tasks: readonly RewriteTask[], done: readonly TaskOutput[]): void {
    for (const r of done) {
      this.report.bytesRead += r.bytesRead;
      this.report.bytesWritten += r.bytesWritten;
      this.report.rowsIn += r.rowsIn;
      this.report.rowsOut += r.rowsOut;
    }
    const byId = new Map(tasks.map((t) => [t.id, t]));
    this.written = done.map((r) => this.itemOf(byId.get(r.taskId)!, r.files));
    this.every.push(...this.written);
  }

  private itemOf(task: RewriteTask, files: NewContentFile[]): Item {
    return { group: commitGroupOf(task, files, this.ctx.deleteIndex), outputs: files };
  }

  /** Tasks with no outcome yet are skipped with `why`. */
  private skipTheRest(why: string): void {
    const { report, tracker } = this;
    for (const t of this.plan.tasks)
      if (
        !tracker.committedIn.has(t.id) &&
        !tracker.skipped.has(t.id) &&
        !report.failedTasks.some((f) => f.id === t.id)
      )
        tracker.skipped.set(t.id, why);
  }

  /** Removes uncommitted outputs on a cancel; throws the cancelled error when nothing was committed. */
  private async cancelNow(uncommitted: Item[], why: string): Promise<void> {
    const files = uncommitted.flatMap((b) => b.outputs);
    await discardFiles(this.out, files);
    for (const b of uncommitted) this.tracker.skipped.set(b.group.id, why);
    this.skipTheRest(why);
    if (this.report.snapshots.length === 0)
      throw cancelledError(this.table.metadataLocation, files.length, this.signal?.reason);
  }

  /** The commit step for a batch of written groups; validation failures fail only their groups. */
  private async commitBatch(batch: Item[]): Promise<void> {
    if (batch.length === 0) return;
    if (isCancelled(this.signal)) return this.cancelNow(batch, CANCELLED_BEFORE_COMMIT);
    try {
      const res = await commitRunGroups(this.out, this.ops, {
        baseSnapshotId: this.model.currentSnapshotId!,
        groups: batch.map((b) => b.group),
        planner: this.plan.planner,
        runId: this.runId,
        onRetry: (attempt, reason) => this.emit({ type: 'commit-retry', attempt, reason }),
        ...(rebaseEnabled(this.opts) ? {} : { rebaseConcurrentDeletes: false }),
      });
      await this.recordCommit(batch, res);
    } catch (e) {
      await this.recordBatchFailure(batch, e);
    } finally {
      if (isCancelled(this.signal)) this.cancelledAfterCommit = true;
    }
  }

  /** A batch's commit went through: its snapshot, the groups it took, and those a concurrent commit invalidated. */
  private async recordCommit(batch: readonly Item[], res: Awaited<ReturnType<typeof commitRunGroups>>): Promise<void> {
    const { report, tracker } = this;
    const sid = res.snapshotId.toString();
    if (res.carriedDeletes > 0) report.carriedDeletes = (report.carriedDeletes ?? 0) + res.carriedDeletes;
    report.snapshots.push(sid);
    report.committedTasks.push(...res.committedGroups);
    for (const id of res.committedGroups) tracker.committedIn.set(id, sid);
    for (const b of batch)
      if (res.committedGroups.includes(b.group.id)) for (const f of b.group.addedDataFiles) this.added.add(f.path);
    this.emit({ type: 'commit', snapshotId: sid, attempt: res.attempts, groups: res.committedGroups.length });
    for (const f of res.failedGroups) {
      report.failedTasks.push(f);
      (report.racedTasks ??= []).push(f.id); // a concurrent commit invalidated it: re-plannable
      await discardFiles(this.out, batch.find((b) => b.group.id === f.id)?.outputs ?? []);
    }
  }

  /**
   * A batch's commit failed: every group fails, with its own reason when validation against a concurrent
   * commit named it (re-plannable); rethrows what is not a conflict.
   */
  private async recordBatchFailure(batch: readonly Item[], e: unknown): Promise<void> {
    const { report } = this;
    // every group of the batch failed validation against a concurrent commit (commit-rewrite.ts validateGroups)
    const raced = isFloeError(e, 'PreconditionFailed') && Array.isArray(e.context?.failedGroups);
    for (const b of batch) {
      const own = raced
        ? (e.context!.failedGroups as { id: string; reason: string }[]).find((f) => f.id === b.group.id)
        : undefined;
      report.failedTasks.push({
        id: b.group.id,
        reason: own?.reason ?? (e instanceof Error ? e.message : String(e)),
      });
      if (raced) (report.racedTasks ??= []).push(b.group.id);
      // if the catalog may have taken the commit, the outputs may be live: keep them
      if (!isCommitStateUnknown(e)) await discardFiles(this.out, b.outputs);
    }
    if (!isFloeError(e) || !['PreconditionFailed', 'CommitConflict'].includes(e.kind)) throw e;
  }
}

/** Whether concurrent position deletes are carried over (CompactOptions.rebaseConcurrentDeletes, or the option). */
function rebaseEnabled(opts: CompactOptions): boolean {
  if (opts.rebaseConcurrentDeletes !== undefined) return opts.rebaseConcurrentDeletes;
  return opts.options?.[REBASE_OPTION] !== 'false';
}
