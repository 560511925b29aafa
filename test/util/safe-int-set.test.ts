/**
 * SafeIntSet against a plain Set<number> of the same values: growth, the move from the int32 table to the
 * double table, the int32 minimum (the narrow table's empty marker) and negative numbers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SafeIntSet } from '../../util/safe-int-set.js';

const TWO_32 = 4294967296;
const words = (v: number): [number, number] => {
  const hi = Math.floor(v / TWO_32);
  return [(v - hi * TWO_32) | 0, hi];
};
const add = (s: SafeIntSet, v: number) => s.add(...words(v));
const has = (s: SafeIntSet, v: number) => s.has(...words(v));

const INT32_MIN = -(2 ** 31);
const EDGES = [0, -1, 1, INT32_MIN, INT32_MIN - 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32, -(2 ** 32), 2 ** 53 - 1, -(2 ** 53)];
const safe = fc.oneof(
  fc.constantFrom(...EDGES),
  fc.integer(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.maxSafeInteger().map((v) => v - 2 ** 52),
);

describe('SafeIntSet', () => {
  it('holds exactly the values added, whatever their order and width', () => {
    fc.assert(
      fc.property(fc.array(safe, { maxLength: 200 }), fc.array(safe, { maxLength: 50 }), (values, probes) => {
        const s = new SafeIntSet();
        values.forEach((v) => add(s, v));
        const truth = new Set(values);
        expect(s.size).toBe(truth.size);
        for (const v of [...values, ...probes, ...EDGES]) expect(has(s, v)).toBe(truth.has(v));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps every key through many doublings, then through the move to the double table', () => {
    const s = new SafeIntSet();
    const keys: number[] = [];
    for (let i = 0; i < 100_000; i++) keys.push(((i * 2654435761) % 2 ** 31) - 2 ** 30);
    keys.push(INT32_MIN);
    keys.forEach((k) => add(s, k));
    const truth = new Set(keys);
    expect(s.size).toBe(truth.size);
    expect(keys.every((k) => has(s, k))).toBe(true);
    expect(has(s, 2 ** 31 + 7)).toBe(false);
    add(s, 2 ** 40 + 3); // no longer fits in an int32: every key moves
    expect(s.size).toBe(truth.size + 1);
    expect(keys.every((k) => has(s, k))).toBe(true);
    expect(has(s, 2 ** 40 + 3)).toBe(true);
    expect(has(s, 2 ** 40 + 2)).toBe(false);
    expect(has(s, INT32_MIN)).toBe(true);
    expect(has(s, INT32_MIN + 1)).toBe(truth.has(INT32_MIN + 1));
  });

  it('tells a value from the same low word with another high word', () => {
    const s = new SafeIntSet();
    add(s, 5);
    expect(has(s, 5 + TWO_32)).toBe(false);
    expect(has(s, 5 - TWO_32)).toBe(false);
    add(s, 5 + TWO_32);
    expect(has(s, 5)).toBe(true);
    expect(has(s, 5 - TWO_32)).toBe(false);
  });
});
