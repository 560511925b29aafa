/** Moved to src/orchestration/job-types.ts (the distributed seam takes the same spec); re-exported here. */
export * from '../orchestration/job-types.js';
