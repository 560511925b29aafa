import { describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import { parquetMetadata } from 'hyparquet';
import type { Field, FieldType } from '../../../model/table.js';
import {
  arrowSchemaForIceberg,
  readParquetTable,
  rowsFromArrow,
  tableFromRows,
  writeParquet,
} from '../../../connectors/formats/parquet/index.js';
import { distinctOf, plainColumns, populationOf } from '../../../connectors/formats/parquet/dictionary-choice.js';

const p = (name: string): FieldType => ({ kind: 'primitive', name }) as FieldType;
const FIELDS: Field[] = [
  { id: 1, name: 'id', type: p('long'), required: true },
  { id: 2, name: 'note', type: p('string'), required: false },
  { id: 3, name: 'status', type: p('string'), required: false },
  { id: 4, name: 'qty', type: p('int'), required: false },
  { id: 5, name: 'score', type: p('double'), required: false },
  {
    id: 6,
    name: 'st',
    type: { kind: 'struct', fields: [{ id: 7, name: 'x', type: p('string'), required: false }] },
    required: false,
  },
];
const ROWS = 20_000;
const STATUS = ['new', 'paid', 'shipped', 'done'];

function rows(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let seed = 7;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let i = 0; i < ROWS; i++) {
    out.push({
      id: BigInt(i) * 7919n,
      note: i % 97 === 0 ? null : `note ${Math.floor(rnd() * 1e9)} ${'x'.repeat(i % 13)}`,
      status: i % 11 === 0 ? null : STATUS[i % STATUS.length],
      qty: i % 50,
      score: rnd(),
      st: { x: `nested ${i}` },
    });
  }
  return out;
}

/** Data-page encodings per top-level column path, from the footer (hyparquet, independent of floe's parser). */
function encodings(bytes: Uint8Array): Map<string, string[]> {
  const meta = parquetMetadata(bytes);
  const out = new Map<string, string[]>();
  for (const rg of meta.row_groups)
    for (const c of rg.columns) out.set(c.meta_data!.path_in_schema.join('.'), c.meta_data!.encodings);
  return out;
}

