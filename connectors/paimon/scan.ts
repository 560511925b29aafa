/**
 * Batch read of a Paimon table at a snapshot, as Java's `MergeFileSplitRead` / `RawFileSplitRead` produce
 * it. Rows are projected onto the current schema by field id (new columns read as null, dropped columns
 * vanish, renames follow the id).
 *
 * Primary-key tables, per partition and bucket: the sorted runs (each L0 file alone, one run per level)
 * are merged by key, then user sequence (`sequence.field`), then `_SEQUENCE_NUMBER`, then retract before
 * add; each key's records go through the merge engine, and retractions are dropped. Deletion vectors
 * remove rows before merging. With deletion vectors (not `deletion-vectors.merge-on-read`) and for the
 * first-row engine, level-0 files are invisible to batch reads, as in Paimon (`batchScanSkipLevel0`).
 * Memory: one bucket at a time, and within a run only the file under the merge cursor is held.
 */
import { FloeError } from '../../util/errors.js';
import type { TableModel } from '../../model/table.js';
import { readDataFile } from './data-file.js';
import { readDeletionVector } from './deletion-vector.js';
import type { PaimonIO } from './io.js';
import { createMergeFunction, isRetract, sequenceFields, type KeyValue, type MergeFunction } from './merge-engines.js';
import type { PaimonSchema } from './metadata.js';
import { POSTPONE_BUCKET } from './paths.js';
import {
  decodeKeys,
  fieldsByName,
  groupByBucket,
  openPaimonTable,
  sortedRuns,
  trimmedPrimaryKeyFields,
  type OpenOptions,
  type PaimonFile,
  type PaimonTable,
} from './table.js';
import type { FileIO } from '../storage/file-io.js';
import type { PaimonField, PaimonType } from './types.js';
import { comparatorFor, rowComparator } from './values.js';

/** Field ids of the system columns in PK data files (`SpecialFields`). */
export const KEY_FIELD_ID_START = 1073741823;
export const SEQUENCE_NUMBER_FIELD_ID = 2147483646;
export const VALUE_KIND_FIELD_ID = 2147483645;

export interface ScanOptions {
  snapshotId?: bigint | number;
  io?: PaimonIO;
  fileIO?: FileIO;
}

export type PaimonRow = Record<string, unknown>;

/** Casts a value read with an older schema's type to the current type (widening only). */
function castValue(v: unknown, to: PaimonType): unknown {
  if (v === null || v === undefined) return null;
  switch (to.root) {
    case 'BIGINT':
      return typeof v === 'number' ? BigInt(v) : v;
    case 'FLOAT':
    case 'DOUBLE':
      return typeof v === 'bigint' ? Number(v) : v;
    case 'CHAR':
    case 'VARCHAR':
      return typeof v === 'string' ? v : typeof v === 'object' ? v : String(v);
    default:
      return v;
  }
}

export class DeletionVectors {
  private cache = new Map<string, Uint8Array>();
  constructor(private io: PaimonIO) {}
  async deleted(f: PaimonFile): Promise<Set<number> | undefined> {
    if (!f.dv) return undefined;
    let bytes = this.cache.get(f.dv.indexFile);
    if (!bytes) {
      bytes = await this.io.read(f.dv.indexFile);
      this.cache.set(f.dv.indexFile, bytes);
    }
    return new Set(readDeletionVector(bytes, f.dv.offset, f.dv.length, f.dv.indexFile));
  }
}

/** Name → field id through the schema the file was written with (for files without Parquet field ids). */
function columnIdResolver(table: PaimonTable, f: PaimonFile): (name: string) => number | undefined {
  const schema = table.schemas.get(f.meta.schemaId) ?? table.schema;
  const byName = fieldsByName(schema);
  return (name) => {
    if (name === '_SEQUENCE_NUMBER') return SEQUENCE_NUMBER_FIELD_ID;
    if (name === '_VALUE_KIND') return VALUE_KIND_FIELD_ID;
    if (name.startsWith('_KEY_')) {
      const k = byName.get(name.slice('_KEY_'.length));
      return k ? KEY_FIELD_ID_START + k.id : undefined;
    }
    return byName.get(name)?.id;
  };
}

/**
 * Reads one data file into KeyValues projected on the current schema (by field id, so files of older schemas
 * come out in the current one). Rows its deletion vector removes are skipped when `dvs` is given.
 */
