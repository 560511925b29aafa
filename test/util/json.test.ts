import { describe, expect, it } from 'vitest';
import { parseJsonLossless, stringifyJsonLossless, toBigInt } from '../../src/util/json.js';

describe('lossless JSON', () => {
  it('keeps 64-bit integers beyond 2^53 digit for digit', () => {
    const text = '{"snapshot-id":9223372036854775807,"seq":9007199254740993,"small":42,"neg":-9223372036854775808}';
    const v = parseJsonLossless(text) as Record<string, unknown>;
    expect(v['snapshot-id']).toBe(9223372036854775807n);
    expect(v.seq).toBe(9007199254740993n);
    expect(v.small).toBe(42); // safe integers stay numbers
    expect(v.neg).toBe(-9223372036854775808n);
    expect(stringifyJsonLossless(v)).toBe(text);
  });

  it('keeps floats and the sign of zero', () => {
    const v = parseJsonLossless('{"a":1.5,"z":-0,"e":1e300}') as Record<string, number>;
    expect(v.a).toBe(1.5);
    expect(Object.is(v.z, -0)).toBe(true);
    expect(stringifyJsonLossless(v)).toBe('{"a":1.5,"z":-0,"e":1e+300}');
  });

  it('reads integer fields given as number, bigint or digit string', () => {
    expect(toBigInt(5, 'x')).toBe(5n);
    expect(toBigInt(5n, 'x')).toBe(5n);
    expect(toBigInt('-12', 'x')).toBe(-12n);
    expect(() => toBigInt(1.5, 'snapshot-id')).toThrow(/snapshot-id/);
  });
});
