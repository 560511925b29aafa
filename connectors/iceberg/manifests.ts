/**
 * Manifest lists and manifests (spec §Manifest Lists / §Manifests), read by Iceberg field id — not by Avro
 * field name, which differs between writers (v1 lists say `added_data_files_count` for field 504).
 * Inheritance rules (spec §Sequence Number Inheritance, §First Row ID Inheritance) are applied here, so
 * every entry leaves this module with explicit snapshot id and sequence numbers.
 */
import { availableParallelism, loadavg } from 'node:os';
import pLimit from 'p-limit';
import { openAvroContainer, readAvroContainer } from '../formats/avro.js';
import { FloeError } from '../../util/errors.js';
import { normalizeLocation } from '../storage/location.js';
import type {
  ColumnStats,
  ContentFile,
  ContentFileBase,
  Field,
  FileFormat,
  PartitionSpec,
  PartitionTuple,
  Schema,
} from '../../model/index.js';
import type { IcebergIO } from './io.js';
import type { IcebergMetadata, IcebergSnapshot } from './metadata.js';
import { indexFields, partitionResultType } from './schema.js';
import { fromAvroValue } from './values.js';
import { PackedColumnStats, StatsPacker } from './packed-stats.js';
import { compileEntryDecoder, type EntryCursor } from './manifest-decoder.js';
import { partitionKey } from '../../model/index.js';

export interface ManifestFile {
  path: string;
  length: number;
  specId: number;
  content: 'data' | 'deletes';
  sequenceNumber: bigint;
  minSequenceNumber: bigint;
  addedSnapshotId?: bigint;
  addedFilesCount?: number;
  existingFilesCount?: number;
  deletedFilesCount?: number;
  addedRowsCount?: bigint;
  existingRowsCount?: bigint;
  deletedRowsCount?: bigint;
  partitions?: { containsNull: boolean; containsNan?: boolean; lowerBound?: Uint8Array; upperBound?: Uint8Array }[];
  firstRowId?: bigint;
  /** The manifest list that named this manifest (for messages: a missing manifest may be a corrupt list). */
  listedIn?: string;
}

export type EntryStatus = 'EXISTING' | 'ADDED' | 'DELETED';
const STATUS: EntryStatus[] = ['EXISTING', 'ADDED', 'DELETED'];

export interface ManifestEntry {
  status: EntryStatus;
  snapshotId?: bigint;
  file: ContentFile;
}

type AvroSchemaNode = unknown;

/** The non-null branch of an optional union. */
function unwrap(t: AvroSchemaNode): AvroSchemaNode {
  if (Array.isArray(t)) return t.find((x) => x !== 'null') ?? 'null';
  return t;
}

/** field-id → Avro field name for one record schema, plus the nested record schemas by id. */
class RecordIds {
  readonly names = new Map<number, string>();
  readonly types = new Map<number, AvroSchemaNode>();
  /** names by id for the small ids (entry and data_file fields), read once per field per entry. */
  private readonly small: (string | undefined)[] = [];
  constructor(record: AvroSchemaNode) {
    const r = unwrap(record) as { fields?: { name: string; type: AvroSchemaNode; 'field-id'?: number }[] };
    for (const f of r.fields ?? []) {
      if (f['field-id'] === undefined) continue;
      const id = Number(f['field-id']);
      this.names.set(id, f.name);
      this.types.set(id, unwrap(f.type));
      if (Number.isInteger(id) && id >= 0 && id < 256) this.small[id] = f.name;
    }
  }
  get(rec: Record<string, unknown>, id: number): unknown {
    const name = id < 256 ? this.small[id] : this.names.get(id);
    return name === undefined ? undefined : rec[name];
  }
  has(id: number): boolean {
    return this.names.has(id);
  }
}

const big = (v: unknown): bigint | undefined =>
  v === null || v === undefined ? undefined : BigInt(v as bigint | number);
const num = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : Number(v));

