/**
 * Which delete files apply to which data file (spec §Scan Planning), and the deleted rows they describe.
 *
 *  - deletion vector: referenced_data_file == data path, data seq(data) ≤ seq(DV);
 *  - position delete file: data seq(data) ≤ seq(delete), same spec + partition (or a matching
 *    referenced_data_file), and only when the data file has no DV;
 *  - equality delete file: data seq(data) < seq(delete) (strict), same spec + partition, or a delete
 *    whose spec is unpartitioned (a global delete).
 * Paths are compared after the location remap, so `hdfs://nn/x` and `/x` match when both map to one place.
 */
import { withRealLocation } from '../storage/located-error.js';
import { FloeError } from '../../util/errors.js';
import type {
  DataFile,
  DeleteFile,
  DeletionVectorFile,
  EqualityDeleteFile,
  Field,
  PartitionSpec,
  PositionDeleteFile,
} from '../../model/index.js';
import { partitionKey } from '../../model/index.js';
import type { IcebergIO } from './io.js';
import { openParquet, readColumnsById } from './parquet-reader.js';
import { forEachPositionRun } from './position-delete-rows.js';
import { assertBlobListed, decodeDeletionVector, readPuffinFooterRanged, type PuffinFooter } from './puffin.js';
import { isVoidTransform } from './schema.js';

export interface ApplicableDeletes {
  dv?: DeletionVectorFile;
  positional: PositionDeleteFile[];
  equality: EqualityDeleteFile[];
}

const FILE_PATH_ID = 2147483546;
const POS_ID = 2147483545;

export function isUnpartitioned(spec: PartitionSpec | undefined): boolean {
  return !spec || spec.fields.every((f) => isVoidTransform(f.transform));
}

export class DeleteIndex {
  private readonly dvs = new Map<string, DeletionVectorFile[]>();
  private readonly posByPartition = new Map<string, PositionDeleteFile[]>();
  private readonly eqByPartition = new Map<string, EqualityDeleteFile[]>();
  private readonly globalEq: EqualityDeleteFile[] = [];

  constructor(
    deletes: readonly DeleteFile[],
    private readonly specs: readonly PartitionSpec[],
    private readonly resolve: (location: string) => string,
  ) {
    for (const d of deletes) {
      if (d.content === 'deletion-vector') {
        push(this.dvs, this.resolve(d.referencedDataFile), d);
      } else if (d.content === 'position-deletes') {
        push(this.posByPartition, partitionKey(d.specId, d.partition), d);
      } else {
        const spec = this.specs.find((s) => s.specId === d.specId);
        if (isUnpartitioned(spec)) this.globalEq.push(d);
        else push(this.eqByPartition, partitionKey(d.specId, d.partition), d);
      }
    }
  }

  get isEmpty(): boolean {
    return (
      this.dvs.size === 0 &&
      this.posByPartition.size === 0 &&
      this.eqByPartition.size === 0 &&
      this.globalEq.length === 0
    );
  }

