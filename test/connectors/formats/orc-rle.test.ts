/**
 * ORC run-length encodings. Byte sequences and expected values are the worked examples of the ORC v1
 * specification (apache/orc site/specification/ORCv1.md) unless a test says it was built by hand from the
 * spec's layout description.
 */
import { describe, expect, it } from 'vitest';
import { isFloeError } from '../../../util/errors.js';
import {
  ByteCursor,
  closestFixedBits,
  decodeBooleanRle,
  decodeByteRle,
  decodeIntRleV1,
  decodeIntRleV2,
  decodeWidth,
} from '../../../connectors/formats/orc/rle.js';

const cur = (bytes: number[]) => new ByteCursor(Uint8Array.from(bytes), 'test.orc', 'test stream');
const nums = (v: bigint[]) => v.map(Number);

function expectCorrupt(fn: () => unknown) {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(isFloeError(err, 'Corrupt')).toBe(true);
  expect((err as Error).message).toMatch(/test\.orc/);
}

describe('byte and boolean RLE (spec examples)', () => {
  it('a hundred zeros are [0x61, 0x00]', () => {
    expect(Array.from(decodeByteRle(cur([0x61, 0x00]), 100))).toEqual(new Array(100).fill(0));
  });
  it('literals 0x44, 0x45 are [0xfe, 0x44, 0x45]', () => {
    expect(Array.from(decodeByteRle(cur([0xfe, 0x44, 0x45]), 2))).toEqual([0x44, 0x45]);
  });
  it('[0xff, 0x80] is one true followed by seven false', () => {
    expect(decodeBooleanRle(cur([0xff, 0x80]), 8)).toEqual([true, false, false, false, false, false, false, false]);
  });
  it('boolean RLE reads only the bits asked for from the last byte', () => {
    // by hand: literal byte 0b1010_0000, 3 values
    expect(decodeBooleanRle(cur([0xff, 0xa0]), 3)).toEqual([true, false, true]);
  });
  it('truncated and overshooting byte runs are Corrupt', () => {
    expectCorrupt(() => decodeByteRle(cur([0xfe, 0x44]), 2));
    expectCorrupt(() => decodeByteRle(cur([0x61, 0x00]), 50)); // a run of 100 where 50 are expected
    expectCorrupt(() => decodeByteRle(cur([0x00, 0x01]), 1_000_000)); // impossible count, refused before allocating
  });
});

describe('integer RLE v1 (spec examples)', () => {
  it('100 sevens are [0x61, 0x00, 0x07]', () => {
    expect(nums(decodeIntRleV1(cur([0x61, 0x00, 0x07]), 100, false))).toEqual(new Array(100).fill(7));
  });
  it('100 down to 1 is [0x61, 0xff, 0x64]', () => {
    expect(nums(decodeIntRleV1(cur([0x61, 0xff, 0x64]), 100, false))).toEqual(
      Array.from({ length: 100 }, (_, i) => 100 - i),
    );
  });
  it('[2, 3, 4, 7, 11] is [0xfb, 0x02, 0x03, 0x04, 0x07, 0x0b]', () => {
    expect(nums(decodeIntRleV1(cur([0xfb, 0x02, 0x03, 0x04, 0x07, 0x0b]), 5, false))).toEqual([2, 3, 4, 7, 11]);
  });
  it('signed streams zig-zag the varints (spec zigzag table: 0,-1,1,-2,2 ↔ 0,1,2,3,4)', () => {
    expect(nums(decodeIntRleV1(cur([0xfb, 0x00, 0x01, 0x02, 0x03, 0x04]), 5, true))).toEqual([0, -1, 1, -2, 2]);
  });
  it('multi-byte varints follow the spec table (128 = 0x80 0x01, 16384 = 0x80 0x80 0x01)', () => {
    expect(nums(decodeIntRleV1(cur([0xfc, 0x7f, 0x80, 0x01, 0xff, 0x7f, 0x81, 0x80, 0x01]), 4, false))).toEqual([
      127, 128, 16383, 16385,
    ]);
  });
  it('truncation is Corrupt', () => {
    expectCorrupt(() => decodeIntRleV1(cur([0xfb, 0x02, 0x03]), 5, false));
    expectCorrupt(() => decodeIntRleV1(cur([0x61, 0x00]), 100, false));
  });
});