/**
 * A record count, file count or byte size: present, non-negative, and exact as a JS number (the table model
 * counts in numbers; a value beyond 2^53 − 1 would be silently rounded, so it is refused instead).
 */
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);
function exactCount(v: unknown, what: string): number {
  if (typeof v !== 'bigint' && typeof v !== 'number') throw new Error(`${what} is missing`);
  const b = BigInt(v);
  if (b < 0n) throw new Error(`${what} is negative (${b})`);
  if (b > MAX_EXACT) throw new Error(`${what} ${b} is beyond 2^53 − 1, which floe cannot count exactly`);
  return Number(b);
}
const optCount = (v: unknown, what: string): number | undefined =>
  v === null || v === undefined ? undefined : exactCount(v, what);

/** A sequence number or row count that stays bigint: non-negative when present. */
function nonNegative(v: unknown, what: string): bigint | undefined {
  const b = big(v);
  if (b !== undefined && b < 0n) throw new Error(`${what} is negative (${b})`);
  return b;
}

function normalizeOr(location: string): string | undefined {
  try {
    return normalizeLocation(location);
  } catch {
    return undefined;
  }
}

function manifestError(
  kind: 'NotFound' | 'Corrupt',
  what: string,
  file: string,
  snapshotId: bigint | undefined,
  cause: unknown,
  io?: Pick<IcebergIO, 'map'>,
  listedIn?: string,
): FloeError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  const snap = `${listedIn === undefined ? '' : ` (listed in ${listedIn})`}${snapshotId === undefined ? '' : ` of snapshot ${snapshotId}`}`;
  const k = cause instanceof FloeError ? cause.kind : kind;
  // relocated tables: name the file floe actually read, the metadata's spelling beside it
  let real = file;
  try {
    real = io ? io.map(file) : file;
  } catch {
    real = file;
  }
  const mapped = real !== file && normalizeOr(file) !== real;
  const shown = mapped ? `${real} (metadata names ${file})` : file;
  return new FloeError(k, `cannot read ${what} ${shown}${snap}: ${detail}`, {
    context: {
      file: mapped ? real : file,
      ...(mapped ? { metadataFile: file } : {}),
      ...(snapshotId !== undefined ? { snapshotId: snapshotId.toString() } : {}),
    },
    cause,
  });
}

/** The manifests of a snapshot. A missing or unreadable manifest list is an error naming it and the snapshot. */
export async function readManifestList(
  io: IcebergIO,
  md: IcebergMetadata,
  snap: IcebergSnapshot,
): Promise<ManifestFile[]> {
  if (!snap.manifestList) {
    // v1 legacy: manifests listed inline in the snapshot; sequence numbers are all 0.
    return (snap.manifests ?? []).map((p) => ({
      path: p,
      length: 0,
      specId: md.defaultSpecId,
      content: 'data',
      sequenceNumber: 0n,
      minSequenceNumber: 0n,
      addedSnapshotId: snap.snapshotId,
    }));
  }
  const file = snap.manifestList;
  let container;
  try {
    container = readAvroContainer(await io.read(file), file);
  } catch (e) {
    throw manifestError('Corrupt', 'manifest list', file, snap.snapshotId, e, io);
  }
  try {
    return decodeManifestList(container.schema, container.records, md, file);
  } catch (e) {
    throw manifestError('Corrupt', 'manifest list', file, snap.snapshotId, e, io);
  }
}

