/**
 * Footer reading: hyparquet parses the thrift FileMetaData; statistics are re-read from the raw thrift
 * bytes and decoded here, because hyparquet turns decimal and timestamp statistics into lossy JS numbers.
 */
import { parquetMetadata, type FileMetaData, type SchemaElement } from 'hyparquet';
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js';
import { FloeError } from '../../../util/errors.js';
import { bigintFromBigEndian, formatDecimal } from '../../../model/arrow/decimal.js';
import { uuidFromBytes } from '../../../model/arrow/uuid.js';
import type {
  ParquetChunkStatistics,
  ParquetColumnChunk,
  ParquetFooter,
  ParquetPhysicalType,
  ParquetRowGroup,
  ParquetSchemaNode,
} from './types.js';

const MAGIC = 0x31524150; // "PAR1" little-endian

/** The one message for a Parquet file that cannot be read (every reader of footers says it this way). */
export function parquetCorrupt(file: string, detail: string, cause?: unknown): FloeError {
  return new FloeError('Corrupt', `Parquet file ${file} is corrupt: ${detail}`, { context: { file }, cause });
}
const corrupt = parquetCorrupt;

/** A footer length (the 4 bytes before the closing PAR1) that cannot be right for a file of `fileSize` bytes. */
export function checkFooterLength(metadataLength: number, fileSize: number, file: string): void {
  if (metadataLength + 12 > fileSize)
    throw corrupt(file, `footer length ${metadataLength} exceeds the file size ${fileSize}`);
}

/**
 * The frame of a whole Parquet file held in memory: PAR1 at both ends and a footer length that fits.
 * Returns the footer length. Every footer reader checks this first.
 */
