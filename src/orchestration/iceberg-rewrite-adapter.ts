/**
 * The Iceberg side of a rewrite: reads each input data file a row group at a time, removes the rows that
 * its applicable deletes remove (positions, deletion vectors, equality keys — by the spec's sequence-number
 * rules in DeleteIndex), aligns the rows with the current schema by field id, and describes each output
 * file to the committer with Iceberg metrics.
 *
 * Equality keys are computed with the same value reader that loads the equality delete files, so both
 * sides of the comparison share one representation (a mismatch there would resurrect rows).
 */
import { withRealLocation } from '../../connectors/storage/located-error.js';
import { randomUUID } from 'node:crypto';
import type * as arrow from 'apache-arrow';
import * as Arrow from 'apache-arrow';
import type { DataFile, EqualityDeleteFile, Field, PartitionSpec } from '../../model/index.js';
import { FloeError, errorForFile } from '../../util/errors.js';
import type { RewriteTask } from '../core/planning/plan.js';
import type {
  DirectBatch,
  LiveBatch,
  OutputStream,
  ReadStats,
  RewriteAdapter,
  RowSpan,
  StitchResult,
} from '../core/execution/executor.js';
import { dropRows } from '../core/execution/slice-rows.js';
import {
  arrowSchemaForIceberg,
  castToSchema,
  icebergMetricsFromFooter,
  iterateRowGroups,
  ParquetWriter,
  releaseBytes,
  scanRowGroups,
  type MetricsModeName,
  type ParquetCodec,
  type ParquetWriteOptions,
  type StreamedParquet,
  type WrittenParquet,
} from '../../connectors/formats/parquet/index.js';
import {
  stitchPolicyFromProperties,
  stitchTask,
  type StitchPolicy,
} from '../../connectors/formats/parquet/stitch-task.js'; // [stitch]
import { openRewrite, rewriteIneligibleFields, schemaIpc } from '../../connectors/formats/parquet/rewrite.js'; // [rewrite]
import type { RewrittenRowGroup } from '../../connectors/formats/parquet/writer.js';
import type { CommitIO, NewContentFile } from '../../connectors/iceberg/commit-rewrite.js';
import { deleteFileWriter, type DeleteFileWriter } from '../../connectors/iceberg/delete-writer.js';
import { DeleteIndex, DeleteLoader } from '../../connectors/iceberg/deletes.js';
import type { IcebergIO } from '../../connectors/iceberg/io.js';
import type { IcebergMetadata } from '../../connectors/iceberg/metadata.js';
import { encodeSingleValue } from '../../connectors/iceberg/write-bounds.js';
import { IntKeySet, intKeyable } from '../../connectors/iceberg/equality-keys.js';
import { dataDirOf } from '../../connectors/iceberg/write-locations.js';
import { faultPoint } from '../../util/fault-points.js';

/** How many groups of equality-delete keys a rewrite keeps decoded (see intKeyCache). */
const INT_KEY_GROUPS = 8;

export const ROW_ID_FIELD: Field = {
  id: 2147483540,
  name: '_row_id',
  required: false,
  type: { kind: 'primitive', name: 'long' },
};
export const LAST_UPDATED_SEQ_FIELD: Field = {
  id: 2147483539,
  name: '_last_updated_sequence_number',
  required: false,
  type: { kind: 'primitive', name: 'long' },
};

export interface IcebergRewriteContext {
  md: IcebergMetadata;
  /** Reads table files (remapped to where they live). */
  io: IcebergIO;
  /** Writes and removes outputs at table locations. */
  out: CommitIO;
  /** Every delete file live in the snapshot being rewritten. */
  deleteIndex: DeleteIndex;
  fieldsById: Map<number, Field>;
  nameMapping?: Map<string, number>;
  /** [stitch] Properties layered over the table's when deciding on row-group stitching (`--option k=v`). */
  propertyOverrides?: Record<string, string>;
  /**
   * Output file names start with this instead of a random job id (the distributed seam passes
   * `floe-run-<runId>-<attemptId>`, so a run's uncommitted outputs can be found by name).
   */
  outputPrefix?: string;
  /** [stream] false: buffer each output file whole instead of streaming it (default: stream when `out` can). */
  streamOutputs?: boolean;
  /** [rewrite] false: never the native rewrite fast path (directBatches); also FLOE_NATIVE_REWRITE=0. */
  directRewrite?: boolean;
}