describe('dictionary per column (dictionary-choice.ts)', () => {
  const schema = arrowSchemaForIceberg(FIELDS);
  const data = rows();
  const table = tableFromRows(schema, data);

  it('chooses PLAIN only for mostly-distinct top-level columns whose dictionary would overflow', () => {
    // 1M rows per group: ids, notes and random doubles would overflow a 2 MiB dictionary page
    expect(plainColumns(schema, table.batches, 1_000_000, 2 * 1024 * 1024).sort()).toEqual(['id', 'note', 'score']);
    // a row group small enough for every dictionary to fit keeps them all
    expect(plainColumns(schema, table.batches, 1_000, 2 * 1024 * 1024)).toEqual([]);
    // too few rows to judge: every column keeps its dictionary
    expect(plainColumns(schema, [table.batches[0]!.slice(0, 500)], 1_000_000, 2 * 1024 * 1024)).toEqual([]);
  });

  it('writes high-cardinality columns PLAIN, low-cardinality ones with a dictionary, the same rows either way', async () => {
    // as a rewrite task of 1M input rows would (executor.ts passes the task's input rows)
    const auto = await writeParquet(table, 'mem://auto.parquet', {
      maxRowGroupRows: 1_000_000,
      expectedRows: 1_000_000,
    });
    // the same 20,000 rows as a file of their own: no dictionary could overflow, so every column keeps it
    const small = await writeParquet(table, 'mem://small.parquet');
    const all = await writeParquet(table, 'mem://all.parquet', { dictionary: true, maxRowGroupRows: 1_000_000 });
    const none = await writeParquet(table, 'mem://none.parquet', { dictionary: false });
    const a = encodings(auto.bytes);
    for (const c of ['id', 'note', 'score']) expect(a.get(c)).not.toContain('RLE_DICTIONARY');
    for (const c of ['status', 'qty', 'st.x']) expect(a.get(c)).toContain('RLE_DICTIONARY');
    for (const [c, e] of encodings(all.bytes)) expect(e, c).toContain('RLE_DICTIONARY');
    for (const [c, e] of encodings(small.bytes)) expect(e, c).toContain('RLE_DICTIONARY');
    for (const [c, e] of encodings(none.bytes)) expect(e, c).not.toContain('RLE_DICTIONARY');

    for (const w of [auto, small, all, none]) {
      const back = [...rowsFromArrow(await readParquetTable(w.bytes, 'mem://x.parquet'), FIELDS)];
      expect(back.length).toBe(ROWS);
      expect(back).toEqual(data);
      // statistics (Iceberg bounds come from them) are written whatever the encoding
      const meta = parquetMetadata(w.bytes);
      for (const c of meta.row_groups[0]!.columns)
        expect(c.meta_data!.statistics?.min_value, c.meta_data!.path_in_schema.join('.')).toBeDefined();
    }
    // the chosen encodings do not make the file bigger than all-dictionary
    expect(auto.bytes.byteLength).toBeLessThanOrEqual(all.bytes.byteLength);
  }, 180_000);

  it('estimates a row group dictionary from the sample, not from its distinct share', () => {
    const n = 20_000;
    let seed = 11;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const words = Array.from({ length: 53 }, (_, i) => `word${i}`);
    // product: 26,500 equally likely values, 93 % distinct in the sample, a ~300 KB dictionary per row group
    const product = Array.from({ length: n }, () => `${words[Math.floor(rnd() * 53)]}-${Math.floor(rnd() * 500)}`);
    // seq: row/3 plus noise — few values repeat, but only between nearby rows
    const seq = Array.from({ length: n }, (_, i) => BigInt(Math.floor(i / 3) + Math.floor(rnd() * 1000)));
    // customer as pyarrow writes it (large_string): 5 M possible values
    const customer = Array.from({ length: n }, () => `cust-${Math.floor(rnd() * 5_000_000)}`);
    const s = new arrow.Schema([
      new arrow.Field('product', new arrow.Utf8(), true),
      new arrow.Field('seq', new arrow.Int64(), true),
      new arrow.Field('customer', new arrow.LargeUtf8(), true),
    ]);
    const cols = [
      arrow.vectorFromArray(product, new arrow.Utf8()),
      arrow.vectorFromArray(seq, new arrow.Int64()),
      arrow.vectorFromArray(customer, new arrow.LargeUtf8()),
    ];
    const batch = new arrow.RecordBatch(
      s,
      arrow.makeData({
        type: new arrow.Struct(s.fields),
        length: n,
        nullCount: 0,
        children: cols.map((c) => c.data[0]!),
      }),
    );
    // the real dictionaries of an 800,000-row group: product's fits in 2 MiB, seq's (~270,000 longs) and
    // customer's (~740,000 strings) do not
    expect(plainColumns(s, [batch], 800_000, 2 * 1024 * 1024).sort()).toEqual(['customer', 'seq']);
    // a 40,000-row group: seq's ~14,000 longs fit too, customer's ~40,000 strings (~640 KB) still fit
    expect(plainColumns(s, [batch], 40_000, 2 * 1024 * 1024)).toEqual([]);
  });

  it('solves the uniform-draw population from a distinct count', () => {
    // 4,096 draws from 26,500 values show ~3,800 distinct; the solve gives the population back
    const d = distinctOf(26_500, 4_096);
    expect(d).toBeGreaterThan(3_700);
    expect(d).toBeLessThan(3_900);
    expect(Math.abs(populationOf(4_096, d) - 26_500)).toBeLessThan(2);
    expect(populationOf(4_096, 4_096)).toBe(Infinity);
    expect(populationOf(4_096, 1)).toBe(1);
    expect(distinctOf(Infinity, 1_000)).toBe(1_000);
    // few distinct among many draws: a population barely above the distinct count
    const few = populationOf(4_096, 10);
    expect(few).toBeGreaterThanOrEqual(10);
    expect(few).toBeLessThan(10.5);
  });

  it('ignores nulls and reads sliced batches from their own rows', () => {
    const ids = arrow.vectorFromArray(
      Array.from({ length: 20_000 }, (_, i) => (i % 2 ? null : `v${i}`)),
      new arrow.Utf8(),
    );
    const s = new arrow.Schema([new arrow.Field('v', new arrow.Utf8(), true)]);
    const t = new arrow.Table(s, [
      new arrow.RecordBatch(
        s,
        arrow.makeData({
          type: new arrow.Struct(s.fields),
          length: ids.length,
          nullCount: 0,
          children: [ids.data[0]!],
        }),
      ),
    ]);
    expect(plainColumns(s, t.batches, 1_000_000, 1024)).toEqual(['v']);
    // the second half of a column whose first half is one repeated value: the slice's own rows count
    const rep = arrow.vectorFromArray(
      Array.from({ length: 20_000 }, (_, i) => (i < 10_000 ? 'same' : `v${i}`)),
      new arrow.Utf8(),
    );
    const whole = new arrow.RecordBatch(
      s,
      arrow.makeData({ type: new arrow.Struct(s.fields), length: rep.length, nullCount: 0, children: [rep.data[0]!] }),
    );
    expect(plainColumns(s, [whole.slice(0, 10_000)], 1_000_000, 1024)).toEqual([]);
    expect(plainColumns(s, [whole.slice(10_000)], 1_000_000, 1024)).toEqual(['v']);
  });
});