export async function readKeyValues(
  table: PaimonTable,
  f: PaimonFile,
  fields: readonly PaimonField[],
  keyFields: readonly PaimonField[],
  dvs: DeletionVectors | undefined,
  pk: boolean,
): Promise<KeyValue[]> {
  const want = new Set<number>([...fields.map((x) => x.id), SEQUENCE_NUMBER_FIELD_ID, VALUE_KIND_FIELD_ID]);
  for (const k of keyFields) want.add(KEY_FIELD_ID_START + k.id);
  const cols = await readDataFile(table.io, f.path, want, columnIdResolver(table, f));
  const n = cols.numRows;
  if (pk && (!cols.byId.has(SEQUENCE_NUMBER_FIELD_ID) || !cols.byId.has(VALUE_KIND_FIELD_ID))) {
    throw new FloeError(
      'Corrupt',
      `Paimon data file ${f.path} of a primary-key table lacks _SEQUENCE_NUMBER/_VALUE_KIND`,
      {
        context: { file: f.path },
      },
    );
  }
  const deleted = dvs ? await dvs.deleted(f) : undefined;
  const valueCols = fields.map((x) => cols.byId.get(x.id));
  const keyCols = keyFields.map((k) => cols.byId.get(KEY_FIELD_ID_START + k.id) ?? cols.byId.get(k.id));
  const seqCol = cols.byId.get(SEQUENCE_NUMBER_FIELD_ID);
  const kindCol = cols.byId.get(VALUE_KIND_FIELD_ID);
  const out: KeyValue[] = [];
  for (let i = 0; i < n; i++) {
    if (deleted?.has(i)) continue;
    out.push({
      key: keyCols.map((c, j) => castValue(c ? c[i] : null, keyFields[j]!.type)),
      sequenceNumber: seqCol ? BigInt(seqCol[i] as bigint) : 0n,
      kind: kindCol ? Number(kindCol[i]) : 0,
      value: valueCols.map((c, j) => castValue(c ? c[i] : null, fields[j]!.type)),
      level: f.meta.level,
    });
  }
  return out;
}

/** Iterates a sorted run's records in key order, holding one file at a time. */
export class RunCursor {
  private fileIndex = 0;
  private buf: KeyValue[] = [];
  private pos = 0;
  constructor(
    private readonly files: readonly PaimonFile[],
    private readonly load: (f: PaimonFile) => Promise<KeyValue[]>,
    private readonly onFile: (f: PaimonFile, rows: number) => void = () => undefined,
  ) {}
  async head(): Promise<KeyValue | undefined> {
    while (this.pos >= this.buf.length) {
      if (this.fileIndex >= this.files.length) return undefined;
      const f = this.files[this.fileIndex++]!;
      this.buf = await this.load(f);
      this.onFile(f, this.buf.length);
      this.pos = 0;
    }
    return this.buf[this.pos];
  }
  advance(): void {
    this.pos++;
  }
}

/** Merge order within one key: user sequence, then sequence number, then retract before add. */
export function recordOrder(seqIdx: number[], seqTypes: PaimonType[], descending: boolean) {
  const cmps = seqTypes.map(comparatorFor);
  return (a: KeyValue, b: KeyValue): number => {
    for (let i = 0; i < seqIdx.length; i++) {
      const c = cmps[i]!(a.value[seqIdx[i]!], b.value[seqIdx[i]!]);
      if (c !== 0) return descending ? -c : c;
    }
    if (a.sequenceNumber !== b.sequenceNumber) return a.sequenceNumber < b.sequenceNumber ? -1 : 1;
    return (isRetract(a.kind) ? 0 : 1) - (isRetract(b.kind) ? 0 : 1);
  };
}

/** Sort-merges runs (newest first as given, order irrelevant for correctness) and applies `mf` per key. */
export async function* mergeRuns(
  cursors: { head(): Promise<KeyValue | undefined>; advance(): void }[],
  keyTypes: readonly PaimonType[],
  mf: MergeFunction,
  order: (a: KeyValue, b: KeyValue) => number = recordOrder([], [], false),
  /** A batch read drops retractions; a compaction that may not drop deletes keeps them. */
  keepRetractions = false,
  /** Lookup compaction (compact-dv.ts): may add a looked-up older record to, or drop records from, a key's group. */
  resolveGroup?: (group: KeyValue[]) => Promise<KeyValue[]>,
  /** Changelog producers (compact-changelog.ts): sees each key's records (in merge order) and the merged result. */
  onMerged?: (records: readonly KeyValue[], merged: KeyValue | null) => void,
): AsyncGenerator<KeyValue> {
  const keyCmp = rowComparator(keyTypes);
  for (;;) {
    let minKey: unknown[] | undefined;
    const heads: (KeyValue | undefined)[] = [];
    for (const c of cursors) {
      const h = await c.head();
      heads.push(h);
      if (h && (!minKey || keyCmp(h.key, minKey) < 0)) minKey = h.key;
    }
    if (!minKey) return;
    const group: KeyValue[] = [];
    for (let i = 0; i < cursors.length; i++) {
      // a run holds at most one record per key, but be tolerant of several
      for (let h = heads[i]; h && keyCmp(h.key, minKey) === 0; h = await cursors[i]!.head()) {
        group.push(h);
        cursors[i]!.advance();
      }
    }
    const records = resolveGroup ? await resolveGroup(group) : group;
    records.sort(order);
    const merged = mf.merge(records);
    onMerged?.(records, merged);
    if (merged && (keepRetractions || !isRetract(merged.kind))) yield merged;
  }
}

