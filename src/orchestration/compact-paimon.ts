/**
 * `floe compact <paimon-table>`: per bucket, the universal picker (primary-key tables) or the append
 * bin-packing rules choose what to compact; MergeTreeCompactTask's rules split the unit into upgrades
 * and merges; merged files are written in Paimon's layout; one COMPACT snapshot commits every bucket.
 *
 * floe acts as Paimon's dedicated compaction job: `write-only=true` tables are compacted (that option
 * only stops the writers from compacting). Tables whose compaction must also produce changelog or
 * deletion vectors, and options floe does not implement, are refused with the reason.
 */
import { FloeError, isFloeError } from '../errors.js';
import type { DecisionStep } from '../planning/plan.js';
import {
  decide,
  pickFull,
  optionsFromProperties,
  parseMemorySize,
  type Run,
  type UniversalOptions,
} from '../planning/universal/index.js';
import { safeEmitter, type ProgressListener } from '../execution/events.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { isCommitStateUnknown } from '../../connectors/iceberg/commit-state.js';
import { openPaimonTable, toTableModel, type PaimonFile, type PaimonTable } from '../../connectors/paimon/table.js';
import { compileFilter, filterColumns } from '../planning/tiered/filter.js';
import { formatTypedValue } from '../planning/partition-label.js';
import type { FieldType } from '../model/index.js';
import type { PaimonField } from '../../connectors/paimon/types.js';
import {
  decodeKeys,
  groupByBucket,
  partitionFields,
  sortedRuns,
  trimmedPrimaryKeyFields,
} from '../../connectors/paimon/table.js';
import type { PaimonIO } from '../../connectors/paimon/io.js';
import { partitionPath, POSTPONE_BUCKET } from '../../connectors/paimon/paths.js';
import { mergeEngineOf, createMergeFunction } from '../../connectors/paimon/merge-engines.js';
import { FILE_KIND_ADD, FILE_KIND_DELETE } from '../../connectors/paimon/manifest.js';
import { describeSteps, planSteps, runSteps, type CompactStep } from '../../connectors/paimon/compact-pk.js';
import {
  DEFAULT_APPEND_TARGET_FILE_SIZE,
  pickAppend,
  pickUnawareAppend,
  rewriteAppend,
} from '../../connectors/paimon/compact-append.js';
import {
  FileNamer,
  arrowTypeForPaimon,
  dataWriteSettings,
  paimonStorageFromFileIO,
  type PaimonStorage,
  type WrittenDataFile,
} from '../../connectors/paimon/write-data-file.js';
import { commitCompaction, type CompactCommitRequest } from '../../connectors/paimon/commit-compact.js';
import {
  assertDeletionVectorsCompactable,
  deletionVectorsEnabled,
  IndexFileNamer,
  type WrittenIndexFile,
} from '../../connectors/paimon/compact-dv.js';
import { sequenceFields } from '../../connectors/paimon/merge-engines.js';
import { assertChangelogCompactable, changelogProducerOf } from '../../connectors/paimon/compact-changelog.js';
import { cancelledError } from './cancel.js';
import type { CancelInfo, TaskOutcome } from './task-outcomes.js';
import { assertManifestWritable } from '../../connectors/paimon/manifest.js';
import type { NewManifestEntry } from '../../connectors/paimon/write-manifest.js';
import { assertSortCompactable, type PaimonSortRequest } from '../../connectors/paimon/sort-compact.js';
import { compactPaimonSorted } from './compact-paimon-sort.js';

export const DEFAULT_PK_TARGET_FILE_SIZE = 128 * 1024 * 1024;

/** [seam] The part of a compaction commit that one run's rewrite step produced (no table, no storage). */
export type DeferredPaimonCommit = Pick<CompactCommitRequest, 'changes' | 'changelog' | 'deletionVectors'>;

