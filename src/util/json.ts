/**
 * Lossless JSON for table metadata: integers beyond 2^53 (snapshot ids, sequence numbers, row ids) are
 * parsed as bigint and written back digit for digit. Safe integers stay numbers so ordinary fields
 * (format-version, schema ids) keep their natural type.
 */
import { parse, stringify, isInteger, isSafeNumber, type LosslessNumber } from 'lossless-json';

function reviveNumber(value: string): number | bigint {
  if (isInteger(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : BigInt(value);
  }
  if (isSafeNumber(value)) return Number(value);
  // A float that does not round-trip exactly: keep the closest double, as every Iceberg reader does.
  return Number(value);
}

export function parseJsonLossless(text: string): unknown {
  return parse(text, undefined, reviveNumber);
}

/** Serialises bigint as an exact JSON integer. */
export function stringifyJsonLossless(value: unknown, indent?: number): string {
  const out = stringify(value, undefined, indent, [
    { test: (v: unknown) => typeof v === 'bigint', stringify: (v: unknown) => (v as bigint).toString() },
    // JSON can say -0; keep the sign that JSON.stringify would drop
    { test: (v: unknown) => Object.is(v, -0), stringify: () => '-0' },
  ]);
  if (out === undefined) throw new Error('value is not serialisable as JSON');
  return out;
}

/** Reads a JSON integer field that may be number or bigint as bigint. */
export function toBigInt(v: unknown, what: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  throw new Error(`${what}: expected an integer, got ${JSON.stringify(v)}`);
}

export type { LosslessNumber };
