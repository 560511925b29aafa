/**
 * One bucket of a primary-key table: which files of the picked unit are rewritten and which are only
 * moved to the output level (`MergeTreeCompactTask` over `IntervalPartition`), and running those steps.
 *
 * IntervalPartition sorts the unit's files by (minKey, maxKey), cuts them into sections whose key ranges
 * do not overlap, and packs each section into the fewest sorted runs. A section of several runs must be
 * merged; in a single-run section, files smaller than `target-file-size × compaction.small-file-ratio`
 * join the pending rewrite, and a large file first flushes the pending rewrite and is then upgraded
 * (same file, new level: a DELETE at the old level + ADD at the new one). A pending rewrite that is a
 * single run is upgraded file by file instead. Files with deletes are rewritten, not upgraded, into the
 * max level; `compaction.force-rewrite-all-files` rewrites everything.
 */
import { FloeError } from '../../util/errors.js';
import type { DecisionStep } from '../../model/decision.js';
import { decodeKeys, type PaimonFile, type PaimonTable } from './table.js';
import { rowComparator } from './values.js';
import { hasLevel0, mergeContext, mergeSections, type LookupMerge } from './compact-merge.js';
import {
  BucketDeletionVectors,
  LookupLevels,
  writeBucketDvIndex,
  type IndexFileNamer,
  type WrittenIndexFile,
} from './compact-dv.js';
import { FILE_SOURCE_COMPACT, FileNamer, KeyValueFileWriter, type WrittenDataFile } from './write-data-file.js';
import { bucketWriteTarget, bytesPerRowOf, type BucketWriteContext } from './bucket-write.js';
import type { DataFileMeta } from './manifest.js';
import { trimmedPrimaryKeyFields } from './table.js';
import { fullCompactionChangelog, lookupChangelog } from './compact-changelog.js';
import { FILE_SOURCE_APPEND } from './write-data-file.js';
import type { KeyValue } from './merge-engines.js';

export type CompactStep =
  /** `lookup`: a level-0 file of a deletion-vector table, read to mark the rows it supersedes above. */
  | { kind: 'upgrade'; file: PaimonFile; toLevel: number; lookup?: boolean }
  /** Sections (non-overlapping key ranges, in key order), each a list of sorted runs (lists of files). */
  | { kind: 'rewrite'; sections: PaimonFile[][][]; reason: string };

interface Ranged {
  f: PaimonFile;
  min: unknown[];
  max: unknown[];
}

/** IntervalPartition.partition: sections of sorted runs. */
export function intervalPartition(table: PaimonTable, files: readonly PaimonFile[]): PaimonFile[][][] {
  const keyTypes = trimmedPrimaryKeyFields(table.schema).map((f) => f.type);
  const cmp = rowComparator(keyTypes);
  const ranged: Ranged[] = files.map((f) => {
    const k = decodeKeys(table, f.meta);
    if (!k) {
      throw new FloeError(
        'Corrupt',
        `Paimon data file ${f.path}: its min/max key does not match the table's key columns`,
        { context: { file: f.path } },
      );
    }
    return { f, min: k.min, max: k.max };
  });
  ranged.sort((a, b) => cmp(a.min, b.min) || cmp(a.max, b.max));
  const sections: Ranged[][] = [];
  let section: Ranged[] = [];
  let bound: unknown[] | undefined;
  for (const r of ranged) {
    if (section.length && bound && cmp(r.min, bound) > 0) {
      sections.push(section);
      section = [];
      bound = undefined;
    }
    section.push(r);
    if (!bound || cmp(r.max, bound) > 0) bound = r.max;
  }
  if (section.length) sections.push(section);
  return sections.map((s) => {
    // Greedy packing: put each file on the run whose last max key is smallest, if it ends before this file.
    const runs: Ranged[][] = [];
    for (const r of s) {
      let best = -1;
      for (let i = 0; i < runs.length; i++) {
        const last = runs[i]![runs[i]!.length - 1]!;
        if (cmp(last.max, r.min) < 0 && (best < 0 || cmp(last.max, runs[best]![runs[best]!.length - 1]!.max) < 0))
          best = i;
      }
      if (best >= 0) runs[best]!.push(r);
      else runs.push([r]);
    }
    return runs.map((run) => run.map((x) => x.f));
  });
}

export interface StepOptions {
  outputLevel: number;
  maxLevel: number;
  /** target-file-size × compaction.small-file-ratio. */
  minFileSize: number;
  forceRewriteAllFiles: boolean;
  /**
   * Lookup compaction — deletion vectors or changelog-producer=lookup (`LookupMergeTreeCompactRewriter.
   * upgradeStrategy`): a level-0 file is upgraded with a lookup pass only when the output is the max level
   * or the engine is deduplicate without sequence.field (and, with DVs, it holds no deletes); otherwise
   * it is rewritten.
   */
  lookup?: { deletionVectors: boolean; dedupeNoSequence: boolean };
}

