/**
 * Append (no primary key) tables: small-file bin-packing per partition and bucket, with the rules of
 * `BucketedAppendCompactManager` (master):
 * - normal: files in sequence order; slide a window from the oldest file; as soon as it holds
 *   `compaction.min.file-num` (5) files it is compacted; whenever its total size reaches
 *   `target-file-size` (256 MB for append tables) the oldest file leaves the window;
 * - full: leading files ≥ target size are skipped; the rest is compacted when small files outnumber large
 *   ones. Java's writer-triggered full compaction also wants at least 3 files (`FULL_COMPACT_MIN_FILE`);
 *   floe's `--full` is an explicit request, so two small files are compacted into one too.
 * Bucket-unaware tables (bucket = -1) follow Java's AppendCompactCoordinator instead (pickUnawareAppend);
 * `--full` uses the full rule above for both.
 * The rewrite concatenates the files in sequence order and renumbers records from the first file's
 * minimum sequence number, as Java's append rewriter does; output stays at level 0.
 * Tables with deletion vectors: append-dv.ts (deleted rows dropped, the DV index rewritten).
 */
import type { DecisionStep } from '../../model/decision.js';
import { parseMemorySize } from '../../util/units.js';
import { AppendDvRewrite, DEFAULT_DELETE_RATIO_THRESHOLD, pickUnawareAppendWithDvs } from './append-dv.js';
import { deletionVectorsEnabled, type WrittenIndexFile } from './compact-dv.js';
import { AppendRowMap } from './dv-carry-over.js';
import { readFileRecords } from './compact-merge.js';
import { DeletionVectors } from './scan.js';
import { bucketWriteTarget, bytesPerRowOf, type BucketWriteContext } from './bucket-write.js';
import type { DataFileMeta } from './manifest.js';
import type { PaimonFile } from './table.js';
import { AppendFileWriter, FILE_SOURCE_COMPACT, type WrittenDataFile } from './write-data-file.js';

export const DEFAULT_APPEND_TARGET_FILE_SIZE = 256 * 1024 * 1024;
/** Fewest files an explicit full compaction merges (Java's automatic trigger uses 3). */
const MIN_FULL_FILES = 2;

function bySequence(a: PaimonFile, b: PaimonFile): number {
  const x = a.meta.minSequenceNumber;
  const y = b.meta.minSequenceNumber;
  return x < y
    ? -1
    : x > y
      ? 1
      : (a.meta.creationTime ?? 0) - (b.meta.creationTime ?? 0) || (a.meta.fileName < b.meta.fileName ? -1 : 1);
}

export interface AppendPick {
  /** Empty when nothing is worth compacting. */
  files: PaimonFile[];
  trail: DecisionStep[];
}

/**
 * What to compact in one partition/bucket of an append table, by the table's options: the coordinator's
 * rules for bucket-unaware tables (with or without DVs), the bucketed rules otherwise and for `--full`.
 */
export function pickAppendFiles(
  files: readonly PaimonFile[],
  options: Record<string, string>,
  o: { full: boolean; targetFileSize: number },
): AppendPick {
  const minFileNum = Number(options['compaction.min.file-num'] ?? '5');
  const unaware = Number(options.bucket ?? '-1') === -1;
  const dv = deletionVectorsEnabled(options);
  if (!unaware || o.full) return pickAppend(files, { minFileNum, ...o, deletionVectors: dv });
  const openFileCost = parseMemorySize(options['source.split.open-file-cost'] ?? '4mb');
  const plain = { minFileNum, targetFileSize: o.targetFileSize, openFileCost };
  if (!dv) return pickUnawareAppend(files, plain);
  const threshold = Number(options['compaction.delete-ratio-threshold'] ?? DEFAULT_DELETE_RATIO_THRESHOLD);
  const p = pickUnawareAppendWithDvs(files, { ...plain, deleteRatioThreshold: threshold }, (rest) =>
    pickUnawareAppend(rest, plain),
  );
  return { files: p.files.sort(bySequence), trail: p.trail };
}

