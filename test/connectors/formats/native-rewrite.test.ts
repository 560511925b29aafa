/**
 * [rewrite] The native rewrite fast path (rewrite.ts / native rewrite.rs) against the JS path it replaces
 * (iterateRowGroups → castToSchema → dropRows → ParquetWriter.write): the same file bytes, rows and Iceberg
 * metrics on files with deletes, nulls, every flat type and schema evolution; and JS where only cast.ts can align.
 */
import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import {
  ParquetWriter,
  arrowSchemaForIceberg,
  castToSchema,
  icebergMetricsFromFooter,
  iterateRowGroups,
  readParquetTable,
  rowsFromArrow,
  tableFromRows,
  writeParquet,
  type WrittenParquet,
} from '../../../connectors/formats/parquet/index.js';
import { openRewrite, rewriteIneligibleFields, schemaIpc } from '../../../connectors/formats/parquet/rewrite.js';
import { FIELD_ID_KEY } from '../../../model/arrow/field-id.js';
import { dropRows } from '../../../src/core/execution/slice-rows.js';
import type { Field, FieldType } from '../../../model/index.js';

const p = (name: string, extra: Partial<FieldType> = {}): FieldType =>
  ({ kind: 'primitive', name, ...extra }) as FieldType;
const before: Field[] = [
  { id: 1, name: 'id', required: true, type: p('int') },
  { id: 2, name: 'f', required: false, type: p('float') },
  { id: 3, name: 'd', required: false, type: p('decimal', { precision: 9, scale: 2 }) },
  { id: 4, name: 'ts', required: false, type: p('timestamptz') },
  { id: 5, name: 'tsn', required: false, type: p('timestamp') },
  { id: 6, name: 'u', required: false, type: p('uuid') },
  { id: 7, name: 'b', required: false, type: p('binary') },
  { id: 8, name: 's', required: false, type: p('string') },
  { id: 9, name: 'ok', required: false, type: p('boolean') },
  { id: 10, name: 'day', required: false, type: p('date') },
  { id: 11, name: 't', required: false, type: p('time') },
  { id: 12, name: 'fx', required: false, type: p('fixed', { length: 3 }) },
  { id: 13, name: 'x', required: false, type: p('double') },
  { id: 14, name: 'big', required: false, type: p('decimal', { precision: 30, scale: 4 }) },
];
/** The current schema: int→long, float→double, decimal(9,2)→(12,2), a column added (absent from the file). */
const after: Field[] = [
  { ...before[0]!, type: p('long') },
  { ...before[1]!, type: p('double') },
  { ...before[2]!, type: p('decimal', { precision: 12, scale: 2 }) },
  ...before.slice(3),
  { id: 15, name: 'added', required: false, type: p('string') },
];

const ROWS = 3000;
const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const doubles = [Number.NaN, -0, 0, Infinity, -Infinity, 1.5, -2.25];
function row(i: number): Record<string, unknown> {
  const n = i % 11 === 0; // nulls in every optional column
  return {
    id: i,
    f: n ? null : i % 13 === 0 ? Number.NaN : i / 4,
    d: n ? null : `${i}.${String(i % 100).padStart(2, '0')}`,
    ts: n ? null : BigInt(1_700_000_000_000_000 + i * 1_000_003),
    tsn: n ? null : BigInt(-1_000_000 * i),
    u: n ? null : uuid(i),
    b: n ? null : new Uint8Array([i & 255, (i >> 8) & 255, 0xff]),
    s: n ? null : `value ${(i * 7919) % 2003}`,
    ok: n ? null : i % 3 === 0,
    day: n ? null : 19000 + (i % 400),
    t: n ? null : BigInt(i) * 1_000_000n,
    fx: n ? null : new Uint8Array([1, 2, i & 255]),
    x: n ? null : doubles[i % doubles.length]! * (i % 5),
    big: n ? null : `${BigInt(i) * 10_000_000_000_000n}.0001`,
  };
}