export function checkParquetFrame(bytes: Uint8Array, file: string): number {
  if (bytes.byteLength < 12) throw corrupt(file, `only ${bytes.byteLength} bytes, too short for a Parquet file`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw corrupt(file, 'missing PAR1 magic at the start');
  if (view.getUint32(bytes.byteLength - 4, true) !== MAGIC) {
    throw corrupt(file, 'missing PAR1 magic at the end (truncated or not Parquet)');
  }
  const metadataLength = view.getUint32(bytes.byteLength - 8, true);
  checkFooterLength(metadataLength, bytes.byteLength, file);
  return metadataLength;
}

export function readParquetFooter(bytes: Uint8Array, file: string): ParquetFooter {
  const metadataLength = checkParquetFrame(bytes, file);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let meta: FileMetaData;
  let raw: RawFileMetaData;
  try {
    meta = parquetMetadata(bytes, { geoparquet: false });
    raw = deserializeTCompactProtocol({
      view,
      offset: bytes.byteLength - 8 - metadataLength,
    }) as unknown as RawFileMetaData;
  } catch (e) {
    throw corrupt(file, `unreadable footer (${e instanceof Error ? e.message : String(e)})`, e);
  }
  try {
    return buildFooter(meta, raw, bytes.byteLength, file);
  } catch (e) {
    if (e instanceof FloeError) throw e;
    throw corrupt(file, `inconsistent footer (${e instanceof Error ? e.message : String(e)})`, e);
  }
}

/**
 * The footer of a file of `fileSize` bytes from its last bytes alone (`tail` ends with the footer, its
 * length and PAR1) — for a file streamed out whose body is no longer in memory.
 */
export function readParquetFooterTail(tail: Uint8Array, fileSize: number, file: string): ParquetFooter {
  if (tail.byteLength < 8) throw corrupt(file, `footer tail of only ${tail.byteLength} bytes`);
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  if (view.getUint32(tail.byteLength - 4, true) !== MAGIC) throw corrupt(file, 'missing PAR1 magic at the end');
  const metadataLength = view.getUint32(tail.byteLength - 8, true);
  if (metadataLength + 8 > tail.byteLength || metadataLength + 12 > fileSize)
    throw corrupt(file, `footer length ${metadataLength} exceeds the bytes held (${tail.byteLength}) or the file`);
  let meta: FileMetaData;
  let raw: RawFileMetaData;
  try {
    const own = tail.slice(tail.byteLength - 8 - metadataLength);
    meta = parquetMetadata(own.buffer, { geoparquet: false });
    raw = deserializeTCompactProtocol({ view: new DataView(own.buffer), offset: 0 }) as unknown as RawFileMetaData;
  } catch (e) {
    throw corrupt(file, `unreadable footer (${e instanceof Error ? e.message : String(e)})`, e);
  }
  try {
    return buildFooter(meta, raw, fileSize, file);
  } catch (e) {
    if (e instanceof FloeError) throw e;
    throw corrupt(file, `inconsistent footer (${e instanceof Error ? e.message : String(e)})`, e);
  }
}

// Raw thrift shapes (field numbers from parquet.thrift): FileMetaData.4 row_groups → RowGroup.1 columns
// → ColumnChunk.3 meta_data → ColumnMetaData.12 statistics → Statistics {1 max, 2 min, 3 null_count,
// 4 distinct_count, 5 max_value, 6 min_value, 7 is_max_value_exact, 8 is_min_value_exact}.
interface RawStatistics {
  field_1?: Uint8Array;
  field_2?: Uint8Array;
  field_3?: bigint;
  field_4?: bigint;
  field_5?: Uint8Array;
  field_6?: Uint8Array;
  field_7?: boolean;
  field_8?: boolean;
}
interface RawFileMetaData {
  field_4?: { field_1?: { field_3?: { field_12?: RawStatistics } }[] }[];
}

function buildFooter(meta: FileMetaData, raw: RawFileMetaData, fileSize: number, file: string): ParquetFooter {
  const { roots, leaves } = buildSchemaTree(meta.schema, file);
  const rowGroups: ParquetRowGroup[] = meta.row_groups.map((rg, rgIndex) => {
    if (rg.columns.length !== leaves.length) {
      throw corrupt(
        file,
        `row group ${rgIndex} has ${rg.columns.length} column chunks for ${leaves.length} leaf columns`,
      );
    }
    const columns: ParquetColumnChunk[] = rg.columns.map((chunk, leafIndex) => {
      const md = chunk.meta_data;
      if (!md) throw corrupt(file, `row group ${rgIndex} column ${leafIndex} has no metadata (encrypted?)`);
      const leaf = leaves[leafIndex]!;
      const dataPageOffset = Number(md.data_page_offset);
      const dict = md.dictionary_page_offset === undefined ? undefined : Number(md.dictionary_page_offset);
      // parquet-mr's rule for where a chunk starts: a dictionary page only counts if it precedes the data.
      const startOffset = dict !== undefined && dict > 0 && dict < dataPageOffset ? dict : dataPageOffset;
      const rawStats = raw.field_4?.[rgIndex]?.field_1?.[leafIndex]?.field_3?.field_12;
      const result: ParquetColumnChunk = {
        path: md.path_in_schema,
        leafIndex,
        physicalType: md.type as ParquetPhysicalType,
        codec: md.codec,
        encodings: md.encodings ?? [],
        numValues: Number(md.num_values),
        totalCompressedSize: Number(md.total_compressed_size),
        totalUncompressedSize: Number(md.total_uncompressed_size),
        dataPageOffset,
        startOffset,
      };
      if (leaf.fieldId !== undefined) result.fieldId = leaf.fieldId;
      if (dict !== undefined) result.dictionaryPageOffset = dict;
      if (md.encoding_stats) result.pageTypes = [...new Set(md.encoding_stats.map((s) => s.page_type))];
      if (rawStats) result.statistics = decodeStatistics(rawStats, leaf);
      return result;
    });
    return {
      numRows: Number(rg.num_rows),
      totalByteSize: Number(rg.total_byte_size),
      totalCompressedSize:
        rg.total_compressed_size !== undefined
          ? Number(rg.total_compressed_size)
          : columns.reduce((s, c) => s + c.totalCompressedSize, 0),
      startOffset: columns.length ? Math.min(...columns.map((c) => c.startOffset)) : 4,
      columns,
    };
  });
  const keyValueMetadata = new Map<string, string>();
  for (const kv of meta.key_value_metadata ?? []) keyValueMetadata.set(kv.key, kv.value ?? '');
  const footer: ParquetFooter = {
    file,
    fileSize,
    numRows: Number(meta.num_rows),
    rowGroups,
    schema: roots,
    leaves,
    keyValueMetadata,
    metadataLength: meta.metadata_length,
  };
  if (meta.created_by !== undefined) footer.createdBy = meta.created_by;
  return footer;
}

function buildSchemaTree(
  elements: SchemaElement[],
  file: string,
): { roots: ParquetSchemaNode[]; leaves: ParquetSchemaNode[] } {
  const leaves: ParquetSchemaNode[] = [];
  let pos = 1; // element 0 is the root
  const readChildren = (count: number, parentPath: string[]): ParquetSchemaNode[] => {
    const out: ParquetSchemaNode[] = [];
    for (let i = 0; i < count; i++) {
      const el = elements[pos++];
      if (!el) throw corrupt(file, 'schema ends early');
      const node: ParquetSchemaNode = {
        name: el.name,
        path: [...parentPath, el.name],
        repetition: (el.repetition_type ?? 'REQUIRED') as ParquetSchemaNode['repetition'],
      };
      if (el.field_id !== undefined) node.fieldId = el.field_id;
      if (el.converted_type !== undefined) node.convertedType = el.converted_type;
      if (el.logical_type !== undefined) node.logicalType = el.logical_type;
      if (el.precision !== undefined) node.precision = el.precision;
      if (el.scale !== undefined) node.scale = el.scale;
      if (el.num_children !== undefined && el.type === undefined) {
        node.children = readChildren(el.num_children, node.path);
      } else {
        node.physicalType = el.type as ParquetPhysicalType;
        if (el.type_length !== undefined) node.typeLength = el.type_length;
        node.leafIndex = leaves.length;
        leaves.push(node);
      }
      out.push(node);
    }
    return out;
  };
  const root = elements[0];
  if (!root) throw corrupt(file, 'empty schema');
  const roots = readChildren(root.num_children ?? 0, []);
  return { roots, leaves };
}

/** Whether the legacy min/max (thrift fields 1/2) are trustworthy: only for signed-order physical types. */
function legacyBoundsUsable(leaf: ParquetSchemaNode): boolean {
  const t = leaf.physicalType;
  if (t !== 'INT32' && t !== 'INT64' && t !== 'FLOAT' && t !== 'DOUBLE' && t !== 'BOOLEAN') return false;
  const unsigned =
    leaf.convertedType?.startsWith('UINT_') ||
    (leaf.logicalType?.type === 'INTEGER' && leaf.logicalType.isSigned === false);
  return !unsigned;
}

function decodeStatistics(raw: RawStatistics, leaf: ParquetSchemaNode): ParquetChunkStatistics {
  const stats: ParquetChunkStatistics = {};
  if (raw.field_3 !== undefined) stats.nullCount = BigInt(raw.field_3);
  if (raw.field_4 !== undefined) stats.distinctCount = BigInt(raw.field_4);
  let min = raw.field_6;
  let max = raw.field_5;
  if (min === undefined && max === undefined && legacyBoundsUsable(leaf)) {
    min = raw.field_2;
    max = raw.field_1;
  }
  if (min !== undefined) {
    stats.minRaw = min;
    stats.min = decodeStatValue(min, leaf);
  }
  if (max !== undefined) {
    stats.maxRaw = max;
    stats.max = decodeStatValue(max, leaf);
  }
  if (raw.field_8 !== undefined) stats.isMinExact = raw.field_8;
  if (raw.field_7 !== undefined) stats.isMaxExact = raw.field_7;
  return stats;
}

const utf8 = new TextDecoder();

function isDecimal(leaf: ParquetSchemaNode): boolean {
  return leaf.logicalType?.type === 'DECIMAL' || leaf.convertedType === 'DECIMAL';
}

function decimalScale(leaf: ParquetSchemaNode): number {
  const lt = leaf.logicalType;
  if (lt?.type === 'DECIMAL') return lt.scale ?? 0;
  return leaf.scale ?? 0;
}

function isStringLike(leaf: ParquetSchemaNode): boolean {
  const lt = leaf.logicalType?.type;
  const ct = leaf.convertedType;
  return lt === 'STRING' || lt === 'ENUM' || lt === 'JSON' || ct === 'UTF8' || ct === 'ENUM' || ct === 'JSON';
}

/** Decodes one Parquet plain-encoded statistics value exactly (see ParquetChunkStatistics for the shapes). */
export function decodeStatValue(bytes: Uint8Array, leaf: ParquetSchemaNode): unknown {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lt = leaf.logicalType;
  switch (leaf.physicalType) {
    case 'BOOLEAN':
      return bytes.length > 0 && bytes[0] !== 0;
    case 'INT32': {
      if (bytes.length < 4) return bytes;
      const unsigned = leaf.convertedType?.startsWith('UINT_') || (lt?.type === 'INTEGER' && lt.isSigned === false);
      const v = unsigned ? view.getUint32(0, true) : view.getInt32(0, true);
      if (isDecimal(leaf)) return formatDecimal(BigInt(v), decimalScale(leaf));
      if (lt?.type === 'TIME' || leaf.convertedType === 'TIME_MILLIS') return BigInt(v);
      return v;
    }
    case 'INT64': {
      if (bytes.length < 8) return bytes;
      const unsigned = leaf.convertedType?.startsWith('UINT_') || (lt?.type === 'INTEGER' && lt.isSigned === false);
      const v = unsigned ? view.getBigUint64(0, true) : view.getBigInt64(0, true);
      if (isDecimal(leaf)) return formatDecimal(v, decimalScale(leaf));
      return v;
    }
    case 'FLOAT':
      return bytes.length >= 4 ? view.getFloat32(0, true) : bytes;
    case 'DOUBLE':
      return bytes.length >= 8 ? view.getFloat64(0, true) : bytes;
    case 'BYTE_ARRAY':
    case 'FIXED_LEN_BYTE_ARRAY':
      if (isDecimal(leaf)) return formatDecimal(bigintFromBigEndian(bytes), decimalScale(leaf));
      if (isStringLike(leaf)) return utf8.decode(bytes);
      if (lt?.type === 'UUID' && bytes.length === 16) return uuidFromBytes(bytes);
      return bytes.slice();
    default:
      return bytes.slice();
  }
}
