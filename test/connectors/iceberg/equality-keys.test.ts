/**
 * IntKeySet: equality-delete keys on one integer-like column matched on the stored values. Expected matches
 * come from BigInt equality on the test's own values, never from the set.
 */
import * as arrow from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntKeySet, intKeyable } from '../../../connectors/iceberg/equality-keys.js';
import type { Field } from '../../../model/index.js';

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const EDGES = [
  0n,
  -1n,
  1n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  -(2n ** 53n),
  -(2n ** 53n) - 1n,
  LONG_MIN,
  LONG_MAX,
];

function longData(values: (bigint | null)[]): arrow.Data {
  const data = new BigInt64Array(values.map((v) => v ?? 0n));
  const nullBitmap = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v !== null) nullBitmap[i >> 3]! |= 1 << (i & 7);
  });
  const nullCount = values.filter((v) => v === null).length;
  return arrow.makeData({ type: new arrow.Int64(), length: values.length, nullCount, nullBitmap, data });
}

function matches(set: IntKeySet, d: arrow.Data, first = 0): number[] {
  const hits: number[] = [];
  expect(set.match(d, first, (p) => hits.push(p))).toBe(true);
  return hits;
}

const longArb = fc.oneof(fc.constantFrom(...EDGES), fc.bigInt({ min: LONG_MIN, max: LONG_MAX }));
const family = longArb.map((b) => [b, b + 1n, b - 1n].filter((v) => v >= LONG_MIN && v <= LONG_MAX));

describe('IntKeySet', () => {
  it('matches exactly the rows whose long equals a deleted key, neighbours beyond 2^53 included', () => {
    fc.assert(
      fc.property(
        fc.array(family, { minLength: 1, maxLength: 3 }).chain((fams) => {
          const pool = fams.flat();
          const value = fc.option(fc.constantFrom(...pool), { nil: null, freq: 6 });
          return fc.tuple(fc.array(value, { minLength: 1, maxLength: 20 }), fc.array(value, { maxLength: 6 }));
        }),
        ([rows, keys]) => {
          const set = new IntKeySet();
          expect(set.add(longData(keys))).toBe(true);
          const expected = rows.flatMap((v, i) => (keys.some((k) => k === v) ? [i + 7] : []));
          expect(matches(set, longData(rows), 7)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps each edge value distinct from its neighbours', () => {
    for (const v of EDGES) {
      const set = new IntKeySet();
      set.add(longData([v]));
      const around = [v - 1n, v, v + 1n].filter((x) => x >= LONG_MIN && x <= LONG_MAX);
      expect(matches(set, longData(around))).toEqual([around.indexOf(v)]);
    }
  });

  it('matches NULL with NULL only', () => {
    const withNull = new IntKeySet();
    withNull.add(longData([null, 5n]));
    expect(matches(withNull, longData([5n, null, 0n]))).toEqual([0, 1]);
    const without = new IntKeySet();
    without.add(longData([0n]));
    expect(matches(without, longData([null, 0n]))).toEqual([1]);
  });

  it('reads int32 columns, sliced ones at their own row numbers', () => {
    const d = arrow.makeData({
      type: new arrow.Int32(),
      length: 6,
      nullCount: 0,
      data: new Int32Array([1, 2, 3, 4, 5, 6]),
    });
    const set = new IntKeySet();
    set.add(arrow.makeData({ type: new arrow.Int32(), length: 2, nullCount: 0, data: new Int32Array([2, 5]) }));
    expect(matches(set, d)).toEqual([1, 4]);
    const sliced = arrow.makeVector(d).slice(2, 6).data[0]!;
    expect(matches(set, sliced, 100)).toEqual([102]);
  });

  it('declines layouts it does not know (the text keys take over)', () => {
    const set = new IntKeySet();
    const floats = arrow.makeData({ type: new arrow.Float64(), length: 1, nullCount: 0, data: new Float64Array([1]) });
    expect(set.add(floats)).toBe(false);
    expect(set.match(floats, 0, () => {})).toBe(false);
    expect(set.size).toBe(0);
  });

  it('takes one integer-like key column only', () => {
    const f = (id: number, name: string): Field => ({
      id,
      name: `c${id}`,
      required: false,
      type: { kind: 'primitive', name } as Field['type'],
    });
    expect(intKeyable([f(1, 'long')])).toBe(true);
    expect(intKeyable([f(1, 'timestamptz_ns')])).toBe(true);
    expect(intKeyable([f(1, 'date')])).toBe(true);
    expect(intKeyable([f(1, 'string')])).toBe(false);
    expect(intKeyable([f(1, 'double')])).toBe(false);
    expect(intKeyable([f(1, 'long'), f(2, 'long')])).toBe(false);
  });
});
