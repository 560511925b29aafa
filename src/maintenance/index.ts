export * from './duration.js';
export * from './report.js';
export * from './store-io.js';
export * from './delete-batches.js';
export * from './snapshot-retention.js';
export * from './orphan-scan.js';
