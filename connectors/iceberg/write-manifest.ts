/**
 * Writes manifests and manifest lists in Java Iceberg's exact shape. Works on raw Avro records (the form the
 * files hold), so entries carried over from an existing manifest are written back unchanged.
 */
import { writeAvroContainer, type AvroWriteOptions } from '../formats/avro.js';
import type { FieldType } from '../../model/index.js';
import { bigintFromBigEndian } from '../../model/arrow/decimal.js';
import { stringifyJsonLossless } from '../../util/json.js';
import { manifestEntrySchema, manifestListSchema, type PartitionTypeField } from './write-schemas.js';
import { encodeSingleValue, unscaledToMinimalBytes } from './write-bounds.js';

export const STATUS_EXISTING = 0;
export const STATUS_ADDED = 1;
export const STATUS_DELETED = 2;

export type RawDataFile = Record<string, unknown> & {
  content?: number;
  file_path: string;
  partition: Record<string, unknown>;
  record_count: bigint;
  file_size_in_bytes: bigint;
};

/**
 * A content file floe wrote (rewrite output, delete file, appended file), to be named by a new manifest: the
 * one write-side shape of a file. `manifestDataFile` turns it into the Avro `data_file` record.
 */
export interface NewContentFile {
  /** 0 data, 1 position deletes / DV, 2 equality deletes. */
  content: 0 | 1 | 2;
  path: string;
  format: 'PARQUET' | 'PUFFIN' | 'AVRO' | 'ORC';
  recordCount: number | bigint;
  sizeBytes: number | bigint;
  specId: number;
  /** Take the partition tuple of this existing file (every rewrite output stays in its inputs' partition). */
  partitionOf: string;
  columnSizes?: Map<number, bigint>;
  valueCounts?: Map<number, bigint>;
  nullValueCounts?: Map<number, bigint>;
  nanValueCounts?: Map<number, bigint>;
  lowerBounds?: Map<number, Uint8Array>;
  upperBounds?: Map<number, Uint8Array>;
  splitOffsets?: bigint[];
  sortOrderId?: number;
  equalityIds?: number[];
  referencedDataFile?: string;
  contentOffset?: bigint;
  contentSizeInBytes?: bigint;
  /**
   * A rewritten data file: the input rows it holds, in its row order (input path, positions [start, end)
   * less those in `skip`, ascending). Row k of the file is the k-th position these spans list. Lets a commit
   * carry position deletes committed meanwhile against the inputs over to this file (rebase-deletes.ts);
   * never written to a manifest.
   */
  sourceRows?: { path: string; start: number; end: number; skip?: readonly number[] }[];
}

export interface RawManifestEntry {
  status: number;
  snapshot_id: bigint | null;
  sequence_number: bigint | null;
  file_sequence_number: bigint | null;
  data_file: RawDataFile;
}

export interface RawManifestFile {
  manifest_path: string;
  manifest_length: bigint;
  partition_spec_id: number;
  content: number;
  sequence_number: bigint;
  min_sequence_number: bigint;
  added_snapshot_id: bigint;
  added_files_count: number;
  existing_files_count: number;
  deleted_files_count: number;
  added_rows_count: bigint;
  existing_rows_count: bigint;
  deleted_rows_count: bigint;
  partitions:
    | { contains_null: boolean; contains_nan: boolean | null; lower_bound: Buffer | null; upper_bound: Buffer | null }[]
    | null;
  key_metadata: Buffer | null;
  first_row_id?: bigint | null;
}

/** Java maps the `gzip` property value to Avro deflate at level 9. */
export function avroCodecFromProperty(value: string | undefined): Pick<AvroWriteOptions, 'codec' | 'compressionLevel'> {
  switch ((value ?? 'gzip').toLowerCase()) {
    case 'gzip':
      return { codec: 'deflate', compressionLevel: 9 };
    case 'zstd':
      return { codec: 'zstandard', compressionLevel: 1 };
    case 'snappy':
      return { codec: 'snappy' };
    case 'uncompressed':
    case 'none':
      return { codec: 'null' };
    default:
      return { codec: 'deflate', compressionLevel: 9 };
  }
}