/** MergeTreeCompactTask.doCompact as a pure plan. */
export function planSteps(table: PaimonTable, unitFiles: readonly PaimonFile[], o: StepOptions): CompactStep[] {
  const steps: CompactStep[] = [];
  let candidate: PaimonFile[][][] = [];
  const rewriteFile = (f: PaimonFile, reason: string) => steps.push({ kind: 'rewrite', sections: [[[f]]], reason });
  const upgrade = (f: PaimonFile) => {
    if (f.meta.level === o.outputLevel) {
      if (o.forceRewriteAllFiles) rewriteFile(f, 'compaction.force-rewrite-all-files');
      return;
    }
    const noDeletes = f.meta.deleteRowCount !== undefined && f.meta.deleteRowCount === 0n;
    if (o.outputLevel !== o.maxLevel || noDeletes) {
      if (o.forceRewriteAllFiles) rewriteFile(f, 'compaction.force-rewrite-all-files');
      else if (o.lookup && f.meta.level === 0) {
        if (o.lookup.deletionVectors && !noDeletes)
          rewriteFile(f, 'level-0 file with deletes in a deletion-vector table');
        else if (o.outputLevel === o.maxLevel || o.lookup.dedupeNoSequence)
          steps.push({ kind: 'upgrade', file: f, toLevel: o.outputLevel, lookup: true });
        else rewriteFile(f, 'level-0 file merged with the looked-up older rows');
      } else steps.push({ kind: 'upgrade', file: f, toLevel: o.outputLevel });
    } else {
      rewriteFile(f, 'may hold deletes; not upgraded into the max level');
    }
  };
  const flush = () => {
    if (!candidate.length) return;
    if (candidate.length === 1 && candidate[0]!.length <= 1) {
      for (const f of candidate[0]![0] ?? []) upgrade(f);
    } else {
      steps.push({ kind: 'rewrite', sections: candidate, reason: 'overlapping or small files' });
    }
    candidate = [];
  };
  for (const section of intervalPartition(table, unitFiles)) {
    if (section.length > 1) {
      candidate.push(section);
      continue;
    }
    for (const f of section[0]!) {
      if (f.meta.fileSize < BigInt(Math.floor(o.minFileSize))) {
        candidate.push([[f]]);
      } else {
        flush();
        upgrade(f);
      }
    }
  }
  flush();
  return steps;
}

export function describeSteps(steps: readonly CompactStep[]): DecisionStep[] {
  return steps.map((s) =>
    s.kind === 'upgrade'
      ? {
          gate: 'upgrade',
          detail: `${s.file.meta.fileName}: L${s.file.meta.level} → L${s.toLevel} (no rewrite${s.lookup ? '; rows it supersedes above are marked deleted' : ''})`,
          outcome: 'pick' as const,
        }
      : {
          gate: 'rewrite',
          detail: `${s.sections.reduce((n, sec) => n + sec.reduce((m, r) => m + r.length, 0), 0)} file(s) in ${s.sections.length} section(s) merged (${s.reason})`,
          outcome: 'pick' as const,
        },
  );
}

export interface StepResult {
  before: PaimonFile[];
  after: DataFileMeta[];
  written: WrittenDataFile[];
  rowsIn: number;
  bytesRead: number;
  /** Deletion-vector tables: the bucket's new DV index file, when its DVs changed (already written). */
  indexFile?: WrittenIndexFile;
  /** `changelog-producer=full-compaction`: the changelog files this compaction wrote. */
  changelog: WrittenDataFile[];
}

export interface RunStepsContext extends BucketWriteContext {
  outputLevel: number;
  dropDelete: boolean;
  /** Deletion-vector tables: every live file of the bucket, its partition bytes, and the index file namer. */
  deletionVectors?: { bucketFiles: readonly PaimonFile[]; partition: Uint8Array; names: IndexFileNamer };
  /** `changelog-producer=full-compaction`: the max level, and names for changelog files (prefix changelog-). */
  fullCompactionChangelog?: { maxLevel: number; names: FileNamer };
  /** `changelog-producer=lookup`: every live file of the bucket (for the lookup) and changelog file names. */
  lookupChangelog?: { bucketFiles: readonly PaimonFile[]; names: FileNamer };
}

