// Expected strings below are worked out by hand from the rendering rules in canonical.ts.
import { describe, expect, it } from 'vitest';
import { canonicalKind, canonicalLine, canonicalValue, diffRows } from './canonical.js';

describe('canonicalValue', () => {
  it('renders longs as decimal strings and ints as numbers', () => {
    expect(canonicalValue('long', 9007199254740993n)).toBe('9007199254740993');
    expect(canonicalValue('long', -5)).toBe('-5');
    expect(canonicalValue('int', 7n)).toBe(7);
    expect(canonicalValue('BIGINT', '12')).toBe('12');
  });

  it('renders decimals with exactly `scale` fraction digits', () => {
    expect(canonicalValue('decimal(38,10)', '1.25')).toBe('1.2500000000');
    expect(canonicalValue('decimal(38, 10)', -12345n)).toBe('-0.0000012345'); // unscaled
    expect(canonicalValue('decimal(9,2)', 100n)).toBe('1.00');
    expect(canonicalValue('decimal(9,0)', '-0')).toBe('0');
    expect(canonicalValue('DECIMAL(20, 2)', '-007.5')).toBe('-7.50');
    expect(() => canonicalValue('decimal(9,2)', '1.234')).toThrow(/fraction digits/);
  });

  it('renders dates and times', () => {
    expect(canonicalValue('date', 0)).toBe('1970-01-01');
    expect(canonicalValue('date', -1)).toBe('1969-12-31');
    expect(canonicalValue('date', 19723)).toBe('2024-01-01');
    expect(canonicalValue('time', 3_723_000_004n)).toBe('01:02:03.000004');
  });

  it('renders timestamps with microseconds, timestamptz in UTC', () => {
    expect(canonicalValue('timestamp', -1n)).toBe('1969-12-31T23:59:59.999999');
    expect(canonicalValue('timestamp', 1_704_067_200_000_001n)).toBe('2024-01-01T00:00:00.000001');
    expect(canonicalValue('timestamptz', '2024-01-01T01:02:03.000001+02:00')).toBe('2023-12-31T23:02:03.000001+00:00');
    expect(canonicalValue('timestamptz', new Date(Date.UTC(2024, 0, 1)))).toBe('2024-01-01T00:00:00.000000+00:00');
    expect(canonicalValue('timestamp_ns', 1n)).toBe('1970-01-01T00:00:00.000000001');
    expect(canonicalValue('TIMESTAMP(6) WITH LOCAL TIME ZONE', 0n)).toBe('1970-01-01T00:00:00.000000+00:00');
    expect(canonicalValue('timestamp', '0001-01-01T00:00:00')).toBe('0001-01-01T00:00:00.000000');
  });

  it('renders binary as hex, doubles as numbers with non-finite strings', () => {
    expect(canonicalValue('binary', new Uint8Array([0, 255, 16]))).toBe('00ff10');
    expect(canonicalValue('fixed[2]', Buffer.from([1, 2]))).toBe('0102');
    expect(canonicalValue('double', 0.25)).toBe(0.25);
    expect(canonicalValue('float', Number.NaN)).toBe('NaN');
    expect(canonicalValue('double', -Infinity)).toBe('-Infinity');
    expect(canonicalValue('string', null)).toBe(null);
  });

  it('maps Paimon type names onto canonical kinds', () => {
    expect(canonicalKind('INT NOT NULL')).toBe('int');
    expect(canonicalKind('TIMESTAMP(3)')).toBe('timestamp');
    expect(canonicalKind('TIMESTAMP(9)')).toBe('timestamp_ns');
    expect(canonicalKind('BYTES')).toBe('binary');
  });
});

describe('diffRows', () => {
  it('compares rows as multisets and lists both sides of a difference', () => {
    const a = { id: '1', v: 1 };
    const b = { v: 2, id: '2' };
    expect(diffRows([a, b], [b, a]).equal).toBe(true);
    const d = diffRows([a, a, b], [a, b, b], { expected: 'java', actual: 'floe' });
    expect(d.equal).toBe(false);
    expect(d.missing).toEqual([canonicalLine(a)]);
    expect(d.unexpected).toEqual([canonicalLine(b)]);
    expect(d.text).toContain('only in java (1)');
    expect(d.text).toContain('only in floe (1)');
    expect(canonicalLine(b)).toBe('{"id":"2","v":2}');
  });
});
