/**
 * What a run costs and what it buys, as the scheduler ranks due work. A compaction's cost is read from its
 * plan (a dry run): it reads the planned input and writes about as much, and its CPU time follows the
 * throughput model. Its benefit is the file opens a full scan saves: the planned input files, less the
 * files the tasks write back (at least one per task), plus the delete files merged away. Other jobs (expire,
 * remove-orphans) cost what their last run measured and are not ranked by benefit.
 *
 * Priority is benefit per unit of cost, raised by how long the job has waited since it became due:
 * `benefit / cost × (1 + waited / aging)`. A table that keeps producing cheap, high-benefit work cannot
 * starve a small table for ever: the small table's factor grows without bound while it waits.
 */
import type { MaintenanceJobResult, PlanSummary } from '../../orchestration/job-types.js';
import type { RunRecord } from './state-db.js';
import type { Spend, Usage } from './budget.js';

export interface RunEstimate {
  usage: Usage;
  /** Full-scan file opens the run saves. */
  fileOpensSaved: number;
  /** Planned tasks; 0: below the planner's triggers, nothing to do. */
  tasks: number;
  atMs: number;
}

export function estimateFromPlan(
  plan: PlanSummary | undefined,
  bytesPerCpuSecond: number,
  atMs: number,
  targetSize?: number,
): RunEstimate {
  const inputBytes = plan?.inputBytes ?? 0;
  const tasks = plan?.tasks ?? 0;
  const written = tasks === 0 ? 0 : Math.max(tasks, targetSize ? Math.ceil(inputBytes / targetSize) : tasks);
  const deletes = (plan?.taskList ?? []).reduce((n, t) => n + t.deletes, 0);
  return {
    usage: {
      bytesRead: inputBytes,
      bytesWritten: inputBytes,
      cpuSeconds: cpuSecondsFor(inputBytes, bytesPerCpuSecond),
    },
    fileOpensSaved: Math.max(0, (plan?.inputFiles ?? 0) - written) + deletes,
    tasks,
    atMs,
  };
}

/** Reading and rewriting `bytes` at the model's throughput. */
export function cpuSecondsFor(bytes: number, bytesPerCpuSecond: number): number {
  return bytes / bytesPerCpuSecond;
}

/** What a finished run used, measured: its bytes, and its wall time as CPU-seconds of one core (an upper bound for one group). */
export function measuredUsage(r: Pick<MaintenanceJobResult, 'bytesRead' | 'bytesWritten' | 'durationMs'>): Usage {
  return { bytesRead: r.bytesRead, bytesWritten: r.bytesWritten, cpuSeconds: r.durationMs / 1000 };
}

/** File opens a finished compaction saved: data files before less after, plus delete files merged. */
export function measuredBenefit(
  r: Pick<RunRecord, 'filesBefore' | 'filesAfter' | 'deleteFilesBefore' | 'deleteFilesAfter'>,
): number {
  const files = r.filesBefore !== undefined && r.filesAfter !== undefined ? r.filesBefore - r.filesAfter : 0;
  const deletes =
    r.deleteFilesBefore !== undefined && r.deleteFilesAfter !== undefined
      ? r.deleteFilesBefore - r.deleteFilesAfter
      : 0;
  return Math.max(0, files) + Math.max(0, deletes);
}

/**
 * The cost a priority divides by, in the budget's leading unit: money when money is limited, else bytes,
 * else CPU-seconds. Never 0 (a free run of some benefit still ranks finitely).
 */
export function costFor(spend: Spend, unit: keyof Spend): number {
  const floor = unit === 'bytes' ? 1 : 1e-9;
  return Math.max(floor, spend[unit]);
}

export function priority(benefit: number, cost: number, waitedMs: number, agingMs: number): number {
  const aging = agingMs > 0 ? 1 + Math.max(0, waitedMs) / agingMs : 1;
  return (benefit / cost) * aging;
}
