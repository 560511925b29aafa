/**
 * Rewriting the planned buckets of a Paimon compaction (compact-paimon.ts), one after the other: merge
 * steps (primary-key tables, with their changelog and deletion vectors) or concatenation (append tables),
 * then the manifest entries the commit needs and the progress events and counters of each bucket.
 */
import type { ProgressListener } from '../../core/execution/events.js';
import { FILE_KIND_ADD, FILE_KIND_DELETE, type DataFileMeta } from '../../../connectors/paimon/manifest.js';
import { rewriteAppend } from '../../../connectors/paimon/compact-append.js';
import type { PaimonCommitRequest } from '../../../connectors/paimon/commit-compact.js';
import { IndexFileNamer, type WrittenIndexFile } from '../../../connectors/paimon/compact-dv.js';
import { runSteps, type RunStepsContext } from '../../../connectors/paimon/compact-pk.js';
import type { PaimonWriteIO } from '../../../connectors/paimon/io.js';
import type { PaimonFile, PaimonTable } from '../../../connectors/paimon/table.js';
import { FileNamer, dataWriteSettings, type WrittenDataFile } from '../../../connectors/paimon/write-data-file.js';
import type { NewManifestEntry } from '../../../connectors/paimon/write-manifest.js';
import type { AppendRowMap } from '../../../connectors/paimon/dv-carry-over.js';
import { cancelledError } from '../cancel.js';
import type { PaimonCompactOptions, PaimonCompactReport } from '../compact-paimon.js';
import { bucketEntry, commitOptions } from './outcome.js';
import { bucketInputs, bucketTaskId, bytesOf, type BucketWork, type CompactionModes } from './bucket-plan.js';

/** What every bucket's rewrite shares: where it writes, how it names files, what it counts into. */
export interface RewriteRun {
  table: PaimonTable;
  storage: PaimonWriteIO;
  settings: ReturnType<typeof dataWriteSettings>;
  names: FileNamer;
  /** [changelog] Names of the changelog files (prefix `changelog-file.prefix`). */
  changelogNames: FileNamer | undefined;
  /** [dv] Names of the new deletion-vector index files. */
  indexNames: IndexFileNamer;
  modes: CompactionModes;
  targetFileSize: number;
  nowMs: number;
  report: PaimonCompactReport;
  emit: ProgressListener;
}

/** What the rewrites produced: the commit's entries, and every file written (removed if it fails). */
export interface RewriteOutputs {
  deletes: NewManifestEntry[];
  adds: NewManifestEntry[];
  written: WrittenDataFile[];
  indexFiles: WrittenIndexFile[];
  changelog: NewManifestEntry[];
  /** Append rewrites: where each surviving input row went (commit-compact.ts carries concurrent DVs over). */
  appendRows: AppendRowMap[];
}

export function rewriteRun(
  base: Pick<RewriteRun, 'table' | 'storage' | 'modes' | 'targetFileSize' | 'nowMs' | 'report' | 'emit'>,
  fileId: string | undefined,
): RewriteRun {
  const { table, modes } = base;
  const settings = dataWriteSettings(table.schema, table.location);
  const prefix = table.schema.options['changelog-file.prefix'] ?? 'changelog-';
  return {
    ...base,
    settings,
    names: new FileNamer(settings, fileId),
    changelogNames: modes.fullChangelog || modes.lookupChangelog ? new FileNamer({ ...settings, prefix }) : undefined,
    indexNames: new IndexFileNamer(),
  };
}

export function emptyOutputs(): RewriteOutputs {
  return { deletes: [], adds: [], written: [], indexFiles: [], changelog: [], appendRows: [] };
}

/** Rewrites every bucket of `todo` into `out`; a cancel is honoured before each bucket. */
export async function rewriteBuckets(
  run: RewriteRun,
  todo: readonly BucketWork[],
  out: RewriteOutputs,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (const w of todo) {
    if (signal?.aborted) throw cancelledError(run.table.location, out.written.length, signal.reason);
    await rewriteBucket(run, w, out);
  }
}

