/**
 * EqualityKeySet: equality-delete keys matched on the stored values by hash, confirmed byte for byte.
 * Expected matches come from the test's own values (BigInt / string / Object.is-style equality as Iceberg
 * compares), never from the set; every case also runs with a hash that makes all keys collide.
 */
import * as arrow from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EqualityKeySet, murmur3, type KeyHash } from '../../../connectors/iceberg/equality-keys.js';

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
  return arrow.makeData({
    type: new arrow.Int64(),
    length: values.length,
    ...bitmap(values.map((v) => v !== null)),
    data,
  });
}

/** Every key the same hash: lookups walk one probe chain and only the byte comparison tells keys apart. */
const collide: KeyHash = () => 7;
const HASHES: [string, KeyHash][] = [
  ['murmur3', murmur3],
  ['forced collisions', collide],
];

function matches(set: EqualityKeySet, d: arrow.Data | arrow.Data[], first = 0): number[] {
  const cols = Array.isArray(d) ? d : [d];
  const mask = new Uint8Array(first + (cols[0]?.length ?? 0));
  expect(set.match(cols, first, mask)).toBe(true);
  return [...mask.keys()].filter((i) => mask[i] === 1);
}

function setOf(hash: KeyHash, ...chunks: (arrow.Data | arrow.Data[])[]): EqualityKeySet {
  const set = new EqualityKeySet(hash);
  for (const c of chunks) expect(set.add(Array.isArray(c) ? c : [c])).toBe(true);
  return set;
}

function bitmap(valid: boolean[]): { nullBitmap: Uint8Array; nullCount: number } {
  const nullBitmap = new Uint8Array((valid.length + 7) >> 3);
  valid.forEach((v, i) => {
    if (v) nullBitmap[i >> 3]! |= 1 << (i & 7);
  });
  return { nullBitmap, nullCount: valid.filter((v) => !v).length };
}

const strData = (values: (string | null)[], binary = false): arrow.Data => {
  const vec = arrow.vectorFromArray(
    values.map((v) => (v === null ? null : binary ? new TextEncoder().encode(v) : v)),
    binary ? new arrow.Binary() : new arrow.Utf8(),
  );
  return vec.data[0]!;
};

const f64Data = (values: (number | null)[]): arrow.Data =>
  arrow.makeData({
    type: new arrow.Float64(),
    length: values.length,
    ...bitmap(values.map((v) => v !== null)),
    data: new Float64Array(values.map((v) => v ?? 0)),
  });

const tsNsData = (values: bigint[]): arrow.Data =>
  arrow.makeData({
    type: new arrow.TimestampNanosecond(),
    length: values.length,
    nullCount: 0,
    data: new BigInt64Array(values),
  });

/** decimal(38, scale) from unscaled values, as 128-bit little-endian two's complement words. */
const decData = (unscaled: bigint[], scale: number): arrow.Data => {
  const words = new Uint32Array(unscaled.length * 4);
  unscaled.forEach((v, i) => {
    let x = BigInt.asUintN(128, v);
    for (let w = 0; w < 4; w++, x >>= 32n) words[4 * i + w] = Number(x & 0xffffffffn);
  });
  return arrow.makeData({
    type: new arrow.Decimal(scale, 38, 128),
    length: unscaled.length,
    nullCount: 0,
    data: words,
  });
};

const longArb = fc.oneof(fc.constantFrom(...EDGES), fc.bigInt({ min: LONG_MIN, max: LONG_MAX }));
const family = longArb.map((b) => [b, b + 1n, b - 1n].filter((v) => v >= LONG_MIN && v <= LONG_MAX));