function decodeManifestList(schema: unknown, records: unknown[], md: IcebergMetadata, file: string): ManifestFile[] {
  const ids = new RecordIds(schema);
  if (!ids.has(500)) throw new Error('its schema has no manifest_path (field 500): not a manifest list');
  const v1 = md.formatVersion === 1 || !ids.has(515);
  return records.map((rec) => {
    const r = rec as Record<string, unknown>;
    const content = num(ids.get(r, 517)) ?? 0;
    const path = ids.get(r, 500);
    if (typeof path !== 'string' || path === '') throw new Error('an entry has no manifest_path');
    if (content !== 0 && content !== 1) throw new Error(`manifest ${path} has unknown content ${content}`);
    const mf: ManifestFile = {
      path,
      length: optCount(ids.get(r, 501), `manifest_length of ${path}`) ?? 0,
      specId: num(ids.get(r, 502)) ?? 0,
      content: content === 1 ? 'deletes' : 'data',
      // v1 lists carry no sequence numbers: everything reads as 0.
      sequenceNumber: v1 ? 0n : (nonNegative(ids.get(r, 515), `sequence_number of ${path}`) ?? 0n),
      minSequenceNumber: v1 ? 0n : (nonNegative(ids.get(r, 516), `min_sequence_number of ${path}`) ?? 0n),
      listedIn: file,
    };
    if (!v1 && md.formatVersion >= 2 && mf.sequenceNumber > md.lastSequenceNumber) {
      throw new Error(
        `manifest ${path} has sequence number ${mf.sequenceNumber}, beyond the table's last-sequence-number ${md.lastSequenceNumber}`,
      );
    }
    const sid = big(ids.get(r, 503));
    if (sid !== undefined) mf.addedSnapshotId = sid;
    const set = <K extends keyof ManifestFile>(k: K, v: ManifestFile[K] | undefined): void => {
      if (v !== undefined) mf[k] = v;
    };
    set('addedFilesCount', optCount(ids.get(r, 504), `added_files_count of ${path}`));
    set('existingFilesCount', optCount(ids.get(r, 505), `existing_files_count of ${path}`));
    set('deletedFilesCount', optCount(ids.get(r, 506), `deleted_files_count of ${path}`));
    set('addedRowsCount', nonNegative(ids.get(r, 512), `added_rows_count of ${path}`));
    set('existingRowsCount', nonNegative(ids.get(r, 513), `existing_rows_count of ${path}`));
    set('deletedRowsCount', nonNegative(ids.get(r, 514), `deleted_rows_count of ${path}`));
    set('firstRowId', nonNegative(ids.get(r, 520), `first_row_id of ${path}`));
    const parts = ids.get(r, 507);
    if (Array.isArray(parts)) {
      const pids = new RecordIds((ids.types.get(507) as { items: AvroSchemaNode }).items);
      mf.partitions = parts.map((p) => {
        const o = p as Record<string, unknown>;
        const s: NonNullable<ManifestFile['partitions']>[number] = { containsNull: Boolean(pids.get(o, 509)) };
        const nan = pids.get(o, 518);
        if (nan !== null && nan !== undefined) s.containsNan = Boolean(nan);
        const lo = pids.get(o, 510);
        const hi = pids.get(o, 511);
        if (lo instanceof Uint8Array) s.lowerBound = lo;
        if (hi instanceof Uint8Array) s.upperBound = hi;
        return s;
      });
    }
    return mf;
  });
}

function fileFormat(s: string, file: string): FileFormat {
  const f = s.toLowerCase();
  if (f === 'parquet' || f === 'orc' || f === 'avro' || f === 'puffin') return f;
  throw new FloeError('Unsupported', `manifest ${file}: unknown file format "${s}"`, { context: { file } });
}

/** Field lookup across every schema of the table, newest winning: bounds may name since-dropped columns. */
export function allFieldsById(md: IcebergMetadata): Map<number, Field> {
  const out = new Map<number, Field>();
  const ordered = [...md.schemas].sort((a, b) => a.schemaId - b.schemaId);
  for (const s of ordered) for (const [id, f] of indexFields(s.fields)) out.set(id, f);
  // Metadata columns of position-delete files (spec §Position Delete Files).
  out.set(2147483546, {
    id: 2147483546,
    name: 'file_path',
    required: true,
    type: { kind: 'primitive', name: 'string' },
  });
  out.set(2147483545, { id: 2147483545, name: 'pos', required: true, type: { kind: 'primitive', name: 'long' } });
  return out;
}

export interface ManifestReadContext {
  md: IcebergMetadata;
  fieldsById: Map<number, Field>;
  /** The snapshot whose manifest list named this manifest (for error messages). */
  snapshotId?: bigint;
  /**
   * 'avsc' reads entries through avsc (full records) even where the direct decoder (manifest-decoder.ts)
   * could; tests pin one against the other.
   */
  avroDecoder?: 'direct' | 'avsc';
}

/** Reads one manifest's entries with inheritance applied. */
export async function readManifest(
  io: IcebergIO,
  mf: ManifestFile,
  ctx: ManifestReadContext,
): Promise<ManifestEntry[]> {
  const out: ManifestEntry[] = [];
  await forEachManifestEntry(io, mf, ctx, (e) => out.push(e));
  return out;
}

