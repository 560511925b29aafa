/** floe library API. */
export * from './errors.js';
export * from './model/index.js';
export * from './planning/plan.js';
export * as universal from './planning/universal/index.js';
export * from './planning/tiered/index.js';
export * from './planning/binpack/index.js';
export { findDanglingDeletes } from './orchestration/dangling-deletes.js';

// Jobs: plan → rewrite → commit, and maintenance
export {
  compactIceberg,
  planIceberg,
  type CompactOptions,
  type CompactReport,
} from './orchestration/compact-iceberg.js';
export { executeTasks, type RewriteAdapter, type ExecuteResult } from './execution/executor.js';
export type { ProgressEvent, ProgressListener } from './execution/events.js';
export * as maintenance from './maintenance/index.js';
export { expireSnapshots, type ExpireOptions } from '../connectors/iceberg/expire.js';
export { removeOrphanFiles, type RemoveOrphansOptions } from '../connectors/iceberg/orphans.js';
export { rewriteManifests } from '../connectors/iceberg/rewrite-manifests.js';
export { expirePaimonSnapshots } from '../connectors/paimon/expire.js';

// Reading tables
export { openIcebergTable, loadTableModel, type IcebergTable } from '../connectors/iceberg/table.js';
export { scanTable, countLiveRows } from '../connectors/iceberg/scan.js';
export { openIcebergForWrite, type OpenedIcebergTable } from './cli/table-access.js';
export { isPaimonTable, loadPaimonTable, scanPaimon } from '../connectors/paimon/index.js';

// Storage
export { FileIO, type StorageConfig } from '../connectors/storage/file-io.js';
export { LocationMap } from '../connectors/storage/location.js';
export type { ObjectStore } from '../connectors/storage/object-store.js';

// Simulation
export * as simulate from './simulate/index.js';

// Scheduled maintenance: the service, and the one function hosts (Temporal, BullMQ, Airflow) call
export * from './service/index.js';

// Results: the versioned JSON documents `--json` prints (schema/floe-result.schema.json), for library callers
export {
  RESULT_SCHEMA_ID,
  resultDocument,
  toResultJson,
  type ResultDocument,
  type ResultStatus,
} from './cli/result.js';
export {
  icebergCompactResult,
  paimonCompactResult,
  type CompactResult,
  type CompactTaskResult,
} from './cli/compact-result.js';
export { maintenanceResultBody } from './cli/maintenance-output.js';
export { EXIT as EXIT_CODES } from './cli/exit-codes.js';
export { parseDurationMs, parseSizeBytes, formatBytes } from './util/units.js';
