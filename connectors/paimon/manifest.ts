/**
 * Paimon manifest lists, manifests and index manifests (Avro, or ORC when `manifest.format=orc`; the file's
 * magic decides). Both decoders yield the same record shape (bigint longs, Buffer binaries, nested objects by
 * field name), so the mapping below is shared. Records are matched by field name, so both
 * the ≤0.8 shape (every record wrapped in a ["null", record] union) and the ≥0.9 plain shape read, and
 * fields a version does not have come back undefined (`DataFileMeta` grew from 13 to 21 fields over time).
 */
import { FloeError, errorForFile } from '../../util/errors.js';
import { readAvroContainer } from '../formats/avro.js';
import { readOrcFile } from '../formats/orc/index.js';
import { joinPath, type PaimonIO } from './io.js';
import { notPlainFileName } from './validate-snapshot.js';
import { partitionHex } from './keys.js';

/** `_VERSION` values Paimon writes and accepts (`ManifestSchemaUtils`, serializers). */
const MANIFEST_ENTRY_VERSION = 2;
const MANIFEST_FILE_META_VERSION = 2;
const INDEX_MANIFEST_ENTRY_VERSION = 1;

export const FILE_KIND_ADD = 0;
export const FILE_KIND_DELETE = 1;

export interface SimpleStats {
  /** Serialized BinaryRows (4-byte BE arity + row). */
  minValues: Uint8Array;
  maxValues: Uint8Array;
  nullCounts: (bigint | null)[] | null;
}

export interface ManifestFileMeta {
  version: number;
  fileName: string;
  fileSize: bigint;
  numAddedFiles: bigint;
  numDeletedFiles: bigint;
  partitionStats: SimpleStats | null;
  schemaId: bigint;
  minBucket?: number;
  maxBucket?: number;
  minLevel?: number;
  maxLevel?: number;
  minRowId?: bigint;
  maxRowId?: bigint;
}

export interface DataFileMeta {
  fileName: string;
  fileSize: bigint;
  rowCount: bigint;
  minKey: Uint8Array;
  maxKey: Uint8Array;
  keyStats: SimpleStats | null;
  valueStats: SimpleStats | null;
  minSequenceNumber: bigint;
  maxSequenceNumber: bigint;
  schemaId: number;
  level: number;
  extraFiles: string[];
  /** Local wall-clock millis stored as if UTC (`Timestamp.fromLocalDateTime`). */
  creationTime?: number;
  /** Absent (null) in ≤0.7 files: "may contain deletes". */
  deleteRowCount?: bigint;
  embeddedIndex?: Uint8Array;
  /** 0 = APPEND, 1 = COMPACT. */
  fileSource?: number;
  /** null/absent = stats for every value column. */
  valueStatsCols?: string[];
  externalPath?: string;
  firstRowId?: bigint;
  writeCols?: string[];
  writeColsSequences?: bigint[];
}

export interface ManifestEntry {
  kind: number;
  /** Serialized partition BinaryRow. */
  partition: Uint8Array;
  bucket: number;
  totalBuckets: number;
  file: DataFileMeta;
  /** The manifest this entry came from (for messages). */
  manifest: string;
}

export interface DeletionVectorRange {
  dataFileName: string;
  /** Position of the DV's 4-byte length field inside the index file. */
  offset: number;
  /** Length of magic + bitmap bytes. */
  length: number;
  cardinality?: bigint;
}

export interface IndexManifestEntry {
  kind: number;
  partition: Uint8Array;
  bucket: number;
  indexType: string;
  fileName: string;
  fileSize: bigint;
  rowCount: bigint;
  dvRanges?: DeletionVectorRange[];
  externalPath?: string;
  /**
   * Paimon 1.4's `_GLOBAL_INDEX` (row range, indexed field, index meta) as read: floe writes no global index
   * but carries an existing one into the index manifests it rewrites, unchanged.
   */
  globalIndex?: Record<string, unknown>;
  manifest: string;
}

type Rec = Record<string, unknown>;

const big = (v: unknown): bigint => (typeof v === 'bigint' ? v : BigInt(v as number));
const optBig = (v: unknown): bigint | undefined => (v === null || v === undefined ? undefined : big(v));
const optNum = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : Number(v));
const bytes = (v: unknown): Uint8Array => (v instanceof Uint8Array ? v : new Uint8Array(0));

function corrupt(file: string, msg: string): never {
  throw new FloeError('Corrupt', `corrupt Paimon manifest ${file}: ${msg}`, { context: { file } });
}