/**
 * Streams one manifest's entries (inheritance applied) to `each`, decoding record by record where the
 * direct decoder handles the schema (Iceberg's own manifest schemas), through avsc otherwise.
 */
export async function forEachManifestEntry(
  io: IcebergIO,
  mf: ManifestFile,
  ctx: ManifestReadContext,
  each: (e: ManifestEntry) => void,
): Promise<void> {
  decodeManifestBytes(await readManifestBytes(io, mf, ctx), mf, ctx, each, io);
}

/** A manifest's bytes; a missing or unreadable file is the same error as a corrupt one would be, naming it. */
export async function readManifestBytes(
  io: IcebergIO,
  mf: ManifestFile,
  ctx: ManifestReadContext,
): Promise<Uint8Array> {
  try {
    return await io.read(mf.path);
  } catch (e) {
    throw manifestError('Corrupt', 'manifest', mf.path, ctx.snapshotId, e, io, mf.listedIn);
  }
}

/**
 * `forEachManifestEntry` on bytes already read (also what the decoding worker threads run,
 * manifest-worker-main.ts); `names` maps the manifest's location for error messages.
 */
export function decodeManifestBytes(
  data: Uint8Array,
  mf: ManifestFile,
  ctx: ManifestReadContext,
  each: (e: ManifestEntry) => void,
  names: Pick<IcebergIO, 'map'>,
): void {
  try {
    const container = openAvroContainer(data, mf.path, parseEntrySchema);
    const direct = ctx.avroDecoder === 'avsc' ? undefined : compileEntryDecoder(container.schema, container.schemaText);
    const packer = new StatsPacker(ctx.fieldsById);
    if (!direct) {
      const records = readAvroContainer<Record<string, unknown>>(data, mf.path).records;
      const decode = entryDecoder(container.schema, mf, ctx, packer, false);
      for (const r of records) each(decode(r));
    } else {
      const decode = entryDecoder(container.schema, mf, ctx, packer, true);
      const c: EntryCursor = { buf: Buffer.alloc(0), pos: 0, packer };
      for (const { count, bytes } of container.blocks()) {
        c.buf = bytes;
        c.pos = 0;
        for (let i = 0; i < count; i++) {
          const rec = direct(c);
          if (c.pos > bytes.length) container.fail(`block ends inside record ${i + 1} of ${count}`);
          each(decode(rec));
        }
      }
    }
    packer.seal();
  } catch (e) {
    throw manifestError('Corrupt', 'manifest', mf.path, ctx.snapshotId, e, names, mf.listedIn);
  }
}

/**
 * The manifests of a table nearly all share one schema text: parsed once (the readers here only read the
 * schema object, never change it).
 */
let lastSchema: { text: string; schema: unknown } | undefined;
function parseEntrySchema(text: string): never {
  if (lastSchema?.text !== text) lastSchema = { text, schema: JSON.parse(text) };
  return lastSchema.schema as never;
}

/** RecordIds of the entry, data_file and partition records, per parsed schema (see parseEntrySchema). */
const idsBySchema = new WeakMap<object, { entry: RecordIds; file: RecordIds; part: RecordIds }>();
function entryRecordIds(schema: unknown): { entry: RecordIds; file: RecordIds; part: RecordIds } {
  const hit = typeof schema === 'object' && schema !== null ? idsBySchema.get(schema) : undefined;
  if (hit) return hit;
  const entry = new RecordIds(schema);
  const file = new RecordIds(entry.types.get(2));
  const ids = { entry, file, part: new RecordIds(file.types.get(102)) };
  if (typeof schema === 'object' && schema !== null) idsBySchema.set(schema, ids);
  return ids;
}

/** The fields every content file has, in one shape (the worker wire format builds the same). */
export function baseOf(
  path: string,
  format: FileFormat,
  sizeBytes: number,
  recordCount: number,
  specId: number,
  partition: PartitionTuple,
  dataSequenceNumber: bigint,
  fileSequenceNumber: bigint,
  snapshotId: bigint | undefined,
): ContentFileBase {
  return {
    path,
    format,
    sizeBytes,
    recordCount,
    specId,
    partition,
    dataSequenceNumber,
    fileSequenceNumber,
    ...(snapshotId !== undefined ? { snapshotId } : {}),
  };
}

