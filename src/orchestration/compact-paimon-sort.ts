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
import { FloeError, isFloeError } from '../errors.js';
import { safeEmitter } from '../execution/events.js';
import { describeRowOrder } from '../planning/sort-order.js';
import { isCommitStateUnknown } from '../../connectors/iceberg/commit-state.js';
import type { FileIO } from '../../connectors/storage/file-io.js';
import { commitCompaction } from '../../connectors/paimon/commit-compact.js';
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
} from '../../connectors/paimon/sort-compact.js';
import { groupByBucket, partitionFields, type PaimonFile, type PaimonTable } from '../../connectors/paimon/table.js';
import {
  FileNamer,
  dataWriteSettings,
  paimonStorageFromFileIO,
  type WrittenDataFile,
} from '../../connectors/paimon/write-data-file.js';
import type { NewManifestEntry } from '../../connectors/paimon/write-manifest.js';
import { cancelledError } from './cancel.js';
import type { PaimonBucketReport, PaimonCompactOptions, PaimonCompactReport } from './compact-paimon.js';

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

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

export async function compactPaimonSorted(input: SortedCompactionInput): Promise<PaimonCompactReport> {
  const { table, opts, report, selected, labelOf } = input;
  const emit = safeEmitter(opts.onProgress);
  if (opts.full)
    throw new FloeError(
      'InvalidArgument',
      `--full does not combine with --strategy ${opts.sort.strategy}: sort compaction rewrites every file of the selected partitions anyway`,
    );
  const order = paimonRowOrder(table, opts.sort, table.schema.options);
  const text = describeRowOrder(order);
  report.sort = { strategy: opts.sort.strategy, orderStrategy: PAIMON_ORDER_STRATEGY[opts.sort.strategy], order: text };
  const pTypes = partitionFields(table.schema).map((f) => f.type);
  const work: PartitionWork[] = [];
  for (const g of groupByBucket(table.files)) {
    const names = g.files.map((f) => f.meta.fileName);
    const bytes = g.files.reduce((n, f) => n + Number(f.meta.fileSize), 0);
    const chosen = selected(g.partition);
    work.push({
      files: g.files,
      partitionDir: partitionPath(table.schema.partitionKeys, pTypes, g.partition, table.schema.options),
      partitionBytes: g.partitionBytes,
      totalBuckets: g.files[0]!.totalBuckets,
      report: {
        partition: g.partition,
        partitionLabel: labelOf(g.partition),
        bucket: g.bucket,
        runs: chosen ? [{ level: 0, files: g.files.length, bytes }] : [],
        compact: chosen,
        ...(chosen ? { outputLevel: 0 } : {}),
        steps: chosen
          ? [
              {
                gate: 'overwrite',
                detail: `all ${g.files.length} file(s) read, rows ${order.kind === 'sort' ? 'sorted' : `${order.curve === 'hilbert' ? 'Hilbert' : 'z'}-ordered`} by ${text}, written in target-size files; the partition is overwritten`,
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
                detail: `sort compaction (Paimon order_strategy ${report.sort.orderStrategy}) by ${text}: every file of a selected partition is rewritten`,
                outcome: 'pick',
              },
            ]
          : [{ gate: 'where', detail: `partition not selected by ${JSON.stringify(opts.where)}`, outcome: 'skip' }],
      },
    });
  }
  report.buckets = work.map((w) => w.report);
  const todo = work.filter((w) => w.report.compact);
  const bytesOf = (fs: readonly PaimonFile[]) => fs.reduce((n, f) => n + Number(f.meta.fileSize), 0);
  const taskIdOf = (w: PartitionWork) => `sort-${w.report.bucket}${w.partitionDir ? `@${w.partitionDir}` : ''}`;
  emit({
    type: 'plan',
    tasks: todo.length,
    inputFiles: todo.reduce((n, w) => n + w.files.length, 0),
    inputBytes: todo.reduce((n, w) => n + bytesOf(w.files), 0),
  });
  if (opts.dryRun || !todo.length) {
    report.tasks = todo.map((w) => ({
      id: taskIdOf(w),
      kind: 'sort',
      outcome: 'skipped' as const,
      reason: 'dry run: nothing was written',
    }));
    report.durationMs = Date.now() - input.started;
    return report;
  }

  const storage = opts.storage ?? paimonStorageFromFileIO(input.fileIO);
  const settings = dataWriteSettings(table.schema, table.location);
  const names = new FileNamer(settings);
  const now = opts.nowMs ?? Date.now();
  const deletes: NewManifestEntry[] = [];
  const adds: NewManifestEntry[] = [];
  const written: WrittenDataFile[] = [];
  try {
    for (const w of todo) {
      if (opts.signal?.aborted) throw cancelledError(table.location, written.length, opts.signal.reason);
      const taskId = taskIdOf(w);
      emit({ type: 'task-start', taskId, inputFiles: w.files.length, inputBytes: bytesOf(w.files) });
      const r = await rewriteSorted(
        {
          table,
          storage,
          settings,
          names,
          partitionDir: w.partitionDir,
          bucket: w.report.bucket,
          targetFileSize: input.targetFileSize,
          order,
          nowMs: now,
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
      written.push(...r.written);
      report.rowsIn += r.rowsIn;
      report.bytesRead += r.bytesRead;
      let bytesWritten = 0;
      for (const x of r.written) {
        bytesWritten += Number(x.meta.fileSize);
        emit({
          type: 'file-written',
          taskId,
          path: x.path,
          bytes: Number(x.meta.fileSize),
          rows: Number(x.meta.rowCount),
        });
      }
      report.rowsOut += r.rowsOut;
      report.bytesWritten += bytesWritten;
      for (const f of w.files)
        deletes.push({
          kind: FILE_KIND_DELETE,
          partition: w.partitionBytes,
          bucket: w.report.bucket,
          totalBuckets: f.totalBuckets,
          file: f.meta,
        });
      for (const m of r.after)
        adds.push({
          kind: FILE_KIND_ADD,
          partition: w.partitionBytes,
          bucket: w.report.bucket,
          totalBuckets: w.totalBuckets,
          file: m,
        });
      w.report.filesAfter = r.after.map((m) => m.fileName);
      emit({
        type: 'task-done',
        taskId,
        outputFiles: r.after.length,
        bytesRead: r.bytesRead,
        bytesWritten,
        rowsIn: r.rowsIn,
        rowsOut: r.rowsOut,
      });
    }
    if (opts.signal?.aborted) throw cancelledError(table.location, written.length, opts.signal.reason);
    // an overwrite must leave each partition holding exactly the sorted files: refuse files added meanwhile
    const overwritten = new Set(todo.map((w) => hex(w.partitionBytes)));
    const replaced = new Set(deletes.map((d) => entryIdentifier({ ...d, manifest: '' })));
    const validate = (live: readonly ManifestEntry[]) =>
      live
        .filter((e) => overwritten.has(hex(e.partition)) && !replaced.has(entryIdentifier(e)))
        .slice(0, 5)
        .map(
          (e) => `file ${e.file.fileName} was added to a partition this sort compaction rewrites, after it was read`,
        );
    const commit = await commitCompaction({
      table,
      storage,
      changes: [...deletes, ...adds],
      commitKind: 'OVERWRITE',
      validate,
      nowMs: now,
      ...(opts.commitUser ? { commitUser: opts.commitUser } : {}),
      ...(opts.maxRetries !== undefined ? { maxRetries: opts.maxRetries } : {}),
      ...(opts.beforePublish ? { beforePublish: opts.beforePublish } : {}),
    });
    report.snapshotId = String(commit.snapshotId);
    report.commitAttempts = commit.attempts;
    report.tasks = todo.map((w) => ({
      id: taskIdOf(w),
      kind: 'sort',
      outcome: 'committed' as const,
      snapshotId: report.snapshotId!,
    }));
    if (opts.signal?.aborted)
      report.cancelled = {
        afterCommitStarted: true,
        committedSnapshots: [report.snapshotId],
        message: `cancelled while committing: the commit finished (snapshot ${report.snapshotId})`,
      };
    emit({ type: 'commit', snapshotId: report.snapshotId, attempt: commit.attempts, groups: todo.length });
  } catch (e) {
    // the new files are referenced only by a published snapshot (then we are not here) or, when the
    // commit's outcome is unknown, perhaps by one: keep them then
    if (!(isFloeError(e) && e.kind === 'CommitConflict' && /overwritten/.test(e.message)) && !isCommitStateUnknown(e))
      await Promise.all(written.map((w) => storage.delete(w.path).catch(() => undefined)));
    throw e;
  }
  const gone = new Set(deletes.map((d) => d.file.fileName));
  const after = [
    ...table.files.filter((f) => !gone.has(f.meta.fileName)).map((f) => f.meta),
    ...adds.map((a) => a.file),
  ];
  report.after = {
    files: after.length,
    bytes: after.reduce((n, m) => n + Number(m.fileSize), 0),
    records: after.reduce((n, m) => n + Number(m.rowCount), 0),
  };
  report.durationMs = Date.now() - input.started;
  return report;
}