function skipLevel0(options: Record<string, string>): boolean {
  const t = (k: string) => (options[k] ?? 'false').trim().toLowerCase() === 'true';
  if (t('deletion-vectors.enabled')) return !t('deletion-vectors.merge-on-read');
  return (options['merge-engine'] ?? 'deduplicate').trim().toLowerCase() === 'first-row';
}

function toRow(fields: readonly PaimonField[], values: readonly unknown[]): PaimonRow {
  const row: PaimonRow = {};
  fields.forEach((f, i) => (row[f.name] = values[i] ?? null));
  return row;
}

function checkSequenceFields(
  schema: PaimonSchema,
  table: string,
): { idx: number[]; types: PaimonType[]; descending: boolean } {
  const names = sequenceFields(schema.options);
  const byName = fieldsByName(schema);
  const idx: number[] = [];
  const types: PaimonType[] = [];
  for (const n of names) {
    const f = byName.get(n);
    if (!f)
      throw new FloeError('Corrupt', `Paimon table ${table}: sequence.field '${n}' is not a column`, {
        context: { table },
      });
    idx.push(schema.fields.indexOf(f));
    types.push(f.type);
  }
  const descending = (schema.options['sequence.field.sort-order'] ?? 'ascending').trim().toLowerCase() === 'descending';
  return { idx, types, descending };
}

async function* scanOpened(table: PaimonTable): AsyncGenerator<PaimonRow> {
  const schema = table.schema;
  const fields = schema.fields;
  const pk = schema.primaryKeys.length > 0;
  const dvs = new DeletionVectors(table.io);
  const buckets = groupByBucket(table.files.filter((f) => f.bucket !== POSTPONE_BUCKET));
  if (!pk) {
    for (const g of buckets) {
      const files = [...g.files].sort((a, b) =>
        a.meta.minSequenceNumber !== b.meta.minSequenceNumber
          ? a.meta.minSequenceNumber < b.meta.minSequenceNumber
            ? -1
            : 1
          : (a.meta.creationTime ?? 0) - (b.meta.creationTime ?? 0) || (a.meta.fileName < b.meta.fileName ? -1 : 1),
      );
      for (const f of files) {
        for (const kv of await readKeyValues(table, f, fields, [], dvs, false)) {
          // Append files may carry no row kinds; when they do, only inserts are rows.
          if (!isRetract(kv.kind)) yield toRow(fields, kv.value);
        }
      }
    }
    return;
  }
  const keyFields = trimmedPrimaryKeyFields(schema);
  const keyTypes = keyFields.map((f) => f.type);
  const mf = createMergeFunction(fields, schema.primaryKeys, schema.options, table.location);
  const seq = checkSequenceFields(schema, table.location);
  const order = recordOrder(seq.idx, seq.types, seq.descending);
  const skip0 = skipLevel0(schema.options);
  for (const g of buckets) {
    const files = skip0 ? g.files.filter((f) => f.meta.level > 0) : g.files;
    const runs = sortedRuns(files, (f) => decodeKeys(table, f.meta)?.min, keyTypes);
    const cursors = runs.map(
      (r) => new RunCursor(r.files, (f) => readKeyValues(table, f, fields, keyFields, dvs, true)),
    );
    for await (const kv of mergeRuns(cursors, keyTypes, mf, order)) yield toRow(fields, kv.value);
  }
}

/**
 * Rows of a Paimon table at a snapshot (default: latest), as plain objects keyed by current column name.
 * `table` is a location, a model from `loadPaimonTable`, or an opened table.
 */
export async function* scanPaimon(
  table: string | TableModel | PaimonTable,
  options: ScanOptions = {},
): AsyncGenerator<PaimonRow> {
  let opened: PaimonTable;
  if (typeof table === 'string' || 'format' in table) {
    const location = typeof table === 'string' ? table : table.location;
    const snapshotId = options.snapshotId ?? (typeof table === 'string' ? undefined : table.currentSnapshotId);
    const o: OpenOptions = {};
    if (options.io) o.io = options.io;
    if (options.fileIO) o.fileIO = options.fileIO;
    if (snapshotId !== undefined) o.snapshotId = snapshotId;
    opened = await openPaimonTable(location, o);
  } else {
    opened = table;
  }
  yield* scanOpened(opened);
}