function specFor(md: IcebergMetadata, specId: number, file: string): PartitionSpec {
  const spec = md.specs.find((s) => s.specId === specId);
  if (!spec)
    throw new FloeError('Corrupt', `manifest ${file} uses partition spec ${specId}, which the table metadata lacks`);
  return spec;
}

/**
 * Turns the manifest's records into entries, one at a time. `rawStats`: the direct decoder has already fed
 * the record's stats to `packer` (its record has no stats fields); otherwise they are packed from the record.
 * The steps per record: status and sequence numbers (entrySequenceNumbers), the shared partition tuple
 * (partitionInterner), sizes checked against the table (checkedFileFacts), packed stats (packedStatsOf) and
 * the content file of its kind (contentFileOf).
 */
function entryDecoder(
  schema: unknown,
  mf: ManifestFile,
  ctx: ManifestReadContext,
  packer: StatsPacker,
  rawStats: boolean,
): (rec: Record<string, unknown>) => ManifestEntry {
  const { md, fieldsById } = ctx;
  const spec = specFor(md, mf.specId, mf.path);
  const ids = entryRecordIds(schema);
  const { entry: entryIds, file: fileIds } = ids;
  const v1 = md.formatVersion === 1;
  let nextRowId = mf.firstRowId;
  const partitionOf = partitionInterner(spec, mf, ids, fieldsById);
  const intern = bigintInterner();
  const offsetsOf = splitOffsetsInterner();

  return (rec) => {
    const statusCode = Number(entryIds.get(rec, 0));
    const status = STATUS[statusCode];
    if (!status) throw new Error(`unknown entry status ${statusCode}`);
    const df = entryIds.get(rec, 2) as Record<string, unknown>;
    if (!df) throw new Error('entry without data_file');

    // Snapshot id: null → the manifest's added snapshot.
    const rawSnapshotId = big(entryIds.get(rec, 1)) ?? mf.addedSnapshotId;
    const snapshotId = rawSnapshotId === undefined ? undefined : intern(rawSnapshotId);
    const seq = entrySequenceNumbers(rec, df, status, mf, ids, v1);
    const partition = partitionOf((fileIds.get(df, 102) ?? {}) as Record<string, unknown>);
    const facts = checkedFileFacts(df, fileIds, mf, md, v1, {
      partition,
      dataSeq: intern(seq.dataSeq),
      fileSeq: intern(seq.fileSeq),
      snapshotId,
    });
    const stats = rawStats ? packer.finish() : packedStatsOf(df, fileIds, fieldsById, packer);
    const file = contentFileOf(df, fileIds, mf, facts, stats, offsetsOf);
    if (file.content === 'data' && md.formatVersion >= 3 && mf.content === 'data') {
      let frid = big(fileIds.get(df, 142));
      if (frid === undefined && nextRowId !== undefined) {
        frid = nextRowId;
        nextRowId += BigInt(facts.recordCount);
      }
      if (frid !== undefined) file.firstRowId = frid;
    }
    return snapshotId !== undefined ? { status, snapshotId, file } : { status, file };
  };
}

type EntryIds = ReturnType<typeof entryRecordIds>;

/** What every content file of an entry has, checked (the common fields of baseOf). */
interface EntryFacts {
  path: string;
  format: ContentFile['format'];
  recordCount: number;
  sizeBytes: number;
  partition: PartitionTuple;
  dataSeq: bigint;
  fileSeq: bigint;
  snapshotId: bigint | undefined;
}

/** Equal bigints (snapshot ids, sequence numbers) as one value per manifest, not one per file. */
function bigintInterner(): (v: bigint) => bigint {
  const bigints = new Map<bigint, bigint>();
  return (v) => {
    const hit = bigints.get(v);
    if (hit !== undefined) return hit;
    bigints.set(v, v);
    return v;
  };
}

