/** floe library API. */
export * from './errors.js';
export * from './model/index.js';
export * from './planning/plan.js';
export * as universal from './planning/universal/index.js';
export * from './planning/tiered/index.js';
export * from './planning/binpack/index.js';
