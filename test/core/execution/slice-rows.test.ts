/**
 * Deletes as a selection vector: dropRows must keep exactly the live rows, value for value, for every column
 * shape — by zero-copy slices when the kept ranges are few, by a gather into one contiguous batch when many.
 */
import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import {
  arrowSchemaForIceberg,
  rowsFromArrow,
  tableFromRows,
  writeParquet,
} from '../../../connectors/formats/parquet/index.js';
import { readParquetTable } from '../../../connectors/formats/parquet/index.js';
import type { Field } from '../../../model/index.js';
import { dropRows, keptRanges, MAX_SLICES_PER_BATCH } from '../../../src/core/execution/slice-rows.js';

const p = (name: string) => ({ kind: 'primitive', name }) as Field['type'];
const fields: Field[] = [
  { id: 1, name: 'id', required: true, type: p('long') },
  { id: 2, name: 'i', required: false, type: p('int') },
  { id: 3, name: 's', required: false, type: p('string') },
  { id: 4, name: 'b', required: false, type: p('boolean') },
  { id: 5, name: 'd', required: false, type: { kind: 'primitive', name: 'decimal', precision: 38, scale: 4 } },
  { id: 6, name: 'ts', required: false, type: p('timestamptz') },
  { id: 7, name: 'u', required: false, type: p('uuid') },
  { id: 8, name: 'bin', required: false, type: p('binary') },
  { id: 9, name: 'f', required: false, type: { kind: 'primitive', name: 'fixed', length: 3 } },
  { id: 10, name: 'dbl', required: false, type: p('double') },
  { id: 11, name: 'day', required: false, type: p('date') },
  {
    id: 12,
    name: 'st',
    required: false,
    type: {
      kind: 'struct',
      fields: [
        { id: 13, name: 'x', required: false, type: p('long') },
        {
          id: 14,
          name: 'tags',
          required: false,
          type: { kind: 'list', elementId: 15, element: p('string'), elementRequired: false },
        },
      ],
    },
  },
  {
    id: 16,
    name: 'm',
    required: false,
    type: { kind: 'map', keyId: 17, key: p('string'), valueId: 18, value: p('int'), valueRequired: false },
  },
];
const schema = arrowSchemaForIceberg(fields);

function row(k: number): Record<string, unknown> {
  const n = (every: number) => k % every === 0;
  return {
    id: BigInt(k) * 7_000_000_000_000n,
    i: n(5) ? null : k - 500,
    s: n(7) ? null : `s${k}-${'é'.repeat(k % 4)}`,
    b: n(3) ? null : k % 2 === 0,
    d: n(11) ? null : `${k}12345678901234567890.${String(k % 10_000).padStart(4, '0')}`,
    ts: n(13) ? null : 1_700_000_000_000_000n + BigInt(k),
    u: n(17) ? null : `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`,
    bin: n(4) ? null : Uint8Array.from([k & 255, 0, 255]),
    f: n(6) ? null : Uint8Array.from([1, k & 255, 3]),
    dbl: n(9) ? null : k === 10 ? Number.NaN : k / 3,
    day: n(8) ? null : 19_000 + k,
    st: n(10)
      ? null
      : {
          x: n(3) ? null : BigInt(-k),
          tags: n(4) ? null : Array.from({ length: k % 3 }, (_, j) => (j === 1 ? null : `t${k}.${j}`)),
        },
    m: n(12) ? null : new Map(Array.from({ length: k % 4 }, (_, j) => [`k${j}`, j === 2 ? null : k * j])),
  };
}

const N = 1_000;
const expected = Array.from({ length: N }, (_, k) => row(k));

async function table(): Promise<arrow.Table> {
  // through Parquet, as the executor gets it (the reader's own buffers), in three batches
  const t = tableFromRows(schema, expected) as arrow.Table;
  const back = await readParquetTable(
    (await writeParquet(t, 'x.parquet', { maxRowGroupRows: 400 })).bytes,
    'x.parquet',
  );
  return new arrow.Table(
    back.schema,
    [0, 333, 700].map((s, i, a) => back.slice(s, a[i + 1] ?? N)).flatMap((x) => x.batches),
  );
}

const live = (t: arrow.Table) => [...rowsFromArrow(t, fields)];

describe('dropRows', () => {
  it('gathers many kept ranges into contiguous batches, value for value, for every column shape', async () => {
    const t = await table();
    let seed = 3;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const deleted = new Set(Array.from({ length: N }, (_, i) => i).filter(() => rand() < 0.1));
    const out = dropRows(t, (i) => deleted.has(i));
    // the input batches of 333, 300 and 200 rows (> 16 kept ranges each) are gathered into one batch each;
    // the small ones (67, 100 rows) stay slices
    expect(out.batches.filter((b) => b.numRows > 100).map((b) => b.numRows).length).toBe(3);
    expect(out.batches.length).toBeLessThan(3 + 2 * (MAX_SLICES_PER_BATCH + 1));
    expect(out.numRows).toBe(N - deleted.size);
    expect(live(out)).toEqual(expected.filter((_, i) => !deleted.has(i)));
    expect(out.schema).toBe(t.schema);
  });

  it('keeps few ranges as zero-copy slices, also across batch boundaries', async () => {
    const t = await table();
    const deleted = new Set([0, 1, 2, 332, 333, 334, 600, 999]);
    const out = dropRows(t, (i) => deleted.has(i));
    expect(keptRanges(N, (i) => deleted.has(i)).length).toBeLessThanOrEqual(MAX_SLICES_PER_BATCH);
    expect(live(out)).toEqual(expected.filter((_, i) => !deleted.has(i)));
    // slices share the reader's buffers
    expect(out.batches[0]!.getChildAt(0)!.data[0]!.values.buffer).toBe(
      t.batches[0]!.getChildAt(0)!.data[0]!.values.buffer,
    );
  });

  it('handles every row deleted, none deleted, and every other row (the most ranges)', async () => {
    const t = await table();
    expect(dropRows(t, () => false)).toBe(t);
    expect(dropRows(t, () => true).numRows).toBe(0);
    const odd = dropRows(t, (i) => i % 2 === 1);
    expect(live(odd)).toEqual(expected.filter((_, i) => i % 2 === 0));
  });

  it('the gathered batches write and read back through Parquet identically', async () => {
    const t = await table();
    const out = dropRows(t, (i) => i % 3 === 0);
    const back = await readParquetTable((await writeParquet(out, 'y.parquet')).bytes, 'y.parquet');
    expect(live(back)).toEqual(expected.filter((_, i) => i % 3 !== 0));
  });

  it('gathers long kept ranges (whole-range copies) as exactly as short ones, from a sliced batch', async () => {
    // 3,000 rows in one batch starting at row 100 of the decoded file: every 41st row deleted leaves ~70
    // ranges of 40 rows, long enough that int64, decimal and string bytes take the block copy
    const rows = Array.from({ length: 3_100 }, (_, k) => row(k));
    const file = await readParquetTable(
      (await writeParquet(tableFromRows(schema, rows) as arrow.Table, 'z.parquet')).bytes,
      'z.parquet',
    );
    const t = new arrow.Table(file.schema, file.slice(100).batches);
    const out = dropRows(t, (i) => i % 41 === 0);
    expect(out.batches.length).toBe(t.batches.length); // gathered, not sliced
    expect(live(out)).toEqual(rows.slice(100).filter((_, i) => i % 41 !== 0));
  });
});