/** Most files have one row group at offset 4: one frozen array per manifest for each single offset. */
function splitOffsetsInterner(): (raw: unknown[]) => number[] {
  const singleOffsets = new Map<number, number[]>();
  return (raw) => {
    if (raw.length !== 1) return raw.map(Number);
    const o = Number(raw[0]);
    let hit = singleOffsets.get(o);
    if (!hit) singleOffsets.set(o, (hit = Object.freeze([o]) as number[]));
    return hit;
  };
}

/**
 * Files of a manifest share few partitions: one tuple object each, not one per file (one-field specs with a
 * finite number or a string are keyed by the value itself, no key string per file).
 */
function partitionInterner(
  spec: PartitionSpec,
  mf: ManifestFile,
  ids: EntryIds,
  fieldsById: ManifestReadContext['fieldsById'],
): (partRec: Record<string, unknown>) => PartitionTuple {
  const partTypes = spec.fields.map((pf) => partitionResultType(pf, fieldsById.get(pf.sourceId)));
  const partitions = new Map<string, PartitionTuple>();
  const partitionsByNumber = new Map<number, PartitionTuple>();
  const partitionsByString = new Map<string, PartitionTuple>();
  return (partRec) => {
    const decodedPartition: PartitionTuple = spec.fields.map((pf, i) =>
      fromAvroValue(partTypes[i], ids.part.get(partRec, pf.fieldId)),
    );
    const only = decodedPartition.length === 1 ? decodedPartition[0] : undefined;
    const byValue =
      typeof only === 'string'
        ? partitionsByString
        : typeof only === 'number' && isFinite(only)
          ? partitionsByNumber
          : undefined;
    let partition = byValue ? byValue.get(only as never) : partitions.get(partitionKey(mf.specId, decodedPartition));
    if (!partition) {
      partition = decodedPartition;
      if (byValue) byValue.set(only as never, partition);
      else partitions.set(partitionKey(mf.specId, decodedPartition), partition);
    }
    return partition;
  };
}

/**
 * An entry's sequence numbers: null → the manifest's sequence number, but only for ADDED entries (or v1,
 * where everything is 0).
 */
function entrySequenceNumbers(
  rec: Record<string, unknown>,
  df: Record<string, unknown>,
  status: ManifestEntry['status'],
  mf: ManifestFile,
  ids: EntryIds,
  v1: boolean,
): { dataSeq: bigint; fileSeq: bigint } {
  let dataSeq = v1 ? 0n : big(ids.entry.get(rec, 3));
  let fileSeq = v1 ? 0n : big(ids.entry.get(rec, 4));
  if (dataSeq === undefined) {
    if (status === 'ADDED' || mf.sequenceNumber === 0n) dataSeq = mf.sequenceNumber;
    else throw new Error(`${status} entry for ${String(ids.file.get(df, 100))} has no sequence number`);
  }
  if (fileSeq === undefined) fileSeq = status === 'ADDED' || mf.sequenceNumber === 0n ? mf.sequenceNumber : dataSeq;
  return { dataSeq, fileSeq };
}

/**
 * Path, format, counts and sizes of an entry's file, checked (the sequence numbers against the table's last
 * one), completing `facts` in place — one object per entry.
 */
function checkedFileFacts(
  df: Record<string, unknown>,
  fileIds: EntryIds['file'],
  mf: ManifestFile,
  md: IcebergMetadata,
  v1: boolean,
  facts: Pick<EntryFacts, 'partition' | 'dataSeq' | 'fileSeq' | 'snapshotId'>,
): EntryFacts {
  const path = String(fileIds.get(df, 100));
  const format = fileFormat(String(fileIds.get(df, 101)), mf.path);
  if (typeof fileIds.get(df, 100) !== 'string') throw new Error('an entry has no file_path');
  const recordCount = exactCount(fileIds.get(df, 103), `record_count of ${path}`);
  const sizeBytes = exactCount(fileIds.get(df, 104), `file_size_in_bytes of ${path}`);
  const { dataSeq, fileSeq } = facts;
  if (dataSeq < 0n || fileSeq < 0n) throw new Error(`entry for ${path} has a negative sequence number`);
  if (!v1 && (dataSeq > md.lastSequenceNumber || fileSeq > md.lastSequenceNumber)) {
    throw new Error(
      `entry for ${path} has sequence number ${dataSeq > fileSeq ? dataSeq : fileSeq}, beyond the table's last-sequence-number ${md.lastSequenceNumber}`,
    );
  }
  const all = facts as EntryFacts;
  all.path = path;
  all.format = format;
  all.recordCount = recordCount;
  all.sizeBytes = sizeBytes;
  return all;
}