export interface PaimonCompactOptions {
  /** Full compaction of every bucket (`triggerCompaction(true)`), instead of what Paimon's picker would do. */
  full?: boolean;
  /**
   * Partition filter, in the grammar of Iceberg's `--where` (`self-optimizing.filter`): only buckets of
   * matching partitions are planned. It may name partition columns only — a bucket is compacted whole.
   */
  where?: string;
  dryRun?: boolean;
  explain?: boolean;
  /** The picker's clock (optimization interval, off-peak hours). */
  nowMs?: number;
  onProgress?: ProgressListener;
  /** Table option overrides (e.g. num-sorted-run.compaction-trigger) layered over the table's own. */
  options?: Record<string, string>;
  fileIO?: FileIO;
  io?: PaimonIO;
  storage?: PaimonStorage;
  commitUser?: string;
  maxRetries?: number;
  /** Test hook passed to the committer. */
  beforePublish?: (id: bigint) => Promise<void>;
  /** [seam] Open the table at this snapshot (the distributed seam's plan base) instead of the latest. */
  snapshotId?: bigint;
  /** [seam] Rewrite only these planned tasks (ids as in `report.tasks`); the other buckets stay as they are. */
  onlyTasks?: readonly string[];
  /** [seam] Output file names carry this instead of a random id (the seam passes `floe-run-<runId>-<attemptId>`). */
  fileId?: string;
  /** [seam] Write the outputs but do not commit: what the commit would add and remove goes to `report.deferredCommit`. */
  deferCommit?: boolean;
  /**
   * Cancels the job (src/orchestration/cancel.ts): checked before each bucket and before the commit; the
   * files written so far are removed and `cancelledError` is thrown. A cancel once the commit started lets
   * it finish; the report then carries `cancelled`.
   */
  signal?: AbortSignal;
  /** [sort] Sort compaction (`--strategy sort|zorder|hilbert`, Paimon's sort_compact): compact-paimon-sort.ts. */
  sort?: PaimonSortRequest;
}

export interface PaimonRunReport {
  level: number;
  files: number;
  bytes: number;
}

export interface PaimonBucketReport {
  partition: unknown[];
  /** "dt=2024-01-02, region=eu" — dates and timestamps as text (src/planning/partition-label.ts). */
  partitionLabel: string;
  bucket: number;
  /** Sorted runs before compaction, newest first. */
  runs: PaimonRunReport[];
  /** Every gate the picker asked. */
  decision: DecisionStep[];
  compact: boolean;
  outputLevel?: number;
  dropDelete?: boolean;
  /** Upgrades and merges the unit turns into. */
  steps: DecisionStep[];
  filesBefore: string[];
  filesAfter: string[];
}

export interface PaimonCompactReport {
  table: string;
  tableKind: 'primary-key' | 'append';
  mergeEngine?: string;
  dryRun: boolean;
  full: boolean;
  /** The partition filter given (`--where`), if any. */
  where?: string;
  baseSnapshotId?: string;
  snapshotId?: string;
  commitAttempts?: number;
  buckets: PaimonBucketReport[];
  before: { files: number; bytes: number; records: number };
  after?: { files: number; bytes: number; records: number };
  rowsIn: number;
  rowsOut: number;
  bytesRead: number;
  bytesWritten: number;
  durationMs: number;
  /** Every compacted bucket as a task with its outcome (task-outcomes.ts); ids as in progress events. */
  tasks?: TaskOutcome[];
  /** Set when a cancel came once the commit had started: the commit finished. */
  cancelled?: CancelInfo;
  /** [seam] With `deferCommit`: the commit's changes, for src/distributed/paimon-seam.ts to commit later. */
  deferredCommit?: DeferredPaimonCommit;
  /** [sort] The sort compaction run: floe's strategy, Paimon's order_strategy name and the row order. */
  sort?: { strategy: string; orderStrategy: string; order: string };
}

const bool = (o: Record<string, string>, k: string) => (o[k] ?? 'false').trim().toLowerCase() === 'true';

/** Throws for tables floe must not compact; the message says why and names the option. */
export function assertCompactable(table: PaimonTable): void {
  const o = table.schema.options;
  const loc = table.location;
  // floe writes Avro manifests; Java Paimon reads manifests in the table's configured format only
  assertManifestWritable(o, loc);
  const refuse = (why: string, option: string): never => {
    throw new FloeError('Unsupported', `cannot compact Paimon table ${loc}: ${why}`, {
      context: { table: loc, option, value: o[option] },
    });
  };
  const producer = (o['changelog-producer'] ?? 'none').toLowerCase();
  // [changelog] lookup and full-compaction changelog is produced while compacting (compact-changelog.ts)
  if (producer === 'lookup' || producer === 'full-compaction') {
    if (producer === 'full-compaction' && bool(o, 'deletion-vectors.enabled'))
      refuse(
        'changelog-producer=full-compaction together with deletion-vectors.enabled is invalid (Java Paimon allows DVs with none/input/lookup only)',
        'changelog-producer',
      );
    assertChangelogCompactable(table);
  }
  // [dv] lookup compaction maintaining the DVs (compact-dv.ts); what it cannot do is refused there
  if (bool(o, 'deletion-vectors.enabled')) assertDeletionVectorsCompactable(table);
  if (o['record-level.expire-time'])
    refuse(
      'record-level.expire-time is set; floe does not expire records while compacting',
      'record-level.expire-time',
    );
  if (bool(o, 'row-tracking.enabled')) refuse('row-tracking.enabled=true is not supported', 'row-tracking.enabled');
  if (bool(o, 'data-evolution.enabled'))
    refuse('data-evolution.enabled=true is not supported', 'data-evolution.enabled');
  if (o.bucket !== undefined && Number(o.bucket) === POSTPONE_BUCKET)
    refuse('bucket=-2 (postpone) tables need their files redistributed into buckets, which floe does not do', 'bucket');
  if (table.schema.primaryKeys.length) createMergeFunction(table.schema.fields, table.schema.primaryKeys, o, loc);
  dataWriteSettings(table.schema, loc);
  for (const f of table.schema.fields)
    arrowTypeForPaimon(f.type, `cannot compact Paimon table ${loc}: column ${f.name}`);
  if (table.files.some((f) => f.dv) && !(table.schema.primaryKeys.length && bool(o, 'deletion-vectors.enabled')))
    refuse('some files carry deletion vectors but deletion-vectors.enabled is not true', 'deletion-vectors.enabled');
}