interface InputFile {
  bytes: Uint8Array;
  mask: Uint8Array | undefined;
  /** The input's compressed bytes per row: the executor's output size estimate. */
  bytesPerRow: number;
}

function codecOf(props: Record<string, string>): ParquetCodec {
  const c = (props['write.parquet.compression-codec'] ?? 'zstd').toLowerCase();
  if (c === 'zstd' || c === 'snappy' || c === 'gzip' || c === 'uncompressed' || c === 'brotli' || c === 'lz4_raw')
    return c;
  if (c === 'lz4') return 'lz4_raw';
  throw new FloeError('Unsupported', `write.parquet.compression-codec=${c} is not supported`);
}

function partitionPath(spec: PartitionSpec | undefined, tuple: unknown[]): string {
  if (!spec || spec.fields.length === 0) return '';
  return `${spec.fields.map((f, i) => `${encodeURIComponent(f.name)}=${encodeURIComponent(tuple[i] === null || tuple[i] === undefined ? 'null' : String(tuple[i]))}`).join('/')}/`;
}

/** A value's exact identity as text; tagged so that values of different kinds never meet. */
function exactKeyPart(v: unknown): string {
  if (v === null || v === undefined) return 'N';
  if (ArrayBuffer.isView(v)) return `x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
  if (typeof v === 'bigint') return `b${v}`;
  if (typeof v === 'number') return `n${Object.is(v, -0) ? '-0' : v}`; // Java compares doubles with Double.compare: -0 ≠ 0
  // length-prefixed: strings may hold the NUL separator, and ('a\0sb','c') must not equal ('a','b\0sc')
  if (typeof v === 'string') return `s${v.length}:${v}`;
  if (typeof v === 'boolean') return v ? 'T' : 'F';
  if (v instanceof Date) return `d${v.getTime()}`;
  return `j${JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}` : x))}`;
}

export class IcebergRewriteAdapter implements RewriteAdapter<NewContentFile, WrittenParquet, StreamedParquet> {
  readonly outputFields: Field[];
  readonly outputSchema: arrow.Schema;
  readonly writerOptions: ParquetWriteOptions;
  /** Writes the position deletes / deletion vectors an `eq-to-pos` task turns equality deletes into. */
  readonly deleteWriter: DeleteFileWriter;
  private readonly loader: DeleteLoader;
  private readonly jobId: string;
  private readonly lineage: boolean;
  private readonly stitchPolicy: StitchPolicy; // [stitch]
  private outputSchemaIpc: Uint8Array | undefined; // [rewrite]

  constructor(private readonly ctx: IcebergRewriteContext) {
    this.jobId = ctx.outputPrefix ?? randomUUID();
    const md = ctx.md;
    const schema = md.schemas.find((s) => s.schemaId === md.currentSchemaId);
    if (!schema)
      throw new FloeError('Corrupt', `table ${md.location}: current schema ${md.currentSchemaId} is missing`);
    // v3: rewritten rows keep their row ids and last-updated sequence numbers as real columns
    this.lineage = md.formatVersion >= 3;
    this.outputFields = this.lineage ? [...schema.fields, ROW_ID_FIELD, LAST_UPDATED_SEQ_FIELD] : schema.fields;
    this.outputSchema = arrowSchemaForIceberg(this.outputFields);
    const props = md.properties;
    const num = (k: string, d: number) => (props[k] && /^\d+$/.test(props[k]!) ? Number(props[k]) : d);
    this.writerOptions = {
      codec: codecOf(props),
      rowGroupBytes: num('write.parquet.row-group-size-bytes', 128 * 1024 * 1024),
      pageBytes: num('write.parquet.page-size-bytes', 1024 * 1024),
      dictionaryPageBytes: num('write.parquet.dict-size-bytes', 2 * 1024 * 1024),
      createdBy: 'floe',
    };
    this.loader = new DeleteLoader(ctx.io, ctx.fieldsById);
    this.deleteWriter = deleteFileWriter(md, ctx.out);
    if (ctx.out.openNew && ctx.streamOutputs !== false) this.openOutput = (t, i) => this.streamOutput(t, i); // [stream]
    this.stitchPolicy = stitchPolicyFromProperties(
      { ...props, ...(ctx.propertyOverrides ?? {}) },
      this.writerOptions.codec!,
    ); // [stitch]
  }