/** A size, count or level: an integer ≥ 0 (a negative one would poison planning and the next commit's totals), exact as a number. */
function count(v: unknown, what: string, file: string): bigint {
  const b = big(v);
  if (b < 0n) corrupt(file, `${what} is negative (${b})`);
  // the table model counts in JS numbers: refuse what it could only hold rounded
  if (b > BigInt(Number.MAX_SAFE_INTEGER))
    corrupt(file, `${what} ${b} is beyond 2^53 − 1, which floe cannot count exactly`);
  return b;
}

/** A data or manifest file name: non-empty and a plain name (files are found by name under the table). */
function fileName(v: unknown, what: string, file: string): string {
  if (typeof v !== 'string' || v === '') corrupt(file, `${what} without _FILE_NAME`);
  if (notPlainFileName(v)) corrupt(file, `${what} has _FILE_NAME ${JSON.stringify(v)}, not a plain file name`);
  return v;
}

/**
 * `<table>/manifest/<name>` for a name a snapshot or manifest list gave: a plain file name only (the
 * snapshot reader already refuses others, naming the field; this holds for every caller).
 */
function manifestFile(table: string, name: string, what: string): string {
  const why = notPlainFileName(name);
  if (why)
    throw new FloeError('Corrupt', `Paimon ${what} name ${JSON.stringify(name)} ${why}`, {
      context: { file: joinPath(table, 'manifest'), name },
    });
  return joinPath(table, 'manifest', name);
}

/** The same error, its message extended with which file named the one that failed (a missing file may be a corrupt reference). */
export function namedBy(e: unknown, by: string): unknown {
  if (!(e instanceof FloeError) || e.message.includes(by)) return e;
  return new FloeError(e.kind, `${e.message} (named by ${by})`, {
    context: { ...e.context, namedBy: by },
    retryable: e.retryable,
    cause: e,
  });
}

function rec(v: unknown, file: string, what: string): Rec {
  if (!v || typeof v !== 'object' || Array.isArray(v) || v instanceof Uint8Array)
    corrupt(file, `${what} is not a record`);
  return v as Rec;
}

function checkVersion(r: Rec, expected: number, file: string): number {
  const v = r._VERSION;
  if (v === undefined || v === null) return expected; // very old files predate the field
  if (v !== expected) {
    throw new FloeError(
      'Unsupported',
      `Paimon manifest ${file} has _VERSION ${String(v)}, this reader knows ${expected}`,
      {
        context: { file, version: v },
      },
    );
  }
  return v;
}

function stats(v: unknown): SimpleStats | null {
  if (!v || typeof v !== 'object') return null;
  const r = v as Rec;
  return {
    minValues: bytes(r._MIN_VALUES),
    maxValues: bytes(r._MAX_VALUES),
    nullCounts: Array.isArray(r._NULL_COUNTS) ? r._NULL_COUNTS.map((x) => optBig(x) ?? null) : null,
  };
}

/** Manifest format named by the table options; Avro and ORC manifests are readable. */
export function assertManifestFormat(options: Record<string, string>, table: string): void {
  const fmt = (options['manifest.format'] ?? 'avro').toLowerCase();
  if (fmt !== 'avro' && fmt !== 'orc') {
    throw new FloeError(
      'Unsupported',
      `Paimon table ${table} uses manifest.format=${fmt}; only Avro and ORC manifests can be read`,
      {
        context: { table, option: 'manifest.format', value: fmt },
      },
    );
  }
}

/**
 * Manifests floe writes are Avro only; Paimon reads a table's manifests in its configured `manifest.format`,
 * so committing to a table with any other format must be refused.
 */
export function assertManifestWritable(options: Record<string, string>, table: string): void {
  const fmt = (options['manifest.format'] ?? 'avro').toLowerCase();
  if (fmt !== 'avro') {
    const why =
      fmt === 'orc' ? 'floe cannot write ORC manifests (ORC writing is not built)' : `floe writes only Avro manifests`;
    throw new FloeError(
      'Unsupported',
      `Paimon table ${table} uses manifest.format=${fmt}; ${why}, so nothing is written to this table`,
      {
        context: { table, option: 'manifest.format', value: fmt },
      },
    );
  }
}

const isOrc = (data: Uint8Array) => data.length >= 3 && data[0] === 0x4f && data[1] === 0x52 && data[2] === 0x43; // "ORC"

async function readRecords(io: PaimonIO, file: string, what: string): Promise<Rec[]> {
  const data = await io.read(file);
  try {
    const records = isOrc(data)
      ? readOrcFile<unknown>(data, file).rows
      : readAvroContainer<unknown>(data, file).records;
    return records.map((r) => rec(r, file, 'entry'));
  } catch (e) {
    throw errorForFile('Corrupt', file, `corrupt Paimon ${what}`, e);
  }
}

