/**
 * Parquet writing through the Parquet codec's streaming encoder (codec.ts: native arrow-rs or parquet-wasm):
 * record batches go in as they arrive and encoded row groups come out, so only one row group is buffered in
 * the encoder at a time.
 * Settings follow what older Iceberg/Spark readers accept: writer version V1 (PLAIN / RLE /
 * RLE_DICTIONARY only, no DELTA_*), data page v1, dictionary on except for top-level columns whose first rows
 * are mostly distinct (dictionary-choice.ts).
 */
import * as arrow from 'apache-arrow';
import { FloeError, errorForFile } from '../../../util/errors.js';
import {
  parquetCodec,
  type EncoderProps,
  type PreparedRowGroup,
  type RewriteSourceHandle,
  type StreamEncoder,
} from './codec.js';
import { plainColumns, plainColumnsFromSamples, sampleAt } from './dictionary-choice.js';
import { fieldIdOf } from '../../../model/arrow/field-id.js';
import { readParquetFooter, readParquetFooterTail } from './footer.js';
import { arrowByteLength, retypeData } from './retype.js';
import { storedView, type StoredView } from './stored.js';
import { annotateUuidColumns, annotateUuidFooter, uuidFieldIds } from './uuid-annotation.js';
import type {
  ParquetCodec,
  ParquetWriteOptions,
  StreamedParquet,
  WriterFieldMetrics,
  WrittenParquet,
} from './types.js';

export const DEFAULT_ROW_GROUP_BYTES = 128 * 1024 * 1024;
export const DEFAULT_PAGE_BYTES = 1024 * 1024;
export const DEFAULT_DICTIONARY_PAGE_BYTES = 2 * 1024 * 1024;
export const DEFAULT_MAX_ROW_GROUP_ROWS = 1_000_000;
/**
 * parquet-mr parses created_by as "<app> version <x>"; anything else makes it ignore binary column
 * statistics (PARQUET-251 guard), so we keep that shape.
 */
export const DEFAULT_CREATED_BY = 'floe version 0.1.0';

const CODECS: ReadonlySet<string> = new Set<ParquetCodec>([
  'zstd',
  'snappy',
  'gzip',
  'uncompressed',
  'lz4_raw',
  'brotli',
]);

/** `plain`: top-level columns written without a dictionary (dictionary-choice.ts; only with dictionary 'auto'). */
function encoderProps(opts: ParquetWriteOptions, rowsPerGroup: number, plain: string[] = []): EncoderProps {
  const codec = opts.codec ?? 'zstd';
  if (!CODECS.has(codec)) throw new FloeError('InvalidArgument', `unknown Parquet codec ${codec}`);
  if (opts.compressionLevel !== undefined) {
    // parquet-wasm 0.8 exposes no codec levels, and both codecs must write the same bytes: refuse, don't ignore.
    throw new FloeError('Unsupported', 'compressionLevel is not supported by the Parquet writer');
  }
  const kv =
    opts.keyValueMetadata instanceof Map ? opts.keyValueMetadata : new Map(Object.entries(opts.keyValueMetadata ?? {}));
  return {
    writerVersion: 1,
    compression: codec,
    dictionaryEnabled: opts.dictionary !== false,
    dataPageSizeLimit: opts.pageBytes ?? DEFAULT_PAGE_BYTES,
    dictionaryPageSizeLimit: opts.dictionaryPageBytes ?? DEFAULT_DICTIONARY_PAGE_BYTES,
    maxRowGroupSize: rowsPerGroup,
    statistics: 'chunk',
    createdBy: opts.createdBy ?? DEFAULT_CREATED_BY,
    keyValueMetadata: [...kv],
    plainColumns: plain,
  };
}

/** Rows per row group from the Iceberg byte target and the observed (uncompressed Arrow) bytes per row. */
export function rowsPerRowGroup(opts: ParquetWriteOptions, bytesPerRow: number): number {
  const target = opts.rowGroupBytes ?? DEFAULT_ROW_GROUP_BYTES;
  const cap = opts.maxRowGroupRows ?? DEFAULT_MAX_ROW_GROUP_ROWS;
  return Math.max(1, Math.min(cap, Math.floor(target / Math.max(1, bytesPerRow))));
}

function batchesOf(x: arrow.Table | arrow.RecordBatch): arrow.RecordBatch[] {
  return x instanceof arrow.Table ? x.batches : [x];
}

