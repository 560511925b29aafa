/**
 * Writing Paimon data files (Parquet) with the DataFileMeta a Java writer would record for them.
 *
 * Primary-key files use the physical layout of `KeyValue.schema`: `_KEY_<pk>` columns (field id
 * 1073741823 + id), `_SEQUENCE_NUMBER` (2147483646), `_VALUE_KIND` (2147483645), then the table columns
 * with their own ids; rows sorted by key, one record per key. Append files hold the table columns only.
 * Types map as `ParquetSchemaConverter` maps them (TIMESTAMP(≤3) millis, ≤6 micros; TIME millis; DECIMAL
 * by precision, which arrow-rs chooses the same way; ARRAY/MAP/MULTISET/ROW as in write-nested.ts;
 * TIMESTAMP(7..9) as INT96, see write-int96.ts). Files roll at `target-file-size`, estimated from
 * the compressed bytes per row of the inputs (Java checks the real size; output sizes are close, not equal).
 */
import * as arrow from 'apache-arrow';
import { randomUUID } from 'node:crypto';
import { FloeError } from '../../util/errors.js';
import { buildData } from '../../model/arrow/build.js';
import { withFieldId } from '../../model/arrow/field-id.js';
import { ParquetWriter } from '../formats/parquet/writer.js';
import type { ParquetCodec } from '../formats/parquet/types.js';
import { encodeSerializedRow } from './binary-row.js';
import { isInt96Timestamp, int96ArrowType, int96Bytes, int96FieldIds, retypeInt96Columns } from './write-int96.js';
import { isNestedPaimonType, nestedValueWriter, paimonArrowField, paimonArrowType } from './write-nested.js';
import { joinPath, type PaimonWriteIO } from './io.js';
import type { DataFileMeta } from './manifest.js';
import { isRetract, type KeyValue } from './merge-engines.js';
import type { PaimonSchema } from './metadata.js';
import { bucketDirName } from './paths.js';
import { KEY_FIELD_ID_START, SEQUENCE_NUMBER_FIELD_ID, VALUE_KIND_FIELD_ID } from './scan.js';
import { trimmedPrimaryKeyFields } from './table.js';
import type { PaimonField, PaimonType } from './types.js';
import { KEY_STATS_MODE, RowStatsCollector, emptyStats, valueStatsModes, type StatsMode } from './write-stats.js';
import { faultPoint } from '../../util/fault-points.js';

export { assertNestedLayoutsMatch } from './nested-schema-check.js';

/** `FileSource` in DataFileMeta. */
export const FILE_SOURCE_APPEND = 0;
export const FILE_SOURCE_COMPACT = 1;

export interface DataWriteSettings {
  codec: ParquetCodec;
  prefix: string;
  /** `file.suffix.include.compression`: name files `<prefix><uuid>-<n>.<codec>.parquet`. */
  suffixCompression: boolean;
  valueStatsModes: StatsMode[];
  denseStats: boolean;
}

const CODEC_OF: Record<string, ParquetCodec> = {
  zstd: 'zstd',
  snappy: 'snappy',
  gzip: 'gzip',
  lz4: 'lz4_raw',
  none: 'uncompressed',
  uncompressed: 'uncompressed',
};

/** Settings from table options; refuses the ones whose files floe cannot write faithfully. */
export function dataWriteSettings(schema: PaimonSchema, table: string): DataWriteSettings {
  const o = schema.options;
  const refuse = (why: string, option: string): never => {
    throw new FloeError('Unsupported', `Paimon table ${table}: ${why}`, {
      context: { table, option, value: o[option] },
    });
  };
  const format = (o['file.format'] ?? 'parquet').toLowerCase();
  if (format !== 'parquet') refuse(`file.format=${format}: floe writes Parquet data files only`, 'file.format');
  if (o['file.format.per.level'])
    refuse('file.format.per.level is set; floe writes one format for every level', 'file.format.per.level');
  if (o['file.compression.per.level'])
    refuse('file.compression.per.level is set; floe uses one codec for every level', 'file.compression.per.level');
  if (o['data-file.external-paths'])
    refuse('data-file.external-paths is set; floe writes data files inside the table only', 'data-file.external-paths');
  if ((o['data-file.thin-mode'] ?? 'false').toLowerCase() === 'true')
    refuse('data-file.thin-mode=true is not supported by floe', 'data-file.thin-mode');
  const compression = (o['file.compression'] ?? 'zstd').toLowerCase();
  const codec = CODEC_OF[compression];
  if (!codec)
    refuse(
      `file.compression=${compression} is not a codec floe can write (zstd, snappy, gzip, lz4, none)`,
      'file.compression',
    );
  return {
    codec: codec!,
    prefix: o['data-file.prefix'] ?? 'data-',
    suffixCompression: (o['file.suffix.include.compression'] ?? 'false').toLowerCase() === 'true',
    valueStatsModes: valueStatsModes(schema.fields, o, table),
    denseStats: (o['metadata.stats-dense-store'] ?? 'true').toLowerCase() !== 'false',
  };
}