export async function readManifestList(io: PaimonIO, table: string, name: string): Promise<ManifestFileMeta[]> {
  const file = manifestFile(table, name, 'manifest list');
  return (await readRecords(io, file, 'manifest list')).map((r) => {
    const m: ManifestFileMeta = {
      version: checkVersion(r, MANIFEST_FILE_META_VERSION, file),
      fileName: fileName(r._FILE_NAME, 'entry', file),
      fileSize: count(r._FILE_SIZE ?? 0, '_FILE_SIZE', file),
      numAddedFiles: count(r._NUM_ADDED_FILES ?? 0, '_NUM_ADDED_FILES', file),
      numDeletedFiles: count(r._NUM_DELETED_FILES ?? 0, '_NUM_DELETED_FILES', file),
      partitionStats: stats(r._PARTITION_STATS),
      schemaId: big(r._SCHEMA_ID ?? 0),
    };
    const opt = {
      minBucket: optNum(r._MIN_BUCKET),
      maxBucket: optNum(r._MAX_BUCKET),
      minLevel: optNum(r._MIN_LEVEL),
      maxLevel: optNum(r._MAX_LEVEL),
    };
    for (const [k, v] of Object.entries(opt)) if (v !== undefined) (m as unknown as Rec)[k] = v;
    if (r._MIN_ROW_ID != null) m.minRowId = big(r._MIN_ROW_ID);
    if (r._MAX_ROW_ID != null) m.maxRowId = big(r._MAX_ROW_ID);
    return m;
  });
}

export function dataFileMetaFromRecord(r: Rec, file: string): DataFileMeta {
  const d: DataFileMeta = {
    fileName: fileName(r._FILE_NAME, '_FILE', file),
    fileSize: count(r._FILE_SIZE ?? 0, '_FILE_SIZE', file),
    rowCount: count(r._ROW_COUNT ?? 0, '_ROW_COUNT', file),
    minKey: bytes(r._MIN_KEY),
    maxKey: bytes(r._MAX_KEY),
    keyStats: stats(r._KEY_STATS),
    valueStats: stats(r._VALUE_STATS),
    minSequenceNumber: big(r._MIN_SEQUENCE_NUMBER ?? 0),
    maxSequenceNumber: big(r._MAX_SEQUENCE_NUMBER ?? 0),
    schemaId: Number(r._SCHEMA_ID ?? 0),
    level: Number(count(r._LEVEL ?? 0, '_LEVEL', file)),
    extraFiles: Array.isArray(r._EXTRA_FILES) ? r._EXTRA_FILES.map(String) : [],
  };
  if (r._CREATION_TIME != null) d.creationTime = Number(r._CREATION_TIME);
  if (r._DELETE_ROW_COUNT != null) d.deleteRowCount = count(r._DELETE_ROW_COUNT, '_DELETE_ROW_COUNT', file);
  if (r._EMBEDDED_FILE_INDEX instanceof Uint8Array) d.embeddedIndex = r._EMBEDDED_FILE_INDEX;
  if (r._FILE_SOURCE != null) d.fileSource = Number(r._FILE_SOURCE);
  if (Array.isArray(r._VALUE_STATS_COLS)) d.valueStatsCols = r._VALUE_STATS_COLS.map(String);
  if (typeof r._EXTERNAL_PATH === 'string') d.externalPath = r._EXTERNAL_PATH;
  if (r._FIRST_ROW_ID != null) d.firstRowId = big(r._FIRST_ROW_ID);
  if (Array.isArray(r._WRITE_COLS)) d.writeCols = r._WRITE_COLS.map(String);
  if (Array.isArray(r._WRITE_COLS_SEQUENCES)) d.writeColsSequences = r._WRITE_COLS_SEQUENCES.map(big);
  return d;
}

export async function readManifest(io: PaimonIO, table: string, name: string): Promise<ManifestEntry[]> {
  const file = manifestFile(table, name, 'manifest');
  return (await readRecords(io, file, 'manifest')).map((r) => {
    checkVersion(r, MANIFEST_ENTRY_VERSION, file);
    const kind = Number(r._KIND);
    if (kind !== FILE_KIND_ADD && kind !== FILE_KIND_DELETE) corrupt(file, `unknown _KIND ${String(r._KIND)}`);
    const bucket = Number(r._BUCKET);
    const totalBuckets = Number(r._TOTAL_BUCKETS ?? 0);
    if (
      !Number.isInteger(bucket) ||
      (totalBuckets > 0 && bucket !== -2 /* postpone */ && (bucket < 0 || bucket >= totalBuckets))
    ) {
      corrupt(file, `entry in bucket ${String(r._BUCKET)} of ${totalBuckets} buckets`);
    }
    return {
      kind,
      partition: bytes(r._PARTITION),
      bucket,
      totalBuckets,
      file: dataFileMetaFromRecord(rec(r._FILE, file, '_FILE'), file),
      manifest: file,
    };
  });
}

