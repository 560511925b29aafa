/**
 * Compaction of deletion-vector tables (`deletion-vectors.enabled`), as Java's lookup rewriter does it
 * (`LookupMergeTreeCompactRewriter` + `LookupChangelogMergeFunctionWrapper` + `BucketedDvMaintainer`):
 *
 * - A key whose records in the unit all come from level 0 is looked up in the bucket's levels above the
 *   output level (`LookupLevels.lookup(key, outputLevel + 1)`: the lowest level holding the key wins,
 *   rows already deleted by a DV are invisible). A hit is merged with the new records and its row
 *   position is added to the DV of its file — the old row is superseded by what the compaction writes.
 * - Files the compaction rewrites lose their DV; upgraded files keep theirs (same file name).
 * - The bucket's DVs are then written into one new index file (`writeSingleFile`), which replaces the
 *   bucket's old DV index entries in the commit's index manifest (`IndexManifestFileHandler`'s bucketed
 *   combiner); an empty index file is written when no DV is left, as Java does.
 *
 * Memory: the lookup holds one decoded file per level (keys arrive in ascending order).
 */
import { randomUUID } from 'node:crypto';
import { FloeError } from '../../util/errors.js';
import { readDeletionVector } from './deletion-vector.js';
import { buildDvIndexFile } from './dv-write.js';
import { joinPath, type PaimonWriteIO } from './io.js';
import type { IndexManifestEntry } from './manifest.js';
import type { KeyValue } from './merge-engines.js';
import { readKeyValues } from './scan.js';
import { decodeKeys, trimmedPrimaryKeyFields, type PaimonFile, type PaimonTable } from './table.js';
import { rowComparator } from './values.js';
import { bucketKey, DELETION_VECTORS_INDEX } from './keys.js';

const bool = (o: Record<string, string>, k: string) => (o[k] ?? 'false').trim().toLowerCase() === 'true';
export const deletionVectorsEnabled = (o: Record<string, string>) => bool(o, 'deletion-vectors.enabled');

interface Positioned {
  kv: KeyValue;
  position: number;
}

interface LoadedFile {
  file: PaimonFile;
  rows: Positioned[];
}

/** The DVs of one bucket while it is compacted (`BucketedDvMaintainer`). */
export class BucketDeletionVectors {
  private modified = false;
  private constructor(private readonly dvs: Map<string, Set<number>>) {}

  /** Restores the bucket's DVs from the table's index entries (every range of its DV index files). */
  static async restore(table: PaimonTable, partition: Uint8Array, bucket: number): Promise<BucketDeletionVectors> {
    const dvs = new Map<string, Set<number>>();
    const key = bucketKey(partition, bucket);
    for (const e of table.indexEntries) {
      if (e.indexType !== DELETION_VECTORS_INDEX || bucketKey(e.partition, e.bucket) !== key) continue;
      const path = e.externalPath ?? joinPath(table.location, 'index', e.fileName);
      const bytes = await table.io.read(path);
      if (bytes[0] !== 1)
        throw new FloeError('Corrupt', `Paimon DV index file ${path}: version byte ${bytes[0]}, expected 1`, {
          context: { file: path },
        });
      for (const r of e.dvRanges ?? [])
        dvs.set(r.dataFileName, new Set(readDeletionVector(bytes, r.offset, r.length, path)));
    }
    return new BucketDeletionVectors(dvs);
  }

  deleted(fileName: string): ReadonlySet<number> | undefined {
    return this.dvs.get(fileName);
  }

  /** `notifyNewDeletion`: marks a row of a data file deleted. */
  markDeleted(fileName: string, position: number): void {
    let s = this.dvs.get(fileName);
    if (!s) this.dvs.set(fileName, (s = new Set()));
    if (!s.has(position)) {
      s.add(position);
      this.modified = true;
    }
  }

  /** `removeDeletionVectorOf`: a rewritten file's DV goes away with it. */
  remove(fileName: string): void {
    if (this.dvs.delete(fileName)) this.modified = true;
  }

  get isModified(): boolean {
    return this.modified;
  }

  /** Deleted rows per data file, files in name order (Java's order is a hash map's; readers go by the ranges). */
  entries(): { dataFile: string; positions: number[] }[] {
    return [...this.dvs.entries()]
      .filter(([, s]) => s.size > 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([dataFile, s]) => ({ dataFile, positions: [...s].sort((x, y) => x - y) }));
  }
}

/**
 * `LookupLevels` over the bucket's files above the output level: the key's newest visible record (the
 * lowest level that has it) with its file and row position.
 */
export class LookupLevels {
  private readonly levels: { level: number; files: { f: PaimonFile; min: unknown[]; max: unknown[] }[] }[];
  private readonly cmp: (a: readonly unknown[], b: readonly unknown[]) => number;
  private readonly loaded = new Map<number, LoadedFile>();

