/**
 * Types of the policy simulator: the commit stream a workload is described by (as written in JSON, and
 * normalised), the policy (planner + properties + schedule) and what a simulation run reports.
 */

/** How the simulator sizes files it has to invent (position deletes produced by eq-to-pos tasks). */
export interface SizeModel {
  /** Bytes per deleted row in a position-delete file (path is dictionary-encoded, pos delta-encoded). */
  positionDeleteBytesPerRow: number;
  /** Fixed bytes per position-delete file (footer, page headers, dictionary). */
  positionDeleteFileOverheadBytes: number;
  /**
   * Share of a data file's bytes an eq-to-pos conversion reads: it projects only the key columns and
   * the row position, not whole rows (Amoro's cost model counts such files at 1/10 of their size).
   */
  keyColumnReadFraction: number;
  /**
   * Bytes-equivalent charged for every file a compaction task opens (each input data file and each
   * delete file the task applies; a task loads a delete file once for all its data files). Default
   * 64 KiB: what a reader fetches just to open a Parquet file (Arrow reads the last 64 KiB to get the
   * footer in one request), before any column data. Added to the read cost, not to bytes read.
   */
  fileOpenCostBytes: number;
  /**
   * Fixed bytes charged for every compaction run that commits. Default 256 KiB: the metadata.json, the
   * manifest list and the new manifests' headers a commit reads and writes whatever the table's size.
   * Added to the read cost.
   */
  runCostBytes: number;
  /**
   * Bytes charged per live file (data + delete) for every committed run, on top of `runCostBytes`.
   * Default 1 KiB: a run reads every live manifest entry to plan and validate, and an Iceberg manifest
   * entry with column statistics is roughly that size. Added to the read cost.
   */
  runCostBytesPerLiveFile: number;
}

export const DEFAULT_SIZE_MODEL: SizeModel = {
  positionDeleteBytesPerRow: 8,
  positionDeleteFileOverheadBytes: 1024,
  keyColumnReadFraction: 0.1,
  fileOpenCostBytes: 64 * 1024,
  runCostBytes: 256 * 1024,
  runCostBytesPerLiveFile: 1024,
};

// ---------------------------------------------------------------------------------------------------
// Commit stream, as written in a JSON file (see src/core/simulate/README.md for the documented format).

export interface DataFileSpec {
  /** Optional name so a later position delete can target the file; must be unique in the stream. */
  id?: string;
  /** Partition label (an identity partition on one string column); omit everywhere for unpartitioned. */
  partition?: string | null;
  sizeBytes: number;
  records: number;
  /** Writes this many identical files (default 1). Not allowed together with `id`. */
  count?: number;
}

export interface EqualityDeleteSpec {
  partition?: string | null;
  sizeBytes: number;
  /** Number of delete keys in the file. */
  records: number;
  /**
   * Rows the deletes remove from older data files (lower sequence number, same partition), spread over
   * them in proportion to their live rows. Defaults to `records` (each key had exactly one older row).
   */
  deletesRows?: number;
  count?: number;
}

export interface PositionDeleteSpec {
  partition?: string | null;
  sizeBytes: number;
  records: number;
  /**
   * The data file whose rows are deleted: a number is an index into this commit's `data` files (after
   * `count` expansion), a string is the `id` of a data file written earlier (base or commit).
   * With `count` > 1 and a numeric target, copy k targets data file `target + k`.
   */
  target: number | string;
  /** Rows removed from the target (defaults to `records`). */
  deletesRows?: number;
  count?: number;
}

export interface CommitSpec {
  /** When the commit lands, in simulated minutes from the start (fractions allowed) … */
  atMinute?: number;
  /** … or in milliseconds (one of the two is required). */
  atMs?: number;
  /** Free-form writer name, for readers of the stream only. */
  writer?: string;
  data?: DataFileSpec[];
  equalityDeletes?: EqualityDeleteSpec[];
  positionDeletes?: PositionDeleteSpec[];
  /** Repeat the commit: `times` commits, `everyMinutes` apart, starting at atMinute/atMs. */
  repeat?: { everyMinutes: number; times: number };
}

export interface CommitStreamSpec {
  name: string;
  description?: string;
  /** Length of the simulation in minutes. */
  durationMinutes: number;
  /** Simulation step in ms (default 60000; must divide a minute, e.g. 7500 or 15000). */
  tickMs?: number;
  /** Files present before the first commit, all at sequence number 1. */
  base?: DataFileSpec[];
  commits: CommitSpec[];
  sizeModel?: Partial<SizeModel>;
}

