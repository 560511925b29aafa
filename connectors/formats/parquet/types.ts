/**
 * Public types of the Parquet layer. Sizes and counts that fit a JS number (< 2^53) are numbers;
 * statistics keep exact decoded values (bigint for 64-bit integers, exact decimal strings).
 */
import type { LogicalType } from 'hyparquet';

export type ParquetPhysicalType =
  'BOOLEAN' | 'INT32' | 'INT64' | 'INT96' | 'FLOAT' | 'DOUBLE' | 'BYTE_ARRAY' | 'FIXED_LEN_BYTE_ARRAY';

export type ParquetRepetition = 'REQUIRED' | 'OPTIONAL' | 'REPEATED';

/** One node of the Parquet schema tree (the root is not included; see ParquetFooter.schema). */
export interface ParquetSchemaNode {
  name: string;
  /** Names from the top-level column down to this node, e.g. ['location', 'lat']. */
  path: string[];
  fieldId?: number;
  repetition: ParquetRepetition;
  /** Leaves only. */
  physicalType?: ParquetPhysicalType;
  typeLength?: number;
  convertedType?: string;
  logicalType?: LogicalType;
  precision?: number;
  scale?: number;
  /** Groups only. */
  children?: ParquetSchemaNode[];
  /** Leaves only: index of this column's chunk inside every row group. */
  leafIndex?: number;
}

/**
 * Column-chunk statistics with exact decoded values:
 * boolean → boolean; INT32 → number; INT64 → bigint; FLOAT/DOUBLE → number; DATE → number (days);
 * TIME/TIMESTAMP → bigint in the column's unit (µs for Iceberg files); DECIMAL → exact decimal string;
 * UTF8/STRING/JSON/ENUM → string; UUID → canonical uuid string; other binary → Uint8Array.
 */
export interface ParquetChunkStatistics {
  nullCount?: bigint;
  distinctCount?: bigint;
  /** Raw Parquet-encoded bounds (min_value/max_value, or legacy min/max where the order is signed). */
  minRaw?: Uint8Array;
  maxRaw?: Uint8Array;
  min?: unknown;
  max?: unknown;
  isMinExact?: boolean;
  isMaxExact?: boolean;
}

export interface ParquetColumnChunk {
  path: string[];
  leafIndex: number;
  fieldId?: number;
  physicalType: ParquetPhysicalType;
  codec: string;
  encodings: string[];
  /** Page types seen, from encoding_stats when the writer recorded them (e.g. DATA_PAGE, DICTIONARY_PAGE). */
  pageTypes?: string[];
  numValues: number;
  totalCompressedSize: number;
  totalUncompressedSize: number;
  dataPageOffset: number;
  dictionaryPageOffset?: number;
  /** The byte offset where this chunk starts (dictionary page if any, else first data page). */
  startOffset: number;
  statistics?: ParquetChunkStatistics;
}

export interface ParquetRowGroup {
  numRows: number;
  totalByteSize: number;
  totalCompressedSize: number;
  /** Start of the row group's first column chunk: Iceberg's split offset. */
  startOffset: number;
  columns: ParquetColumnChunk[];
}

export interface ParquetFooter {
  file: string;
  fileSize: number;
  numRows: number;
  rowGroups: ParquetRowGroup[];
  /** Top-level columns (children of the schema root). */
  schema: ParquetSchemaNode[];
  /** Every leaf column in chunk order. */
  leaves: ParquetSchemaNode[];
  createdBy?: string;
  keyValueMetadata: Map<string, string>;
  /** Length of the thrift FileMetaData in bytes. */
  metadataLength: number;
}

export interface ParquetReadOptions {
  /** Row groups to read (indexes into the footer's rowGroups); all when omitted. */
  rowGroups?: number[];
  /**
   * Top-level field ids to keep, in this order. Ids that the file does not contain are skipped
   * (castToSchema fills them). All columns when omitted.
   */
  fieldIds?: number[];
  /**
   * For files without Parquet field ids: dotted name path → field id (Iceberg
   * `schema.name-mapping.default`, flattened; nested paths like 'a.b', list elements 'l.element',
   * map 'm.key' / 'm.value'). Only used when the file has no field ids.
   */
  nameMapping?: Map<string, number>;
  /** Rows per Arrow record batch (default 65,536). */
  batchSize?: number;
}