  forDataFile(df: DataFile): ApplicableDeletes {
    const seq = df.dataSequenceNumber;
    const path = this.resolve(df.path);
    const dvs = (this.dvs.get(path) ?? []).filter((d) => seq <= d.dataSequenceNumber);
    if (dvs.length > 1) {
      throw new FloeError(
        'Corrupt',
        `data file ${df.path} has ${dvs.length} deletion vectors; a table may hold at most one per data file`,
        {
          context: { file: df.path },
        },
      );
    }
    const key = partitionKey(df.specId, df.partition);
    const positional = dvs.length
      ? []
      : (this.posByPartition.get(key) ?? []).filter(
          (d) =>
            seq <= d.dataSequenceNumber &&
            (d.referencedDataFile === undefined || this.resolve(d.referencedDataFile) === path),
        );
    const equality = [...(this.eqByPartition.get(key) ?? []), ...this.globalEq].filter(
      (d) => seq < d.dataSequenceNumber,
    );
    return { ...(dvs[0] ? { dv: dvs[0] } : {}), positional, equality };
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

/** Loads and caches the content of delete files. */
export class DeleteLoader {
  private readonly positions = new Map<string, Promise<Map<string, number[]>>>();
  private readonly equalities = new Map<string, Promise<Set<string>>>();
  private readonly vectors = new Map<string, Promise<number[]>>();
  private readonly footers = new Map<string, Promise<PuffinFooter>>();

  constructor(
    private readonly io: IcebergIO,
    private readonly fieldsById: Map<number, Field>,
  ) {}

  /** A delete file's Parquet content; a corrupt one is named by its real place too. */
  private async openDelete(path: string): Promise<ReturnType<typeof openParquet>> {
    const bytes = await this.io.read(path);
    try {
      return openParquet(bytes, path);
    } catch (e) {
      throw withRealLocation(this.io, path, e);
    }
  }

  /** Deleted row positions of `df` from every applicable delete. */
  async deletedPositions(df: DataFile, deletes: ApplicableDeletes): Promise<Set<number>> {
    const out = new Set<number>();
    if (deletes.dv) for (const p of await this.vector(deletes.dv)) out.add(p);
    const keys = pathKeys(this.io, df.path);
    for (const d of deletes.positional) {
      const byFile = await this.positionFile(d);
      for (const k of keys) for (const p of byFile.get(k) ?? []) out.add(p);
    }
    return out;
  }

  private vector(d: DeletionVectorFile): Promise<number[]> {
    const key = `${d.path}@${d.contentOffset}`;
    let p = this.vectors.get(key);
    if (!p) {
      p = (async () => {
        if (d.format !== 'puffin') {
          throw new FloeError('Unsupported', `deletion vector ${d.path} is ${d.format}, not Puffin`, {
            context: { file: d.path },
          });
        }
        // the file's magic and footer must be intact and list this blob, not just the bytes at the offset
        assertBlobListed(await this.puffinFooter(d), d.contentOffset, d.contentSizeBytes, d.path);
        const blob = await this.io.readRange(d.path, d.contentOffset, d.contentSizeBytes);
        return decodeDeletionVector(blob, d.path);
      })();
      this.vectors.set(key, p);
    }
    return p;
  }

  private puffinFooter(d: DeletionVectorFile): Promise<PuffinFooter> {
    let p = this.footers.get(d.path);
    if (!p) {
      p = readPuffinFooterRanged((offset, length) => this.io.readRange(d.path, offset, length), d.sizeBytes, d.path);
      this.footers.set(d.path, p);
    }
    return p;
  }

  private positionFile(d: PositionDeleteFile): Promise<Map<string, number[]>> {
    let p = this.positions.get(d.path);
    if (!p) {
      p = (async () => {
        requireParquet(d.path, d.format);
        const bytes = await this.io.read(d.path);
        const fields = [this.fieldsById.get(FILE_PATH_ID)!, this.fieldsById.get(POS_ID)!] as const;
        const out = new Map<string, number[]>();
        const add = (fp: string, positions: readonly number[]) => {
          for (const k of pathKeys(this.io, fp)) {
            let l = out.get(k);
            if (!l) out.set(k, (l = []));
            for (const x of positions) l.push(x);
          }
        };
        try {
          await forEachPositionRun(bytes, d.path, fields, add);
          return out;
        } catch {
          // whatever the columnar read trips over, the row reader below says it its own way (or reads it)
          out.clear();
        }
        let pq: ReturnType<typeof openParquet>;
        try {
          pq = openParquet(bytes, d.path);
        } catch (e) {
          throw withRealLocation(this.io, d.path, e);
        }
        const rows = await readColumnsById(pq, [...fields]);
        for (const [fp, pos] of rows) {
          if (typeof fp !== 'string' || pos === null || pos === undefined) {
            throw new FloeError('Corrupt', `position delete file ${d.path} has a row without file_path/pos`, {
              context: { file: d.path },
            });
          }
          add(fp, [Number(pos)]);
        }
        return out;
      })();
      this.positions.set(d.path, p);
    }
    return p;
  }

  /** The set of deleted keys (see equalityKey) of an equality delete file. */
  equalityKeys(d: EqualityDeleteFile): Promise<Set<string>> {
    let p = this.equalities.get(d.path);
    if (!p) {
      p = (async () => {
        requireParquet(d.path, d.format);
        const fields = d.equalityFieldIds.map((id) => {
          const f = this.fieldsById.get(id);
          if (!f) {
            throw new FloeError(
              'Corrupt',
              `equality delete file ${d.path} uses field id ${id}, which no schema defines`,
              {
                context: { file: d.path },
              },
            );
          }
          return f;
        });
        const pq = await this.openDelete(d.path);
        const rows = await readColumnsById(pq, fields);
        const keys = new Set<string>();
        for (const r of rows) keys.add(equalityKey(r.map((v) => (v === undefined ? null : v))));
        return keys;
      })();
      this.equalities.set(d.path, p);
    }
    return p;
  }
}

/**
 * The keys a content-file path is matched under: its remapped form, and the remapped form of its path
 * without scheme and authority — Impala's copied tables say `hdfs://nn:port/x` inside delete files but
 * `/x` in metadata. (Two different buckets holding the same path inside one table would be conflated;
 * no writer produces that.)
 */
export function pathKeys(io: IcebergIO, location: string): string[] {
  const keys = [io.map(location)];
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*(\/.*)$/.exec(location);
  if (m) {
    const alt = io.map(m[1]!);
    if (alt !== keys[0]) keys.push(alt);
  }
  return keys;
}

export function requireParquet(path: string, format: string): void {
  if (format !== 'parquet') {
    throw new FloeError(
      'Unsupported',
      `cannot read ${path}: ${format.toUpperCase()} content files are not supported yet (Parquet only)`,
      {
        context: { file: path },
      },
    );
  }
}

function keyPart(v: unknown): string {
  if (v === null || v === undefined) return 'N'; // NULL matches NULL in equality deletes
  if (typeof v === 'bigint') return `i${v}`;
  // -0 ≠ 0, as Java's Double.compare sees it (and as the rewrite path keys it)
  if (typeof v === 'number') return Object.is(v, -0) ? 'f-0' : Number.isInteger(v) ? `i${v}` : `f${v}`;
  // length-prefixed: a string may contain the separator, and ('a\0sb','c') must not equal ('a','b\0sc')
  if (typeof v === 'string') return `s${v.length}:${v}`;
  if (typeof v === 'boolean') return v ? 'T' : 'F';
  if (v instanceof Uint8Array) return `b${Buffer.from(v).toString('hex')}`;
  return `j${JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}` : x instanceof Map ? [...x.entries()] : x))}`;
}

/** A value tuple as a string that is equal exactly when the tuples are equal (int and long compare alike). */
export function equalityKey(values: readonly unknown[]): string {
  return values.map(keyPart).join('\u0000');
}
