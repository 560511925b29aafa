/**
 * `floe compact <paimon-table> --strategy sort|zorder|hilbert`: Paimon's sort compaction
 * (`sort_compact`, `order_strategy` order / zorder / hilbert, `order_by` columns) of a bucket-unaware
 * append table.
 *
 * As Java's SortCompactAction does, every file of every selected partition (`--where`, partition columns
 * only) is read, the rows are sorted by the order (spilling past `--sort-memory`), written into
 * `target-file-size` files, and the partitions are overwritten in one OVERWRITE snapshot: DELETE entries
 * for all their files, ADD entries for the sorted ones. Java's overwrite deletes whatever the partition
 * holds at commit time; floe deletes exactly the files it read and abandons the commit when a writer added
 * files to one of those partitions meanwhile (their rows would otherwise have to be dropped or left
 * unsorted), so no concurrent row is lost.
 */
import { partitionHex } from '../../connectors/paimon/keys.js';
import { FloeError } from '../../util/errors.js';
import { safeEmitter, type ProgressListener } from '../core/execution/events.js';
import { describeRowOrder, type RowOrder } from '../core/planning/sort-order.js';
import type { FileIO } from '../../connectors/storage/file-io.js';
import { commitPaimonSnapshot } from '../../connectors/paimon/commit-compact.js';
import type { PaimonWriteIO } from '../../connectors/paimon/io.js';
import {
  FILE_KIND_ADD,
  FILE_KIND_DELETE,
  entryIdentifier,
  type ManifestEntry,
} from '../../connectors/paimon/manifest.js';
import { partitionPath } from '../../connectors/paimon/paths.js';
import {
  PAIMON_ORDER_STRATEGY,
  paimonRowOrder,
  rewriteSorted,
  type PaimonSortRequest,
} from './paimon-compact/sort-compact.js';
import {
  groupByBucket,
  partitionFields,
  type BucketFiles,
  type PaimonFile,
  type PaimonTable,
} from '../../connectors/paimon/table.js';
import {
  FileNamer,
  dataWriteSettings,
  type DataWriteSettings,
  type WrittenDataFile,
} from '../../connectors/paimon/write-data-file.js';
import type { NewManifestEntry } from '../../connectors/paimon/write-manifest.js';
import { cancelledError } from './cancel.js';
import type { PaimonBucketReport, PaimonCompactOptions, PaimonCompactReport } from './compact-paimon.js';
import { bytesOf } from './paimon-compact/bucket-plan.js';
import {
  bucketEntry,
  commitOptions,
  finished,
  recordCommit,
  removeUnpublished,
  skippedTasks,
  statsAfter,
} from './paimon-compact/outcome.js';

export interface SortedCompactionInput {
  table: PaimonTable;
  opts: PaimonCompactOptions & { sort: PaimonSortRequest };
  /** The report compactPaimon started (table, base snapshot, before). */
  report: PaimonCompactReport;
  fileIO: FileIO;
  selected: (partition: unknown[]) => boolean;
  labelOf: (partition: unknown[]) => string;
  targetFileSize: number;
  started: number;
}

interface PartitionWork {
  report: PaimonBucketReport;
  files: PaimonFile[];
  partitionDir: string;
  partitionBytes: Uint8Array;
  totalBuckets: number;
}

const taskIdOf = (w: PartitionWork) => `sort-${w.report.bucket}${w.partitionDir ? `@${w.partitionDir}` : ''}`;

