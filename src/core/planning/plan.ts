/**
 * What every planner returns: tasks that say what to read, which deletes to apply, which deletes may be
 * dropped, the output, and why. Planners are pure functions of (model, policy, clock).
 */
import type { DataFile, DeleteFile, PartitionTuple } from '../../../model/index.js';
import type { DecisionStep } from '../../../model/decision.js';
import type { RowOrder } from './sort-order.js';

export type { DecisionStep };

export type TaskKind =
  | 'minor' // merge fragments; equality deletes → position deletes
  | 'major' // merge segments, apply position deletes
  | 'full' // rewrite a whole partition
  | 'eq-to-pos' // rewrite only delete files of target-size segments
  | 'position-deletes' // merge position delete files / DVs only (compact --deletes-only)
  | 'binpack'
  | 'universal'; // Paimon LSM unit

export interface RewriteTask {
  id: string;
  kind: TaskKind;
  specId: number;
  partition: PartitionTuple;
  /** Paimon bucket (LSM tasks). */
  bucket?: number;
  /** The partition for people: "region=eu, ts_day=2024-01-02" (src/core/planning/partition-label.ts). */
  partitionLabel?: string;
  /** Data files read by the task (and replaced by its output, except for eq-to-pos). */
  inputs: DataFile[];
  /** Delete files that must be applied while reading `inputs`. */
  deletes: DeleteFile[];
  /** Delete files that no surviving data file needs once this task commits. */
  removableDeletes: DeleteFile[];
  targetFileSizeBytes: number;
  /** LSM output level and whether delete records may be dropped there. */
  outputLevel?: number;
  dropDelete?: boolean;
  inputBytes: number;
  /** How many output files the writer should aim for (bin-pack: Iceberg's `expectedOutputFiles`). */
  expectedOutputFiles?: number;
  /** Size at which the writer rolls to a new file, when it differs from the target (bin-pack). */
  maxOutputFileSizeBytes?: number;
  /** Sort / z-order strategies: the order the task's rows are written in (src/core/planning/sort-order.ts). */
  order?: RowOrder;
  trail: DecisionStep[];
}

export interface Plan {
  planner: 'tiered' | 'binpack' | 'universal';
  /** The clock the plan was made at (ms since epoch). */
  plannedAtMs: number;
  /** Snapshot the plan was made against; the committer validates everything after it. */
  baseSnapshotId?: bigint;
  tasks: RewriteTask[];
  /** Delete files removable table-wide once every task commits (a global equality delete, say). */
  removableDeletes: DeleteFile[];
  /** Plan-level decisions (partition ranking, budgets, skipped partitions …). */
  trail: DecisionStep[];
}

export function taskInputBytes(files: readonly { sizeBytes: number }[]): number {
  let n = 0;
  for (const f of files) n += f.sizeBytes;
  return n;
}
