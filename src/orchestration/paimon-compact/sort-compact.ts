/**
 * Sort compaction of Paimon append tables (Paimon's `sort_compact` action: `order_strategy` order / zorder /
 * hilbert on `order_by` columns), the connector half: the row order resolved against the Paimon schema,
 * and the rewrite of one partition's files into target-size files written in that order.
 *
 * The rows go through floe's external sort (src/core/execution/external-sort.ts, spilling sorted runs past the
 * memory budget) as Arrow batches of a "carrier" schema: the key columns, in types the sort keys read
 * (sort-keys.ts), plus one binary column holding the row's Paimon values encoded exactly
 * (sort-row-codec.ts: bigint, -0, bytes and nested arrays kept), so nothing about a value changes on the way.
 *
 * The output is what Java's overwrite writes: level-0 append files of the current schema, rolled at
 * `target-file-size`, sequence numbers counted from 0 per partition (an overwrite writer restores no
 * previous files), file source APPEND.
 */
import * as arrow from 'apache-arrow';
import { buildData } from '../../../connectors/formats/parquet/index.js';
import { withFieldId } from '../../../model/arrow/field-id.js';
import { FloeError } from '../../../util/errors.js';
import { externalSort, type SortInput } from '../../core/execution/external-sort.js';
import type { FieldType, Schema } from '../../../model/index.js';
import { resolveRowOrder, zorderTerms, type OrderSource, type RowOrder } from '../../core/planning/sort-order.js';
import { appendWriterFor } from '../../../connectors/paimon/compact-append.js';
import { readFileRecords } from '../../../connectors/paimon/compact-merge.js';
import { RowEncoder, decodeRow } from '../../../connectors/paimon/sort-row-codec.js';
import type { BucketWriteContext } from '../../../connectors/paimon/bucket-write.js';
import type { DataFileMeta } from '../../../connectors/paimon/manifest.js';
import type { PaimonFile, PaimonTable } from '../../../connectors/paimon/table.js';
import { toModelField } from '../../../connectors/paimon/types.js';
import { FILE_SOURCE_APPEND, type WrittenDataFile } from '../../../connectors/paimon/write-data-file.js';

export type PaimonSortStrategy = 'sort' | 'zorder' | 'hilbert';

/** What `floe compact --strategy sort|zorder|hilbert` asks of a Paimon table. */
export interface PaimonSortRequest {
  strategy: PaimonSortStrategy;
  /** `--sort-order "a, b"` (strategy sort): Spark's order text; plain columns = Paimon's `order`. */
  sortOrder?: string;
  /** `--columns a,b` (zorder, hilbert): Paimon's `order_by`. */
  columns?: readonly string[];
  memoryBytes?: number;
  spillDir?: string;
}

/** Paimon's `zorder.var-length-contribution`: bytes of a string/binary value in the z-value. */
export const ZORDER_VAR_LENGTH_KEY = 'zorder.var-length-contribution';

/** Paimon's `order_strategy` name of a floe strategy. */
export const PAIMON_ORDER_STRATEGY: Record<PaimonSortStrategy, string> = {
  sort: 'order',
  zorder: 'zorder',
  hilbert: 'hilbert',
};

/** Field id of the carrier's payload column (no Paimon field id is negative). */
const PAYLOAD_FIELD_ID = -1;
const CHUNK_ROWS = 8192;

function bad(table: PaimonTable, message: string): FloeError {
  return new FloeError('InvalidArgument', `Paimon table ${table.location}: ${message}`, {
    context: { table: table.location },
  });
}

/**
 * Throws unless sort compaction applies to `table`: append tables with `bucket = -1` only. Java's
 * SortCompactAction accepts bucket-unaware append tables and dynamic-bucket primary-key tables and
 * refuses fixed buckets ("Sort Compact only supports bucket=-1 yet"); floe refuses primary-key tables too,
 * since overwriting one would reassign keys to buckets and rewrite the dynamic-bucket hash index.
 */