  /** An output's Parquet writer, with the table's write properties. */
  newEncoder(location: string, expectedRows: number, sink?: (chunk: Uint8Array) => Promise<void>): ParquetWriter {
    const opts = { expectedRows, ...this.writerOptions, offThread: this.codecThreads };
    return new ParquetWriter(this.outputSchema, location, opts, sink);
  }

  /**
   * [stitch] Row-group stitching (connectors/formats/parquet/stitch-task.ts): copies column chunks when no
   * delete applies to any input and the files already are what a rewrite would write; the reason either
   * way goes into the task's trail.
   */
  async stitch(
    task: RewriteTask,
    stats: ReadStats,
    store: (file: WrittenParquet) => Promise<void>,
  ): Promise<StitchResult> {
    const policy = this.stitchPolicy;
    const skip = (reason: string): StitchResult => {
      task.trail.push({ gate: 'stitch', detail: `not stitched: ${reason}`, outcome: 'skip' });
      return { stitched: false, reason, explain: policy.explicit };
    };
    if (!policy.enabled) return { stitched: false, reason: 'disabled' };
    if (task.deletes.length > 0) return skip(`${task.deletes.length} delete file(s) apply`);
    for (const f of task.inputs) {
      if (f.format !== 'parquet') return skip(`${f.path} is ${f.format.toUpperCase()}`);
      const d = this.ctx.deleteIndex.forDataFile(f);
      if (d.dv || d.positional.length > 0 || d.equality.length > 0) return skip(`deletes apply to ${f.path}`);
    }
    const r = await stitchTask({
      name: task.id,
      files: task.inputs,
      read: (p) => this.ctx.io.read(p),
      readRange: (p, offset, length) => this.ctx.io.readRange(p, offset, length),
      outputSchema: this.outputSchema,
      policy,
      targetFileBytes: task.targetFileSizeBytes,
      nonNullFieldIds: this.lineage ? [ROW_ID_FIELD.id, LAST_UPDATED_SEQ_FIELD.id] : [], // lineage must already be materialised
      onFileRead: (p, bytes, rows) => stats.fileRead(p, bytes, rows),
      store,
    });
    if (!r.stitched) return skip(r.reason);
    task.trail.push({
      gate: 'stitch',
      detail: `stitched ${r.rowGroups} row group(s) of ${r.files} file(s) into ${r.outputs} without decoding`,
      outcome: 'pick',
      values: { rowGroups: r.rowGroups, outputs: r.outputs },
    });
    return { stitched: true, rowGroups: r.rowGroups };
  }

  /** Positions of `file` removed by its applicable deletes, equality deletes included. */
  async deletedPositions(file: DataFile, bytes?: Uint8Array): Promise<Set<number>> {
    const applicable = this.ctx.deleteIndex.forDataFile(file);
    const deleted = await this.loader.deletedPositions(file, applicable);
    if (applicable.equality.length > 0) {
      const data = bytes ?? (await this.ctx.io.read(file.path));
      await this.addEqualityMatches(file, data, applicable.equality, deleted);
    }
    return deleted;
  }

  private async addEqualityMatches(
    file: DataFile,
    bytes: Uint8Array,
    deletes: EqualityDeleteFile[],
    into: Set<number>,
  ): Promise<void> {
    // group delete files by their equality columns: one pass over the data per distinct key shape
    const byShape = new Map<string, EqualityDeleteFile[]>();
    for (const d of deletes) {
      const k = d.equalityFieldIds.join(',');
      byShape.set(k, [...(byShape.get(k) ?? []), d]);
    }
    for (const [, group] of byShape) {
      const fields = group[0]!.equalityFieldIds.map((id) => {
        const f = this.ctx.fieldsById.get(id);
        if (!f)
          throw new FloeError('Corrupt', `equality delete ${group[0]!.path} uses unknown field id ${id}`, {
            context: { file: group[0]!.path },
          });
        return f;
      });
      if (intKeyable(fields)) {
        const set = await this.intDeleteKeys(group, fields);
        if (set && (await this.addIntKeyMatches(bytes, file.path, fields, set, into))) continue;
      }
      const keySets = await Promise.all(group.map((d) => this.equalityDeleteKeys(d, fields)));
      const dataKeys = await this.exactKeys(bytes, file.path, fields);
      dataKeys.forEach((key, pos) => {
        if (keySets.some((s) => s.has(key))) into.add(pos);
      });
    }
  }