/** Runs the steps; on failure deletes whatever it wrote. */
export async function runSteps(ctx: RunStepsContext, steps: readonly CompactStep[]): Promise<StepResult> {
  const result: StepResult = { before: [], after: [], written: [], rowsIn: 0, bytesRead: 0, changelog: [] };
  const merge = mergeContext(ctx.table);
  const writers: KeyValueFileWriter[] = [];
  const dv = ctx.deletionVectors;
  const onRead = (counted: boolean) => (f: PaimonFile, n: number) => {
    if (counted) result.rowsIn += n;
    result.bytesRead += Number(f.meta.fileSize);
    ctx.onFileRead?.(f.path, Number(f.meta.fileSize), n);
  };
  // Changelog: full-compaction only when the output is the max level (FullChangelogMergeTreeCompactRewriter);
  // lookup for merges and upgrades that involve level-0 files (LookupMergeTreeCompactRewriter).
  const full = ctx.fullCompactionChangelog;
  const lc = ctx.lookupChangelog;
  const changelogFn =
    full && ctx.outputLevel === full.maxLevel
      ? fullCompactionChangelog(ctx.table, full.maxLevel)
      : lc && ctx.outputLevel !== 0
        ? lookupChangelog(ctx.table)
        : undefined;
  const changelogNames = full?.names ?? lc?.names;
  const pending: KeyValue[] = [];
  const onMerged = changelogFn
    ? (records: readonly KeyValue[], merged: KeyValue | null) => void pending.push(...changelogFn(records, merged))
    : undefined;
  const changelogWriter = (bytesPerRow: number) => {
    const w = new KeyValueFileWriter(
      bucketWriteTarget(ctx, {
        level: ctx.outputLevel,
        fileSource: FILE_SOURCE_APPEND,
        names: changelogNames!,
        bytesPerRow,
      }),
    );
    writers.push(w);
    return w;
  };
  const drain = async (w: KeyValueFileWriter | undefined) => {
    if (w) for (const kv of pending.splice(0)) await w.write(kv);
  };
  let lookup: LookupMerge | undefined;
  const bucketFiles = dv?.bucketFiles ?? lc?.bucketFiles;
  if (bucketFiles) {
    const dvs = dv ? await BucketDeletionVectors.restore(ctx.table, dv.partition, ctx.bucket) : undefined;
    const above = bucketFiles.filter((f) => f.meta.level > ctx.outputLevel);
    const levels = new LookupLevels(ctx.table, above, dvs, onRead(false));
    const firstRow = (ctx.table.schema.options['merge-engine'] ?? '').trim().toLowerCase() === 'first-row';
    lookup = { levels, ...(dvs ? { dvs } : {}), ...(firstRow ? { firstRow } : {}) };
  }
  try {
    for (const s of steps) {
      if (s.kind === 'upgrade') {
        // CHANGELOG_NO_REWRITE: the file is read through the (lookup) merge — marking DVs, producing
        // changelog — but stays as it is, at the new level
        const viaLookup = !!(s.lookup && lookup);
        const changelog = onMerged && (viaLookup || (full && !lc));
        if (viaLookup || changelog) {
          const w = changelog
            ? changelogWriter(Number(s.file.meta.fileSize) / Math.max(1, Number(s.file.meta.rowCount)))
            : undefined;
          const sections = [[[s.file]]];
          for await (const _kv of mergeSections(
            ctx.table,
            merge,
            sections,
            true,
            onRead(false),
            viaLookup ? lookup : undefined,
            changelog ? onMerged : undefined,
          ))
            await drain(w);
          await drain(w);
          if (w) result.changelog.push(...(await w.close()));
        }
        result.before.push(s.file);
        result.after.push({ ...s.file.meta, level: s.toLevel });
        continue;
      }
      const files = s.sections.flat(2);
      const bytesPerRow = bytesPerRowOf(files);
      const writer = new KeyValueFileWriter(
        bucketWriteTarget(ctx, {
          level: ctx.outputLevel,
          fileSource: FILE_SOURCE_COMPACT,
          names: ctx.names,
          bytesPerRow,
        }),
      );
      writers.push(writer);
      // lookup changelog only from merges with level-0 files (rewriteLookupChangelog); full: every merge
      const changelog = onMerged && (!lc || hasLevel0(s.sections)) ? onMerged : undefined;
      const clw = changelog ? changelogWriter(bytesPerRow) : undefined;
      for await (const kv of mergeSections(
        ctx.table,
        merge,
        s.sections,
        ctx.dropDelete,
        onRead(true),
        lookup,
        changelog,
      )) {
        await drain(clw);
        await writer.write(kv);
      }
      await drain(clw);
      if (clw) result.changelog.push(...(await clw.close()));
      const out = await writer.close();
      for (const f of files) lookup?.dvs?.remove(f.meta.fileName);
      result.before.push(...files);
      result.after.push(...out.map((w) => w.meta));
      result.written.push(...out);
    }
    if (lookup?.dvs?.isModified && dv) {
      result.indexFile = await writeBucketDvIndex(
        ctx.table,
        ctx.storage,
        dv.names,
        dv.partition,
        ctx.bucket,
        lookup.dvs,
      );
    }
    return result;
  } catch (e) {
    await Promise.all(writers.map((w) => w.abort()));
    throw e;
  }
}