/** [rewrite] A row group of an input file, decoded and aligned inside the codec, waiting to be encoded. */
export interface RewrittenRowGroup {
  source: RewriteSourceHandle;
  prepared: PreparedRowGroup;
}

/**
 * [stream] Where a streamed writer's bytes go, in order, as each row group is encoded (a file, an S3
 * multipart upload). The writer awaits each call before encoding further, so a slow sink holds the encoder.
 * As with codec.ts' ChunkSink, a chunk is the sink's only until its promise settles (then its buffer is reused).
 */
export type ParquetSink = (chunk: Uint8Array) => Promise<void>;

/**
 * One Parquet file, written incrementally. Without a sink the encoded bytes are kept and `finish()` returns
 * them; with a sink (`[stream]`) every encoded chunk is handed to it as it comes, only the last chunk of
 * `finishStreamed()` (the footer) is held back to be read and finished, and `finishStreamed()` returns the
 * file's description without its bytes — memory is the open row group, not the file.
 */
export class ParquetWriter {
  private readonly struct: arrow.Struct;
  private encoder: StreamEncoder | undefined;
  private readonly chunks: Uint8Array[] = [];
  private rows = 0;
  private emitted = 0;
  private uncompressed = 0;
  private rowsPerGroup = 0;
  private finished = false;
  private readonly metrics = new FloatMetrics();
  private readonly stored: StoredView | undefined;
  private held: Uint8Array | undefined; // [stream] the newest chunk while finishing, not yet given to the sink
  private finishing = false; // [stream] set once the footer may be among the chunks

  constructor(
    readonly schema: arrow.Schema,
    readonly file: string,
    private readonly opts: ParquetWriteOptions = {},
    private readonly sink?: ParquetSink,
  ) {
    this.struct = new arrow.Struct(schema.fields);
    this.stored = storedView(schema, file);
  }

  /** Rows accepted so far. */
  get rowCount(): number {
    return this.rows;
  }
  /** Encoded bytes the writer has produced so far (closed row groups + header). */
  get writtenBytes(): number {
    return this.emitted;
  }
  /** Uncompressed Arrow bytes accepted so far. */
  get acceptedBytes(): number {
    return this.uncompressed;
  }
  /** Rows per row group, fixed by the first batch (0 before any write). */
  get rowGroupRows(): number {
    return this.rowsPerGroup;
  }

  async write(data: arrow.Table | arrow.RecordBatch): Promise<void> {
    if (this.finished) throw new FloeError('InvalidArgument', `Parquet writer for ${this.file} is already finished`);
    // All batches of one call cross to the encoder in one IPC stream: a row group with deletes arrives as
    // many zero-copy slices (slice-rows.ts), and a hand-off per slice would cost more than the encoding.
    const aligned: arrow.RecordBatch[] = [];
    let rows = 0;
    let bytes = 0;
    for (const batch of batchesOf(data)) {
      if (batch.numRows === 0) continue;
      this.checkSchema(batch);
      const a = new arrow.RecordBatch(this.schema, retypeData(batch.data, this.struct) as arrow.Data<arrow.Struct>);
      this.metrics.observe(a);
      aligned.push(a);
      rows += a.numRows;
      bytes += arrowByteLength(a);
    }
    if (rows === 0) return;
    const encoded = this.encoded(aligned);
    const ipc = arrow.tableToIPC(encoded, 'stream');
    const encoder =
      this.encoder ??
      this.start(bytes, rows, (groupRows, dictionaryBytes) =>
        plainColumns(encoded.schema, encoded.batches, groupRows, dictionaryBytes),
      );
    try {
      await encoder.write(ipc);
    } catch (e) {
      throw errorForFile('Internal', this.file, 'cannot write Parquet file', e);
    }
    this.rows += rows;
    this.uncompressed += bytes;
  }

