/**
 * The host seam's data: what a maintenance job is asked to do and what it reports. Plain JSON only, so
 * specs and results pass through queues (BullMQ), workflow histories (Temporal) and state files unchanged.
 * Kept apart from the job runners so the scheduler and config load without the compaction engine. It sits
 * below src/app because the distributed seam takes the same spec.
 */
import type { ProgressListener } from '../core/execution/events.js';
import type { AccessOptions } from '../../connectors/iceberg/open-for-write.js';
import type { TieredStateJson } from '../core/planning/tiered/state-json.js';
import type { SortStrategyOptions } from '../core/planning/sort-planner.js';

export type JobKind = 'compact' | 'expire' | 'remove-orphans';
export const JOB_KINDS: readonly JobKind[] = ['compact', 'expire', 'remove-orphans'];

/** Where the table is and how to reach it (`catalog` → `<ns>.<table>`, Iceberg only; `locationMap` rewrites). */
export type TableAccess = AccessOptions;

/**
 * One compaction, whichever entry point asks for it: `floe compact`'s flags, a `floe serve` job, a
 * runMaintenanceJob / BullMQ / Temporal spec and the distributed seam all parse into this, and
 * resolveCompactSpec (compact-spec.ts) turns it into the planner's and the job's options in one place —
 * defaults, the target-size / `--where` fold and the per-format options. Plain JSON.
 */
export interface CompactSpec {
  /** Iceberg planner (default tiered; sort / zorder are sort strategies); Paimon: sort, zorder or hilbert. */
  strategy?: 'tiered' | 'binpack' | 'sort' | 'zorder' | 'hilbert';
  /** Target file size: `128MB`, or bytes as a bare number. */
  targetSize?: string;
  /** Partition filter (Iceberg `self-optimizing.filter`; Paimon: partition columns only). */
  where?: string;
  /**
   * Iceberg: commit groups as they are written. Unset: `'hot'` — on only for tables with writer commits in
   * the last hour (compact-iceberg.ts); `floe compact` says false unless `--partial-progress`.
   */
  partialProgress?: boolean;
  /** Iceberg: leave partitions a writer wrote to in its last N commits alone (`leaveNewestCommits`). */
  leaveNewestCommits?: number;
  /** Iceberg: … or within this duration (`leaveNewestWithin`, e.g. 15m). */
  leaveNewestWithin?: string;
  /** Iceberg: tasks rewritten at once (default 2). */
  maxConcurrentGroups?: number;
  /**
   * Iceberg: worker threads for the rewrite step (`floe compact --parallelism`); 1 runs it in this process.
   * Default 'auto': os.availableParallelism() threads for runs that read 64 MiB or more.
   */
  parallelism?: number | 'auto';
  /** Paimon: full compaction of every bucket; Iceberg: bin-pack with rewrite-all. */
  full?: boolean;
  /** Sort strategies: the order, z-order columns, memory budget and spill directory (sort-planner.ts). */
  sort?: SortStrategyOptions;
  /** Iceberg: rewrite position delete files / deletion vectors only. */
  deletesOnly?: boolean;
  /** Iceberg: only drop delete files no live data file needs; rewrite nothing. */
  onlyDanglingDeletes?: boolean;
  /** Iceberg: drop dangling delete files after rewriting (default true). */
  removeDanglingDeletes?: boolean;
  /** Paimon: keep every decision in the report. */
  explain?: boolean;
}

/** One snapshot expiry (`floe expire`, the `expire` job). */
export interface ExpireSpec {
  /** A duration back from now (5d, 36h, 1d12h), an ISO time or epoch ms. */
  olderThan?: string;
  /** Keep at least this many snapshots (a number; the command line's text is accepted too). */
  retainLast?: number | string;
  /** Iceberg: comma-separated snapshot ids to expire as well. */
  snapshotIds?: string;
  cleanFiles?: boolean;
  /** Delete batches in flight at once. */
  maxConcurrentDeletes?: number | string;
  allowOutsideTableLocation?: boolean;
}

/** One orphan-file removal (`floe remove-orphans`, the `remove-orphans` job). */
export interface RemoveOrphansSpec {
  olderThan?: string;
  force?: boolean;
  /** error (default), ignore or delete. */
  prefixMismatch?: string;
  /** Iceberg: scan only these locations inside the table. */
  location?: string[];
  /** Delete batches in flight at once (a number; the command line's text is accepted too). */
  maxConcurrentDeletes?: number | string;
}

/** One manifest rewrite (`floe rewrite-manifests`, Iceberg). */
export interface RewriteManifestsSpec {
  specId?: string;
  /** Target manifest size with a unit, e.g. 8MB. */
  targetSize?: string;
}

/** One partition expiry (`floe expire-partitions`, Paimon). */
export interface ExpirePartitionsSpec {
  expirationTime?: string;
}

export interface MaintenanceJobSpec {
  /** Table location (Iceberg or Paimon, detected) or `<ns>.<table>` with `access.catalog`. */
  table: string;
  job: JobKind;
  access?: TableAccess;
  /** Planner / table property overrides, as `-o key=value`. */
  properties?: Record<string, string>;
  dryRun?: boolean;
  compact?: CompactSpec;
  expire?: ExpireSpec;
  removeOrphans?: RemoveOrphansSpec;
  /** Tiered planner memory from the previous run (the result carries the next one). */
  tieredState?: TieredStateJson;
  /**
   * false: run without the table lease (`<table>/.floe/lease.json`, src/lease/lease.ts), for users who
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