  private readonly deleteKeyCache = new Map<string, Promise<Set<string>>>();
  /**
   * Per group of delete files (their paths joined): their keys as one IntKeySet, undefined if not integer.
   * The most recently used INT_KEY_GROUPS only: a task's files share their partition's group, so a run's
   * groups (one per partition) are each needed for a while and then not again; an evicted one is re-read.
   */
  private readonly intKeyCache = new Map<string, Promise<IntKeySet | undefined>>();

  /** The keys of a group of equality delete files with one integer-like key column, as one set. */
  private intDeleteKeys(group: EqualityDeleteFile[], fields: Field[]): Promise<IntKeySet | undefined> {
    const cacheKey = group.map((d) => d.path).join('\u0000');
    let p = this.intKeyCache.get(cacheKey);
    if (p)
      this.intKeyCache.delete(cacheKey); // re-inserted below: most recent last
    else {
      p = (async () => {
        const set = new IntKeySet();
        for (const d of group) {
          if (d.format !== 'parquet') return undefined; // the text path says why
          const bytes = await this.ctx.io.read(d.path);
          const ok = await this.forEachKeyChunk(bytes, d.path, fields, (c) => set.add(c));
          releaseBytes(bytes);
          if (!ok) return undefined;
        }
        return set;
      })();
    }
    this.intKeyCache.set(cacheKey, p);
    for (const k of this.intKeyCache.keys()) {
      if (this.intKeyCache.size <= INT_KEY_GROUPS) break;
      this.intKeyCache.delete(k);
    }
    return p;
  }

  /** Adds to `into` the positions of `path`'s rows whose key is in `set`; false when a chunk is not integer. */
  private addIntKeyMatches(
    bytes: Uint8Array,
    path: string,
    fields: Field[],
    set: IntKeySet,
    into: Set<number>,
  ): Promise<boolean> {
    let at = 0;
    return this.forEachKeyChunk(bytes, path, fields, (c) => {
      const ok = set.match(c, at, (pos) => into.add(pos));
      at += c.length;
      return ok;
    });
  }

  /**
   * The key column of every row of a Parquet file, a chunk at a time in row order, read and cast exactly as
   * exactKeys reads it; stops (false) when `each` says false.
   */
  private async forEachKeyChunk(
    bytes: Uint8Array,
    path: string,
    fields: Field[],
    each: (chunk: arrow.Data) => boolean,
  ): Promise<boolean> {
    for await (const rg of scanRowGroups(bytes, path, {
      fieldIds: fields.map((f) => f.id),
      nameMapping: this.ctx.nameMapping,
    })) {
      const t = castToSchema(rg.table, fields, path);
      for (const chunk of t.getChildAt(0)?.data ?? []) if (!each(chunk)) return false;
    }
    return true;
  }

  /** Keys of an equality delete file, read the same exact way as the data side (see exactKeys). */
  private equalityDeleteKeys(d: EqualityDeleteFile, fields: Field[]): Promise<Set<string>> {
    let p = this.deleteKeyCache.get(d.path);
    if (!p) {
      p = (async () => {
        if (d.format !== 'parquet')
          throw new FloeError(
            'Unsupported',
            `cannot read equality delete file ${d.path}: ${d.format.toUpperCase()} is not supported yet`,
            { context: { file: d.path } },
          );
        const bytes = await this.ctx.io.read(d.path);
        const keys = new Set(await this.exactKeys(bytes, d.path, fields));
        releaseBytes(bytes);
        return keys;
      })();
      this.deleteKeyCache.set(d.path, p);
    }
    return p;
  }

  /**
   * One equality key per row of a Parquet file, over `fields`, through the lossless Parquet layer with
   * both sides cast to the same (current) types. Not the Iceberg reader's hyparquet path: that one turns
   * wide decimals into doubles and non-UTF-8 binary into U+FFFD, so distinct keys would collide and a
   * rewrite would drop live rows that no reader deletes.
   */
  private async exactKeys(bytes: Uint8Array, path: string, fields: Field[]): Promise<string[]> {
    const keys: string[] = [];
    for await (const rg of scanRowGroups(bytes, path, {
      fieldIds: fields.map((f) => f.id),
      nameMapping: this.ctx.nameMapping,
    })) {
      const t = castToSchema(rg.table, fields, path);
      const cols = fields.map((_, i) => t.getChildAt(i));
      for (let r = 0; r < t.numRows; r++) keys.push(cols.map((c) => exactKeyPart(c?.get(r))).join('\u0000'));
    }
    return keys;
  }