  /**
   * [rewrite] A row group rewritten inside the codec (codec.ts' RewriteSourceHandle, prepared by the caller):
   * the same decisions as write() — row-group rows from the first rows' bytes per row, the dictionary choice
   * from their sample, float metrics — on figures the codec computed over the same rows.
   */
  async writeRewritten(group: RewrittenRowGroup): Promise<void> {
    if (this.finished) throw new FloeError('InvalidArgument', `Parquet writer for ${this.file} is already finished`);
    const { source, prepared: p } = group;
    if (p.kept === 0) return;
    if (this.stored) throw new FloeError('Internal', `${this.file}: a rewritten row group cannot omit columns`);
    const encoder =
      this.encoder ??
      this.start(p.arrowBytes, p.kept, (groupRows, dictionaryBytes) =>
        plainColumnsFromSamples(
          this.schema,
          this.schema.fields.map((_, c) => sampleAt(p.samples, c)),
          groupRows,
          dictionaryBytes,
        ),
      );
    if (!encoder.writeRewritten)
      throw new FloeError('Internal', `${this.file}: the ${parquetCodec().name} codec cannot rewrite row groups`);
    try {
      await encoder.writeRewritten(source);
    } catch (e) {
      throw errorForFile('Internal', this.file, 'cannot write Parquet file', e);
    }
    this.metrics.merge(p);
    this.rows += p.kept;
    this.uncompressed += p.arrowBytes;
  }

  /** [rewrite] The executor's OutputEncoder.writeDirect: its DirectBatches hold RewrittenRowGroups. */
  writeDirect(direct: unknown): Promise<void> {
    return this.writeRewritten(direct as RewrittenRowGroup);
  }

  /** The encoder, made at the first write from its rows' figures (`plain`: the dictionary choice's sample). */
  private start(
    bytes: number,
    rows: number,
    plain: (groupRows: number, dictionaryBytes: number) => string[],
  ): StreamEncoder {
    this.rowsPerGroup = rowsPerRowGroup(this.opts, bytes / rows);
    // the rows one row group of this file will really hold: a small file never overflows a dictionary
    const groupRows = Math.min(this.rowsPerGroup, Math.max(rows, this.opts.expectedRows ?? rows));
    const columns =
      (this.opts.dictionary ?? 'auto') === 'auto'
        ? plain(groupRows, this.opts.dictionaryPageBytes ?? DEFAULT_DICTIONARY_PAGE_BYTES)
        : [];
    const encoder = parquetCodec().encoder(encoderProps(this.opts, this.rowsPerGroup, columns), (c) => this.take(c), {
      offThread: this.opts.offThread === true,
    });
    this.encoder = encoder;
    return encoder;
  }

  async finish(): Promise<WrittenParquet> {
    if (this.finished) throw new FloeError('InvalidArgument', `Parquet writer for ${this.file} is already finished`);
    if (this.sink)
      throw new FloeError('InvalidArgument', `Parquet writer for ${this.file} streams: use finishStreamed()`);
    this.finished = true;
    let bytes: Uint8Array;
    try {
      if (!this.encoder) {
        bytes = this.emptyFile(); // no rows: a valid file with the schema and zero row groups
      } else {
        await this.encoder.finish();
        bytes = concat(this.chunks, this.emitted);
      }
    } catch (e) {
      throw errorForFile('Internal', this.file, 'cannot write Parquet file', e);
    }
    bytes = annotateUuidColumns(bytes, uuidFieldIds(this.schema), this.file);
    const footer = readParquetFooter(bytes, this.file);
    if (footer.numRows !== this.rows) {
      throw new FloeError(
        'Internal',
        `Parquet writer for ${this.file} wrote ${footer.numRows} rows, expected ${this.rows}`,
        { context: { file: this.file } },
      );
    }
    return { bytes, rowCount: this.rows, footer, fieldMetrics: this.metrics.result() };
  }

  /** [stream] Ends the file: the footer goes to the sink last; returns the file's size, rows and footer. */
  async finishStreamed(): Promise<StreamedParquet> {
    if (this.finished) throw new FloeError('InvalidArgument', `Parquet writer for ${this.file} is already finished`);
    const sink = this.sink;
    if (!sink) throw new FloeError('InvalidArgument', `Parquet writer for ${this.file} has no sink: use finish()`);
    this.finished = true;
    let tail: Uint8Array;
    let body: number;
    try {
      if (!this.encoder) {
        tail = this.emptyFile();
        body = 0;
      } else {
        this.finishing = true;
        await this.encoder.finish();
        if (!this.held) throw new Error('the encoder produced no bytes');
        tail = this.held;
        body = this.emitted - tail.byteLength;
      }
    } catch (e) {
      throw errorForFile('Internal', this.file, 'cannot write Parquet file', e);
    }
    this.held = undefined;
    tail = annotateUuidFooter(tail, uuidFieldIds(this.schema), this.file);
    const byteLength = body + tail.byteLength;
    const footer = readParquetFooterTail(tail, byteLength, this.file);
    if (footer.numRows !== this.rows) {
      throw new FloeError(
        'Internal',
        `Parquet writer for ${this.file} wrote ${footer.numRows} rows, expected ${this.rows}`,
        { context: { file: this.file } },
      );
    }
    await sink(tail);
    return { byteLength, rowCount: this.rows, footer, fieldMetrics: this.metrics.result() };
  }

