/**
 * The host seam's data: what a maintenance job is asked to do and what it reports. Plain JSON only, so
 * specs and results pass through queues (BullMQ), workflow histories (Temporal) and state files unchanged.
 * Kept apart from job.ts so the scheduler and config load without the compaction engine.
 */
import type { ProgressListener } from '../execution/events.js';
import type { TieredStateJson } from './tiered-json.js';

export type JobKind = 'compact' | 'expire' | 'remove-orphans';
export const JOB_KINDS: readonly JobKind[] = ['compact', 'expire', 'remove-orphans'];

export interface TableAccess {
  /** `sql:<sqlite-path>` or `rest:<url>`; the table is then `<ns>.<table>` (Iceberg only). */
  catalog?: string;
  catalogName?: string;
  token?: string;
  warehouse?: string;
  /** `FROM=TO` location rewrites, as `--location-map`. */
  locationMap?: string[];
}

export interface CompactJobOptions {
  strategy?: 'tiered' | 'binpack';
  targetSize?: string;
  where?: string;
  partialProgress?: boolean;
  maxConcurrentGroups?: number;
  /** Paimon: full compaction of every bucket. */
  full?: boolean;
}

export interface ExpireJobOptions {
  olderThan?: string;
  retainLast?: number;
  cleanFiles?: boolean;
}

export interface RemoveOrphansJobOptions {
  olderThan?: string;
  force?: boolean;
  prefixMismatch?: 'error' | 'ignore' | 'delete';
}

export interface MaintenanceJobSpec {
  /** Table location (Iceberg or Paimon, detected) or `<ns>.<table>` with `access.catalog`. */
  table: string;
  job: JobKind;
  access?: TableAccess;
  /** Planner / table property overrides, as `-o key=value`. */
  properties?: Record<string, string>;
  dryRun?: boolean;
  compact?: CompactJobOptions;
  expire?: ExpireJobOptions;
  removeOrphans?: RemoveOrphansJobOptions;
  /** Tiered planner memory from the previous run (the result carries the next one). */
  tieredState?: TieredStateJson;
}

export interface MaintenanceJobResult {
  table: string;
  job: JobKind;
  format: 'iceberg' | 'paimon';
  /** False when part of the job failed (a task, a delete batch); the rest was still committed. */
  ok: boolean;
  dryRun: boolean;
  startedAtMs: number;
  durationMs: number;
  /** Snapshots this job committed. */
  snapshotIds: string[];
  /** Snapshots expire removed. */
  expiredSnapshotIds: string[];
  bytesRead: number;
  bytesWritten: number;
  /** Bytes of files deleted (or, in a dry run, that would be). */
  bytesDeleted: number;
  filesDeleted: number;
  /** Live data files before and after a compaction. */
  filesBefore?: number;
  filesAfter?: number;
  failures: string[];
  warnings: string[];
  /** Next tiered planner state (Iceberg tiered compaction that committed). */
  tieredState?: TieredStateJson;
}

export interface RunJobOptions {
  onProgress?: ProgressListener;
  /** Checked before the job starts and between its phases; a started rewrite or commit runs to its end. */
  signal?: AbortSignal;
}