async function inputFile(): Promise<Uint8Array> {
  const table = tableFromRows(
    arrowSchemaForIceberg(before),
    Array.from({ length: ROWS }, (_, i) => row(i)),
  );
  return (await writeParquet(table, 'in.parquet', { maxRowGroupRows: 1000 })).bytes;
}

const writeOpts = { maxRowGroupRows: 700, expectedRows: ROWS };

/** Today's path, as IcebergRewriteAdapter.batches runs it. */
async function jsPath(
  bytes: Uint8Array,
  fields: Field[],
  mask?: Uint8Array,
  nameMapping?: Map<string, number>,
): Promise<WrittenParquet> {
  const w = new ParquetWriter(arrowSchemaForIceberg(fields), 'out.parquet', writeOpts);
  let start = 0;
  const opts = { fieldIds: fields.map((f) => f.id), ...(nameMapping ? { nameMapping } : {}) };
  for await (const rg of iterateRowGroups(bytes, 'in.parquet', opts)) {
    const t = castToSchema(rg.table, fields, 'in.parquet');
    const at = start;
    const live = mask ? dropRows(t, (i) => mask[at + i] === 1) : t;
    start += rg.numRows;
    if (live.numRows > 0) await w.write(live);
  }
  return w.finish();
}

async function fastPath(
  bytes: Uint8Array,
  fields: Field[],
  mask?: Uint8Array,
  nameMapping?: Map<string, number>,
): Promise<WrittenParquet> {
  const schema = arrowSchemaForIceberg(fields);
  const opened = openRewrite(bytes, 'in.parquet', fields, schemaIpc(schema), {
    ...(mask ? { mask } : {}),
    ...(nameMapping ? { nameMapping } : {}),
  });
  if (!opened.source) throw new Error(`ineligible: ${opened.ineligible}`);
  const w = new ParquetWriter(schema, 'out.parquet', writeOpts);
  try {
    for (let i = 0; i < opened.footer.rowGroups.length; i++)
      await w.writeRewritten({ source: opened.source, prepared: await opened.source.prepare(i, true) });
  } finally {
    opened.source.close();
  }
  return w.finish();
}

async function rowsOf(file: WrittenParquet): Promise<Record<string, unknown>[]> {
  return [...rowsFromArrow(await readParquetTable(file.bytes, 'out.parquet'), after)];
}

const masks: [string, (i: number) => boolean][] = [
  ['no deletes', () => false],
  ['a few ranges (zero-copy slices)', (i) => (i >= 100 && i < 140) || i === 999 || i === 1000 || i === 2500],
  ['scattered (gathered batches)', (i) => i % 7 === 3 || i % 31 === 0],
  ['a whole row group and the rest scattered', (i) => (i >= 1000 && i < 2000) || i % 5 === 0],
];