/**
 * `--where` on Paimon: the predicate is judged on each bucket's partition values (identity columns), with
 * the same parser and evaluator as Iceberg's filter. Non-partition columns are refused: a bucket is
 * compacted as a whole, so a row-level predicate could not be honoured.
 */
async function partitionSelector(table: PaimonTable, where: string): Promise<(partition: unknown[]) => boolean> {
  const keys = table.schema.partitionKeys;
  const lower = new Set(keys.map((k) => k.toLowerCase()));
  for (const c of filterColumns(where)) {
    if (!lower.has(c.toLowerCase())) {
      throw new FloeError(
        'InvalidArgument',
        `--where ${JSON.stringify(where)}: column ${c} is not a partition column of Paimon table ${table.location} ` +
          `(partition keys: ${keys.length ? keys.join(', ') : 'none — the table is unpartitioned'}); Paimon compaction selects whole partitions`,
        { context: { table: table.location, column: c } },
      );
    }
  }
  const model = await toTableModel({ ...table, files: [] }, { allSnapshots: false });
  const matches = compileFilter(where, model);
  return (partition) =>
    matches({
      content: 'data',
      path: '',
      format: 'parquet',
      sizeBytes: 0,
      recordCount: 0,
      specId: 0,
      partition,
      dataSequenceNumber: 0n,
      fileSequenceNumber: 0n,
    });
}

function targetFileSize(o: Record<string, string>, pk: boolean): number {
  const v = o['target-file-size'];
  return v ? parseMemorySize(v) : pk ? DEFAULT_PK_TARGET_FILE_SIZE : DEFAULT_APPEND_TARGET_FILE_SIZE;
}

function universalOptions(o: Record<string, string>): UniversalOptions {
  // floe is the dedicated compactor: write-only only silences the writers.
  return { ...optionsFromProperties(o), writeOnly: false };
}

/** Newest creation time among max-level files, converted from Paimon's local-as-UTC stamp (epoch ms). */
function lastFullCompactionSeed(files: readonly PaimonFile[], maxLevel: number): number | null {
  let newest = -1;
  for (const f of files) {
    const t = f.meta.creationTime;
    if (f.meta.level === maxLevel && t !== undefined)
      newest = Math.max(newest, t + new Date(t).getTimezoneOffset() * 60_000);
  }
  return newest < 0 ? null : newest;
}

function stats(files: readonly PaimonFile[]) {
  return {
    files: files.length,
    bytes: files.reduce((n, f) => n + Number(f.meta.fileSize), 0),
    records: files.reduce((n, f) => n + Number(f.meta.rowCount), 0),
  };
}

interface BucketWork {
  report: PaimonBucketReport;
  files: PaimonFile[];
  partitionDir: string;
  partitionBytes: Uint8Array;
  totalBuckets: number;
  steps?: CompactStep[];
  appendFiles?: PaimonFile[];
}

export async function compactPaimon(location: string, opts: PaimonCompactOptions = {}): Promise<PaimonCompactReport> {
  const started = Date.now();
  // A FileIO we create is ours to close (S3 clients keep sockets open); a caller's stays open.
  const ownFileIO = !opts.fileIO;
  const fileIO = opts.fileIO ?? new FileIO();
  try {
    return await compactWith(location, opts, fileIO, opts.io ?? fileIO, started);
  } finally {
    if (ownFileIO) fileIO.destroy();
  }
}