export type ParquetCodec = 'zstd' | 'snappy' | 'gzip' | 'uncompressed' | 'lz4_raw' | 'brotli';

export interface ParquetWriteOptions {
  /**
   * [rewrite] The native encoder's heavy calls on libuv's thread pool instead of the calling thread (codec.ts'
   * CodecThreading): for a run whose tasks share one thread.
   */
  offThread?: boolean;
  /** Default 'zstd' (Iceberg ≥ 1.4 and Paimon default). */
  codec?: ParquetCodec;
  /** Codec level where the codec has one (zstd default 3, gzip 6, brotli 1 as in arrow-rs). */
  compressionLevel?: number;
  /** Target row-group size in uncompressed bytes (Iceberg write.parquet.row-group-size-bytes, default 128 MiB). */
  rowGroupBytes?: number;
  /** Hard cap on rows per row group (default 1M, a safety bound; the byte target usually wins). */
  maxRowGroupRows?: number;
  /** Data page size limit in bytes (default 1 MiB). */
  pageBytes?: number;
  /** Dictionary page size limit in bytes (default 2 MiB). */
  dictionaryPageBytes?: number;
  /**
   * Dictionary encoding: true = every column, false = none, 'auto' (default) = every column except top-level
   * ones whose first rows are mostly distinct and would overflow the dictionary page (dictionary-choice.ts).
   */
  dictionary?: boolean | 'auto';
  /**
   * Rows the file is expected to hold (an upper bound is fine, e.g. a rewrite task's input rows): sizes the
   * 'auto' dictionary decision, which only turns a dictionary off when it would overflow its page in a row
   * group of min(row-group rows, expected rows). Default: the rows of the first write.
   */
  expectedRows?: number;
  /** Extra footer key/value metadata (e.g. 'iceberg.schema'). */
  keyValueMetadata?: Map<string, string> | Record<string, string>;
  /** Default 'floe'. */
  createdBy?: string;
}

/** Per-field facts only the data can give (Iceberg computes float/double bounds and NaN counts from values). */
export interface WriterFieldMetrics {
  fieldId: number;
  nanCount: bigint;
  /** Smallest / largest non-NaN value seen (float/double); undefined when every value was null/NaN. */
  min?: number;
  max?: number;
}

export interface WrittenParquet {
  bytes: Uint8Array;
  rowCount: number;
  footer: ParquetFooter;
  /** Float/double fields (top-level and nested structs) keyed by field id. */
  fieldMetrics: Map<number, WriterFieldMetrics>;
}

/** [stream] A Parquet file written through a sink: everything but its bytes. */
export interface StreamedParquet {
  byteLength: number;
  rowCount: number;
  footer: ParquetFooter;
  fieldMetrics: Map<number, WriterFieldMetrics>;
}

export type MetricsModeName = 'none' | 'counts' | 'full' | `truncate(${number})`;

export interface IcebergMetricsOptions {
  /** Iceberg write.metadata.metrics.default; default 'truncate(16)'. */
  mode?: MetricsModeName;
  /** Iceberg write.metadata.metrics.column.<name>, keyed by field id. */
  perColumn?: Map<number, MetricsModeName>;
  /** From the writer: NaN counts and NaN-free bounds of float/double fields. */
  fieldMetrics?: Map<number, WriterFieldMetrics>;
}

/**
 * Iceberg data-file metrics keyed by field id. Bounds are decoded values in Iceberg's type:
 * boolean → boolean, int/date → number, long/time/timestamp* → bigint, float/double → number,
 * decimal → exact decimal string ("12.50"), string → string, uuid → canonical string,
 * fixed/binary → Uint8Array.
 */
export interface IcebergFileMetrics {
  recordCount: number;
  columnSizes: Map<number, bigint>;
  valueCounts: Map<number, bigint>;
  nullValueCounts: Map<number, bigint>;
  nanValueCounts: Map<number, bigint>;
  lowerBounds: Map<number, unknown>;
  upperBounds: Map<number, unknown>;
  /** Row-group start offsets, ascending. */
  splitOffsets: number[];
}
