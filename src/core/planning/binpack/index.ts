export { planBinpack, expectedOutputFiles, writeMaxFileSize } from './planner.js';
export { firstFitPack, sequentialPack } from './packing.js';
export { binpackOptionsFrom, validateBinpackOptions, BINPACK_DEFAULTS, BINPACK_KEYS } from '../policy.js';
export type { BinpackOptions, RewriteJobOrder } from '../policy.js';
