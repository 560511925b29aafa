/**
 * The report of an Iceberg compaction run (`floe compact`, `--deletes-only`): what was planned against
 * which snapshot, what was committed, failed or skipped, and the table before and after.
 */
import type { TableModel } from '../../model/index.js';
import type { Plan } from '../core/planning/plan.js';
import type { CancelInfo, TaskOutcome } from './task-outcomes.js';

export interface TableStats {
  dataFiles: number;
  dataBytes: number;
  deleteFiles: number;
  deleteBytes: number;
  records: number;
}

export interface CompactReport {
  table: string;
  plan: Plan;
  dryRun: boolean;
  before: TableStats;
  after?: TableStats;
  /** The snapshot the plan was made against (decimal string); absent for a table without snapshots. */
  baseSnapshotId?: string;
  snapshots: string[];
  committedTasks: string[];
  failedTasks: { id: string; reason: string }[];
  /** Planned tasks that did not run or whose output was not committed, with the reason (cancel, dry run, no snapshot). */
  skippedTasks: { id: string; reason: string }[];
  /** Every planned task, in plan order, with its outcome (task-outcomes.ts). */
  tasks: TaskOutcome[];
  /** The extra commit that drops dangling and settled delete files, when one was needed. */
  deleteCleanup?: { outcome: 'committed' | 'failed'; snapshotId?: string; reason?: string; removed: number };
  /** Set when the job was cancelled but something was committed (otherwise it throws cancelledError). */
  cancelled?: CancelInfo;
  /** Delete files removed (or, in a dry run, removable) because no live data file needs them. */
  danglingDeletes: string[];
  /**
   * The plan's table-wide removable deletes dropped after the tasks they span all committed (ids: the path,
   * `path#offset` for a deletion vector). With each task's own removals this is what the plan promised.
   */
  settledDeletes?: string[];
  bytesRead: number;
  bytesWritten: number;
  rowsIn: number;
  rowsOut: number;
  durationMs: number;
  /** Deleted rows concurrent writers committed against replaced files, carried over to the outputs. */
  carriedDeletes?: number;
  /** Re-plans of groups a concurrent commit invalidated (compact-iceberg-replan.ts; absent: none). */
  replans?: number;
  /** [internal] Failed tasks a concurrent commit invalidated (re-plannable); removed from the final report. */
  racedTasks?: string[];
}

export function statsOf(m: Pick<TableModel, 'dataFiles' | 'deleteFiles'>): TableStats {
  return {
    dataFiles: m.dataFiles.length,
    dataBytes: m.dataFiles.reduce((n, f) => n + f.sizeBytes, 0),
    deleteFiles: m.deleteFiles.length,
    deleteBytes: m.deleteFiles.reduce((n, f) => n + f.sizeBytes, 0),
    records: m.dataFiles.reduce((n, f) => n + f.recordCount, 0),
  };
}

/** A run's report before anything ran: the plan against the model's current snapshot, nothing done yet. */
export function newCompactReport(
  table: string,
  plan: Plan,
  model: Pick<TableModel, 'dataFiles' | 'deleteFiles' | 'currentSnapshotId'>,
  opts: { dryRun: boolean; danglingDeletes?: string[] },
): CompactReport {
  return {
    table,
    plan,
    dryRun: opts.dryRun,
    before: statsOf(model),
    snapshots: [],
    committedTasks: [],
    failedTasks: [],
    skippedTasks: [],
    tasks: [],
    danglingDeletes: opts.danglingDeletes ?? [],
    bytesRead: 0,
    bytesWritten: 0,
    rowsIn: 0,
    rowsOut: 0,
    durationMs: 0,
    ...(model.currentSnapshotId !== undefined ? { baseSnapshotId: model.currentSnapshotId.toString() } : {}),
  };
}