describe('integer RLE v2: the four sub-encodings (spec examples)', () => {
  it('short repeat: five 10000s are [0x0a, 0x27, 0x10]', () => {
    expect(nums(decodeIntRleV2(cur([0x0a, 0x27, 0x10]), 5, false))).toEqual([10000, 10000, 10000, 10000, 10000]);
  });
  it('direct: [23713, 43806, 57005, 48879] at 16 bits', () => {
    const bytes = [0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef];
    expect(nums(decodeIntRleV2(cur(bytes), 4, false))).toEqual([23713, 43806, 57005, 48879]);
  });
  it('patched base: 2000-based sequence with the 1000000 outlier patched back', () => {
    const bytes = [
      0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78,
      0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8,
    ];
    const expected = [
      2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120, 2130, 2140, 2150, 2160, 2170,
      2180, 2190,
    ];
    expect(nums(decodeIntRleV2(cur(bytes), 20, false))).toEqual(expected);
  });
  it('delta: the primes [2, 3, 5, …, 29]', () => {
    expect(nums(decodeIntRleV2(cur([0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46]), 10, false))).toEqual([
      2, 3, 5, 7, 11, 13, 17, 19, 23, 29,
    ]);
  });
  it('groups follow one another in one stream', () => {
    const bytes = [0x0a, 0x27, 0x10, 0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46];
    expect(nums(decodeIntRleV2(cur(bytes), 15, false))).toEqual([
      10000, 10000, 10000, 10000, 10000, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29,
    ]);
  });
});

describe('integer RLE v2: hand-built groups (from the spec layout)', () => {
  it('short repeat on a signed stream zig-zags the value (10000 → 5000)', () => {
    expect(nums(decodeIntRleV2(cur([0x0a, 0x27, 0x10]), 5, true))).toEqual([5000, 5000, 5000, 5000, 5000]);
  });
  it('direct signed 8-bit: zigzag 1, 2, 127 → -1, 1, -64', () => {
    expect(nums(decodeIntRleV2(cur([0x4e, 0x02, 0x01, 0x02, 0x7f]), 3, true))).toEqual([-1, 1, -64]);
  });
  it('direct 64-bit keeps every bit (bigint)', () => {
    const bytes = [0x7e, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
    expect(decodeIntRleV2(cur(bytes), 1, false)).toEqual([2n ** 64n - 1n]);
    expect(decodeIntRleV2(cur(bytes), 1, true)).toEqual([-(2n ** 63n)]);
  });
  it('delta with width 0 is an arithmetic run: base 10, step 3, five values', () => {
    expect(nums(decodeIntRleV2(cur([0xc0, 0x04, 0x0a, 0x06]), 5, false))).toEqual([10, 13, 16, 19, 22]);
  });
  it('delta decreasing on a signed stream: base -1, first delta -2, then 1 and 5 downwards', () => {
    expect(nums(decodeIntRleV2(cur([0xc6, 0x03, 0x01, 0x03, 0x15]), 4, true))).toEqual([-1, -3, -4, -9]);
  });
  it('patched base with a negative base (sign bit of the base bytes) and no patches', () => {
    // width 4 (code 3), length 3, base 2 bytes, patch width code 0, gap width 1, 0 patches; base 0x8005 = -5
    expect(nums(decodeIntRleV2(cur([0x86, 0x02, 0x20, 0x00, 0x80, 0x05, 0x03, 0xf0]), 3, false))).toEqual([-5, -2, 10]);
  });
  it('truncated groups and impossible patch positions are Corrupt', () => {
    expectCorrupt(() => decodeIntRleV2(cur([0x5e, 0x03, 0x5c, 0xa1]), 4, false));
    expectCorrupt(() => decodeIntRleV2(cur([0x0a, 0x27]), 5, false));
    expectCorrupt(() => decodeIntRleV2(cur([0xc6, 0x09, 0x02, 0x02, 0x22]), 10, false));
    // a group of 5 where only 3 values are expected
    expectCorrupt(() => decodeIntRleV2(cur([0x0a, 0x27, 0x10]), 3, false));
    // patched base: 1 value of width 1, one patch whose 8-bit gap (0xff) points past the group
    expectCorrupt(() => decodeIntRleV2(cur([0x80, 0x00, 0x00, 0xe1, 0x00, 0x00, 0xff, 0x80]), 1, false));
  });
});

describe('width tables', () => {
  it('the 5-bit width table of the spec', () => {
    const table: [number, number][] = [
      [0, 1],
      [1, 2],
      [3, 4],
      [7, 8],
      [15, 16],
      [23, 24],
      [27, 32],
      [28, 40],
      [29, 48],
      [30, 56],
      [31, 64],
      [2, 3],
      [24, 26],
      [25, 28],
      [26, 30],
    ];
    for (const [code, width] of table) expect(decodeWidth(code), `code ${code}`).toBe(width);
    expect(decodeWidth(0, true)).toBe(0);
  });
  it('patch entries round up to an encodable width', () => {
    expect([1, 14, 24, 25, 27, 31, 33, 57].map(closestFixedBits)).toEqual([1, 14, 24, 26, 28, 32, 40, 64]);
  });
});
