/**
 * floe's Parquet layer: lossless read/write for scans and rewrites.
 *
 * - Footers/statistics: hyparquet (pure JS) plus our own exact decoding of raw statistics bytes.
 * - Row data: arrow-rs' Parquet codec — native (native/parquet-codec) or parquet-wasm, byte-identical (codec.ts)
 *   — ⇄ apache-arrow JS through Arrow IPC, so decimals, int64 and µs/ns timestamps stay exact.
 * - Columns are matched by Parquet field_id (Arrow field metadata `PARQUET:field_id`), never by name.
 *
 * Inputs are bytes plus a file name used in error messages; storage I/O lives elsewhere.
 */
export type {
  ParquetPhysicalType,
  ParquetRepetition,
  ParquetSchemaNode,
  ParquetChunkStatistics,
  ParquetColumnChunk,
  ParquetRowGroup,
  ParquetFooter,
  ParquetReadOptions,
  ParquetCodec,
  ParquetWriteOptions,
  WriterFieldMetrics,
  WrittenParquet,
  StreamedParquet,
  MetricsModeName,
  IcebergMetricsOptions,
  IcebergFileMetrics,
} from './types.js';

/**
 * parquetCodec(): the codec this thread uses (FLOE_PARQUET_CODEC=auto|native|wasm); codecByName(name);
 * nativeCodecStatus(): { available, path, error? }; releaseBytes(bytes): frees bytes the caller is done with now.
 */
export { parquetCodec, codecByName, nativeCodecStatus, releaseBytes } from './codec.js';
export type { CodecName, ParquetCodecBackend, NativeCodecStatus } from './codec.js';

/** readParquetFooter(bytes, file): ParquetFooter — throws FloeError('Corrupt') naming the file. */
export { readParquetFooter } from './footer.js';

/**
 * readParquetTable(bytes, file, opts?): arrow.Table — top-level columns by field id, every field
 * carrying `PARQUET:field_id` metadata (assigned from opts.nameMapping for files without ids).
 * iterateRowGroups(bytes, file, opts?): AsyncGenerator<{ index, table }> — one row group at a time.
 * scanRowGroups(bytes, file, opts?): the same, each table valid only until the next is asked for.
 */
export { readParquetTable, iterateRowGroups, scanRowGroups } from './read.js';

/** fieldIdOf(arrowField): number | undefined — reads `PARQUET:field_id`. FIELD_ID_KEY is that key. */
export { FIELD_ID_KEY, fieldIdOf } from '../../../model/arrow/field-id.js';

/** arrowSchemaForIceberg(fields): arrow.Schema; arrowFieldForIceberg(field): arrow.Field. */
export { arrowSchemaForIceberg, arrowFieldForIceberg, arrowTypeForIceberg } from './arrow-schema.js';

/**
 * castToSchema(table, targetFields, file?): arrow.Table aligned to targetFields by field id
 * (reorder, fill missing with nulls/initialDefault, int→long, float→double, decimal widening).
 */
export { castToSchema } from './cast.js';

/**
 * new ParquetWriter(schema, file, opts?) with write(batchOrTable), bufferedRows, finish(): Promise<WrittenParquet>;
 * new ParquetWriter(schema, file, opts, sink) streams each encoded row group to `sink` and ends with
 * finishStreamed(): Promise<StreamedParquet> (the footer, sizes and metrics, no bytes held).
 * writeParquet(table, file, opts?): Promise<WrittenParquet>.
 * writeRolling(batches, targetBytes, opts & { fileName?: (i) => string }): Promise<WrittenParquet[]>;
 * rollingFiles(...) is the same as an async generator (yields each file as soon as it is closed).
 */
export {
  ParquetWriter,
  writeParquet,
  writeRolling,
  rollingFiles,
  type RollingOptions,
  type ParquetSink,
} from './writer.js';

/** icebergMetricsFromFooter(footer, fields, opts?): IcebergFileMetrics (Java Iceberg ParquetMetrics rules). */
export { icebergMetricsFromFooter, parseMetricsMode } from './metrics.js';

/**
 * rowsFromArrow(table, fields): Iterable<Record<string, unknown>> keyed by field name with exact values:
 * long/time/timestamp → bigint, decimal → exact decimal string, date → days, binary/fixed → Uint8Array,
 * uuid → canonical string, struct → object, list → array, map → Map.
 */
export { rowsFromArrow, valueFromArrow } from '../../../model/arrow/rows.js';

/** tableFromRows(schema, rows): arrow.Table and buildData(type, values) — Arrow from exact JS values (inverse of rowsFromArrow). */
export { tableFromRows, buildData } from '../../../model/arrow/build.js';
