/**
 * The plan step of a single-process Iceberg compaction (compact-iceberg.ts): the planner the options ask for
 * (tiered, bin-pack, sort, full), split for worker threads, narrowed to the partitions a re-plan is about,
 * and without the partitions writers wrote to last. planIceberg is also what the worker threads and the
 * distributed seam plan with, so every process makes the same plan from the same base and clock.
 */
import os from 'node:os';
import { partitionKey, type TableModel } from '../../model/index.js';
import type { Plan, RewriteTask } from '../core/planning/plan.js';
import { compileFilter, planTiered, tieredPolicyFromProperties } from '../core/planning/tiered/index.js';
import { planBinpack, binpackOptionsFrom } from '../core/planning/binpack/index.js';
import { planFull } from '../core/planning/full.js';
import { planSortStrategy } from '../core/planning/sort-planner.js'; // [sort]
import { labelTasks } from '../core/planning/partition-label.js';
import { splitOversizedTasks } from '../core/execution/split-tasks.js';
import type { CompactOptions } from './compact-iceberg.js';
import { newestPartitions } from './writer-activity.js';

/** `parallelism: 'auto'` starts worker threads only for runs whose data tasks read at least this much. */
export const AUTO_PARALLEL_MIN_BYTES = 64 * 1024 * 1024;

export function planIceberg(model: TableModel, opts: CompactOptions, now: number): Plan {
  // on v3, equality→position tasks write deletion vectors (one per data file, merged with its old DV)
  const plan = planFor(model, opts, now);
  return opts.splitTasks ? splitOversizedTasks(plan) : plan;
}

function planFor(model: TableModel, opts: CompactOptions, now: number): Plan {
  const props = { ...model.properties, ...(opts.options ?? {}) };
  if (opts.full) return planFull(model, props, now);
  if ((opts.strategy ?? 'tiered') === 'tiered')
    return planTiered(model, tieredPolicyFromProperties(props), now, opts.tieredState);
  // bin-pack has no filter of its own: narrow the candidate files the same way the tiered planner does
  const filter = props['self-optimizing.filter'];
  const scoped = filter ? { ...model, dataFiles: model.dataFiles.filter(compileFilter(filter, model)) } : model;
  if (opts.strategy === 'sort' || opts.strategy === 'zorder')
    return labelTasks(planSortStrategy(scoped, opts.strategy, opts.sort, props, binpackOptionsFrom(props), now), model); // [sort]
  return labelTasks(planBinpack(scoped, binpackOptionsFrom(props), now), model);
}

/** Worker threads for the data tasks `tasks` (parallelism, `'auto'` by their input bytes). */
export function threadsFor(opts: CompactOptions, tasks: readonly RewriteTask[]): number {
  const p = opts.parallelism ?? 1;
  if (p !== 'auto') return Math.max(1, Math.floor(p));
  const bytes = tasks.reduce((n, t) => n + t.inputBytes, 0);
  return bytes >= AUTO_PARALLEL_MIN_BYTES ? os.availableParallelism() : 1;
}

/** The run's plan: split when its data tasks will run on worker threads (the same as planIceberg with splitTasks). */
function planForRun(model: TableModel, opts: CompactOptions, now: number): Plan {
  const plan = planIceberg(model, opts, now);
  return !opts.splitTasks && runsOnThreads(opts, plan) ? splitOversizedTasks(plan) : plan;
}

/** Whether the data tasks of `plan` would run on worker threads (then its oversized tasks are split). */
function runsOnThreads(opts: CompactOptions, plan: Plan): boolean {
  if (opts.taskRunner || !opts.source) return false;
  return (
    threadsFor(
      opts,
      plan.tasks.filter((t) => t.kind !== 'eq-to-pos'),
    ) > 1
  );
}

export const NEWEST_PARTITION = 'left alone: a writer wrote to this partition recently (leaveNewest)';

/** The plan without the tasks of the newest partitions (`leaveNewest`), and those tasks. */
function withoutNewestPartitions(
  plan: Plan,
  model: TableModel,
  opts: CompactOptions,
  now: number,
): { plan: Plan; left: RewriteTask[] } {
  if (!opts.leaveNewest || plan.tasks.length === 0) return { plan, left: [] };
  const newest = newestPartitions(model, now, opts.leaveNewest);
  const left = plan.tasks.filter((t) => newest.has(partitionKey(t.specId, t.partition)));
  if (left.length === 0) return { plan, left };
  return { plan: { ...plan, tasks: plan.tasks.filter((t) => !left.includes(t)) }, left };
}

/**
 * The run's plan and the tasks it leaves alone (the newest partitions): the planner's plan (none with
 * `onlyDanglingDeletes`), only the partitions of `onlyPartitions` when a re-plan asks for them.
 */
export function planRun(model: TableModel, opts: CompactOptions, now: number): { plan: Plan; left: RewriteTask[] } {
  const planned = opts.onlyDanglingDeletes
    ? { planner: 'tiered' as const, plannedAtMs: now, tasks: [], removableDeletes: [], trail: [] }
    : planForRun(model, opts, now);
  const scoped = opts.onlyPartitions
    ? {
        ...planned,
        tasks: planned.tasks.filter((t) => opts.onlyPartitions!.has(partitionKey(t.specId, t.partition))),
      }
    : planned;
  return withoutNewestPartitions(scoped, model, opts, now);
}
