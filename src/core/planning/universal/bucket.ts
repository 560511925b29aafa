/** Maps a neutral-model LSM bucket to a universal RewriteTask (or nothing), carrying the writer state. */
import type { DataFile, LsmBucket } from '../../../../model/index.js';
import { type RewriteTask, taskInputBytes } from '../plan.js';
import { type UniversalDecision, decide } from './manager.js';
import type { UniversalOptions } from './options.js';
import type { Clock, Run, UniversalState } from './runs.js';

/** Paimon's target-file-size for primary-key tables (CoreOptions.targetFileSize(true)). */
export const DEFAULT_PK_TARGET_FILE_SIZE = 128 * 1024 * 1024;

export interface LsmPlanOptions extends UniversalOptions {
  /** `target-file-size`; 128 MiB for primary-key tables. */
  targetFileSizeBytes?: number;
}

/**
 * MergeTreeCompactManagerFactory.estimateLastFullCompactionTime: the newest creation time among files at
 * the configured max level, or null when there is none.
 */
export function estimateLastFullCompactionMs(bucket: LsmBucket, numLevels: number): number | null {
  const maxLevel = numLevels - 1;
  let newest = -1;
  for (const run of bucket.runs) {
    for (const f of run.files) {
      const level = f.lsm?.level ?? run.level;
      const t = f.lsm?.creationTimeMs;
      if (level === maxLevel && t !== undefined && t > newest) newest = t;
    }
  }
  return newest < 0 ? null : newest;
}

export interface LsmBucketPlan {
  task: RewriteTask | null;
  state: Required<UniversalState>;
  decision: UniversalDecision<DataFile>;
}

/**
 * Plans one bucket and returns the next writer state. Without a `lastFullCompactionMs` in `state`, it is
 * seeded from the newest max-level file, as a Paimon writer does when it starts on existing files.
 */
export function planLsmBucketWithState(
  bucket: LsmBucket,
  numLevels: number,
  options: LsmPlanOptions = {},
  now?: Clock,
  state?: UniversalState,
): LsmBucketPlan {
  const seeded: UniversalState = {
    ...state,
    lastFullCompactionMs:
      state?.lastFullCompactionMs !== undefined
        ? state.lastFullCompactionMs
        : estimateLastFullCompactionMs(bucket, numLevels),
  };
  const runs: Run<DataFile>[] = bucket.runs.map((r) => ({ level: r.level, size: r.sizeBytes, files: r.files }));
  const decision = decide(numLevels, runs, options, now, seeded);
  const p = decision.pick;
  if (!p) return { task: null, state: decision.state, decision };
  const inputs = p.runs.flatMap((r) => [...(r.files ?? [])]);
  const task: RewriteTask = {
    id: `universal:${JSON.stringify(bucket.partition, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}:bucket-${bucket.bucket}:L${p.outputLevel}`,
    kind: 'universal',
    specId: inputs[0]?.specId ?? 0,
    partition: bucket.partition,
    bucket: bucket.bucket,
    inputs,
    deletes: [],
    removableDeletes: [],
    targetFileSizeBytes: options.targetFileSizeBytes ?? DEFAULT_PK_TARGET_FILE_SIZE,
    outputLevel: p.outputLevel,
    dropDelete: p.dropDelete,
    inputBytes: taskInputBytes(inputs),
    trail: p.trail,
  };
  return { task, state: decision.state, decision };
}

/** One bucket's universal compaction task, or null when Paimon would not compact it now. */
export function planLsmBucket(
  bucket: LsmBucket,
  numLevels: number,
  options: LsmPlanOptions = {},
  now?: Clock,
  state?: UniversalState,
): RewriteTask | null {
  return planLsmBucketWithState(bucket, numLevels, options, now, state).task;
}
