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
import { plainColumns } from '../../../connectors/formats/parquet/dictionary-choice.js';

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