/** Stats stay packed, bounds undecoded until read (packed-stats.ts): ~3 KB less per file. */
function packedStatsOf(
  df: Record<string, unknown>,
  fileIds: EntryIds['file'],
  fieldsById: ManifestReadContext['fieldsById'],
  packer: StatsPacker,
): PackedColumnStats | undefined {
  return PackedColumnStats.fromAvro(
    {
      columnSizes: fileIds.get(df, 108) as never,
      valueCounts: fileIds.get(df, 109) as never,
      nullValueCounts: fileIds.get(df, 110) as never,
      nanValueCounts: fileIds.get(df, 137) as never,
      lowerBounds: fileIds.get(df, 125) as never,
      upperBounds: fileIds.get(df, 128) as never,
    },
    fieldsById,
    undefined,
    packer,
  );
}

/** The content file of an entry by its content code: data, position deletes or a DV, equality deletes. */
function contentFileOf(
  df: Record<string, unknown>,
  fileIds: EntryIds['file'],
  mf: ManifestFile,
  f: EntryFacts,
  packed: PackedColumnStats | undefined,
  offsetsOf: (raw: unknown[]) => number[],
): ContentFile {
  const { path, format, sizeBytes, recordCount, partition, dataSeq, fileSeq, snapshotId } = f;
  const stats: ColumnStats = packed ?? {};
  const hasStats = packed !== undefined;
  const contentCode = num(fileIds.get(df, 134)) ?? 0;
  // baseOf only where needed: the common case (one literal below) makes no intermediate object.
  const base = () => baseOf(path, format, sizeBytes, recordCount, mf.specId, partition, dataSeq, fileSeq, snapshotId);
  if (contentCode === 0) {
    const rawOffsets = fileIds.get(df, 132);
    const splitOffsets = Array.isArray(rawOffsets) ? offsetsOf(rawOffsets) : undefined;
    const sortOrderId = num(fileIds.get(df, 140));
    return snapshotId !== undefined && hasStats && splitOffsets && sortOrderId !== undefined
      ? // What Java and floe write: one literal, every property in the object itself (~50 bytes less).
        {
          content: 'data',
          path,
          format,
          sizeBytes,
          recordCount,
          specId: mf.specId,
          partition,
          dataSequenceNumber: dataSeq,
          fileSequenceNumber: fileSeq,
          snapshotId,
          stats,
          splitOffsets,
          sortOrderId,
        }
      : {
          content: 'data',
          ...base(),
          ...(hasStats ? { stats } : {}),
          ...(splitOffsets ? { splitOffsets } : {}),
          ...(sortOrderId !== undefined ? { sortOrderId } : {}),
        };
  }
  const referenced = fileIds.get(df, 143);
  if (contentCode === 1) {
    const offset = num(fileIds.get(df, 144));
    if (format === 'puffin' || offset !== undefined) {
      if (typeof referenced !== 'string') throw new Error(`deletion vector ${path} has no referenced_data_file`);
      return {
        content: 'deletion-vector',
        ...base(),
        referencedDataFile: referenced,
        contentOffset: optCount(offset, `content_offset of ${path}`) ?? 0,
        contentSizeBytes: optCount(fileIds.get(df, 145), `content_size_in_bytes of ${path}`) ?? 0,
      };
    }
    return {
      content: 'position-deletes',
      ...base(),
      ...(typeof referenced === 'string' ? { referencedDataFile: referenced } : {}),
      ...(hasStats ? { stats } : {}),
    };
  }
  if (contentCode === 2) {
    const eq = fileIds.get(df, 135);
    if (!Array.isArray(eq) || eq.length === 0) throw new Error(`equality delete file ${path} has no equality_ids`);
    return {
      content: 'equality-deletes',
      ...base(),
      equalityFieldIds: eq.map(Number),
      ...(hasStats ? { stats } : {}),
    };
  }
  throw new Error(`file ${path} has unknown content type ${contentCode}`);
}