describe('native rewrite fast path', () => {
  it.each(masks)('writes the bytes, rows and metrics of the JS path: %s', async (_name, deleted) => {
    const bytes = await inputFile();
    const mask = new Uint8Array(ROWS);
    for (let i = 0; i < ROWS; i++) mask[i] = deleted(i) ? 1 : 0;
    const m = mask.some((b) => b === 1) ? mask : undefined;
    const js = await jsPath(bytes, after, m);
    const fast = await fastPath(bytes, after, m);
    const kept = ROWS - mask.reduce((n, b) => n + b, 0);
    expect(fast.rowCount).toBe(kept);
    expect(js.rowCount).toBe(kept);
    const rows = await rowsOf(fast);
    expect(rows).toEqual(await rowsOf(js));
    // independent of both paths: the surviving rows are the input's rows, aligned by hand
    const expected = Array.from({ length: ROWS }, (_, i) => i).filter((i) => !deleted(i));
    expect(rows.map((r) => r.id)).toEqual(expected.map((i) => BigInt(i)));
    expect(rows.every((r) => r.added === null)).toBe(true);
    expect(rows.find((r) => r.id === 4n)?.d).toBe('4.04');
    expect(icebergMetricsFromFooter(fast.footer, after, { fieldMetrics: fast.fieldMetrics })).toEqual(
      icebergMetricsFromFooter(js.footer, after, { fieldMetrics: js.fieldMetrics }),
    );
    expect(fast.fieldMetrics).toEqual(js.fieldMetrics);
    expect(fast.footer.rowGroups.map((g) => g.numRows)).toEqual(js.footer.rowGroups.map((g) => g.numRows));
    expect(Buffer.from(fast.bytes).equals(Buffer.from(js.bytes))).toBe(true);
  });

  it('finds the columns of a file without field ids by the name mapping, as read.ts does', async () => {
    const named = tableFromRows(
      new arrow.Schema(arrowSchemaForIceberg(before).fields.map((f) => new arrow.Field(f.name, f.type, f.nullable))),
      Array.from({ length: ROWS }, (_, i) => row(i)),
    );
    const bytes = (await writeParquet(named, 'in.parquet', { maxRowGroupRows: 1000 })).bytes;
    const mapping = new Map(before.map((f) => [f.name, f.id]));
    const mask = new Uint8Array(ROWS).map((_, i) => (i % 3 === 0 ? 1 : 0));
    const js = await jsPath(bytes, after, mask, mapping);
    const fast = await fastPath(bytes, after, mask, mapping);
    expect(fast.rowCount).toBe(ROWS - ROWS / 3);
    expect((await rowsOf(fast)).map((r) => r.s)).toEqual(
      Array.from({ length: ROWS }, (_, i) => i)
        .filter((i) => i % 3 !== 0)
        .map((i) => row(i).s),
    );
    expect(Buffer.from(fast.bytes).equals(Buffer.from(js.bytes))).toBe(true);
  });

  it('keeps float NaN counts and ±0 bounds exact', async () => {
    const fast = await fastPath(await inputFile(), after);
    const x = fast.fieldMetrics?.get(13);
    expect(x?.nanCount).toBeGreaterThan(0n);
    expect(Object.is(x?.min, -Infinity)).toBe(true);
    expect(Object.is(x?.max, Infinity)).toBe(true);
  });

  it('leaves to the JS path what only cast.ts aligns', async () => {
    const bytes = await inputFile();
    const ipc = (f: Field[]) => schemaIpc(arrowSchemaForIceberg(f));
    const withDefault = [...after.slice(0, -1), { ...after[after.length - 1]!, initialDefault: 'x' }];
    expect(openRewrite(bytes, 'in.parquet', withDefault, ipc(withDefault), {}).ineligible).toMatch(/initial-default/);
    const required = [...after.slice(0, -1), { ...after[after.length - 1]!, required: true }];
    expect(openRewrite(bytes, 'in.parquet', required, ipc(required), {}).ineligible).toMatch(
      /required column added is absent/,
    );
    const nested: Field[] = [
      ...after,
      {
        id: 16,
        name: 'st',
        required: false,
        type: { kind: 'struct', fields: [{ id: 17, name: 'a', required: false, type: p('int') }] },
      },
    ];
    expect(rewriteIneligibleFields(nested)).toMatch(/nested/);

    // a millisecond timestamp column: cast.ts rescales it, the fast path must not take the file
    const ms = new arrow.Field('ts', new arrow.TimestampMillisecond('UTC'), true, new Map([[FIELD_ID_KEY, '4']]));
    const idField = new arrow.Field('id', new arrow.Int64(), false, new Map([[FIELD_ID_KEY, '1']]));
    const legacy = new arrow.Table({
      id: arrow.makeVector(new BigInt64Array([1n, 2n])),
      ts: arrow.makeVector(new BigInt64Array([1000n, 2000n])),
    });
    const schema = new arrow.Schema([idField, ms]);
    const file = await writeParquet(
      new arrow.Table(
        schema,
        legacy.batches.map((b) => new arrow.RecordBatch(schema, b.data)),
      ),
      'legacy.parquet',
    );
    const target = [after[0]!, after[3]!];
    const r = openRewrite(file.bytes, 'legacy.parquet', target, ipc(target), {});
    expect(r.ineligible).toMatch(/column ts is Timestamp\(ms/);
  });
});