/**
 * The bucketed rules. With `deletionVectors` (the table has DVs enabled), a full compaction keeps a leading
 * large file only when it has no DV and compacts the rest — Java's FullCompactTask compacts even one file
 * then; floe skips rewriting a single file that has no DV (the same file again).
 */
export function pickAppend(
  files: readonly PaimonFile[],
  o: { minFileNum: number; targetFileSize: number; full: boolean; deletionVectors?: boolean },
): AppendPick {
  const sorted = [...files].sort(bySequence);
  const trail: DecisionStep[] = [
    {
      gate: 'input',
      detail: `${sorted.length} file(s), target ${o.targetFileSize} B, min file num ${o.minFileNum}`,
      outcome: 'info',
    },
  ];
  if (o.full) {
    let i = 0;
    while (i < sorted.length && Number(sorted[i]!.meta.fileSize) >= o.targetFileSize && !sorted[i]!.dv) i++;
    const rest = sorted.slice(i);
    if (o.deletionVectors) {
      const withDv = rest.filter((f) => f.dv).length;
      const go = rest.length >= MIN_FULL_FILES || withDv > 0;
      trail.push({
        gate: 'full',
        detail: `skip ${i} leading large file(s) without a deletion vector; ${rest.length} file(s) left, ${withDv} with a deletion vector${go ? ' → compact' : ': nothing worth compacting'}`,
        outcome: go ? 'pick' : 'skip',
      });
      return { files: go ? rest : [], trail };
    }
    const big = rest.filter((f) => Number(f.meta.fileSize) >= o.targetFileSize).length;
    const small = rest.length - big;
    if (small > big && rest.length >= MIN_FULL_FILES) {
      trail.push({
        gate: 'full',
        detail: `skip ${i} leading large file(s); ${small} small > ${big} large, ${rest.length} ≥ ${MIN_FULL_FILES} files → compact`,
        outcome: 'pick',
      });
      return { files: rest, trail };
    }
    trail.push({
      gate: 'full',
      detail: `${small} small vs ${big} large of ${rest.length} file(s) after skipping ${i}: nothing worth compacting`,
      outcome: 'skip',
    });
    return { files: [], trail };
  }
  const window: PaimonFile[] = [];
  let total = 0;
  for (const f of sorted) {
    window.push(f);
    total += Number(f.meta.fileSize);
    if (window.length >= o.minFileNum) {
      trail.push({
        gate: 'min-file-num',
        detail: `${window.length} consecutive files (${total} B) reach compaction.min.file-num ${o.minFileNum} → compact`,
        outcome: 'pick',
      });
      return { files: window.slice(), trail };
    }
    if (total >= o.targetFileSize) total -= Number(window.shift()!.meta.fileSize);
  }
  trail.push({
    gate: 'min-file-num',
    detail: `no window of ${o.minFileNum} files below the target size`,
    outcome: 'skip',
  });
  return { files: [], trail };
}

/**
 * Bucket-unaware tables (`bucket = -1`), as Java's AppendCompactCoordinator plans one batch run: only files
 * smaller than target / 10 * 7 take part; sorted by size, they fill bins that count each file's size plus
 * `source.split.open-file-cost` (4 MB); a bin of more than one file reaching twice the target is one task,
 * and the last bin is one when it holds at least `compaction.min.file-num` files. floe rewrites the union
 * of those tasks in one pass (output rolls at the target size, so the files come out alike).
 */