  /** What goes to the encoder: the batch without omitted (unknown-typed) columns. */
  private encoded(batches: arrow.RecordBatch[]): arrow.Table {
    if (!this.stored) return new arrow.Table(this.schema, batches);
    const { schema, project } = this.stored;
    return new arrow.Table(
      schema,
      batches.map((b) => new arrow.RecordBatch(schema, project(b.data))),
    );
  }

  private checkSchema(batch: arrow.RecordBatch): void {
    const a = batch.schema.fields;
    const b = this.schema.fields;
    if (a.length !== b.length || a.some((f, i) => String(f.type) !== String(b[i]!.type))) {
      throw new FloeError(
        'InvalidArgument',
        `batch schema ${a.map((f) => `${f.name}:${f.type}`).join(', ')} does not match the writer schema of ${this.file}`,
        { context: { file: this.file } },
      );
    }
  }

  /**
   * A chunk from the encoder: kept (whole-file mode), or passed on to the sink — at once before the file is
   * finishing (no footer yet: holding a row group back would keep it in memory beside the next one), one
   * chunk late while it is.
   */
  private async take(chunk: Uint8Array): Promise<void> {
    this.emitted += chunk.byteLength;
    // kept past this call: a copy (ChunkSink: the encoder reuses the chunk's buffer)
    if (!this.sink) {
      this.chunks.push(chunk.slice());
      return;
    }
    if (!this.finishing) return this.sink(chunk);
    // [stream] the newest chunk may be the footer, which finishStreamed() reads (and may amend) first
    const previous = this.held;
    this.held = chunk.slice();
    if (previous) await this.sink(previous);
  }

  private emptyFile(): Uint8Array {
    const ipc = arrow.tableToIPC(new arrow.Table(this.stored?.schema ?? this.schema), 'stream');
    return parquetCodec().encode(ipc, encoderProps(this.opts, 1024));
  }
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

/** Writes one whole table as one file. */
export async function writeParquet(
  table: arrow.Table,
  file: string,
  opts: ParquetWriteOptions = {},
): Promise<WrittenParquet> {
  const w = new ParquetWriter(table.schema, file, opts);
  await w.write(table);
  return w.finish();
}

export interface RollingOptions extends ParquetWriteOptions {
  /** Name used in error messages for the i-th output file (default `<output #i>`). */
  fileName?: (index: number) => string;
  /** Compressed/uncompressed ratio assumed until the first row group is measured (default 0.35). */
  initialCompressionRatio?: number;
}

/**
 * Splits a stream of batches into files of about `targetBytes` each (Iceberg
 * write.target-file-size-bytes). The size of the open file is estimated as encoded bytes already
 * emitted plus the not-yet-encoded rows' Arrow bytes times the compression ratio measured so far.
 */
export async function* rollingFiles(
  batches: AsyncIterable<arrow.Table | arrow.RecordBatch> | Iterable<arrow.Table | arrow.RecordBatch>,
  targetBytes: number,
  opts: RollingOptions = {},
): AsyncGenerator<WrittenParquet> {
  if (!(targetBytes > 0))
    throw new FloeError('InvalidArgument', `target file size must be positive, got ${targetBytes}`);
  const name = opts.fileName ?? ((i: number) => `<output #${i}>`);
  let ratio = opts.initialCompressionRatio ?? 0.35;
  let index = 0;
  let writer: ParquetWriter | undefined;
  let flushedRows = 0; // rows known to be in closed row groups of the open file

  const estimate = (w: ParquetWriter): number => {
    const perRow = w.rowCount ? w.acceptedBytes / w.rowCount : 0;
    const groups = w.rowGroupRows ? Math.floor(w.rowCount / w.rowGroupRows) : 0;
    flushedRows = groups * w.rowGroupRows;
    if (flushedRows > 0 && w.writtenBytes > 0) ratio = w.writtenBytes / (flushedRows * perRow);
    return w.writtenBytes + (w.rowCount - flushedRows) * perRow * ratio;
  };

  for await (const item of batches) {
    for (let batch of batchesOf(item)) {
      while (batch.numRows > 0) {
        writer ??= new ParquetWriter(batch.schema, name(index), opts);
        const perRow = Math.max(1, arrowByteLength(batch) / batch.numRows);
        const room = targetBytes - (writer.rowCount ? estimate(writer) : 0);
        const fit = Math.max(writer.rowCount ? 0 : 1, Math.floor(room / (perRow * ratio)));
        if (fit <= 0) {
          yield await writer.finish();
          writer = undefined;
          index++;
          continue;
        }
        const take = Math.min(fit, batch.numRows);
        await writer.write(take === batch.numRows ? batch : batch.slice(0, take));
        batch = batch.slice(take);
      }
    }
  }
  if (writer && writer.rowCount > 0) yield await writer.finish();
}

/** rollingFiles collected into an array. */
export async function writeRolling(
  batches: AsyncIterable<arrow.Table | arrow.RecordBatch> | Iterable<arrow.Table | arrow.RecordBatch>,
  targetBytes: number,
  opts: RollingOptions = {},
): Promise<WrittenParquet[]> {
  const out: WrittenParquet[] = [];
  for await (const f of rollingFiles(batches, targetBytes, opts)) out.push(f);
  return out;
}

/** NaN counts and NaN-free bounds of float/double fields reachable through structs, as Java Iceberg's writers track them. */
class FloatMetrics {
  private readonly byId = new Map<number, WriterFieldMetrics>();