describe.each(HASHES)('EqualityKeySet (%s)', (_name, hash) => {
  it('matches exactly the rows whose long equals a deleted key, neighbours beyond 2^53 included', () => {
    fc.assert(
      fc.property(
        fc.array(family, { minLength: 1, maxLength: 3 }).chain((fams) => {
          const pool = fams.flat();
          const value = fc.option(fc.constantFrom(...pool), { nil: null, freq: 6 });
          return fc.tuple(fc.array(value, { minLength: 1, maxLength: 20 }), fc.array(value, { maxLength: 6 }));
        }),
        ([rows, keys]) => {
          const set = setOf(hash, longData(keys));
          const expected = rows.flatMap((v, i) => (keys.some((k) => k === v) ? [i + 7] : []));
          expect(matches(set, longData(rows), 7)).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps each edge value distinct from its neighbours', () => {
    for (const v of EDGES) {
      const set = setOf(hash, longData([v]));
      const around = [v - 1n, v, v + 1n].filter((x) => x >= LONG_MIN && x <= LONG_MAX);
      expect(matches(set, longData(around))).toEqual([around.indexOf(v)]);
    }
  });

  it('matches NULL with NULL only', () => {
    expect(matches(setOf(hash, longData([null, 5n])), longData([5n, null, 0n]))).toEqual([0, 1]);
    expect(matches(setOf(hash, longData([0n])), longData([null, 0n]))).toEqual([1]);
  });

  it('reads int32 columns, sliced ones at their own row numbers', () => {
    const d = arrow.makeData({
      type: new arrow.Int32(),
      length: 6,
      nullCount: 0,
      data: new Int32Array([1, 2, 3, 4, 5, 6]),
    });
    const set = setOf(
      hash,
      arrow.makeData({ type: new arrow.Int32(), length: 2, nullCount: 0, data: new Int32Array([2, 5]) }),
    );
    expect(matches(set, d)).toEqual([1, 4]);
    const sliced = arrow.makeVector(d).slice(2, 6).data[0]!;
    expect(matches(set, sliced, 100)).toEqual([102]);
  });

  it('matches string and binary keys byte for byte, empty and null apart, sliced ones too', () => {
    const keys = ['a', '', 'é', 'a\u0000b', null];
    const rows = ['a', 'ab', '', 'e', 'é', 'a\u0000b', 'a\u0000', null, 'A'];
    const expected = rows.flatMap((v, i) => (keys.includes(v) ? [i] : []));
    for (const binary of [false, true]) {
      const set = setOf(hash, strData(keys, binary));
      expect(matches(set, strData(rows, binary))).toEqual(expected);
      const sliced = arrow.makeVector(strData(rows, binary)).slice(3).data[0]!;
      expect(matches(set, sliced)).toEqual(expected.filter((i) => i >= 3).map((i) => i - 3));
    }
  });

  it('matches multi-column keys as the AND of their columns, nulls included', () => {
    // (id, name): the same parts in other combinations must not match
    const set = setOf(hash, [longData([1n, 2n, null]), strData(['x', 'y', 'z'])]);
    const ids = longData([1n, 1n, 2n, 2n, null, null, 3n]);
    const names = strData(['x', 'y', 'y', 'x', 'z', null, 'x']);
    expect(matches(set, [ids, names])).toEqual([0, 2, 4]);
    // ('ab','c') is not ('a','bc'): each part carries its length
    const s2 = setOf(hash, [strData(['ab']), strData(['c'])]);
    expect(matches(s2, [strData(['a', 'ab']), strData(['bc', 'c'])])).toEqual([1]);
  });

  it('compares doubles as Java does: every NaN equals NaN, -0.0 is not 0.0', () => {
    const otherNaN = new Float64Array(new BigInt64Array([0x7ff8000000000001n]).buffer)[0]!;
    expect(Number.isNaN(otherNaN)).toBe(true);
    const rows = f64Data([0, -0, Number.NaN, otherNaN, 1.5, null, Number.POSITIVE_INFINITY]);
    expect(matches(setOf(hash, f64Data([Number.NaN])), rows)).toEqual([2, 3]);
    expect(matches(setOf(hash, f64Data([0])), rows)).toEqual([0]);
    expect(matches(setOf(hash, f64Data([-0])), rows)).toEqual([1]);
    expect(matches(setOf(hash, f64Data([null, 1.5])), rows)).toEqual([4, 5]);
  });

  it('tells timestamp_ns keys 1 ns apart', () => {
    const t = 1_700_000_000_123_456_789n;
    expect(matches(setOf(hash, tsNsData([t])), tsNsData([t - 1n, t, t + 1n]))).toEqual([1]);
  });

  it('matches decimals on their 128-bit unscaled value, negatives and wide ones included', () => {
    const wide = 10n ** 37n + 1n;
    const set = setOf(hash, decData([-1n, wide, 100n], 2));
    expect(matches(set, decData([1n, -1n, wide, wide - 1n, 100n, -100n], 2))).toEqual([1, 2, 4]);
    // another scale is another type: declined (both sides are cast to the field's one scale first), never guessed
    expect(set.match([decData([1000n], 3)], 0, new Uint8Array(1))).toBe(false);
  });

  it('declines chunks whose types differ from the delete side, or layouts it does not know', () => {
    const set = setOf(hash, longData([1n]));
    const ints = arrow.makeData({ type: new arrow.Int32(), length: 1, nullCount: 0, data: new Int32Array([1]) });
    const mask = new Uint8Array(1);
    expect(set.match([ints], 0, mask)).toBe(false); // int vs long: the caller casts both to one type
    const dict = arrow.vectorFromArray(['a'], new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32())).data[0]!;
    const fresh = new EqualityKeySet(hash);
    expect(fresh.add([dict])).toBe(false);
    expect(fresh.size).toBe(0);
    expect([...mask]).toEqual([0]);
  });

  it('stores each distinct key once and grows past its first table', () => {
    const n = 5_000;
    const keys = Array.from({ length: n }, (_, i) => BigInt(i * 3));
    const set = setOf(hash, longData(keys), longData(keys.slice(0, 100)));
    expect(set.size).toBe(n);
    const rows = Array.from({ length: 3 * n }, (_, i) => BigInt(i));
    expect(matches(set, longData(rows))).toEqual(rows.flatMap((v, i) => (v % 3n === 0n ? [i] : [])));
  });
});
