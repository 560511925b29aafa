/** Moved to src/planning/tiered/state-json.ts (the planner's own state format); re-exported for importers. */
export * from '../planning/tiered/state-json.js';