/** Normalises a raw data_file record to the fields the target format version carries. */
function fitDataFile(df: RawDataFile, version: number, partition: PartitionTypeField[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const part: Record<string, unknown> = {};
  for (const p of partition) part[p.name] = df.partition?.[p.name] ?? null;
  const get = (k: string) => (df[k] === undefined ? null : df[k]);
  if (version >= 2) out.content = df.content ?? 0;
  out.file_path = df.file_path;
  out.file_format = get('file_format');
  out.partition = part;
  out.record_count = df.record_count;
  out.file_size_in_bytes = df.file_size_in_bytes;
  if (version === 1) out.block_size_in_bytes = (df.block_size_in_bytes as bigint | undefined) ?? 67108864n;
  for (const k of [
    'column_sizes',
    'value_counts',
    'null_value_counts',
    'nan_value_counts',
    'lower_bounds',
    'upper_bounds',
    'key_metadata',
    'split_offsets',
  ])
    out[k] = get(k);
  if (version >= 2) out.equality_ids = get('equality_ids');
  out.sort_order_id = get('sort_order_id');
  if (version >= 3) out.first_row_id = get('first_row_id');
  if (version >= 2) out.referenced_data_file = get('referenced_data_file');
  if (version >= 3) {
    out.content_offset = get('content_offset');
    out.content_size_in_bytes = get('content_size_in_bytes');
  }
  return out;
}

export interface ManifestWriteInput {
  formatVersion: number;
  specId: number;
  /** Spec fields JSON array as written in the header (PartitionSpecParser.toJsonFields). */
  specFieldsJson: unknown[];
  partition: PartitionTypeField[];
  /** Table schema JSON (with schema-id) for the `schema` header. */
  tableSchemaJson: unknown;
  content: 'data' | 'deletes';
  entries: RawManifestEntry[];
  codec: Pick<AvroWriteOptions, 'codec' | 'compressionLevel'>;
}

export interface WrittenManifest {
  bytes: Uint8Array;
  /** The manifest_file record, minus the path and length the caller fills in once the file is stored. */
  summary: Omit<RawManifestFile, 'manifest_path' | 'manifest_length'>;
}

export async function writeManifest(
  input: ManifestWriteInput,
  addedSnapshotId: bigint,
  sequenceNumber: bigint,
): Promise<WrittenManifest> {
  const { formatVersion: v, partition } = input;
  const schemas = manifestEntrySchema(v, partition);
  const records = input.entries.map((e) => {
    const rec: Record<string, unknown> = { status: e.status, snapshot_id: e.snapshot_id };
    if (v >= 2) {
      rec.sequence_number = e.sequence_number;
      rec.file_sequence_number = e.file_sequence_number;
    }
    rec.data_file = fitDataFile(e.data_file, v, partition);
    return rec;
  });
  const metadata: Record<string, string> = {
    schema: stringifyJsonLossless(input.tableSchemaJson),
    'partition-spec': stringifyJsonLossless(input.specFieldsJson),
    'partition-spec-id': String(input.specId),
    'format-version': String(v),
    'iceberg.schema': schemas.icebergSchemaText,
  };
  if (v >= 2) metadata.content = input.content;
  const bytes = await writeAvroContainer(schemas.avroSchemaText, records, { ...input.codec, metadata });

  let added = 0,
    existing = 0,
    deleted = 0;
  let addedRows = 0n,
    existingRows = 0n,
    deletedRows = 0n;
  let minSeq: bigint | undefined;
  for (const e of input.entries) {
    const rows = BigInt(e.data_file.record_count);
    if (e.status === STATUS_ADDED) {
      added++;
      addedRows += rows;
    } else if (e.status === STATUS_EXISTING) {
      existing++;
      existingRows += rows;
    } else {
      deleted++;
      deletedRows += rows;
    }
    if (e.status !== STATUS_DELETED) {
      // an ADDED entry with no explicit data sequence number inherits this manifest's
      const seq = e.sequence_number ?? sequenceNumber;
      if (minSeq === undefined || seq < minSeq) minSeq = seq;
    }
  }
  return {
    bytes,
    summary: {
      partition_spec_id: input.specId,
      content: input.content === 'data' ? 0 : 1,
      sequence_number: sequenceNumber,
      min_sequence_number: minSeq ?? sequenceNumber,
      added_snapshot_id: addedSnapshotId,
      added_files_count: added,
      existing_files_count: existing,
      deleted_files_count: deleted,
      added_rows_count: addedRows,
      existing_rows_count: existingRows,
      deleted_rows_count: deletedRows,
      partitions: partitionSummaries(
        partition,
        input.entries.filter((e) => e.status !== STATUS_DELETED).map((e) => e.data_file.partition),
      ),
      key_metadata: null,
    },
  };
}

/** Comparable key of a raw partition value (decimal/binary fixed → bigint / hex). */
function sortKey(type: FieldType, v: unknown): bigint | number | string {
  if (type.kind === 'primitive' && type.name === 'decimal' && Buffer.isBuffer(v)) return bigintFromBigEndian(v);
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v as bigint | number | string;
}

function encodeRawPartitionValue(type: FieldType, v: unknown): Buffer {
  if (type.kind === 'primitive' && type.name === 'decimal' && Buffer.isBuffer(v))
    return unscaledToMinimalBytes(bigintFromBigEndian(v));
  return encodeSingleValue(type, v);
}

export function partitionSummaries(
  partition: PartitionTypeField[],
  tuples: Record<string, unknown>[],
): RawManifestFile['partitions'] {
  return partition.map((p) => {
    let containsNull = false;
    let containsNan = false;
    let lo: unknown;
    let hi: unknown;
    let loKey: bigint | number | string | undefined;
    let hiKey: bigint | number | string | undefined;
    const isFloat = p.type.kind === 'primitive' && (p.type.name === 'float' || p.type.name === 'double');
    for (const t of tuples) {
      const v = t?.[p.name];
      if (v === null || v === undefined) {
        containsNull = true;
        continue;
      }
      if (isFloat && Number.isNaN(v)) {
        containsNan = true;
        continue;
      }
      const k = sortKey(p.type, v);
      if (loKey === undefined || k < loKey) {
        loKey = k;
        lo = v;
      }
      if (hiKey === undefined || k > hiKey) {
        hiKey = k;
        hi = v;
      }
    }
    return {
      contains_null: containsNull,
      contains_nan: isFloat ? containsNan : false,
      lower_bound: lo === undefined ? null : encodeRawPartitionValue(p.type, lo),
      upper_bound: hi === undefined ? null : encodeRawPartitionValue(p.type, hi),
    };
  });
}

export interface ManifestListWriteInput {
  formatVersion: number;
  snapshotId: bigint;
  parentSnapshotId: bigint | undefined;
  sequenceNumber: bigint;
  firstRowId?: bigint;
  manifests: RawManifestFile[];
  codec: Pick<AvroWriteOptions, 'codec' | 'compressionLevel'>;
}

export async function writeManifestList(input: ManifestListWriteInput): Promise<Uint8Array> {
  const v = input.formatVersion;
  const schemas = manifestListSchema(v);
  const metadata: Record<string, string> = {
    'snapshot-id': input.snapshotId.toString(),
    'parent-snapshot-id': input.parentSnapshotId === undefined ? 'null' : input.parentSnapshotId.toString(),
  };
  if (v >= 2) metadata['sequence-number'] = input.sequenceNumber.toString();
  if (v >= 3) metadata['first-row-id'] = (input.firstRowId ?? 0n).toString();
  metadata['format-version'] = String(v);
  metadata['iceberg.schema'] = schemas.icebergSchemaText;
  const records = input.manifests.map((m) => {
    const r: Record<string, unknown> = {
      manifest_path: m.manifest_path,
      manifest_length: m.manifest_length,
      partition_spec_id: m.partition_spec_id,
    };
    if (v >= 2) {
      r.content = m.content;
      r.sequence_number = m.sequence_number;
      r.min_sequence_number = m.min_sequence_number;
    }
    Object.assign(r, {
      added_snapshot_id: m.added_snapshot_id,
      added_files_count: m.added_files_count,
      existing_files_count: m.existing_files_count,
      deleted_files_count: m.deleted_files_count,
      added_rows_count: m.added_rows_count,
      existing_rows_count: m.existing_rows_count,
      deleted_rows_count: m.deleted_rows_count,
      partitions: m.partitions,
      key_metadata: m.key_metadata ?? null,
    });
    if (v >= 3) r.first_row_id = m.first_row_id ?? null;
    return r;
  });
  return writeAvroContainer(schemas.avroSchemaText, records, { ...input.codec, metadata });
}

/** Older Java writers (before 0.12) named the manifest-list counts `added_data_files_count` etc. */
const LEGACY_COUNT_NAMES: Record<string, string> = {
  added_data_files_count: 'added_files_count',
  existing_data_files_count: 'existing_files_count',
  deleted_data_files_count: 'deleted_files_count',
};

/** A manifest-list record in the current field names, with v1 defaults filled in. */
export function normalizeManifestFile(raw: Record<string, unknown>): RawManifestFile {
  const out: Record<string, unknown> = { ...raw };
  for (const [legacy, current] of Object.entries(LEGACY_COUNT_NAMES)) {
    if (out[current] === undefined && out[legacy] !== undefined) out[current] = out[legacy];
    delete out[legacy];
  }
  out.content ??= 0;
  out.sequence_number ??= 0n;
  out.min_sequence_number ??= 0n;
  out.partitions ??= null;
  out.key_metadata ??= null;
  for (const k of ['added_files_count', 'existing_files_count', 'deleted_files_count']) out[k] ??= 0;
  for (const k of ['added_rows_count', 'existing_rows_count', 'deleted_rows_count']) out[k] ??= 0n;
  for (const p of (out.partitions as Record<string, unknown>[] | null) ?? []) p.contains_nan ??= null;
  return out as unknown as RawManifestFile;
}

/**
 * v3 row lineage for a new manifest list: data manifests without a first_row_id get one, in list order,
 * starting at the table's next-row-id and advancing by each manifest's added + existing rows (spec §Row
 * Lineage). Returns the snapshot's first-row-id and how far next-row-id moves (its added-rows).
 */
export function assignFirstRowIds(
  manifests: RawManifestFile[],
  nextRowId: bigint,
): { firstRowId: bigint; addedRows: bigint } {
  let next = nextRowId;
  for (const m of manifests) {
    if (m.content !== 0 || (m.first_row_id !== null && m.first_row_id !== undefined)) continue;
    m.first_row_id = next;
    next += m.added_rows_count + m.existing_rows_count;
  }
  return { firstRowId: nextRowId, addedRows: next - nextRowId };
}

function mapEntries<V>(
  m: Map<number, V> | undefined,
  conv: (v: V) => unknown,
): { key: number; value: unknown }[] | null {
  if (!m || m.size === 0) return null;
  return [...m.entries()].sort((a, b) => a[0] - b[0]).map(([key, v]) => ({ key, value: conv(v) }));
}

/**
 * The `data_file` record of a new file, in `partition` (the tuple of its `partitionOf` file for a rewrite
 * output, or a new one): the one place a written file becomes the Avro record a manifest holds.
 */
export function manifestDataFile(
  f: Omit<NewContentFile, 'partitionOf'>,
  partition: Record<string, unknown>,
): RawDataFile {
  return {
    content: f.content,
    file_path: f.path,
    file_format: f.format,
    partition,
    record_count: BigInt(f.recordCount),
    file_size_in_bytes: BigInt(f.sizeBytes),
    column_sizes: mapEntries(f.columnSizes, (x) => x),
    value_counts: mapEntries(f.valueCounts, (x) => x),
    null_value_counts: mapEntries(f.nullValueCounts, (x) => x),
    nan_value_counts: mapEntries(f.nanValueCounts, (x) => x),
    lower_bounds: mapEntries(f.lowerBounds, (x) => Buffer.from(x)),
    upper_bounds: mapEntries(f.upperBounds, (x) => Buffer.from(x)),
    key_metadata: null,
    split_offsets: f.splitOffsets ?? null,
    equality_ids: f.equalityIds ?? null,
    sort_order_id: f.content === 1 ? null : (f.sortOrderId ?? 0),
    first_row_id: null,
    referenced_data_file: f.referencedDataFile ?? null,
    content_offset: f.contentOffset ?? null,
    content_size_in_bytes: f.contentSizeInBytes ?? null,
  };
}
