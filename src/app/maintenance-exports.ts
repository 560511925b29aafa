export * from '../../util/cutoff.js';
export * from './maintenance-report.js';
export * from '../../model/snapshot-retention.js';
export * from '../../connectors/storage/delete-batches.js';
export * from '../../connectors/storage/orphan-scan.js';
export { requireFound, type ListedFile } from '../../connectors/storage/file-io.js';
