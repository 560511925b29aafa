/** floe library API. */
export * from '../util/errors.js';
export * from '../model/index.js';
export * from './core/planning/plan.js';
export * as universal from './core/planning/universal/index.js';
export * from './core/planning/tiered/index.js';
export * from './core/planning/binpack/index.js';
export { findDanglingDeletes } from './orchestration/dangling-deletes.js';

// Jobs: plan → rewrite → commit, and maintenance
export {
  compactIceberg,
  planIceberg,
  type CompactOptions,
  type CompactReport,
} from './orchestration/compact-iceberg.js';
export { compactPaimon, type PaimonCompactOptions, type PaimonCompactReport } from './orchestration/compact-paimon.js';
export { executeTasks, type RewriteAdapter, type ExecuteResult } from './core/execution/executor.js';
export type { ProgressEvent, ProgressListener } from './core/execution/events.js';
export * as maintenance from './app/maintenance-exports.js';
export { expireSnapshots, type ExpireOptions } from '../connectors/iceberg/expire.js';
export { removeOrphanFiles, type RemoveOrphansOptions } from '../connectors/iceberg/orphans.js';
export { rewriteManifests } from '../connectors/iceberg/rewrite-manifests.js';
export { expirePaimonSnapshots } from '../connectors/paimon/expire.js';

// Reading tables
export { openIcebergTable, loadTableModel, type IcebergTable } from '../connectors/iceberg/table.js';
export { scanTable, countLiveRows } from '../connectors/iceberg/scan.js';
export { openIcebergForWrite, type OpenedIcebergTable } from './app/open-table.js';
export { isPaimonTable, loadPaimonTable, scanPaimon } from '../connectors/paimon/index.js';

// Storage
export { FileIO, type StorageConfig } from '../connectors/storage/file-io.js';
export { LocationMap } from '../connectors/storage/location.js';
export type { ObjectStore } from '../connectors/storage/object-store.js';

// Simulation
export * as simulate from './core/simulate/index.js';

// Scheduled maintenance: the service, and the one function hosts (Temporal, BullMQ, Airflow) call
export * from './shells/service/index.js';

// Results: the versioned JSON documents `--json` prints (schema/floe-result.schema.json), for library callers
export {
  RESULT_SCHEMA_ID,
  resultDocument,
  toResultJson,
  type ResultDocument,
  type ResultStatus,
} from './app/result.js';
export {
  icebergCompactResult,
  paimonCompactResult,
  type CompactResult,
  type CompactTaskResult,
} from './app/compact-result.js';
export { maintenanceResultBody } from './app/maintenance-result.js';
export { EXIT as EXIT_CODES } from './app/exit-codes.js';
export { parseDurationMs, parseSizeBytes, formatBytes } from '../util/units.js';

// The application layer (src/app): what `floe`, `floe serve` and the bindings run — open a table by path, URI
// or catalog, detect its format, run a job with typed options, get the floe-result/1 document
export {
  requireCommitOps,
  openTableForRead,
  openMaintainedViaCatalog,
  fileIOFromEnv,
  storageConfigFromEnv,
  type AccessOptions,
  type TableReadOptions,
} from './app/open-table.js';
export { detectTableFormat, type TableFormat } from './app/table-format.js';
export { loadCurrentModel } from './app/table-model.js';
export {
  compactTable,
  runCompaction,
  compactResult,
  compactResultDocument,
  type CompactTableOptions,
  type CompactRun,
} from './app/compact.js';
export { resolveCompactSpec, type ResolvedCompact } from './orchestration/compact-spec.js';
export { expireTable, type ExpireTableOptions } from './app/expire.js';
export { removeTableOrphans, type RemoveOrphansTableOptions } from './app/remove-orphans.js';
export { rewriteTableManifests, type RewriteManifestsTableOptions } from './app/rewrite-manifests.js';
export {
  expireTablePartitions,
  expirePartitionsResult,
  type ExpirePartitionsTableOptions,
} from './app/expire-partitions.js';
export { maintenanceResult } from './app/maintenance-result.js';
export {
  inspectTable,
  inspectResult,
  buildInspectReport,
  type InspectTableOptions,
  type InspectReport,
  type PaimonInspectReport,
} from './app/inspect.js';
export { writeTableScan, type ScanTableOptions } from './app/scan.js';
export { errorDocument, statusOf } from './app/result.js';
