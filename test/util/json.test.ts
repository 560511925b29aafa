import { describe, expect, it } from 'vitest';
import { parseJsonLossless, stringifyJsonLossless, toBigInt } from '../../util/json.js';

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

describe('parseJsonLossless on the engine parser (issue 29.3)', () => {
  it('agrees with the JS lossless parser on ids, floats, exponents, strings that look like numbers and escapes', async () => {
    const { parse } = await import('lossless-json');
    const texts = [
      '{"snapshot-id":9223372036854775807,"p":-9223372036854775808,"s":1234567890123456,"f":1.5e300,"e":1e1234567890123456}',
      '{"a":"9223372036854775807","b":"x\\"9223372036854775807","c":[12345678901234567890,0,-0,3.25]}',
      '{"n":-1234567890123456789,"deep":{"x":[{"y":18446744073709551615}]},"esc":"\\\\"}',
      '{"nul":"\\u0000123","id":9223372036854775807}',
      // quotes after runs of backslashes: even runs end the string, odd ones are escaped
      '[9223372036854775807,"\\\\",9223372036854775807,"a\\\\\\"12345678901234567890"]',
      '{"k\\\\":12345678901234567890,"q\\"":[-9223372036854775808]}',
      '9223372036854775807',
    ];
    for (const t of texts) {
      const reviver = (v: string) => {
        if (/^-?\d+$/.test(v)) return Number.isSafeInteger(Number(v)) ? Number(v) : BigInt(v);
        return Number(v);
      };
      expect(parseJsonLossless(t)).toEqual(parse(t, undefined, reviver));
    }
    expect(Object.is((parseJsonLossless('{"z":-0}') as { z: number }).z, -0)).toBe(true);
    expect(() => parseJsonLossless('{"a":1,}')).toThrow();
  });
});