  async *batches(task: RewriteTask, stats: ReadStats): AsyncIterable<LiveBatch> {
    for (const file of task.inputs) {
      const input = await this.readInput(file, stats);
      yield* this.fileBatches(file, input);
    }
  }

  /**
   * [rewrite] Whether directBatches hands this table's files to the native codec (each file may still need
   * the JS path, when its columns need a cast only cast.ts does; sort / z-order tasks never take it).
   */
  /**
   * [rewrite] Set by a run whose tasks share this thread at parallelism > 1: the native codec then decodes
   * and encodes them on libuv's threads (codec.ts' CodecThreading).
   */
  codecThreads = false;

  rewritesInCodec(): boolean {
    const off = this.ctx.directRewrite === false || process.env.FLOE_NATIVE_REWRITE === '0';
    return !off && !this.lineage && rewriteIneligibleFields(this.outputFields) === undefined;
  }

  /**
   * [rewrite] batches(), except that each file the native codec can rewrite by itself (openRewrite says when:
   * no lineage columns, flat output fields, plain widenings only) comes as DirectBatches, a row group each,
   * whose rows never cross into JS. Same rows, same order, same row spans and size estimates: the executor
   * rolls outputs at the same row groups. The executor never asks for it for sort / z-order tasks.
   */
  async *directBatches(task: RewriteTask, stats: ReadStats): AsyncIterable<LiveBatch | DirectBatch> {
    if (!this.rewritesInCodec()) {
      yield* this.batches(task, stats);
      return;
    }
    const ipc = (this.outputSchemaIpc ??= schemaIpc(this.outputSchema));
    let native = 0;
    let why: string | undefined; // the first file's reason to take the JS path
    for (const file of task.inputs) {
      const input = await this.readInput(file, stats);
      let opened;
      try {
        opened = openRewrite(input.bytes, file.path, this.outputFields, ipc, {
          ...(this.ctx.nameMapping ? { nameMapping: this.ctx.nameMapping } : {}),
          ...(input.mask ? { mask: input.mask } : {}),
          offThread: this.codecThreads,
        });
      } catch (e) {
        throw withRealLocation(this.ctx.io, file.path, e);
      }
      if (!opened.source) {
        why ??= `${file.path}: ${opened.ineligible}`;
        yield* this.fileBatches(file, input);
        continue;
      }
      native++;
      releaseBytes(input.bytes); // the addon has its own copy, and the JS path is not taken for this file
      const { source, footer } = opened;
      try {
        let rowStart = 0;
        for (const [index, rg] of footer.rowGroups.entries()) {
          let prepared;
          try {
            prepared = await source.prepare(index, true);
          } catch (e) {
            const required = /is required but the data has \d+ nulls/.exec(String((e as Error).message));
            if (required)
              throw new FloeError('Unsupported', `${file.path}: ${required[0]}`, { context: { file: file.path } });
            throw withRealLocation(
              this.ctx.io,
              file.path,
              errorForFile('Corrupt', file.path, 'cannot decode Parquet data of', e),
            );
          }
          const start = rowStart;
          rowStart += rg.numRows;
          const direct: RewrittenRowGroup = { source, prepared };
          yield {
            direct,
            numRows: prepared.kept,
            estimatedBytes: prepared.kept * input.bytesPerRow,
            rows: keptSpans(file.path, start, rg.numRows, input.mask),
          };
        }
        this.checkRowCount(file, rowStart);
      } finally {
        source.close();
      }
    }
    task.trail.push({
      gate: 'rewrite',
      detail: `${native} of ${task.inputs.length} input file(s) rewritten inside the native codec${why ? `; JS path for ${why}` : ''}`,
      outcome: 'info',
      values: { nativeFiles: native, files: task.inputs.length },
    });
  }