export interface SnapshotFiles {
  manifests: ManifestFile[];
  dataFiles: import('../../model/index.js').DataFile[];
  deleteFiles: import('../../model/index.js').DeleteFile[];
}

export interface LiveFilesOptions {
  /**
   * Worker threads decoding the manifests (manifest-workers.ts); 0 decodes in this thread. Default: the
   * FLOE_MANIFEST_WORKERS environment variable, else in-thread for small snapshots (worker start-up would
   * cost more than it saves) and one worker per core (at most 4) from `WORKERS_FROM_FILES` files on, when
   * the machine has cores to spare (load average below the core count).
   */
  workers?: number;
}

/** Live files (by the manifest list's counts) from which decoding in worker threads pays. */
export const WORKERS_FROM_FILES = 50_000;

function workersFor(manifests: readonly ManifestFile[], asked: number | undefined): number {
  const env = process.env.FLOE_MANIFEST_WORKERS;
  const chosen = asked ?? (env !== undefined && env !== '' ? Number(env) : undefined);
  if (chosen !== undefined) {
    if (!Number.isInteger(chosen) || chosen < 0)
      throw new FloeError('InvalidArgument', `manifest decoding workers must be a whole number ≥ 0, not ${chosen}`);
    return Math.min(chosen, manifests.length);
  }
  if (manifests.length < 8) return 0;
  let files = 0;
  for (const m of manifests) files += (m.addedFilesCount ?? 0) + (m.existingFilesCount ?? 0);
  // lists without counts: ~100 bytes of manifest per file is conservative (Java writes ~400–1000)
  if (files === 0) for (const m of manifests) files += m.length / 100;
  if (files < WORKERS_FROM_FILES) return 0;
  // Spare cores only: on a saturated machine (1-minute load average ≥ cores) the threads add ~10 % CPU
  // and took 1.2–1.9× the wall time of in-thread decoding (bench/RESULTS.md, plan-real-metadata run 3).
  const cores = availableParallelism();
  return cores > 1 && loadavg()[0]! < cores ? Math.min(4, cores) : 0;
}

/** Every live (ADDED or EXISTING) file of a snapshot. */
export async function liveFilesOf(
  io: IcebergIO,
  md: IcebergMetadata,
  snap: IcebergSnapshot,
  fieldsById = allFieldsById(md),
  options: LiveFilesOptions = {},
): Promise<SnapshotFiles> {
  const manifests = await readManifestList(io, md, snap);
  const ctx: ManifestReadContext = { md, fieldsById, snapshotId: snap.snapshotId };
  const workers = workersFor(manifests, options.workers);
  // Each manifest's live files are kept as it is read and its entries dropped (a million entry wrappers
  // and decoded records never live at once); the result keeps the manifest-list order.
  const inThread = () =>
    pLimit(8).map(manifests, async (mf) => {
      const live: ContentFile[] = [];
      await forEachManifestEntry(io, mf, ctx, (e) => {
        if (e.status !== 'DELETED') live.push(e.file);
      });
      return live;
    });
  let perManifest: ContentFile[][];
  if (workers === 0) perManifest = await inThread();
  else {
    const { liveFilesInWorkers, WorkersUnavailable } = await import('./manifest-workers.js');
    try {
      perManifest = await liveFilesInWorkers(io, manifests, ctx, workers);
    } catch (e) {
      // no thread could start: the same files, decoded here
      if (!(e instanceof WorkersUnavailable)) throw e;
      perManifest = await inThread();
    }
  }
  const dataFiles: SnapshotFiles['dataFiles'] = [];
  const deleteFiles: SnapshotFiles['deleteFiles'] = [];
  for (let i = 0; i < perManifest.length; i++) {
    for (const f of perManifest[i]!) {
      if (f.content === 'data') dataFiles.push(f);
      else deleteFiles.push(f);
    }
    perManifest[i] = [];
  }
  return { manifests, dataFiles, deleteFiles };
}

export type { Schema };
