/** The sort compaction's row encoding (sort-row-codec.ts): every value comes back with its type and bits. */
import { describe, expect, it } from 'vitest';
import { RowEncoder, decodeRow } from '../../../connectors/paimon/sort-row-codec.js';

function roundTrip(rows: unknown[][]): unknown[][] {
  const enc = new RowEncoder();
  for (const r of rows) enc.add(r);
  const { data, offsets } = enc.finish();
  expect(offsets).toHaveLength(rows.length + 1);
  return rows.map((_, i) => decodeRow(data.subarray(offsets[i]!, offsets[i + 1]!)));
}

describe('sort row codec', () => {
  it('keeps every Paimon value representation exactly', () => {
    const rows: unknown[][] = [
      [null, true, false, 0, -0, 1, -1, 2147483647, -2147483648, 2147483648, -2147483649, 0.1, NaN, Infinity],
      [0n, -1n, (1n << 63n) - 1n, -(1n << 63n), 1n << 64n, -(1n << 70n)],
      ['', 'é', '𝄞 z', '-12.30', 'a'.repeat(70_000)],
      [new Uint8Array(), new Uint8Array([0, 255, 7]), Buffer.from([1, 2, 3])],
      [[1, 'x', [null, 2n]], [], null],
      [new Date(0), new Map([[1, 2]])],
      [],
    ];
    const out = roundTrip(rows);
    expect(out).toHaveLength(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const a = rows[i]!;
      const b = out[i]!;
      expect(b).toHaveLength(a.length);
      a.forEach((v, j) => {
        const w = b[j];
        if (v instanceof Uint8Array) {
          expect(w).toBeInstanceOf(Uint8Array);
          expect([...(w as Uint8Array)]).toEqual([...v]);
        } else expect(Object.is(w, v) || JSON.stringify(w, big) === JSON.stringify(v, big), `${i}/${j}`).toBe(true);
        if (v instanceof Date || v instanceof Map) expect(w).toEqual(v);
      });
    }
    expect(Object.is(out[0]![4], -0)).toBe(true);
    expect(typeof out[0]![9]).toBe('number');
    expect(out[1]![4]).toBe(1n << 64n);
  });
  it('refuses corrupt bytes', () => {
    expect(() => decodeRow(new Uint8Array([8, 1, 0, 0, 0, 99]))).toThrow(/corrupt sort row encoding/);
  });
});

function big(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v;
}