async function rewriteBucket(run: RewriteRun, w: BucketWork, out: RewriteOutputs): Promise<void> {
  const { report, emit } = run;
  const taskId = bucketTaskId(w);
  const inputs = bucketInputs(w);
  emit({ type: 'task-start', taskId, inputFiles: inputs.length, inputBytes: bytesOf(inputs) });
  const mark = {
    rowsIn: report.rowsIn,
    bytesRead: report.bytesRead,
    rowsOut: report.rowsOut,
    bytesWritten: report.bytesWritten,
  };
  const onFileRead = (path: string, bytes: number, rows: number) =>
    emit({ type: 'file-read', taskId, path, bytes, rows });
  const { before, after } = await rewriteFiles(run, w, onFileRead, out);
  recordBucket(run, w, taskId, before, after, out);
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

/** The bucket's merge steps or append concatenation; what they read and wrote goes to `out` and the report. */
async function rewriteFiles(
  run: RewriteRun,
  w: BucketWork,
  onFileRead: (path: string, bytes: number, rows: number) => void,
  out: RewriteOutputs,
): Promise<{ before: PaimonFile[]; after: DataFileMeta[] }> {
  const { table, storage, settings, names, targetFileSize, nowMs, report } = run;
  const target = { table, storage, settings, names, partitionDir: w.partitionDir, bucket: w.report.bucket };
  const ctx = { ...target, targetFileSize, nowMs, onFileRead };
  if (!w.steps) {
    const r = await rewriteAppend(ctx, w.appendFiles!);
    out.written.push(...r.written);
    out.appendRows.push(r.rows);
    if (r.indexFile) out.indexFiles.push(r.indexFile); // [dv] append tables with deletion vectors
    report.rowsIn += r.rowsIn;
    report.bytesRead += r.bytesRead;
    return { before: w.appendFiles!, after: r.after };
  }
  const r = await runSteps({ ...ctx, ...mergeModes(run, w) }, w.steps);
  out.written.push(...r.written);
  if (r.indexFile) out.indexFiles.push(r.indexFile); // [dv]
  out.written.push(...r.changelog); // [changelog] removed with the data files on failure
  for (const c of r.changelog) out.changelog.push(bucketEntry(FILE_KIND_ADD, w, w.totalBuckets, c.meta));
  report.rowsIn += r.rowsIn;
  report.bytesRead += r.bytesRead;
  return { before: r.before, after: r.after };
}

/** The merge's output level, and the changelog and deletion vectors it maintains for this bucket. */
function mergeModes(
  run: RewriteRun,
  w: BucketWork,
): Pick<
  RunStepsContext,
  'outputLevel' | 'dropDelete' | 'deletionVectors' | 'fullCompactionChangelog' | 'lookupChangelog'
> {
  const { deletionVectors, fullChangelog, lookupChangelog } = run.modes;
  return {
    outputLevel: w.report.outputLevel!,
    dropDelete: w.report.dropDelete!,
    ...(deletionVectors
      ? { deletionVectors: { bucketFiles: w.files, partition: w.partitionBytes, names: run.indexNames } }
      : {}),
    ...(fullChangelog
      ? { fullCompactionChangelog: { maxLevel: fullChangelog.maxLevel, names: run.changelogNames! } }
      : {}),
    ...(lookupChangelog ? { lookupChangelog: { bucketFiles: w.files, names: run.changelogNames! } } : {}),
  };
}

/** The bucket's DELETE and ADD entries, its file-written events, counters and files after. */
function recordBucket(
  run: RewriteRun,
  w: BucketWork,
  taskId: string,
  before: readonly PaimonFile[],
  after: readonly DataFileMeta[],
  out: RewriteOutputs,
): void {
  const { report, emit } = run;
  const newWritten = new Set(out.written.map((x) => x.meta.fileName));
  for (const x of out.written)
    if (after.some((a) => a.fileName === x.meta.fileName))
      emit({
        type: 'file-written',
        taskId,
        path: x.path,
        bytes: Number(x.meta.fileSize),
        rows: Number(x.meta.rowCount),
      });
  for (const f of before) out.deletes.push(bucketEntry(FILE_KIND_DELETE, w, f.totalBuckets, f.meta));
  for (const m of after) {
    out.adds.push(bucketEntry(FILE_KIND_ADD, w, w.totalBuckets, m));
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
}

/** The one COMPACT commit of every rewritten bucket (with the changelog and DV index changes). */
export function compactCommitRequest(
  run: Pick<RewriteRun, 'table' | 'storage'>,
  opts: PaimonCompactOptions,
  out: RewriteOutputs,
): PaimonCommitRequest {
  return {
    table: run.table,
    storage: run.storage,
    changes: [...out.deletes, ...out.adds],
    ...commitOptions(opts),
    ...(out.appendRows.length ? { appendRows: out.appendRows } : {}), // append tables: concurrent DVs are carried over
    ...(out.changelog.length ? { changelog: out.changelog } : {}), // [changelog]
    ...(out.indexFiles.length // [dv]
      ? {
          deletionVectors: {
            buckets: out.indexFiles.map((x) => ({ partition: x.entry.partition, bucket: x.entry.bucket })),
            added: out.indexFiles.map((x) => x.entry),
          },
        }
      : {}),
  };
}
