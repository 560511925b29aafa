/**
 * The host seam's data: what a maintenance job is asked to do and what it reports. Plain JSON only, so
 * specs and results pass through queues (BullMQ), workflow histories (Temporal) and state files unchanged.
 * Kept apart from the job runners so the scheduler and config load without the compaction engine. It sits
 * below src/app because the distributed seam takes the same spec.
 */
import type { ProgressListener } from '../execution/events.js';
import type { AccessOptions } from '../../connectors/iceberg/open-for-write.js';
import type { TieredStateJson } from '../planning/tiered/state-json.js';

export type JobKind = 'compact' | 'expire' | 'remove-orphans';
export const JOB_KINDS: readonly JobKind[] = ['compact', 'expire', 'remove-orphans'];

/** Where the table is and how to reach it (`catalog` → `<ns>.<table>`, Iceberg only; `locationMap` rewrites). */
export type TableAccess = AccessOptions;

export interface CompactJobOptions {
  strategy?: 'tiered' | 'binpack';
  targetSize?: string;
  where?: string;
  /** Iceberg; unset in `floe serve`: on for tables with writer commits in the last hour (compact-iceberg.ts). */
  partialProgress?: boolean;
  /** Iceberg: leave partitions a writer wrote to in its last N commits alone (`leaveNewestCommits`). */
  leaveNewestCommits?: number;
  /** Iceberg: … or within this duration (`leaveNewestWithin`, e.g. 15m). */
  leaveNewestWithin?: string;
  maxConcurrentGroups?: number;
  /** Iceberg: worker threads for the rewrite step (`floe compact --parallelism`); default auto. */
  parallelism?: number;
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
  /**
   * false: run without the table lease (`<table>/.floe/lease.json`, src/distributed/lease.ts), for users who
   * keep two jobs off one table themselves. Default: the job holds the lease; a leased table fails with
   * `table busy …` (FloeError, context.busy) before anything is written.
   */
  lease?: boolean;
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
  /** Bytes of live data files, delete files, rows: before and after a compaction. */
  bytesBefore?: number;
  bytesAfter?: number;
  deleteFilesBefore?: number;
  deleteFilesAfter?: number;
  rowsIn?: number;
  rowsOut?: number;
  /** What the compaction planned, with its decision trail (the dashboard shows it). */
  plan?: PlanSummary;
  failures: string[];
  warnings: string[];
  /** Next tiered planner state (Iceberg tiered compaction that committed). */
  tieredState?: TieredStateJson;
}

export interface DecisionStepJson {
  gate: string;
  detail: string;
  outcome: string;
}

/** A compaction plan as plain JSON: counts, the plan-level trail and the first tasks with theirs. */
export interface PlanSummary {
  planner: string;
  tasks: number;
  inputFiles: number;
  inputBytes: number;
  trail: DecisionStepJson[];
  /** At most 50 tasks (`tasks` has the full count). */
  taskList: {
    id: string;
    kind: string;
    partition: string;
    inputFiles: number;
    inputBytes: number;
    deletes: number;
    trail: DecisionStepJson[];
  }[];
}

export interface RunJobOptions {
  onProgress?: ProgressListener;
  /** Checked before the job starts and between its phases; a started rewrite or commit runs to its end. */
  signal?: AbortSignal;
}
