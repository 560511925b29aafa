/**
 * The thread count the tiered planner's input budget is per. Amoro plans up to
 * `max-input-file-size-per-thread` × availableCores bytes of partition cost per plan, availableCores being
 * the thread count of the optimizer group that runs the plan, at least 1 (AbstractOptimizingPlanner.planTasks;
 * OptimizingQueue sums the registered optimizers' threadCount — reference fact sheet amoro.md §1.4 and §2.6).
 * A `floe compact` run is its own optimizer: its threads are its rewrite workers, `--parallelism` (default
 * 'auto', one per core), so a two-thread run plans a two-thread budget. The planner's own default stays 1
 * (policy.ts) for callers that plan without running (the simulator, the distributed seam).
 */
import * as os from 'node:os';
import { TIERED_KEYS } from '../core/planning/policy.js';

/**
 * `options` with `self-optimizing.available-cores` set to the run's thread count, unless `-o` or the table
 * already sets it (floe serve does, to 1, so that its maxBytesPerRun is the whole run's budget). Returns a
 * new object; `options` is not changed.
 */
export function withPlannerThreads(
  options: Readonly<Record<string, string>>,
  tableProperties: Readonly<Record<string, string>>,
  parallelism: number | 'auto' | undefined,
): Record<string, string> {
  const key = TIERED_KEYS.availableCores;
  if (options[key] !== undefined || tableProperties[key] !== undefined) return { ...options };
  return { ...options, [key]: String(plannerThreads(parallelism)) };
}

/** The threads a run with this `parallelism` rewrites on: 'auto' (and unset) is the core count. */
export function plannerThreads(parallelism: number | 'auto' | undefined): number {
  if (parallelism === undefined || parallelism === 'auto') return Math.max(1, os.availableParallelism());
  return Math.max(1, Math.floor(parallelism));
}
