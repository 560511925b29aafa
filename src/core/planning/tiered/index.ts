export { planTiered, estimatedOutputFiles, conversionReadBytes } from './planner.js';
export { PartitionEvaluation, isCompactPositionDelete } from './evaluator.js';
export type { FileWithDeletes, OptimizingType } from './evaluator.js';
export { compileFilter, filterColumns } from '../predicate.js';
export { advanceTieredState, timesFor } from './state.js';
export type { TieredState, OptimizeTimes, ResolvedTimes } from './state.js';
export {
  tieredPolicyFromProperties,
  validateTieredPolicy,
  fragmentSize,
  minTargetSize,
  TIERED_DEFAULTS,
  TIERED_KEYS,
} from '../policy.js';
export type { TieredPolicy } from '../policy.js';
export {
  buildDeleteIndex,
  associateDeletes,
  deleteApplies,
  computeRemovableDeletes,
  isUnpartitionedSpec,
  isFileScoped,
  deleteFileId,
} from '../deletes.js';
export type { DeleteIndex, RemovableDeletes } from '../deletes.js';