/** Paimon type → Arrow type as the Parquet writer must see it. */
export function arrowTypeForPaimon(t: PaimonType, where: string): arrow.DataType {
  switch (t.root) {
    case 'BOOLEAN':
      return new arrow.Bool();
    case 'TINYINT':
      return new arrow.Int8();
    case 'SMALLINT':
      return new arrow.Int16();
    case 'INT':
      return new arrow.Int32();
    case 'BIGINT':
      return new arrow.Int64();
    case 'FLOAT':
      return new arrow.Float32();
    case 'DOUBLE':
      return new arrow.Float64();
    case 'DECIMAL':
      return new arrow.Decimal(t.scale ?? 0, t.precision ?? 10, 128);
    case 'DATE':
      return new arrow.DateDay();
    case 'TIME':
      return new arrow.TimeMillisecond();
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const p = t.precision ?? 6;
      const tz = t.root === 'TIMESTAMP_LTZ' ? 'UTC' : null;
      if (p <= 3) return new arrow.TimestampMillisecond(tz);
      if (p <= 6) return new arrow.TimestampMicrosecond(tz);
      // Java writes precision 7..9 as INT96 (and reads an INT64 column of such a type as epoch millis)
      return int96ArrowType();
    }
    case 'ARRAY':
    case 'MAP':
    case 'MULTISET':
    case 'ROW':
      // nested members carry ids derived from their column; callers with the id use paimonArrowField
      return paimonArrowType(t, 0, 0, where, arrowTypeForPaimon);
    case 'CHAR':
    case 'VARCHAR':
      return new arrow.Utf8();
    case 'BINARY':
    case 'VARBINARY':
      return new arrow.Binary();
    default:
      break;
  }
  throw new FloeError(
    'Unsupported',
    `${where}: floe cannot write Paimon type ${t.root}${'precision' in t && t.precision !== undefined ? `(${t.precision})` : ''} yet`,
    {
      context: { type: t.root },
    },
  );
}

/** Value as read (binary-row representation) → value in the Arrow column's unit. */
function arrowValue(t: PaimonType): ((v: unknown) => unknown) | undefined {
  if ((t.root === 'TIMESTAMP' || t.root === 'TIMESTAMP_LTZ') && (t.precision ?? 6) <= 3) {
    return (v) => (v === null || v === undefined ? null : (v as bigint) / 1000n);
  }
  if (isInt96Timestamp(t)) return (v) => (v === null || v === undefined ? null : int96Bytes(v as bigint));
  return undefined;
}

interface Column {
  field: arrow.Field;
  convert: ((v: unknown) => unknown) | undefined;
}

function column(name: string, id: number, t: PaimonType, where: string): Column {
  if (isNestedPaimonType(t)) {
    return {
      field: paimonArrowField(name, t, id, 0, where, arrowTypeForPaimon),
      convert: nestedValueWriter(t, where, (leaf) => (isInt96Timestamp(leaf) ? arrowValue(leaf) : undefined)),
    };
  }
  return {
    field: new arrow.Field(name, arrowTypeForPaimon(t, where), t.nullable, withFieldId(undefined, id)),
    convert: arrowValue(t),
  };
}

/** Local wall-clock time stored as if it were UTC, as `Timestamp.fromLocalDateTime(LocalDateTime.now())`. */
export function localCreationTime(nowMs = Date.now()): number {
  return nowMs - new Date(nowMs).getTimezoneOffset() * 60_000;
}

export interface WrittenDataFile {
  meta: DataFileMeta;
  path: string;
}

export interface RollingTarget {
  /** Table location. */
  table: string;
  /** Partition directory ('' when unpartitioned). */
  partitionDir: string;
  bucket: number;
  schema: PaimonSchema;
  settings: DataWriteSettings;
  storage: PaimonWriteIO;
  targetFileSize: number;
  /** Expected compressed bytes per row (from the inputs), for rolling. */
  bytesPerRow: number;
  level: number;
  fileSource: number;
  /** Shared name generator (one uuid per run, counter per file). */
  names: FileNamer;
  nowMs?: number;
}

export class FileNamer {
  private readonly uuid: string;
  private n = 0;
  /** `id` replaces the random part of the names (the distributed seam names a run's files by run and attempt). */
  constructor(
    private readonly settings: DataWriteSettings,
    id?: string,
  ) {
    this.uuid = id ?? randomUUID();
  }
  next(): string {
    const ext = this.settings.suffixCompression
      ? `.${this.settings.codec === 'uncompressed' ? 'none' : this.settings.codec}.parquet`
      : '.parquet';
    return `${this.settings.prefix}${this.uuid}-${this.n++}${ext}`;
  }
}