export async function compactPaimonSorted(input: SortedCompactionInput): Promise<PaimonCompactReport> {
  const { table, opts, report } = input;
  const emit = safeEmitter(opts.onProgress);
  if (opts.full)
    throw new FloeError(
      'InvalidArgument',
      `--full does not combine with --strategy ${opts.sort.strategy}: sort compaction rewrites every file of the selected partitions anyway`,
    );
  const order = paimonRowOrder(table, opts.sort, table.schema.options);
  const text = describeRowOrder(order);
  report.sort = { strategy: opts.sort.strategy, orderStrategy: PAIMON_ORDER_STRATEGY[opts.sort.strategy], order: text };
  const work = planPartitions(input, order, text);
  report.buckets = work.map((w) => w.report);
  const todo = work.filter((w) => w.report.compact);
  emit({
    type: 'plan',
    tasks: todo.length,
    inputFiles: todo.reduce((n, w) => n + w.files.length, 0),
    inputBytes: todo.reduce((n, w) => n + bytesOf(w.files), 0),
  });
  if (opts.dryRun || !todo.length) {
    report.tasks = skippedTasks(todo.map(taskIdOf), 'sort', 'dry run: nothing was written');
    return finished(report, input.started);
  }
  const settings = dataWriteSettings(table.schema, table.location);
  const names = new FileNamer(settings);
  const run: SortRun = { input, order, storage: input.fileIO, settings, names, nowMs: opts.nowMs ?? Date.now(), emit };
  return sortAndOverwrite(run, todo);
}

/** Sorts the partitions, then overwrites them in one OVERWRITE snapshot. */
async function sortAndOverwrite(run: SortRun, todo: readonly PartitionWork[]): Promise<PaimonCompactReport> {
  const { input, storage, emit } = run;
  const { table, opts, report } = input;
  const out: SortOutputs = { deletes: [], adds: [], written: [] };
  try {
    for (const w of todo) {
      if (opts.signal?.aborted) throw cancelledError(table.location, out.written.length, opts.signal.reason);
      await rewritePartition(run, w, out);
    }
    if (opts.signal?.aborted) throw cancelledError(table.location, out.written.length, opts.signal.reason);
    const commit = await commitPaimonSnapshot({
      table,
      storage,
      changes: [...out.deletes, ...out.adds],
      commitKind: 'OVERWRITE',
      validate: nothingAddedMeanwhile(todo, out.deletes),
      nowMs: run.nowMs,
      ...commitOptions(opts),
    });
    recordCommit(report, commit, todo.map(taskIdOf), 'sort', opts.signal, emit);
  } catch (e) {
    await removeUnpublished(
      e,
      storage,
      out.written.map((w) => w.path),
    );
    throw e;
  }
  report.after = statsAfter(table.files, out.deletes, out.adds);
  return finished(report, input.started);
}

/** Every bucket of the table: the selected partitions' are rewritten whole, the others left alone. */
function planPartitions(input: SortedCompactionInput, order: RowOrder, text: string): PartitionWork[] {
  const { table, selected, labelOf } = input;
  const pTypes = partitionFields(table.schema).map((f) => f.type);
  return groupByBucket(table.files).map((g) => ({
    files: g.files,
    partitionDir: partitionPath(table.schema.partitionKeys, pTypes, g.partition, table.schema.options),
    partitionBytes: g.partitionBytes,
    totalBuckets: g.files[0]!.totalBuckets,
    report: partitionReport(input, g, labelOf(g.partition), selected(g.partition), order, text),
  }));
}

function partitionReport(
  input: SortedCompactionInput,
  g: BucketFiles,
  partitionLabel: string,
  chosen: boolean,
  order: RowOrder,
  text: string,
): PaimonBucketReport {
  const names = g.files.map((f) => f.meta.fileName);
  const how = order.kind === 'sort' ? 'sorted' : `${order.curve === 'hilbert' ? 'Hilbert' : 'z'}-ordered`;
  return {
    partition: g.partition,
    partitionLabel,
    bucket: g.bucket,
    runs: chosen ? [{ level: 0, files: g.files.length, bytes: bytesOf(g.files) }] : [],
    compact: chosen,
    ...(chosen ? { outputLevel: 0 } : {}),
    steps: chosen
      ? [
          {
            gate: 'overwrite',
            detail: `all ${g.files.length} file(s) read, rows ${how} by ${text}, written in target-size files; the partition is overwritten`,
            outcome: 'pick',
          },
        ]
      : [],
    filesBefore: names,
    filesAfter: names,
    decision: chosen
      ? [
          {
            gate: 'strategy',
            detail: `sort compaction (Paimon order_strategy ${input.report.sort!.orderStrategy}) by ${text}: every file of a selected partition is rewritten`,
            outcome: 'pick',
          },
        ]
      : [{ gate: 'where', detail: `partition not selected by ${JSON.stringify(input.opts.where)}`, outcome: 'skip' }],
  };
}