  /** An input file's bytes and deletion mask (one byte per row, 1 = deleted; undefined when none is). */
  private async readInput(file: DataFile, stats: ReadStats): Promise<InputFile> {
    if (file.format !== 'parquet') {
      throw new FloeError(
        'Unsupported',
        `cannot rewrite ${file.path}: ${file.format.toUpperCase()} data files are not supported yet`,
        { context: { file: file.path } },
      );
    }
    let bytes: Uint8Array;
    try {
      bytes = await this.ctx.io.read(file.path);
    } catch (e) {
      throw errorForFile('NotFound', file.path, 'cannot read data file', e);
    }
    const mask = deletedMask(await this.deletedPositions(file, bytes), file.recordCount);
    stats.fileRead(file.path, bytes.byteLength, file.recordCount);
    const bytesPerRow = file.recordCount > 0 ? file.sizeBytes / file.recordCount : 0;
    return { bytes, mask, bytesPerRow };
  }

  /** The JS path for one file: decode each row group to Arrow JS, align it, drop its deleted rows. */
  private async *fileBatches(file: DataFile, input: InputFile): AsyncIterable<LiveBatch> {
    const { bytes, mask, bytesPerRow } = input;
    const ids = this.outputFields.map((f) => f.id);
    let rowStart = 0;
    const groups = iterateRowGroups(bytes, file.path, { fieldIds: ids, nameMapping: this.ctx.nameMapping });
    for (;;) {
      let next;
      try {
        next = await groups.next();
      } catch (e) {
        throw withRealLocation(this.ctx.io, file.path, e);
      }
      if (next.done) break;
      const rg = next.value;
      let table = castToSchema(rg.table, this.outputFields, file.path);
      if (this.lineage) table = this.withLineage(table, file, rowStart);
      const start = rowStart;
      const live = mask ? dropRows(table, (i) => mask[start + i] === 1) : table;
      rowStart += rg.numRows;
      yield {
        table: live,
        estimatedBytes: live.numRows * bytesPerRow,
        rows: keptSpans(file.path, start, rg.numRows, mask),
      };
    }
    this.checkRowCount(file, rowStart);
  }

  private checkRowCount(file: DataFile, rows: number): void {
    if (rows !== file.recordCount) {
      throw new FloeError(
        'Corrupt',
        `data file ${file.path} has ${rows} rows but its manifest says ${file.recordCount}`,
        {
          context: { file: file.path },
        },
      );
    }
  }

  /**
   * Fills null _row_id with first_row_id + position and null _last_updated_sequence_number with the file's
   * data sequence number, on the columns' buffers (no per-value JS round trip); a column without nulls is
   * passed through untouched.
   */
  private withLineage(table: arrow.Table, file: DataFile, rowStart: number): arrow.Table {
    const rowIdIdx = this.outputFields.length - 2;
    const seqIdx = this.outputFields.length - 1;
    let at = rowStart;
    const batches = table.batches.map((b) => {
      const first = at;
      at += b.numRows;
      const children = [...b.data.children];
      const ids = children[rowIdIdx]!;
      if (ids.nullCount > 0)
        children[rowIdIdx] = fillNulls(
          ids,
          file.firstRowId === undefined ? undefined : file.firstRowId + BigInt(first),
          1n,
        );
      const seqs = children[seqIdx]!;
      if (seqs.nullCount > 0) children[seqIdx] = fillNulls(seqs, file.dataSequenceNumber, 0n);
      const data = Arrow.makeData({
        type: b.data.type,
        length: b.numRows,
        nullCount: 0,
        children,
      });
      // the exact output schema (field ids live in its metadata)
      return new Arrow.RecordBatch(this.outputSchema, data);
    });
    return new Arrow.Table(this.outputSchema, batches);
  }

  /** Where output `index` of `task` goes: the table's data path, the partition's directory, a unique name. */
  private outputLocation(task: RewriteTask, index: number): string {
    const md = this.ctx.md;
    const spec = md.specs.find((s) => s.specId === task.specId);
    return `${dataDirOf(md)}/${partitionPath(spec, task.partition)}${this.jobId}-${task.id}-${String(index).padStart(5, '0')}.parquet`;
  }

  async storeOutput(
    task: RewriteTask,
    index: number,
    file: WrittenParquet,
  ): Promise<{ out: NewContentFile; location: string; bytes: number }> {
    const location = this.outputLocation(task, index);
    await this.ctx.out.createNew(location, file.bytes);
    faultPoint('iceberg.data.after-first-file');
    const out = this.describeOutput(task, location, { ...file, byteLength: file.bytes.byteLength });
    return { out, location, bytes: file.bytes.byteLength };
  }