const CHUNK_ROWS = 4096;

/**
 * Rolling writer of one bucket's output. `row(kv)` gives the physical columns; stats hooks see each record.
 * Output files are uploaded as soon as they are closed; `abort` deletes what was written.
 */
abstract class RollingWriter<R> {
  protected readonly columns: Column[];
  private writer: ParquetWriter | undefined;
  private chunk: unknown[][] = [];
  private rowsInFile = 0;
  private fileName = '';
  readonly written: WrittenDataFile[] = [];

  /** Columns written as 12-byte fixed binaries that become INT96 in the footer (write-int96.ts). */
  private readonly int96Ids: Set<number>;

  constructor(
    protected readonly t: RollingTarget,
    columns: Column[],
  ) {
    this.columns = columns;
    this.int96Ids = int96FieldIds(new arrow.Schema(columns.map((c) => c.field)));
  }

  protected abstract physical(r: R): unknown[];
  protected abstract observe(r: R): void;
  protected abstract fileMeta(
    base: Omit<
      DataFileMeta,
      'minKey' | 'maxKey' | 'keyStats' | 'valueStats' | 'minSequenceNumber' | 'maxSequenceNumber' | 'deleteRowCount'
    >,
  ): DataFileMeta;
  protected abstract resetStats(): void;

  private dir(): string {
    return this.t.partitionDir
      ? joinPath(this.t.table, this.t.partitionDir, bucketDirName(this.t.bucket))
      : joinPath(this.t.table, bucketDirName(this.t.bucket));
  }

  async write(r: R): Promise<void> {
    if (!this.writer) {
      this.fileName = this.t.names.next();
      this.writer = new ParquetWriter(
        new arrow.Schema(this.columns.map((c) => c.field)),
        joinPath(this.dir(), this.fileName),
        {
          codec: this.t.settings.codec,
        },
      );
      this.resetStats();
    }
    this.observe(r);
    this.chunk.push(this.physical(r));
    this.rowsInFile++;
    if (this.chunk.length >= CHUNK_ROWS) await this.flushChunk();
    if (this.rowsInFile * this.t.bytesPerRow >= this.t.targetFileSize) await this.roll();
  }

  private async flushChunk(): Promise<void> {
    if (!this.chunk.length) return;
    const rows = this.chunk;
    this.chunk = [];
    const children = this.columns.map((c, i) => {
      const values = rows.map((r) => (c.convert ? c.convert(r[i]) : r[i]));
      return buildData(c.field.type, values, c.field.name);
    });
    const fields = this.columns.map((c) => c.field);
    const data = arrow.makeData({ type: new arrow.Struct(fields), length: rows.length, nullCount: 0, children });
    await this.writer!.write(new arrow.RecordBatch(new arrow.Schema(fields), data));
  }

  private async roll(): Promise<void> {
    if (!this.writer) return;
    await this.flushChunk();
    const finished = await this.writer.finish();
    this.writer = undefined;
    const path = joinPath(this.dir(), this.fileName);
    const file = { ...finished, bytes: retypeInt96Columns(finished.bytes, this.int96Ids, path) };
    await this.t.storage.createNew(path, file.bytes);
    faultPoint('paimon.data.after-first-file');
    const meta = this.fileMeta({
      fileName: this.fileName,
      fileSize: BigInt(file.bytes.byteLength),
      rowCount: BigInt(file.rowCount),
      schemaId: this.t.schema.id,
      level: this.t.level,
      extraFiles: [],
      creationTime: localCreationTime(this.t.nowMs),
      fileSource: this.t.fileSource,
    });
    this.written.push({ meta, path });
    this.rowsInFile = 0;
  }

  async close(): Promise<WrittenDataFile[]> {
    await this.roll();
    return this.written;
  }

  /** Deletes every file this writer stored (best effort). */
  async abort(): Promise<void> {
    this.writer = undefined;
    await Promise.all(this.written.map((w) => this.t.storage.remove(w.path).catch(() => undefined)));
  }
}

/** Primary-key files: records arrive sorted by key, one per key. */
export class KeyValueFileWriter extends RollingWriter<KeyValue> {
  private readonly keyFields: PaimonField[];
  private keyStats!: RowStatsCollector;
  private valueStats!: RowStatsCollector;
  private firstKey: unknown[] | undefined;
  private lastKey: unknown[] | undefined;
  private minSeq = 0n;
  private maxSeq = 0n;
  private deletes = 0n;

