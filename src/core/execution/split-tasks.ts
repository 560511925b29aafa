/**
 * Splitting a task that is far bigger than its target file size into independent sub-tasks by input file,
 * so a worker pool can run its parts on all cores (a bin-pack group may be up to
 * `max-file-group-size-bytes`, 100 GiB by Spark's default, and would otherwise keep one core busy while
 * the others idle). Done in the execution layer, on a finished plan, just before running it: planners
 * stay unaware of how many workers there are.
 *
 * Each sub-task reads a run of the task's inputs whose bytes add up to at most the target size (a single
 * larger file is a sub-task of its own), so each writes about one file of at most the target size — the
 * same files the whole task would have written, give or take one roll boundary. Sub-tasks keep the task's
 * deletes (each applies only to the inputs it matches). The task's `removableDeletes` move to the plan's
 * table-wide list: once the task is split no single sub-task's commit may drop them, and the run's final
 * cleanup drops them once every data file that needs them is gone (settle-deletes.ts).
 *
 * Not split: sort / z-order tasks (their order spans all inputs), equality→position conversions (one
 * delete file per task), Paimon LSM tasks (a level is one sorted run), and tasks at most `factor` × target.
 */
import type { Plan, RewriteTask } from '../planning/plan.js';

export interface SplitOptions {
  /** Split tasks whose input exceeds factor × target (default 4). */
  factor?: number;
}

export function splitOversizedTasks(plan: Plan, options: SplitOptions = {}): Plan {
  const factor = options.factor ?? 4;
  const moved: Plan['removableDeletes'] = [];
  const tasks = plan.tasks.flatMap((task) => {
    const parts = splitTask(task, factor);
    if (parts.length > 1) moved.push(...task.removableDeletes);
    return parts;
  });
  if (moved.length === 0 && tasks.length === plan.tasks.length) return plan;
  const seen = new Set(plan.removableDeletes.map((d) => d.path));
  return {
    ...plan,
    tasks,
    removableDeletes: [...plan.removableDeletes, ...moved.filter((d) => !seen.has(d.path) && seen.add(d.path))],
  };
}

/**
 * Files in order, cut into runs of at most `max` bytes (a file bigger than `max` is a run of its own): how a
 * task is split and how delete files are grouped for one rewrite.
 */
export function chunksBySize<T extends { sizeBytes: number }>(files: readonly T[], max: number): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let bytes = 0;
  for (const f of files) {
    if (cur.length > 0 && bytes + f.sizeBytes > max) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(f);
    bytes += f.sizeBytes;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** The task itself when it is not worth splitting, else its sub-tasks (ids `<id>.1`, `<id>.2`, …). */
export function splitTask(task: RewriteTask, factor = 4): RewriteTask[] {
  const target = task.targetFileSizeBytes;
  if (!(target > 0) || task.inputBytes <= factor * target) return [task];
  if (task.order || task.kind === 'eq-to-pos' || task.bucket !== undefined || task.outputLevel !== undefined)
    return [task];
  const runs = chunksBySize(task.inputs, target);
  if (runs.length <= 1) return [task];
  return runs.map((inputs, i) => {
    const inputBytes = inputs.reduce((n, f) => n + f.sizeBytes, 0);
    const part: RewriteTask = {
      ...task,
      id: `${task.id}.${i + 1}`,
      inputs,
      inputBytes,
      removableDeletes: [],
      trail: [
        ...task.trail,
        {
          gate: 'split',
          detail: `part ${i + 1} of ${runs.length}: ${inputs.length} of the task's ${task.inputs.length} file(s), ${inputBytes} of ${task.inputBytes} bytes (task > ${factor} × target ${target})`,
          outcome: 'info' as const,
          values: { part: i + 1, parts: runs.length, inputBytes },
        },
      ],
    };
    delete part.expectedOutputFiles; // the whole task's count; each part aims at one file
    return part;
  });
}
