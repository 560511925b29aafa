/** floe library API. */
export * from './errors.js';
export * from './model/index.js';
export * from './planning/plan.js';