  constructor(t: RollingTarget) {
    const keyFields = trimmedPrimaryKeyFields(t.schema);
    const where = `Paimon table ${t.table}`;
    // Paimon's SchemaValidation refuses such keys; a table that has one was not written by Paimon
    for (const k of keyFields)
      if (isNestedPaimonType(k.type))
        throw new FloeError('Unsupported', `${where}: primary key ${k.name} has nested type ${k.type.root}`, {
          context: { table: t.table, column: k.name },
        });
    super(t, [
      ...keyFields.map((k) => column(`_KEY_${k.name}`, KEY_FIELD_ID_START + k.id, k.type, `${where} key ${k.name}`)),
      column('_SEQUENCE_NUMBER', SEQUENCE_NUMBER_FIELD_ID, { root: 'BIGINT', nullable: false }, where),
      column('_VALUE_KIND', VALUE_KIND_FIELD_ID, { root: 'TINYINT', nullable: false }, where),
      ...t.schema.fields.map((f) => column(f.name, f.id, f.type, `${where} column ${f.name}`)),
    ]);
    this.keyFields = keyFields;
  }

  protected resetStats(): void {
    this.keyStats = new RowStatsCollector(
      this.keyFields,
      this.keyFields.map(() => KEY_STATS_MODE),
    );
    this.valueStats = new RowStatsCollector(this.t.schema.fields, this.t.settings.valueStatsModes);
    this.firstKey = undefined;
    this.deletes = 0n;
  }

  protected physical(kv: KeyValue): unknown[] {
    return [...kv.key, kv.sequenceNumber, kv.kind, ...kv.value];
  }

  protected observe(kv: KeyValue): void {
    if (!this.firstKey) {
      this.firstKey = kv.key;
      this.minSeq = kv.sequenceNumber;
      this.maxSeq = kv.sequenceNumber;
    }
    this.lastKey = kv.key;
    if (kv.sequenceNumber < this.minSeq) this.minSeq = kv.sequenceNumber;
    if (kv.sequenceNumber > this.maxSeq) this.maxSeq = kv.sequenceNumber;
    if (isRetract(kv.kind)) this.deletes++;
    this.keyStats.add(kv.key);
    this.valueStats.add(kv.value);
  }

  protected fileMeta(base: Parameters<RollingWriter<KeyValue>['fileMeta']>[0]): DataFileMeta {
    const keyTypes = this.keyFields.map((k) => k.type);
    const dense = this.t.settings.denseStats ? this.valueStats.dense() : { stats: this.valueStats.all(), cols: null };
    const meta: DataFileMeta = {
      ...base,
      minKey: encodeSerializedRow(keyTypes, this.firstKey!),
      maxKey: encodeSerializedRow(keyTypes, this.lastKey!),
      keyStats: this.keyStats.all(),
      valueStats: dense.stats,
      minSequenceNumber: this.minSeq,
      maxSequenceNumber: this.maxSeq,
      deleteRowCount: this.deletes,
    };
    if (dense.cols) meta.valueStatsCols = dense.cols;
    return meta;
  }
}

/** Append-table rows with the sequence number Java's rewriter gives them (a counter from the first input). */
export interface AppendRow {
  values: unknown[];
  sequenceNumber: bigint;
}

export class AppendFileWriter extends RollingWriter<AppendRow> {
  private valueStats!: RowStatsCollector;
  private minSeq: bigint | undefined;
  private maxSeq = 0n;

  constructor(t: RollingTarget) {
    const where = `Paimon table ${t.table}`;
    super(
      t,
      t.schema.fields.map((f) => column(f.name, f.id, f.type, `${where} column ${f.name}`)),
    );
  }

  protected resetStats(): void {
    this.valueStats = new RowStatsCollector(this.t.schema.fields, this.t.settings.valueStatsModes);
    this.minSeq = undefined;
  }

  protected physical(r: AppendRow): unknown[] {
    return r.values;
  }

  protected observe(r: AppendRow): void {
    if (this.minSeq === undefined) this.minSeq = r.sequenceNumber;
    this.maxSeq = r.sequenceNumber;
    this.valueStats.add(r.values);
  }

  protected fileMeta(base: Parameters<RollingWriter<AppendRow>['fileMeta']>[0]): DataFileMeta {
    const dense = this.t.settings.denseStats ? this.valueStats.dense() : { stats: this.valueStats.all(), cols: null };
    const empty = encodeSerializedRow([], []);
    const meta: DataFileMeta = {
      ...base,
      minKey: empty,
      maxKey: empty,
      keyStats: emptyStats(),
      valueStats: dense.stats,
      minSequenceNumber: this.minSeq ?? 0n,
      maxSequenceNumber: this.maxSeq,
      deleteRowCount: 0n,
    };
    if (dense.cols) meta.valueStatsCols = dense.cols;
    return meta;
  }
}