export function assertSortCompactable(table: PaimonTable, strategy: PaimonSortStrategy): void {
  const flag = `--strategy ${strategy}`;
  if (table.schema.primaryKeys.length)
    throw new FloeError(
      'Unsupported',
      `cannot sort-compact Paimon table ${table.location}: it has a primary key (${table.schema.primaryKeys.join(', ')}); ${flag} is for append tables (rows of a primary-key table are kept in key order by its own compaction)`,
      { context: { table: table.location, option: 'primary-key' } },
    );
  const bucket = Number(table.schema.options.bucket ?? '-1');
  if (bucket !== -1)
    throw new FloeError(
      'Unsupported',
      `cannot sort-compact Paimon table ${table.location}: bucket=${table.schema.options.bucket}; sort compaction needs a bucket-unaware table (bucket = -1), as Paimon's sort_compact does (a fixed-bucket table keeps each row in its hash bucket)`,
      { context: { table: table.location, option: 'bucket', value: table.schema.options.bucket } },
    );
  // the sorted rewrite reads every row and commits OVERWRITE without touching the DV index
  if ((table.schema.options['deletion-vectors.enabled'] ?? '').trim().toLowerCase() === 'true')
    throw new FloeError(
      'Unsupported',
      `cannot sort-compact Paimon table ${table.location}: deletion-vectors.enabled=true; floe's sort compaction does not apply or rewrite deletion vectors (plain \`floe compact\` does)`,
      { context: { table: table.location, option: 'deletion-vectors.enabled' } },
    );
  if (table.files.some((f) => f.bucket !== 0))
    throw new FloeError(
      'Unsupported',
      `cannot sort-compact Paimon table ${table.location}: it is bucket-unaware but has files outside bucket 0 (rescaled?)`,
      { context: { table: table.location } },
    );
}

/** The current schema in the neutral model (sort terms are resolved against it). */
function orderSource(table: PaimonTable): OrderSource {
  const schema: Schema = { schemaId: table.schema.id, fields: table.schema.fields.map(toModelField) };
  return { location: table.location, schema };
}

/** The row order of a sort compaction of `table` (Paimon's TableSorter column checks, then floe's key rules). */
export function paimonRowOrder(table: PaimonTable, req: PaimonSortRequest, options: Record<string, string>): RowOrder {
  const src = orderSource(table);
  const exec = {
    ...(req.memoryBytes !== undefined ? { memoryBytes: req.memoryBytes } : {}),
    ...(req.spillDir !== undefined ? { spillDir: req.spillDir } : {}),
  };
  let order: RowOrder;
  if (req.strategy === 'hilbert') {
    const cols = req.columns ?? [];
    if (req.sortOrder !== undefined) throw bad(table, `--strategy hilbert takes --columns a,b, not --sort-order`);
    // Paimon's HilbertIndexer: "Hilbert sort needs at least two columns."
    if (cols.length < 2) throw bad(table, `--strategy hilbert needs at least two columns (--columns a,b)`);
    order = { kind: 'zorder', curve: 'hilbert', terms: zorderTerms(src, cols), varLengthContribution: 8, ...exec };
  } else {
    const v = options[ZORDER_VAR_LENGTH_KEY];
    order = resolveRowOrder(src, {
      strategy: req.strategy,
      ...(req.sortOrder !== undefined ? { sortOrder: req.sortOrder } : {}),
      ...(req.columns !== undefined ? { columns: req.columns } : {}),
      ...(v !== undefined ? { varLengthContribution: Number(v) } : {}),
      ...exec,
    });
  }
  for (const t of order.terms)
    if (t.path.length !== 1)
      throw bad(table, `sort column ${t.name} is inside a ROW; Paimon sorts by top-level columns only`);
  return order;
}

/** The Arrow type a key column is carried in: one whose values sort-keys.ts reads as it expects. */
function carrierType(t: FieldType, name: string, table: PaimonTable): arrow.DataType {
  const n = t.kind === 'primitive' ? t.name : t.kind;
  switch (n) {
    case 'boolean':
      return new arrow.Bool();
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'date':
    case 'time': // Paimon TIME: millis of day (a number)
      return new arrow.Int32();
    case 'long':
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return new arrow.Int64();
    case 'float':
    case 'double':
      return new arrow.Float64();
    case 'decimal': // Paimon decimals are exact text; sort-keys reads text decimals
    case 'string':
      return new arrow.Utf8();
    case 'binary':
    case 'fixed':
      return new arrow.Binary();
  }
  throw bad(table, `column ${name} of type ${n} cannot be a sort key`);
}

interface Carrier {
  schema: arrow.Schema;
  /** Index of each key column in the Paimon row. */
  keyIndex: number[];
}

function carrier(table: PaimonTable, order: RowOrder): Carrier {
  const fields = table.schema.fields;
  const keyIndex: number[] = [];
  const arrowFields = order.terms.map((t) => {
    const i = fields.findIndex((f) => f.id === t.path[0]);
    keyIndex.push(i);
    return new arrow.Field(t.name, carrierType(t.type, t.name, table), true, withFieldId(undefined, t.path[0]!));
  });
  arrowFields.push(new arrow.Field('_floe_row', new arrow.Binary(), false, withFieldId(undefined, PAYLOAD_FIELD_ID)));
  return { schema: new arrow.Schema(arrowFields), keyIndex };
}

