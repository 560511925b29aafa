/** `floe serve` and the host seam: one maintenance job as a plain async function. */
export { runMaintenanceJob } from '../../app/maintenance-job.js';
export { JOB_KINDS } from '../../orchestration/job-types.js';
export type {
  JobKind,
  MaintenanceJobSpec,
  MaintenanceJobResult,
  RunJobOptions,
  TableAccess,
  CompactSpec,
  ExpireSpec,
  RemoveOrphansSpec,
  RewriteManifestsSpec,
  ExpirePartitionsSpec,
  PlanSummary,
} from '../../orchestration/job-types.js';
export { loadServiceConfig, parseServiceConfig } from './config.js';
export type {
  ServiceConfig,
  TableConfig,
  JobConfig,
  CatalogConfig,
  OverrideConfig,
  HttpConfig,
  WebhookConfig,
} from './config.js';
export { MaintenanceService, systemClock, stdoutLog } from './service.js';
export type { Clock, RunJob, LogSink, LogEntry, ServiceOptions, TriggerOutcome, OnceSummary } from './service.js';
export { StateStore } from './state.js';
export type { TableState, JobState, JobOutcome, TableStateStore } from './state.js';
export { DbStateStore } from './state-db.js';
export type { RunRecord, RunOutcome, ManagedTable } from './state-db.js';
export { MIGRATIONS, SCHEMA_VERSION } from './state-sql.js';
export { Discovery, listCatalog, listWarehouse, optOutReason } from './discovery.js';
export { ServiceApi } from './api.js';
export { WebhookNotifier } from './webhook.js';
export type { WebhookEvent } from './webhook.js';
export { startHttpEndpoint } from './http.js';
export type { HttpEndpoint } from './http.js';
export { parseSchedule, nextDueMs, backoffMs } from './schedule.js';
export type { Schedule } from './schedule.js';
export { encodeTieredState, decodeTieredState } from '../../core/planning/tiered/state-json.js';
export type { TieredStateJson } from '../../core/planning/tiered/state-json.js';
export { WHY_CODES } from './why.js';
export type { Why, WhyCode } from './why.js';
export { flatPriceOf } from './budget.js';
export type { BudgetConfig, Limits, Spend, Usage, PriceOf, FlatPrices } from './budget.js';
