/**
 * releaseBytes and scanRowGroups (issue 27's memory): bytes a reader is done with are given back at once by
 * detaching their ArrayBuffer — only a buffer that owns all of its ArrayBuffer, never a view into another's
 * memory — and scanRowGroups gives back each row group's decoded table when the next one is asked for, while
 * iterateRowGroups leaves every table intact.
 */
import type * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import {
  ParquetWriter,
  arrowSchemaForIceberg,
  codecByName,
  iterateRowGroups,
  releaseBytes,
  rowsFromArrow,
  scanRowGroups,
  tableFromRows,
} from '../../../connectors/formats/parquet/index.js';
import type { Field } from '../../../model/index.js';

codecByName('native'); // loads the addon (throws, naming why, when it cannot)

const fields: Field[] = [
  { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 's', required: false, type: { kind: 'primitive', name: 'string' } },
];
const schema = arrowSchemaForIceberg(fields);
const ROWS = 20_000;
const GROUP = 5_000;

async function threeRowGroupFile(): Promise<Uint8Array> {
  const w = new ParquetWriter(schema, 'r.parquet', { maxRowGroupRows: GROUP });
  const rows = Array.from({ length: ROWS }, (_, i) => ({ id: BigInt(i), s: `row ${i} ${'x'.repeat(i % 40)}` }));
  await w.write(tableFromRows(schema, rows) as arrow.Table);
  return (await w.finish()).bytes;
}

const firstId = (t: arrow.Table) => [...rowsFromArrow(t.slice(0, 1), fields)][0]?.id;

describe('releaseBytes', () => {
  it('frees a buffer that owns its whole ArrayBuffer', () => {
    const bytes = new Uint8Array(1 << 20).fill(7);
    releaseBytes(bytes);
    expect(bytes.byteLength).toBe(0);
    expect(bytes.buffer.byteLength).toBe(0);
  });

  it('leaves alone a view into a larger buffer, a small buffer and Node pool slices', () => {
    const big = new Uint8Array(1 << 20).fill(1);
    const view = big.subarray(1024, 1 << 19);
    releaseBytes(view);
    expect(view.byteLength).toBe((1 << 19) - 1024);
    expect(big[5]).toBe(1);
    const small = new Uint8Array(1000).fill(2);
    releaseBytes(small);
    expect(small.byteLength).toBe(1000);
    const pooled = Buffer.from('a pooled buffer shares its ArrayBuffer with others');
    releaseBytes(pooled);
    expect(pooled.toString()).toBe('a pooled buffer shares its ArrayBuffer with others');
  });
});

describe('scanRowGroups', () => {
  it('decodes every row group like iterateRowGroups, and frees each table once the next is asked for', async () => {
    const bytes = await threeRowGroupFile();
    const kept: arrow.Table[] = [];
    const ids: unknown[] = [];
    for await (const rg of iterateRowGroups(bytes, 'r.parquet')) {
      kept.push(rg.table);
      ids.push(firstId(rg.table));
    }
    expect(ids).toEqual([0n, 5_000n, 10_000n, 15_000n]);
    expect(kept.map(firstId)).toEqual(ids); // iterateRowGroups: every table still reads

    const scanned: arrow.Table[] = [];
    const seen: unknown[] = [];
    for await (const rg of scanRowGroups(bytes, 'r.parquet')) {
      seen.push(firstId(rg.table)); // read while it is current
      expect(rg.table.numRows).toBe(GROUP);
      scanned.push(rg.table);
    }
    expect(seen).toEqual(ids);
    // the tables read as empty afterwards: their memory went back when the scan moved on
    for (const t of scanned) expect(t.data[0]!.children[0]!.values.byteLength).toBe(0);
    expect(bytes.byteLength).toBeGreaterThan(0); // the file's own bytes stay the caller's
  });

  it('frees the current table when the reader stops early', async () => {
    const bytes = await threeRowGroupFile();
    let first: arrow.Table | undefined;
    for await (const rg of scanRowGroups(bytes, 'r.parquet')) {
      first = rg.table;
      break;
    }
    expect(first!.data[0]!.children[0]!.values.byteLength).toBe(0);
  });
});
