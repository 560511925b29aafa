/**
 * Paimon universal compaction (apache/paimon master): which sorted runs of an LSM bucket to compact,
 * into which level, and whether deletes may be dropped — the same decisions a Paimon writer makes.
 */
export { pick, decide, pickFull, effectiveNumLevels } from './manager.js';
export type { UniversalPick, UniversalDecision, FullCompactionUnit } from './manager.js';
export { pickForSizeAmp, pickForSizeRatio, createUnit, tryEarlyFullCompaction, forcePickL0 } from './gates.js';
export type { PickReason } from './strategy.js';
export { resolveOptions, parseOptionAssignments, optionsFromProperties, canonicalOptionKey } from './options.js';
export type { UniversalOptions, ResolvedUniversalOptions, OffPeakOptions, LookupCompactMode } from './options.js';
export { isOffPeak, offPeakRatio } from './offpeak.js';
export { describeRuns, validateRuns } from './runs.js';
export type { Run, Clock, CompactUnit, UniversalState } from './runs.js';
export {
  planLsmBucket,
  planLsmBucketWithState,
  estimateLastFullCompactionMs,
  DEFAULT_PK_TARGET_FILE_SIZE,
} from './bucket.js';
export type { LsmPlanOptions, LsmBucketPlan } from './bucket.js';
