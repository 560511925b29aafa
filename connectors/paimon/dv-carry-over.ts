/**
 * Carrying deletion vectors over an append-table rewrite: a DELETE on an append table with deletion vectors
 * commits only DV index entries, so one landing while floe rewrites the same files would otherwise be lost
 * (the rows it deleted were copied into floe's outputs). floe wrote the outputs by concatenating the inputs'
 * surviving rows in order (compact-append.ts), so each input position has one known output position
 * (AppendRowMap); the rows the other writer deleted become DV positions of the outputs, committed in the
 * same attempt (commit-compact.ts) instead of abandoning the compaction.
 *
 * Primary-key tables are not carried over: their merge combines rows, and on them only a compactor writes
 * DVs (Paimon allows one per bucket); a DV race there still abandons the commit (and compactPaimon re-plans).
 *
 * `-o floe.rebase-concurrent-deletes=false` (the Iceberg option, same meaning) turns this off.
 */
import { FloeError } from '../../util/errors.js';
import { REBASE_OPTION } from '../iceberg/rebase-deletes.js';
import { readDeletionVector } from './deletion-vector.js';
import { buildDvIndexFile } from './dv-write.js';
import { joinPath, type PaimonIO, type PaimonWriteIO } from './io.js';
import { FILE_KIND_ADD, FILE_KIND_DELETE, type IndexManifestEntry } from './manifest.js';
import type { PaimonTable } from './table.js';
import type { NewIndexEntry } from './write-index-manifest.js';
import type { NewManifestEntry } from './write-manifest.js';
import { bucketKey, DELETION_VECTORS_INDEX } from './keys.js';

/** Whether the run may carry concurrent DVs over (default yes; the option turns it off). */
export function carryOverEnabled(options: Readonly<Record<string, string>>): boolean {
  return (options[REBASE_OPTION] ?? 'true').trim().toLowerCase() !== 'false';
}

/**
 * Where each surviving row of an append rewrite went. Inputs are recorded in the order they were written,
 * with the positions their plan-time DV deleted (those rows are in no output); the outputs, in order,
 * hold the rest one after the other.
 */
export class AppendRowMap {
  private readonly inputs = new Map<string, { start: number; survivors: number; deleted: number[] }>();
  private readonly outputs: { fileName: string; end: number }[] = [];
  private total = 0;

  addInput(fileName: string, survivors: number, deletedAtPlan: ReadonlySet<number> | undefined): void {
    const deleted = [...(deletedAtPlan ?? [])].sort((a, b) => a - b);
    this.inputs.set(fileName, { start: this.total, survivors, deleted });
    this.total += survivors;
  }

  /** The outputs in write order; throws if they do not hold exactly the inputs' survivors (a bug). */
  setOutputs(outputs: readonly { fileName: string; rowCount: bigint }[]): void {
    let end = 0;
    for (const o of outputs) this.outputs.push({ fileName: o.fileName, end: (end += Number(o.rowCount)) });
    if (end !== this.total)
      throw new FloeError('Internal', `append rewrite wrote ${end} rows for ${this.total} surviving input rows`, {
        context: { rows: end, expected: this.total },
      });
  }

  replaces(fileName: string): boolean {
    return this.inputs.has(fileName);
  }

  /** The output row of input row `position`: undefined when the plan's DV had already deleted it. */
  locate(fileName: string, position: number): { fileName: string; position: number } | undefined {
    const input = this.inputs.get(fileName);
    if (!input) return undefined;
    const { deleted } = input;
    let lo = 0;
    let hi = deleted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (deleted[mid]! < position) lo = mid + 1;
      else hi = mid;
    }
    if (deleted[lo] === position) return undefined;
    const ordinal = position - lo;
    if (ordinal < 0 || ordinal >= input.survivors)
      throw new FloeError(
        'Corrupt',
        `a deletion vector of Paimon data file ${fileName} deletes row ${position}, which the file (${input.survivors + deleted.length} rows) does not have`,
        { context: { file: fileName, position } },
      );
    const global = input.start + ordinal;
    let a = 0;
    let b = this.outputs.length - 1;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (this.outputs[mid]!.end <= global) a = mid + 1;
      else b = mid;
    }
    const out = this.outputs[a]!;
    const first = a === 0 ? 0 : this.outputs[a - 1]!.end;
    return { fileName: out.fileName, position: global - first };
  }
}

/** Deleted positions per data file of the DV entries of one bucket. */
async function readBucketDvs(
  io: PaimonIO,
  location: string,
  entries: readonly Pick<IndexManifestEntry, 'indexType' | 'fileName' | 'externalPath' | 'dvRanges'>[],
): Promise<Map<string, Set<number>>> {
  const out = new Map<string, Set<number>>();
  for (const e of entries) {
    if (e.indexType !== DELETION_VECTORS_INDEX || !e.dvRanges?.length) continue;
    const path = e.externalPath ?? joinPath(location, 'index', e.fileName);
    const bytes = await io.read(path);
    for (const r of e.dvRanges) {
      const s = out.get(r.dataFileName) ?? out.set(r.dataFileName, new Set()).get(r.dataFileName)!;
      for (const p of readDeletionVector(bytes, r.offset, r.length, path)) s.add(p);
    }
  }
  return out;
}