async function compactWith(
  location: string,
  opts: PaimonCompactOptions,
  fileIO: FileIO,
  io: PaimonIO,
  started: number,
): Promise<PaimonCompactReport> {
  const emit = safeEmitter(opts.onProgress);
  const table = await openPaimonTable(location, {
    io,
    ...(opts.snapshotId !== undefined ? { snapshotId: opts.snapshotId } : {}), // [seam]
  });
  // the manifest format is a fact about the table's files (Java reads them in it), not something to override
  const fmt = (o: Record<string, string>) => (o['manifest.format'] ?? 'avro').toLowerCase();
  if (opts.options?.['manifest.format'] !== undefined && fmt(opts.options) !== fmt(table.schema.options)) {
    throw new FloeError(
      'InvalidArgument',
      `-o manifest.format=${opts.options['manifest.format']}: Paimon table ${table.location} has manifest.format=${fmt(table.schema.options)}, which an override cannot change`,
      {
        context: { table: table.location, option: 'manifest.format' },
      },
    );
  }
  const options = { ...table.schema.options, ...(opts.options ?? {}) };
  table.schema = { ...table.schema, options };
  const pk = table.schema.primaryKeys.length > 0;
  const report: PaimonCompactReport = {
    table: table.location,
    tableKind: pk ? 'primary-key' : 'append',
    dryRun: !!opts.dryRun,
    full: !!opts.full,
    buckets: [],
    before: stats(table.files),
    rowsIn: 0,
    rowsOut: 0,
    bytesRead: 0,
    bytesWritten: 0,
    durationMs: 0,
  };
  if (pk) report.mergeEngine = mergeEngineOf(options);
  if (opts.where !== undefined) report.where = opts.where;
  const selected = opts.where !== undefined ? await partitionSelector(table, opts.where) : () => true;
  if (opts.sort) assertSortCompactable(table, opts.sort.strategy);
  if (!table.snapshot) {
    report.durationMs = Date.now() - started;
    return report;
  }
  report.baseSnapshotId = String(table.snapshot.id);
  assertCompactable(table);
  if (opts.sort)
    return compactPaimonSorted({
      table,
      opts: { ...opts, sort: opts.sort },
      report,
      fileIO,
      selected,
      labelOf: paimonPartitionLabeler(partitionFields(table.schema)),
      targetFileSize: targetFileSize(options, pk),
      started,
    });

  const now = opts.nowMs ?? Date.now();
  const target = targetFileSize(options, pk);
  const work: BucketWork[] = [];
  const pTypes = partitionFields(table.schema).map((f) => f.type);
  const uopts = universalOptions(options);
  const smallFileRatio = Number(options['compaction.small-file-ratio'] ?? '0.7');
  const keyTypes = pk ? trimmedPrimaryKeyFields(table.schema).map((f) => f.type) : [];
  const labelOf = paimonPartitionLabeler(partitionFields(table.schema));
  // [dv] deletion-vector tables: lookup compaction, DVs rewritten per bucket into new index files
  const dvOn = pk && deletionVectorsEnabled(options);
  const dedupeNoSequence = mergeEngineOf(options) === 'deduplicate' && !sequenceFields(options).length;
  const indexNames = new IndexFileNamer();
  const indexFiles: WrittenIndexFile[] = [];
  // [changelog] full-compaction producer: Java's rewriter compares with options.numLevels() - 1 (not raised)
  const fullChangelog =
    pk && changelogProducerOf(options) === 'full-compaction'
      ? { maxLevel: (uopts.numLevels ?? (uopts.numRunCompactionTrigger ?? 5) + 1) - 1 }
      : undefined;
  const changelogEntries: NewManifestEntry[] = [];
  const lookupChangelog = pk && changelogProducerOf(options) === 'lookup';

  for (const g of groupByBucket(table.files)) {
    if (g.bucket === POSTPONE_BUCKET) {
      throw new FloeError(
        'Unsupported',
        `cannot compact Paimon table ${table.location}: it has files in bucket-postpone`,
        { context: { table: table.location } },
      );
    }
    const partitionDir = partitionPath(table.schema.partitionKeys, pTypes, g.partition, options);
    const base = {
      partitionDir,
      partitionBytes: g.partitionBytes,
      totalBuckets: g.files[0]!.totalBuckets,
      files: g.files,
    };
    if (!selected(g.partition)) {
      const names = g.files.map((f) => f.meta.fileName);
      work.push({
        ...base,
        report: {
          partition: g.partition,
          partitionLabel: labelOf(g.partition),
          bucket: g.bucket,
          runs: [],
          compact: false,
          steps: [],
          filesBefore: names,
          filesAfter: names,
          decision: [
            { gate: 'where', detail: `partition not selected by ${JSON.stringify(opts.where)}`, outcome: 'skip' },
          ],
        },
      });
      continue;
    }
    if (pk) {
      const runs = sortedRuns(g.files, (f) => decodeKeys(table, f.meta)?.min, keyTypes);
      const picked: Run<PaimonFile>[] = runs.map((r) => ({
        level: r.level,
        size: r.files.reduce((n, f) => n + Number(f.meta.fileSize), 0),
        files: r.files,
      }));
      const bucketReport: PaimonBucketReport = {
        partition: g.partition,
        partitionLabel: labelOf(g.partition),
        bucket: g.bucket,
        runs: picked.map((r) => ({ level: r.level, files: r.files!.length, bytes: r.size })),
        decision: [],
        compact: false,
        steps: [],
        filesBefore: g.files.map((f) => f.meta.fileName),
        filesAfter: g.files.map((f) => f.meta.fileName),
      };
      let unit: {
        outputLevel: number;
        files: PaimonFile[];
        dropDelete: boolean;
        maxLevel: number;
        rewriteOnly?: PaimonFile[] | null;
      } | null = null;
      if (opts.full) {
        const numLevels = Math.max(
          uopts.numLevels ?? (uopts.numRunCompactionTrigger ?? 5) + 1,
          ...picked.map((r) => r.level + 1),
        );
        const u = pickFull(numLevels, picked, uopts, dvOn ? (f) => !!f.dv : undefined); // [dv] DV files rewritten
        bucketReport.decision = u ? u.trail : [{ gate: 'full', detail: 'nothing to compact', outcome: 'skip' }];
        if (u)
          unit = {
            outputLevel: u.outputLevel,
            files: u.runs.flatMap((r) => [...(r.files ?? [])]),
            dropDelete: u.dropDelete,
            maxLevel: numLevels - 1,
            rewriteOnly: u.rewriteFiles,
          };
      } else {
        const numLevels = uopts.numLevels ?? (uopts.numRunCompactionTrigger ?? 5) + 1;
        const maxLevelForSeed = Math.max(numLevels, ...picked.map((r) => r.level + 1)) - 1;
        const d = decide(numLevels, picked, uopts, now, {
          lastFullCompactionMs: lastFullCompactionSeed(g.files, maxLevelForSeed),
        });
        bucketReport.decision = d.trail;
        if (d.pick)
          unit = {
            outputLevel: d.pick.outputLevel,
            files: d.pick.runs.flatMap((r) => [...(r.files ?? [])]),
            dropDelete: d.pick.dropDelete,
            maxLevel: d.numLevels - 1,
          };
      }
      const w: BucketWork = { report: bucketReport, ...base };
      if (unit) {
        const steps: CompactStep[] = unit.rewriteOnly
          ? unit.rewriteOnly.map((f) => ({
              kind: 'rewrite' as const,
              sections: [[[f]]],
              reason: 'full compaction rewrites files in place',
            }))
          : planSteps(table, unit.files, {
              outputLevel: unit.outputLevel,
              maxLevel: unit.maxLevel,
              minFileSize: target * smallFileRatio,
              forceRewriteAllFiles: uopts.forceRewriteAllFiles ?? false,
              ...(dvOn || lookupChangelog ? { lookup: { deletionVectors: dvOn, dedupeNoSequence } } : {}), // [dv]
            });
        bucketReport.outputLevel = unit.outputLevel;
        bucketReport.dropDelete = unit.dropDelete;
        bucketReport.steps = describeSteps(steps);
        if (steps.length) {
          bucketReport.compact = true;
          w.steps = steps;
        }
      }
      work.push(w);
    } else {
      const minFileNum = Number(options['compaction.min.file-num'] ?? '5');
      const unaware = Number(options.bucket ?? '-1') === -1;
      const p =
        unaware && !opts.full
          ? pickUnawareAppend(g.files, {
              minFileNum,
              targetFileSize: target,
              openFileCost: parseMemorySize(options['source.split.open-file-cost'] ?? '4mb'),
            })
          : pickAppend(g.files, { minFileNum, targetFileSize: target, full: !!opts.full });
      const bucketReport: PaimonBucketReport = {
        partition: g.partition,
        partitionLabel: labelOf(g.partition),
        bucket: g.bucket,
        runs: [{ level: 0, files: g.files.length, bytes: stats(g.files).bytes }],
        decision: p.trail,
        compact: p.files.length > 0,
        outputLevel: 0,
        steps: p.files.length
          ? [{ gate: 'rewrite', detail: `${p.files.length} file(s) concatenated in sequence order`, outcome: 'pick' }]
          : [],
        filesBefore: g.files.map((f) => f.meta.fileName),
        filesAfter: g.files.map((f) => f.meta.fileName),
      };
      const w: BucketWork = { report: bucketReport, ...base };
      if (p.files.length) w.appendFiles = p.files;
      work.push(w);
    }
  }
  report.buckets = work.map((w) => w.report);
  const taskIdOf = (w: BucketWork) => `bucket-${w.report.bucket}${w.partitionDir ? `@${w.partitionDir}` : ''}`;
  const todo = work.filter(
    (w) => (w.steps || w.appendFiles) && (!opts.onlyTasks || opts.onlyTasks.includes(taskIdOf(w))), // [seam]
  );
  const inputsOf = (w: BucketWork): PaimonFile[] =>
    w.appendFiles ?? w.steps!.flatMap((s) => (s.kind === 'upgrade' ? [s.file] : s.sections.flat(2)));
  const bytesOf = (fs: PaimonFile[]) => fs.reduce((n, f) => n + Number(f.meta.fileSize), 0);
  emit({
    type: 'plan',
    tasks: todo.length,
    inputFiles: todo.reduce((n, w) => n + inputsOf(w).length, 0),
    inputBytes: todo.reduce((n, w) => n + bytesOf(inputsOf(w)), 0),
  });
  const taskKind = pk ? 'universal' : 'append';
  if (opts.dryRun || !todo.length) {
    report.tasks = todo.map((w) => ({
      id: taskIdOf(w),
      kind: taskKind,
      outcome: 'skipped' as const,
      reason: 'dry run: nothing was written',
    }));
    report.durationMs = Date.now() - started;
    return report;
  }

  const storage = opts.storage ?? paimonStorageFromFileIO(fileIO);
  const settings = dataWriteSettings(table.schema, table.location);
  const names = new FileNamer(settings, opts.fileId);
  const changelogNames =
    fullChangelog || lookupChangelog
      ? new FileNamer({ ...settings, prefix: options['changelog-file.prefix'] ?? 'changelog-' })
      : undefined;
  const changes: { deletes: NewManifestEntry[]; adds: NewManifestEntry[] } = { deletes: [], adds: [] };
  const written: WrittenDataFile[] = [];
  try {
    for (const w of todo) {
      if (opts.signal?.aborted) throw cancelledError(table.location, written.length, opts.signal.reason);
      const taskId = taskIdOf(w);
      const inputs = inputsOf(w);
      emit({ type: 'task-start', taskId, inputFiles: inputs.length, inputBytes: bytesOf(inputs) });
      const mark = {
        rowsIn: report.rowsIn,
        bytesRead: report.bytesRead,
        rowsOut: report.rowsOut,
        bytesWritten: report.bytesWritten,
      };
      const onFileRead = (path: string, bytes: number, rows: number) =>
        emit({ type: 'file-read', taskId, path, bytes, rows });
      let before: PaimonFile[];
      let after;
      if (w.steps) {
        const r = await runSteps(
          {
            table,
            storage,
            settings,
            names,
            partitionDir: w.partitionDir,
            bucket: w.report.bucket,
            outputLevel: w.report.outputLevel!,
            dropDelete: w.report.dropDelete!,
            targetFileSize: target,
            nowMs: now,
            onFileRead,
            ...(dvOn
              ? { deletionVectors: { bucketFiles: w.files, partition: w.partitionBytes, names: indexNames } }
              : {}),
            ...(fullChangelog
              ? { fullCompactionChangelog: { maxLevel: fullChangelog.maxLevel, names: changelogNames! } }
              : {}),
            ...(lookupChangelog ? { lookupChangelog: { bucketFiles: w.files, names: changelogNames! } } : {}),
          },
          w.steps,
        );
        before = r.before;
        after = r.after;
        written.push(...r.written);
        if (r.indexFile) indexFiles.push(r.indexFile); // [dv]
        written.push(...r.changelog); // [changelog] removed with the data files on failure
        for (const c of r.changelog)
          changelogEntries.push({
            kind: FILE_KIND_ADD,
            partition: w.partitionBytes,
            bucket: w.report.bucket,
            totalBuckets: w.totalBuckets,
            file: c.meta,
          });
        report.rowsIn += r.rowsIn;
        report.bytesRead += r.bytesRead;
      } else {
        const r = await rewriteAppend(
          {
            table,
            storage,
            settings,
            names,
            partitionDir: w.partitionDir,
            bucket: w.report.bucket,
            targetFileSize: target,
            nowMs: now,
            onFileRead,
          },
          w.appendFiles!,
        );
        before = w.appendFiles!;
        after = r.after;
        written.push(...r.written);
        report.rowsIn += r.rowsIn;
        report.bytesRead += r.bytesRead;
      }
      const newWritten = new Set(written.map((x) => x.meta.fileName));
      for (const x of written)
        if (after.some((a) => a.fileName === x.meta.fileName))
          emit({
            type: 'file-written',
            taskId,
            path: x.path,
            bytes: Number(x.meta.fileSize),
            rows: Number(x.meta.rowCount),
          });
      for (const f of before)
        changes.deletes.push({
          kind: FILE_KIND_DELETE,
          partition: w.partitionBytes,
          bucket: w.report.bucket,
          totalBuckets: f.totalBuckets,
          file: f.meta,
        });
      for (const m of after) {
        changes.adds.push({
          kind: FILE_KIND_ADD,
          partition: w.partitionBytes,
          bucket: w.report.bucket,
          totalBuckets: w.totalBuckets,
          file: m,
        });
        if (newWritten.has(m.fileName)) {
          report.rowsOut += Number(m.rowCount);
          report.bytesWritten += Number(m.fileSize);
        }
      }
      const replaced = new Set(before.map((f) => f.meta.fileName));
      w.report.filesAfter = [
        ...w.files.filter((f) => !replaced.has(f.meta.fileName)).map((f) => f.meta.fileName),
        ...after.map((m) => m.fileName),
      ];
      emit({
        type: 'task-done',
        taskId,
        outputFiles: after.length,
        bytesRead: report.bytesRead - mark.bytesRead,
        bytesWritten: report.bytesWritten - mark.bytesWritten,
        rowsIn: report.rowsIn - mark.rowsIn,
        rowsOut: report.rowsOut - mark.rowsOut,
      });
    }
    if (opts.signal?.aborted) throw cancelledError(table.location, written.length, opts.signal.reason);
    const request: CompactCommitRequest = {
      table,
      storage,
      changes: [...changes.deletes, ...changes.adds],
      ...(opts.commitUser ? { commitUser: opts.commitUser } : {}),
      ...(opts.maxRetries !== undefined ? { maxRetries: opts.maxRetries } : {}),
      ...(opts.beforePublish ? { beforePublish: opts.beforePublish } : {}),
      ...(changelogEntries.length ? { changelog: changelogEntries } : {}), // [changelog]
      ...(indexFiles.length // [dv]
        ? {
            deletionVectors: {
              buckets: indexFiles.map((x) => ({ partition: x.entry.partition, bucket: x.entry.bucket })),
              added: indexFiles.map((x) => x.entry),
            },
          }
        : {}),
    };
    if (opts.deferCommit) {
      // [seam] the rewrite step of a distributed run: its files stay for the run's commit step
      const { changes: c, changelog, deletionVectors } = request;
      report.tasks = todo.map((w) => ({
        id: taskIdOf(w),
        kind: taskKind,
        outcome: 'skipped' as const,
        reason: 'written, not committed: the run commits it',
      }));
      report.deferredCommit = {
        changes: c,
        ...(changelog ? { changelog } : {}),
        ...(deletionVectors ? { deletionVectors } : {}),
      };
      report.durationMs = Date.now() - started;
      return report;
    }
    const commit = await commitCompaction(request);
    report.snapshotId = String(commit.snapshotId);
    report.commitAttempts = commit.attempts;
    report.tasks = todo.map((w) => ({
      id: taskIdOf(w),
      kind: taskKind,
      outcome: 'committed' as const,
      snapshotId: report.snapshotId!,
    }));
    if (opts.signal?.aborted) {
      report.cancelled = {
        afterCommitStarted: true,
        committedSnapshots: [report.snapshotId],
        message: `cancelled while committing: the commit finished (snapshot ${report.snapshotId})`,
      };
    }
    emit({ type: 'commit', snapshotId: report.snapshotId, attempt: commit.attempts, groups: todo.length });
  } catch (e) {
    // Nothing references the new files unless the snapshot was published (and then we do not get here).
    // …nor when the commit's state is unknown (a lost response): then the snapshot may reference them.
    if (!(isFloeError(e) && e.kind === 'CommitConflict' && /overwritten/.test(e.message)) && !isCommitStateUnknown(e)) {
      await Promise.all(written.map((w) => storage.delete(w.path).catch(() => undefined)));
      await Promise.all(indexFiles.map((x) => storage.delete(x.path).catch(() => undefined))); // [dv]
    }
    throw e;
  }
  const replacedIds = new Set(changes.deletes.map((d) => `${d.bucket}|${d.file.fileName}|${d.file.level}`));
  const remaining = table.files.filter((f) => !replacedIds.has(`${f.bucket}|${f.meta.fileName}|${f.meta.level}`));
  const afterMetas = [...remaining.map((f) => f.meta), ...changes.adds.map((a) => a.file)];
  report.after = {
    files: afterMetas.length,
    bytes: afterMetas.reduce((n, m) => n + Number(m.fileSize), 0),
    records: afterMetas.reduce((n, m) => n + Number(m.rowCount), 0),
  };
  report.durationMs = Date.now() - started;
  return report;
}