  constructor(
    private readonly table: PaimonTable,
    files: readonly PaimonFile[],
    private readonly dvs: BucketDeletionVectors | undefined,
    private readonly onFile: (f: PaimonFile, rows: number) => void = () => undefined,
  ) {
    const keyTypes = trimmedPrimaryKeyFields(table.schema).map((f) => f.type);
    this.cmp = rowComparator(keyTypes);
    const byLevel = new Map<number, { f: PaimonFile; min: unknown[]; max: unknown[] }[]>();
    for (const f of files) {
      const k = decodeKeys(table, f.meta);
      if (!k)
        throw new FloeError(
          'Corrupt',
          `Paimon data file ${f.path}: its min/max key does not match the table's key columns`,
          {
            context: { file: f.path },
          },
        );
      (byLevel.get(f.meta.level) ?? byLevel.set(f.meta.level, []).get(f.meta.level)!).push({ f, ...k });
    }
    this.levels = [...byLevel.entries()]
      .sort(([a], [b]) => a - b)
      .map(([level, fs]) => ({ level, files: fs.sort((a, b) => this.cmp(a.min, b.min)) }));
  }

  private async load(level: number, f: PaimonFile): Promise<LoadedFile> {
    const cached = this.loaded.get(level);
    if (cached && cached.file === f) return cached;
    const keyFields = trimmedPrimaryKeyFields(this.table.schema);
    // all rows, so that the index is the row position; the file's DV (and this compaction's) hides rows
    const kvs = await readKeyValues(this.table, f, this.table.schema.fields, keyFields, undefined, true);
    this.onFile(f, kvs.length);
    const rows: Positioned[] = kvs.map((kv, position) => ({ kv, position }));
    const out = { file: f, rows };
    this.loaded.set(level, out);
    return out;
  }

  async lookup(key: readonly unknown[]): Promise<{ file: PaimonFile; position: number; kv: KeyValue } | undefined> {
    for (const { level, files } of this.levels) {
      // the file whose key range holds the key (a level's files do not overlap)
      let lo = 0;
      let hi = files.length - 1;
      let hit: (typeof files)[number] | undefined;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const c = files[mid]!;
        if (this.cmp(key, c.min) < 0) hi = mid - 1;
        else if (this.cmp(key, c.max) > 0) lo = mid + 1;
        else {
          hit = c;
          break;
        }
      }
      if (!hit) continue;
      const { rows } = await this.load(level, hit.f);
      const deleted = this.dvs?.deleted(hit.f.meta.fileName);
      let a = 0;
      let b = rows.length - 1;
      while (a <= b) {
        const mid = (a + b) >> 1;
        const c = this.cmp(rows[mid]!.kv.key, key);
        if (c < 0) a = mid + 1;
        else if (c > 0) b = mid - 1;
        else {
          // a file holds a key once; scan neighbours anyway for a visible row
          let i = mid;
          while (i > 0 && this.cmp(rows[i - 1]!.kv.key, key) === 0) i--;
          for (; i < rows.length && this.cmp(rows[i]!.kv.key, key) === 0; i++) {
            if (!deleted?.has(rows[i]!.position)) return { file: hit.f, position: rows[i]!.position, kv: rows[i]!.kv };
          }
          break;
        }
      }
    }
    return undefined;
  }
}

export interface WrittenIndexFile {
  path: string;
  entry: Omit<IndexManifestEntry, 'manifest'>;
}

/** Names like Java's index path factory: `index-<uuid>-<n>`, one uuid per writer. */
export class IndexFileNamer {
  private readonly uuid = randomUUID();
  private n = 0;
  next(): string {
    return `index-${this.uuid}-${this.n++}`;
  }
}

/** Writes the bucket's DVs into one new index file (empty when none is left), as `writeSingleFile`. */
export async function writeBucketDvIndex(
  table: PaimonTable,
  storage: PaimonWriteIO,
  names: IndexFileNamer,
  partition: Uint8Array,
  bucket: number,
  dvs: BucketDeletionVectors,
): Promise<WrittenIndexFile> {
  const { bytes, ranges } = buildDvIndexFile(dvs.entries());
  const name = names.next();
  const path = joinPath(table.location, 'index', name);
  await storage.createNew(path, bytes);
  return {
    path,
    entry: {
      kind: 0,
      partition,
      bucket,
      indexType: DELETION_VECTORS_INDEX,
      fileName: name,
      fileSize: BigInt(bytes.length),
      rowCount: BigInt(ranges.length),
      dvRanges: ranges,
    },
  };
}

/** What floe's DV compaction does not do is refused before anything is written. */
export function assertDeletionVectorsCompactable(table: PaimonTable): void {
  const o = table.schema.options;
  const loc = table.location;
  const refuse = (why: string, option: string): never => {
    throw new FloeError('Unsupported', `cannot compact Paimon table ${loc}: ${why}`, {
      context: { table: loc, option, value: o[option] },
    });
  };
  if (bool(o, 'deletion-vectors.bitmap64'))
    refuse(
      'deletion-vectors.bitmap64=true: floe writes the 32-bit deletion-vector layout only',
      'deletion-vectors.bitmap64',
    );
  if (bool(o, 'index-file-in-data-file-dir'))
    refuse(
      'index-file-in-data-file-dir=true: floe writes index files under index/ only',
      'index-file-in-data-file-dir',
    );
  if (o['file.format.per.level'])
    refuse(
      'file.format.per.level is set with deletion vectors: floe writes every level in file.format',
      'file.format.per.level',
    );
  if (table.indexEntries.some((e) => e.indexType === DELETION_VECTORS_INDEX && e.externalPath))
    refuse('deletion-vector index files in external paths are not supported', 'deletion-vectors.enabled');
}