const rangesKey = (entries: readonly IndexManifestEntry[] | readonly NewIndexEntry[]) =>
  entries
    .filter((e) => e.indexType === DELETION_VECTORS_INDEX)
    .flatMap((e) => (e.dvRanges ?? []).map((r) => `${r.dataFileName}@${e.fileName}:${r.offset}+${r.length}`))
    .sort()
    .join(',');

export interface CarryOverInput {
  /** The table as planned (its index entries are the plan's DVs). */
  table: PaimonTable;
  storage: PaimonWriteIO;
  /** The newest snapshot's index entries (merged). */
  latest: readonly IndexManifestEntry[];
  changes: readonly NewManifestEntry[];
  /** The append rewrites' row maps (one per bucket). */
  rows: readonly AppendRowMap[];
  /** The commit's own DV index entries (the rewritten buckets' remaining DVs), if it has any. */
  added: readonly NewIndexEntry[];
  /** Names for the index files written here. */
  nextIndexName: () => string;
}

export interface CarryOverResult {
  /** Buckets whose DV entries are replaced by `entries` (every other index entry of `latest` is kept). */
  buckets: Set<string>;
  /** The new DV index entries of those buckets (their files written, paths in `written`). */
  entries: NewIndexEntry[];
  written: string[];
  /** Deleted rows carried over to the outputs. */
  carried: number;
}

/**
 * For each bucket the commit touches whose DVs changed since the plan: a new DV index file holding the
 * newest DVs of the files it keeps, and the positions the newest DVs of the replaced files added since the
 * plan moved to the outputs. Buckets whose DVs did not change are not in the result.
 */
export async function carryOverDeletionVectors(c: CarryOverInput): Promise<CarryOverResult> {
  const { table } = c;
  const result: CarryOverResult = { buckets: new Set(), entries: [], written: [], carried: 0 };
  const touched = new Map<string, { partition: Uint8Array; bucket: number }>();
  for (const ch of c.changes) touched.set(bucketKey(ch.partition, ch.bucket), ch);
  for (const e of c.added) touched.set(bucketKey(e.partition, e.bucket), e);
  const ofBucket = <T extends { partition: Uint8Array; bucket: number; indexType: string }>(
    es: readonly T[],
    k: string,
  ) => es.filter((e) => e.indexType === DELETION_VECTORS_INDEX && bucketKey(e.partition, e.bucket) === k);
  try {
    for (const [k, { partition, bucket }] of touched) {
      const planEntries = ofBucket(table.indexEntries, k);
      const latestEntries = ofBucket(c.latest, k);
      if (rangesKey(planEntries) === rangesKey(latestEntries)) continue; // nobody changed this bucket's DVs
      const plan = await readBucketDvs(table.io, table.location, planEntries);
      const now = await readBucketDvs(table.io, table.location, latestEntries);
      const ownEntries = ofBucket(c.added, k);
      const own = ownEntries.length ? await readBucketDvs(table.io, table.location, ownEntries) : plan;
      const inBucket = c.changes.filter((ch) => bucketKey(ch.partition, ch.bucket) === k);
      const added = new Set(inBucket.filter((ch) => ch.kind === FILE_KIND_ADD).map((ch) => ch.file.fileName));
      const replaced = new Set(
        inBucket
          .filter((ch) => ch.kind === FILE_KIND_DELETE && !added.has(ch.file.fileName))
          .map((ch) => ch.file.fileName),
      );
      const next = new Map<string, Set<number>>();
      // kept files: the newest DVs, plus whatever this commit itself deleted in them
      for (const f of new Set([...now.keys(), ...own.keys()])) {
        if (replaced.has(f)) continue;
        const s = new Set(now.get(f) ?? []);
        const was = plan.get(f);
        for (const p of own.get(f) ?? []) if (!was?.has(p)) s.add(p);
        if (s.size) next.set(f, s);
      }
      // replaced files: rows deleted since the plan are rows of the outputs now
      for (const f of replaced) {
        const was = plan.get(f);
        const map = c.rows.find((m) => m.replaces(f));
        for (const p of now.get(f) ?? []) {
          if (was?.has(p)) continue;
          if (!map)
            throw new FloeError(
              'CommitConflict',
              `Paimon table ${table.location}: another writer deleted rows of ${f} meanwhile, and this compaction cannot say where they went. Compaction abandoned; re-run floe compact.`,
              { context: { table: table.location, file: f, replannable: true }, retryable: false },
            );
          const to = map.locate(f, p);
          if (!to) continue;
          const s = next.get(to.fileName) ?? next.set(to.fileName, new Set()).get(to.fileName)!;
          if (!s.has(to.position)) result.carried++;
          s.add(to.position);
        }
      }
      const dvs = [...next.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([dataFile, s]) => ({ dataFile, positions: [...s].sort((x, y) => x - y) }));
      result.buckets.add(k);
      if (!dvs.length) continue; // no DV left in the bucket: its entries just go
      const { bytes, ranges } = buildDvIndexFile(dvs);
      const name = c.nextIndexName();
      const path = joinPath(table.location, 'index', name);
      await c.storage.createNew(path, bytes);
      result.written.push(path);
      result.entries.push({
        kind: 0,
        partition,
        bucket,
        indexType: DELETION_VECTORS_INDEX,
        fileName: name,
        fileSize: BigInt(bytes.length),
        rowCount: BigInt(ranges.length),
        dvRanges: ranges,
      });
    }
  } catch (e) {
    await Promise.all(result.written.map((p) => c.storage.remove(p).catch(() => undefined)));
    throw e;
  }
  return result;
}
