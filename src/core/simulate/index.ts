/** The policy simulator: replay a commit stream against compaction policies and compare them. */
export * from './types.js';
export { normalizeStream, loadStreamFile } from './stream.js';
export { normalizePolicy, loadPolicyFile } from './policy.js';
export { SimTable, share, type LiveDataFile, type LiveDeleteFile, type PlanEffect } from './sim-table.js';
export { Scheduler, describeSchedule } from './schedule.js';
export {
  simulate,
  simulatePolicy,
  writeAmplification,
  DEFAULT_START_MS,
  type PlannerRunner,
  type SimulateOptions,
} from './engine.js';
export { plannerFor } from './planners.js';
export { percentile, summarize } from './stats.js';
export { renderReport, reportJson, renderTable } from './report.js';
export { renderChart, escapeXml, niceTicks } from './chart.js';
export {
  getPreset,
  isPreset,
  presetNames,
  defaultPoliciesForStream,
  appendStreamSpec,
  upsertStreamSpec,
  type Preset,
} from './presets.js';