  /**
   * [stream] Streams output files through the FileIO's create-if-absent upload (S3 multipart completed
   * with If-None-Match; a local temp file linked into place), so no output file is held whole in memory.
   * Absent when the CommitIO cannot stream (test doubles): outputs then go through storeOutput.
   */
  readonly openOutput?: (task: RewriteTask, index: number) => OutputStream<NewContentFile, StreamedParquet>;

  private streamOutput(task: RewriteTask, index: number): OutputStream<NewContentFile, StreamedParquet> {
    const location = this.outputLocation(task, index);
    const upload = this.ctx.out.openNew!(location);
    return {
      location,
      write: (chunk) => upload.write(chunk),
      complete: async (file) => {
        await upload.close();
        faultPoint('iceberg.data.after-first-file');
        return { out: this.describeOutput(task, location, file), bytes: file.byteLength };
      },
      abort: () => upload.abort(),
    };
  }

  /** The committer's description of a written data file, with Iceberg metrics from its footer. */
  private describeOutput(task: RewriteTask, location: string, file: StreamedParquet): NewContentFile {
    const md = this.ctx.md;
    const mode = (md.properties['write.metadata.metrics.default'] ?? 'truncate(16)') as MetricsModeName;
    const metrics = icebergMetricsFromFooter(file.footer, this.outputFields, { mode, fieldMetrics: file.fieldMetrics });
    const typeOf = (id: number) =>
      this.ctx.fieldsById.get(id)?.type ?? this.outputFields.find((f) => f.id === id)?.type;
    const encode = (m: Map<number, unknown>) => {
      const out = new Map<number, Uint8Array>();
      for (const [id, v] of m) {
        const t = typeOf(id);
        if (t && t.kind === 'primitive') out.set(id, encodeSingleValue(t, v));
      }
      return out;
    };
    return {
      content: 0,
      path: location,
      format: 'PARQUET',
      recordCount: file.rowCount,
      sizeBytes: file.byteLength,
      specId: task.specId,
      partitionOf: task.inputs[0]!.path,
      columnSizes: metrics.columnSizes,
      valueCounts: metrics.valueCounts,
      nullValueCounts: metrics.nullValueCounts,
      nanValueCounts: metrics.nanValueCounts,
      lowerBounds: encode(metrics.lowerBounds),
      upperBounds: encode(metrics.upperBounds),
      splitOffsets: metrics.splitOffsets.map((o) => BigInt(o)),
      sortOrderId: task.order?.kind === 'sort' ? task.order.sortOrderId : 0, // [sort] the table order the rows follow
    };
  }

  async discardOutput(out: NewContentFile): Promise<void> {
    await this.ctx.out.remove(out.path);
  }
}

/**
 * The deleted positions as one byte per row of the file (1 = deleted), undefined when none of its rows is:
 * a typed-array read per row where a Set lookup cost ~10× more. Positions past the file's rows delete nothing.
 */
function deletedMask(deleted: ReadonlySet<number>, rows: number): Uint8Array | undefined {
  if (deleted.size === 0) return undefined;
  const mask = new Uint8Array(rows);
  let any = false;
  for (const p of deleted) {
    if (p >= 0 && p < rows) {
      mask[p] = 1;
      any = true;
    }
  }
  return any ? mask : undefined;
}

/** The positions [start, start + count) of `path` that `deleted` keeps: one span, the deleted ones skipped. */
function keptSpans(path: string, start: number, count: number, deleted: Uint8Array | undefined): RowSpan[] {
  const end = start + count;
  const skip: number[] = [];
  if (deleted) for (let p = deleted.indexOf(1, start); p >= 0 && p < end; p = deleted.indexOf(1, p + 1)) skip.push(p);
  return [skip.length ? { path, start, end, skip } : { path, start, end }];
}

/**
 * An int64 column with each null at row i replaced by `base + i × step` (`base` undefined: nulls stay
 * null). Values are copied as a BigInt64Array; only null positions are computed.
 */
function fillNulls(d: arrow.Data, base: bigint | undefined, step: bigint): arrow.Data {
  if (base === undefined) return d;
  const n = d.length;
  const values = new BigInt64Array(n);
  values.set((d.values as BigInt64Array).subarray(0, n));
  for (let i = 0; i < n; i++) if (!d.getValid(i)) values[i] = base + BigInt(i) * step;
  return Arrow.makeData({ type: d.type as arrow.Int64, length: n, nullCount: 0, data: values });
}