  observe(batch: arrow.RecordBatch): void {
    batch.schema.fields.forEach((f, i) => this.visit(f, batch.data.children[i]!, 0, batch.numRows));
  }

  /** [rewrite] Figures the codec computed over rows not seen here, as if observed. */
  merge(p: PreparedRowGroup): void {
    p.floatIds.forEach((id, i) => {
      let m = this.byId.get(id);
      if (!m) {
        m = { fieldId: id, nanCount: 0n };
        this.byId.set(id, m);
      }
      m.nanCount += BigInt(p.floatNans[i]!);
      if (!p.floatAny[i]) return;
      const lo = p.floatMins[i]!;
      const hi = p.floatMaxs[i]!;
      if (m.min === undefined || compareFloat(lo, m.min) < 0) m.min = lo;
      if (m.max === undefined || compareFloat(hi, m.max) > 0) m.max = hi;
    });
  }

  result(): Map<number, WriterFieldMetrics> {
    return new Map([...this.byId].map(([k, v]) => [k, { ...v }]));
  }

  /** Visits rows [start, end) of `data`. */
  private visit(field: arrow.Field, data: arrow.Data, start: number, end: number): void {
    const t = field.type as arrow.DataType;
    if (arrow.DataType.isFloat(t) && t.precision !== arrow.Precision.HALF) {
      const id = fieldIdOf(field);
      if (id === undefined) return;
      let m = this.byId.get(id);
      if (!m) {
        m = { fieldId: id, nanCount: 0n };
        this.byId.set(id, m);
      }
      const vals = data.values as Float32Array | Float64Array;
      const checkValid = data.nullCount > 0;
      let nan = 0;
      // plain comparisons in the loop (locals, no per-value calls); only ±0 ties need Java's order
      let min = m.min ?? Infinity;
      let max = m.max ?? -Infinity;
      let any = m.min !== undefined;
      for (let i = start; i < end; i++) {
        if (checkValid && !data.getValid(i)) continue;
        const v = vals[i]!;
        if (v !== v) {
          nan++;
          continue;
        }
        any = true;
        if (v < min || (v === 0 && min === 0 && compareFloat(v, min) < 0)) min = v;
        if (v > max || (v === 0 && max === 0 && compareFloat(v, max) > 0)) max = v;
      }
      if (any) {
        m.min = min;
        m.max = max;
      }
      m.nanCount += BigInt(nan);
      return;
    }
    // Inside lists and maps Iceberg keeps no metrics (see metrics.ts), so only structs are walked.
    if (arrow.DataType.isStruct(t)) t.children.forEach((child, c) => this.visit(child, data.children[c]!, start, end));
  }
}

/** Java Double.compare order without NaN: -0.0 sorts before +0.0. */
export function compareFloat(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === 0 && b === 0) {
    const na = Object.is(a, -0),
      nb = Object.is(b, -0);
    return na === nb ? 0 : na ? -1 : 1;
  }
  return 0;
}