interface SortRun {
  input: SortedCompactionInput;
  order: RowOrder;
  storage: PaimonWriteIO;
  settings: DataWriteSettings;
  names: FileNamer;
  nowMs: number;
  emit: ProgressListener;
}

interface SortOutputs {
  deletes: NewManifestEntry[];
  adds: NewManifestEntry[];
  written: WrittenDataFile[];
}

/** One partition read, sorted and written; its DELETE entries (every file) and ADD entries go to `out`. */
async function rewritePartition(run: SortRun, w: PartitionWork, out: SortOutputs): Promise<void> {
  const { input, emit } = run;
  const { table, opts, report } = input;
  const taskId = taskIdOf(w);
  emit({ type: 'task-start', taskId, inputFiles: w.files.length, inputBytes: bytesOf(w.files) });
  const r = await rewriteSorted(
    {
      table,
      storage: run.storage,
      settings: run.settings,
      names: run.names,
      partitionDir: w.partitionDir,
      bucket: w.report.bucket,
      targetFileSize: input.targetFileSize,
      order: run.order,
      nowMs: run.nowMs,
      ...(opts.signal ? { signal: opts.signal } : {}),
      onFileRead: (path, bytes, rows) => emit({ type: 'file-read', taskId, path, bytes, rows }),
      onSpill: (s) =>
        emit({
          type: 'message',
          level: 'info',
          text: `${taskId}: spilled sorted run ${s.runs} (${s.rows} rows, ${s.bytes} bytes) to ${s.dir}`,
        }),
    },
    w.files,
  );
  out.written.push(...r.written);
  report.rowsIn += r.rowsIn;
  report.bytesRead += r.bytesRead;
  let bytesWritten = 0;
  for (const x of r.written) {
    bytesWritten += Number(x.meta.fileSize);
    emit({ type: 'file-written', taskId, path: x.path, bytes: Number(x.meta.fileSize), rows: Number(x.meta.rowCount) });
  }
  report.rowsOut += r.rowsOut;
  report.bytesWritten += bytesWritten;
  for (const f of w.files) out.deletes.push(bucketEntry(FILE_KIND_DELETE, w, f.totalBuckets, f.meta));
  for (const m of r.after) out.adds.push(bucketEntry(FILE_KIND_ADD, w, w.totalBuckets, m));
  w.report.filesAfter = r.after.map((m) => m.fileName);
  const { bytesRead, rowsIn, rowsOut } = r;
  emit({ type: 'task-done', taskId, outputFiles: r.after.length, bytesRead, bytesWritten, rowsIn, rowsOut });
}

/**
 * An overwrite must leave each partition holding exactly the sorted files: the commit is refused when a
 * writer added files to one of them after they were read.
 */
function nothingAddedMeanwhile(
  todo: readonly PartitionWork[],
  deletes: readonly NewManifestEntry[],
): (live: readonly ManifestEntry[]) => string[] {
  const overwritten = new Set(todo.map((w) => partitionHex(w.partitionBytes)));
  const replaced = new Set(deletes.map((d) => entryIdentifier({ ...d, manifest: '' })));
  return (live) =>
    live
      .filter((e) => overwritten.has(partitionHex(e.partition)) && !replaced.has(entryIdentifier(e)))
      .slice(0, 5)
      .map((e) => `file ${e.file.fileName} was added to a partition this sort compaction rewrites, after it was read`);
}
