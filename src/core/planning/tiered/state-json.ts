/**
 * The tiered planner's state as plain JSON: the snapshot id (a 64-bit bigint) travels as a decimal string,
 * so state files, queue payloads and workflow histories never lose digits or need a bigint-aware parser.
 */
import type { OptimizeTimes, TieredState } from './index.js';

export interface TieredStateJson {
  table?: OptimizeTimes;
  partitions?: Record<string, OptimizeTimes>;
  lastOptimizedSnapshotId?: string;
}

export function encodeTieredState(s: TieredState): TieredStateJson {
  return {
    ...(s.table ? { table: { ...s.table } } : {}),
    ...(s.partitions ? { partitions: structuredClone(s.partitions) } : {}),
    ...(s.lastOptimizedSnapshotId !== undefined
      ? { lastOptimizedSnapshotId: s.lastOptimizedSnapshotId.toString() }
      : {}),
  };
}

export function decodeTieredState(j: TieredStateJson): TieredState {
  return {
    ...(j.table ? { table: { ...j.table } } : {}),
    ...(j.partitions ? { partitions: structuredClone(j.partitions) } : {}),
    ...(j.lastOptimizedSnapshotId !== undefined ? { lastOptimizedSnapshotId: BigInt(j.lastOptimizedSnapshotId) } : {}),
  };
}