export function pickUnawareAppend(
  files: readonly PaimonFile[],
  o: { minFileNum: number; targetFileSize: number; openFileCost: number },
): AppendPick {
  const limit = Math.floor(o.targetFileSize / 10) * 7;
  const small = files
    .filter((f) => Number(f.meta.fileSize) < limit)
    .sort((a, b) => Number(a.meta.fileSize) - Number(b.meta.fileSize));
  const trail: DecisionStep[] = [
    {
      gate: 'input',
      detail: `${files.length} file(s); ${small.length} below ${limit} B (target ${o.targetFileSize} B × 0.7) take part; min file num ${o.minFileNum}, open-file cost ${o.openFileCost} B`,
      outcome: 'info',
    },
  ];
  const picked: PaimonFile[] = [];
  let bin: PaimonFile[] = [];
  let total = 0;
  for (const f of small) {
    bin.push(f);
    total += Number(f.meta.fileSize) + o.openFileCost;
    if (bin.length > 1 && total >= o.targetFileSize * 2) {
      trail.push({
        gate: 'bin',
        detail: `${bin.length} file(s), ${total} B with open costs ≥ 2 × target → compact`,
        outcome: 'pick',
      });
      picked.push(...bin);
      bin = [];
      total = 0;
    }
  }
  if (bin.length >= o.minFileNum) {
    trail.push({
      gate: 'min-file-num',
      detail: `last bin of ${bin.length} file(s) reaches compaction.min.file-num ${o.minFileNum} → compact`,
      outcome: 'pick',
    });
    picked.push(...bin);
  } else if (bin.length) {
    trail.push({
      gate: 'min-file-num',
      detail: `last bin of ${bin.length} file(s) is below compaction.min.file-num ${o.minFileNum}: left alone`,
      outcome: 'skip',
    });
  }
  return { files: picked.sort(bySequence), trail };
}

export type AppendRewriteContext = BucketWriteContext;

/** A level-0 writer for rewriting `files` of one partition/bucket, sized by their average bytes per row. */
export function appendWriterFor(
  ctx: Omit<AppendRewriteContext, 'onFileRead'>,
  files: readonly PaimonFile[],
  fileSource: number,
): AppendFileWriter {
  return new AppendFileWriter(
    bucketWriteTarget(ctx, { level: 0, fileSource, names: ctx.names, bytesPerRow: bytesPerRowOf(files) }),
  );
}

/**
 * Rewrites `files` (one partition/bucket, sequence order) into level-0 files. On a table with deletion
 * vectors the rows they delete are dropped and `indexFile` is the partition/bucket's new DV index file
 * (absent when none of the files had a DV); it is the caller's to commit or delete, like `written`.
 */
export async function rewriteAppend(
  ctx: AppendRewriteContext,
  files: readonly PaimonFile[],
): Promise<{
  after: DataFileMeta[];
  written: WrittenDataFile[];
  rowsIn: number;
  bytesRead: number;
  indexFile?: WrittenIndexFile;
  /** Where each surviving input row went (for carrying over DVs another writer adds meanwhile). */
  rows: AppendRowMap;
}> {
  const bytes = files.reduce((n, f) => n + Number(f.meta.fileSize), 0);
  const dvOn = deletionVectorsEnabled(ctx.table.schema.options) || files.some((f) => f.dv);
  const first = files[0];
  const dvState =
    dvOn && first ? await AppendDvRewrite.restore(ctx.table, first.partitionBytes, first.bucket) : undefined;
  const dvs = dvOn ? new DeletionVectors(ctx.table.io) : undefined;
  const writer = appendWriterFor(ctx, files, FILE_SOURCE_COMPACT);
  let seq = first?.meta.minSequenceNumber ?? 0n;
  let rowsIn = 0;
  let written: WrittenDataFile[] | undefined;
  const rows = new AppendRowMap();
  try {
    for (const f of files) {
      const recs = await readFileRecords(ctx.table, f, dvs);
      rows.addInput(f.meta.fileName, recs.length, await dvs?.deleted(f));
      rowsIn += recs.length;
      ctx.onFileRead?.(f.path, Number(f.meta.fileSize), recs.length);
      for (const r of recs) await writer.write({ values: r.value, sequenceNumber: seq++ });
    }
    written = await writer.close();
    rows.setOutputs(written.map((w) => w.meta));
    const indexFile = dvState ? await dvState.finish(files, ctx.storage) : undefined;
    return {
      after: written.map((w) => w.meta),
      written,
      rowsIn,
      bytesRead: bytes,
      ...(indexFile ? { indexFile } : {}),
      rows,
    };
  } catch (e) {
    if (written) await Promise.all(written.map((w) => ctx.storage.remove(w.path).catch(() => undefined)));
    else await writer.abort();
    throw e;
  }
}