function carrierBatch(c: Carrier, rows: readonly unknown[][]): arrow.RecordBatch {
  const enc = new RowEncoder();
  for (const r of rows) enc.add(r);
  const payload = enc.finish();
  const children = c.schema.fields.map((f, k) =>
    k < c.keyIndex.length
      ? buildData(
          f.type,
          rows.map((r) => r[c.keyIndex[k]!] ?? null),
          f.name,
        )
      : arrow.makeData({
          type: new arrow.Binary(),
          length: rows.length,
          nullCount: 0,
          valueOffsets: payload.offsets,
          data: payload.data,
        }),
  );
  const data = arrow.makeData({
    type: new arrow.Struct(c.schema.fields),
    length: rows.length,
    nullCount: 0,
    children,
  });
  return new arrow.RecordBatch(c.schema, data);
}

/** The Paimon values of every row of a sorted carrier batch. */
function rowsOf(batch: arrow.RecordBatch, payload: number): unknown[][] {
  const data = batch.data.children[payload]!;
  const offsets = data.valueOffsets as Int32Array;
  const bytes = data.values as Uint8Array;
  const out: unknown[][] = [];
  for (let i = 0; i < batch.numRows; i++) {
    const j = data.offset + i;
    out.push(decodeRow(bytes.subarray(offsets[j]!, offsets[j + 1]!)));
  }
  return out;
}

export interface SortRewriteContext extends BucketWriteContext {
  order: RowOrder;
  signal?: AbortSignal;
  onSpill?: (info: { dir: string; runs: number; rows: number; bytes: number }) => void;
}

/** Options of the external sort a sort compaction runs (external-sort.ts). */
export interface PaimonRowSortOptions {
  targetBytes?: number;
  signal?: AbortSignal;
  /** Rows per spilled frame and output batch (tests make it small). */
  chunkRows?: number;
  onSpill?: (info: { dir: string; runs: number; rows: number; bytes: number }) => void;
  onSpillDir?: (dir: string) => void;
}

/**
 * Rows of Paimon values (the current schema's fields, in order) sorted by `order`, in batches. The
 * values come out exactly as they went in; spilling follows the order's memory budget.
 */
export async function* sortPaimonRows(
  table: PaimonTable,
  order: RowOrder,
  input: AsyncIterable<{ rows: unknown[][]; estimatedBytes: number }>,
  opts: PaimonRowSortOptions = {},
): AsyncGenerator<unknown[][]> {
  const c = carrier(table, order);
  const payload = c.schema.fields.length - 1;
  const chunk = opts.chunkRows ?? CHUNK_ROWS;
  const source = async function* (): AsyncGenerator<SortInput> {
    for await (const part of input) {
      const perRow = part.rows.length ? part.estimatedBytes / part.rows.length : 0;
      for (let i = 0; i < part.rows.length; i += chunk) {
        const rows = part.rows.slice(i, i + chunk);
        yield { table: new arrow.Table([carrierBatch(c, rows)]), estimatedBytes: rows.length * perRow };
      }
    }
  };
  for await (const out of externalSort(order, c.schema, source(), {
    ...(opts.targetBytes !== undefined ? { targetBytes: opts.targetBytes } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.chunkRows !== undefined ? { chunkRows: opts.chunkRows } : {}),
    ...(opts.onSpill ? { onSpill: opts.onSpill } : {}),
    ...(opts.onSpillDir ? { onSpillDir: opts.onSpillDir } : {}),
  }))
    for (const b of out.table.batches) yield rowsOf(b, payload);
}

/** Rewrites `files` (one partition, all of it) into files ordered by `ctx.order`. */
export async function rewriteSorted(
  ctx: SortRewriteContext,
  files: readonly PaimonFile[],
): Promise<{ after: DataFileMeta[]; written: WrittenDataFile[]; rowsIn: number; bytesRead: number; rowsOut: number }> {
  const bytes = files.reduce((n, f) => n + Number(f.meta.fileSize), 0);
  let rowsIn = 0;
  const input = async function* () {
    for (const f of files) {
      const recs = await readFileRecords(ctx.table, f);
      rowsIn += recs.length;
      ctx.onFileRead?.(f.path, Number(f.meta.fileSize), recs.length);
      yield { rows: recs.map((r) => r.value), estimatedBytes: Number(f.meta.fileSize) };
    }
  };
  const writer = appendWriterFor(ctx, files, FILE_SOURCE_APPEND);
  let seq = 0n;
  try {
    for await (const batch of sortPaimonRows(ctx.table, ctx.order, input(), {
      targetBytes: ctx.targetFileSize,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.onSpill ? { onSpill: ctx.onSpill } : {}),
    }))
      for (const values of batch) await writer.write({ values, sequenceNumber: seq++ });
    const written = await writer.close();
    if (Number(seq) !== rowsIn)
      throw new FloeError('Internal', `sort compaction of ${ctx.table.location}: read ${rowsIn} rows, sorted ${seq}`);
    return { after: written.map((w) => w.meta), written, rowsIn, bytesRead: bytes, rowsOut: Number(seq) };
  } catch (e) {
    await writer.abort();
    throw e;
  }
}