// ---------------------------------------------------------------------------------------------------
// Normalised stream: every file spelled out, commits sorted by time.

export interface NewDataFile {
  id: string;
  partition: string | null;
  sizeBytes: number;
  records: number;
}

export interface NewEqualityDelete {
  partition: string | null;
  sizeBytes: number;
  records: number;
  deletesRows: number;
}

export interface NewPositionDelete {
  partition: string | null;
  sizeBytes: number;
  records: number;
  /** Id of the data file the rows are deleted from. */
  targetId: string;
  deletesRows: number;
}

export interface StreamCommit {
  atMs: number;
  data: NewDataFile[];
  equalityDeletes: NewEqualityDelete[];
  positionDeletes: NewPositionDelete[];
}

export interface CommitStream {
  name: string;
  description: string;
  durationMs: number;
  tickMs: number;
  base: NewDataFile[];
  commits: StreamCommit[];
  sizeModel: SizeModel;
  /** True when files carry partition labels. */
  partitioned: boolean;
}

// ---------------------------------------------------------------------------------------------------
// Policies

/**
 * When the policy's planner is asked for a plan.
 * - `periodic`: every `everyMinutes`, whatever happened (a cron'd Spark `rewrite_data_files`).
 * - `on-change`: every `everyMinutes`, but only if the table changed since the last evaluation
 *   (Amoro's refresh loop evaluates a table only when its current snapshot moved).
 */
export interface Schedule {
  kind: 'periodic' | 'on-change';
  everyMinutes: number;
}

export type PlannerName = 'tiered' | 'binpack' | 'none';

export interface PolicySpec {
  name: string;
  description?: string;
  planner: PlannerName;
  /** Table properties the planner's options are parsed from (values as strings, as in a catalog). */
  properties?: Record<string, string | number | boolean>;
  schedule?: Partial<Schedule>;
}

export interface Policy {
  name: string;
  description: string;
  planner: PlannerName;
  properties: Record<string, string>;
  schedule: Schedule;
}

// ---------------------------------------------------------------------------------------------------
// Results

export interface SeriesStats {
  mean: number;
  p95: number;
  max: number;
  final: number;
}

/** One per simulated minute: file counts before that minute's compaction, bytes cumulative through it. */
export interface TimelinePoint {
  minute: number;
  liveDataFiles: number;
  deleteFiles: number;
  /** Delete files a reader merges per live data file (Iceberg's association rules), the query penalty. */
  deletesPerDataFile: number;
  liveBytes: number;
  cumulativeBytesRead: number;
  /** Bytes read plus the per-run and per-file charges, cumulative. */
  cumulativeReadCost: number;
  cumulativeBytesWritten: number;
}

export interface PolicyResult {
  policy: string;
  description: string;
  planner: PlannerName;
  schedule: Schedule;
  /** Bytes the writers committed (data + delete files; the base table is not ingested). */
  bytesIngested: number;
  compactionBytesRead: number;
  /** Files opened by compaction tasks (input data files + each task's delete files). */
  filesOpened: number;
  /**
   * compactionBytesRead + per committed run (runCostBytes + runCostBytesPerLiveFile × live files) +
   * filesOpened × fileOpenCostBytes: what reading
   * costs once a run's fixed work and each file open are charged (many small runs are not free).
   */
  compactionReadCost: number;
  compactionBytesWritten: number;
  /** compactionBytesWritten / bytesIngested. */
  writeAmplification: number;
  /** Sampled each minute before that minute's compaction; `final` is the state at the end of the run. */
  liveDataFiles: SeriesStats;
  deleteFiles: SeriesStats;
  /**
   * Query penalty: delete files a reader has to merge per live data file (the deletes Iceberg's rules
   * attach to each file, averaged over the files), sampled like the file counts.
   */
  queryPenalty: SeriesStats;
  /** Bytes of live rows at the end of the run. */
  finalLiveBytes: number;
  /** Times the planner was asked. */
  plannerCalls: number;
  /** Planner calls that produced at least one task or removable delete (i.e. led to a commit). */
  compactionRuns: number;
  tasks: number;
  tasksByKind: Record<string, number>;
  deleteFilesRemoved: number;
  /** Wall-clock time spent inside the planner (real ms, not simulated). */
  plannerMillis: number;
  /** Plan effects the simulator found wrong (e.g. a removed delete still needed). Empty when sound. */
  violations: string[];
  timeline: TimelinePoint[];
}

export interface SimulationReport {
  stream: { name: string; description: string; durationMinutes: number; tickMs: number; commits: number };
  results: PolicyResult[];
  /** Where the chart was written (CLI only). */
  chart?: string;
}