const fmtBytes = (n: number) =>
  n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
/** Paimon partition values as text: DATE days and TIMESTAMP micros/nanos as ISO, the rest as they are. */
export function paimonPartitionLabeler(fields: readonly PaimonField[]): (partition: unknown[]) => string {
  const types = fields.map((f): FieldType | undefined => {
    const t = f.type;
    const ns = 'precision' in t && (t.precision ?? 6) > 6;
    if (t.root === 'DATE') return { kind: 'primitive', name: 'date' };
    if (t.root === 'TIMESTAMP') return { kind: 'primitive', name: ns ? 'timestamp_ns' : 'timestamp' };
    if (t.root === 'TIMESTAMP_LTZ') return { kind: 'primitive', name: ns ? 'timestamptz_ns' : 'timestamptz' };
    return undefined;
  });
  return (p) =>
    p.length ? p.map((v, i) => `${fields[i]?.name ?? i}=${formatTypedValue(types[i], v)}`).join(', ') : 'unpartitioned';
}

/** Text for `floe compact <paimon-table>` (plan, and results when it ran). */
export function renderPaimonPlan(report: PaimonCompactReport, explain: boolean): string {
  const lines: string[] = [];
  const kind =
    report.tableKind === 'primary-key' ? `primary-key table (merge-engine ${report.mergeEngine})` : 'append table';
  lines.push(
    `${report.dryRun ? 'dry run — nothing written: ' : ''}${report.full ? 'full ' : ''}${report.sort ? `sort compaction (order_strategy ${report.sort.orderStrategy}, ${report.sort.order}) ` : 'compaction '}of Paimon ${kind} ${report.table}`,
  );
  lines.push(
    `  base snapshot ${report.baseSnapshotId ?? '(none)'}; ${report.buckets.filter((b) => b.compact).length} of ${report.buckets.length} bucket(s) to compact${report.where !== undefined ? ` (--where ${report.where})` : ''}`,
  );
  for (const b of report.buckets) {
    const skippedByWhere = b.decision.some((s) => s.gate === 'where');
    const runs = skippedByWhere
      ? `${b.filesBefore.length} file(s)`
      : b.runs.map((r) => `L${r.level}:${r.files}f/${fmtBytes(r.bytes)}`).join(' ');
    const head = `  partition ${b.partitionLabel} bucket ${b.bucket}: ${skippedByWhere ? '' : 'runs '}${runs || '(empty)'}`;
    lines.push(
      b.compact
        ? `${head} → L${b.outputLevel}${b.dropDelete ? ' (drop deletes)' : ''}`
        : skippedByWhere
          ? `${head} → not selected by --where`
          : `${head} → nothing to do`,
    );
    if (explain) {
      for (const s of b.decision) lines.push(`      ${s.outcome.padEnd(4)} ${s.gate}: ${s.detail}`);
      for (const s of b.steps) lines.push(`      ${s.outcome.padEnd(4)} ${s.gate}: ${s.detail}`);
      if (b.compact && !report.dryRun) lines.push(`      files ${b.filesBefore.length} → ${b.filesAfter.length}`);
    }
  }
  const after = report.after ?? report.before;
  lines.push(
    `  files ${report.before.files} → ${report.dryRun || !report.after ? '(unchanged)' : after.files}, bytes ${fmtBytes(report.before.bytes)} → ${report.after ? fmtBytes(after.bytes) : '(unchanged)'}, records ${report.before.records} → ${report.after ? after.records : '(unchanged)'}`,
  );
  if (!report.dryRun && report.snapshotId) {
    lines.push(
      `  read ${fmtBytes(report.bytesRead)} (${report.rowsIn} rows), wrote ${fmtBytes(report.bytesWritten)} (${report.rowsOut} rows); committed snapshot ${report.snapshotId} (${report.sort ? 'OVERWRITE' : 'COMPACT'}${report.commitAttempts && report.commitAttempts > 1 ? `, ${report.commitAttempts} attempts` : ''}) in ${(report.durationMs / 1000).toFixed(1)} s`,
    );
  }
  return lines.join('\n');
}