export async function readIndexManifest(io: PaimonIO, table: string, name: string): Promise<IndexManifestEntry[]> {
  const file = manifestFile(table, name, 'index manifest');
  return (await readRecords(io, file, 'index manifest')).map((r) => {
    checkVersion(r, INDEX_MANIFEST_ENTRY_VERSION, file);
    if (typeof r._FILE_NAME !== 'string' || typeof r._INDEX_TYPE !== 'string')
      corrupt(file, 'index entry without name or type');
    fileName(r._FILE_NAME, 'index entry', file); // index files are found by name in <table>/index/
    const e: IndexManifestEntry = {
      kind: Number(r._KIND ?? 0),
      partition: bytes(r._PARTITION),
      bucket: Number(r._BUCKET),
      indexType: r._INDEX_TYPE,
      fileName: r._FILE_NAME,
      fileSize: big(r._FILE_SIZE ?? 0),
      rowCount: big(r._ROW_COUNT ?? 0),
      manifest: file,
    };
    if (Array.isArray(r._DELETIONS_VECTORS_RANGES)) {
      e.dvRanges = r._DELETIONS_VECTORS_RANGES
        .filter((x) => x != null)
        .map((x) => {
          const m = rec(x, file, 'deletion vector range');
          const range: DeletionVectorRange = { dataFileName: String(m.f0), offset: Number(m.f1), length: Number(m.f2) };
          if (m._CARDINALITY != null) range.cardinality = big(m._CARDINALITY);
          return range;
        });
    }
    if (typeof r._EXTERNAL_PATH === 'string') e.externalPath = r._EXTERNAL_PATH;
    if (r._GLOBAL_INDEX != null) e.globalIndex = rec(r._GLOBAL_INDEX, file, 'global index');
    return e;
  });
}

// --------------------------------------------------------------------------------------------- merging

const hex = (b: Uint8Array | undefined) => (b ? partitionHex(b) : '');

/** `FileEntry.Identifier`: partition, bucket, level, name, extra files, embedded index, external path. */
export function entryIdentifier(e: ManifestEntry): string {
  const f = e.file;
  return [
    hex(e.partition),
    e.bucket,
    f.level,
    f.fileName,
    f.extraFiles.join(','),
    hex(f.embeddedIndex),
    f.externalPath ?? '',
  ].join('|');
}

/**
 * Replays ADD/DELETE entries in manifest order; what is left are the live files. A DELETE of a file
 * added in an earlier manifest cancels it; a DELETE whose ADD was already merged away is dropped.
 */
export function mergeEntries(entries: Iterable<ManifestEntry>): ManifestEntry[] {
  const live = new Map<string, ManifestEntry>();
  for (const e of entries) {
    const id = entryIdentifier(e);
    if (e.kind === FILE_KIND_ADD) {
      if (live.has(id)) {
        throw new FloeError(
          'Corrupt',
          `Paimon manifest ${e.manifest} adds file ${e.file.fileName} which is already live`,
          {
            context: { file: e.manifest, dataFile: e.file.fileName },
          },
        );
      }
      live.set(id, e);
    } else {
      live.delete(id);
    }
  }
  return [...live.values()];
}

/** Reads every manifest of the given lists (in order) and returns the live entries. */
export async function readLiveEntries(io: PaimonIO, table: string, manifestLists: string[]): Promise<ManifestEntry[]> {
  const all: ManifestEntry[] = [];
  for (const list of manifestLists) {
    for (const meta of await readManifestList(io, table, list)) {
      try {
        all.push(...(await readManifest(io, table, meta.fileName)));
      } catch (e) {
        throw namedBy(e, `manifest list ${joinPath(table, 'manifest', list)}`);
      }
    }
  }
  return mergeEntries(all);
}

export function mergeIndexEntries(entries: Iterable<IndexManifestEntry>): IndexManifestEntry[] {
  const live = new Map<string, IndexManifestEntry>();
  for (const e of entries) {
    const id = [hex(e.partition), e.bucket, e.indexType, e.fileName].join('|');
    if (e.kind === FILE_KIND_ADD) live.set(id, e);
    else live.delete(id);
  }
  return [...live.values()];
}
