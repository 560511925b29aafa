/** Exact decimal text ⇄ unscaled two's-complement integers (no floating point anywhere). */
import { FloeError } from '../../util/errors.js';

/** 12345n, scale 2 → "123.45"; -5n, scale 3 → "-0.005"; scale 0 → plain integer text. */
export function formatDecimal(unscaled: bigint, scale: number): string {
  if (scale <= 0) return (unscaled * 10n ** BigInt(-scale)).toString();
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString();
  const padded = digits.padStart(scale + 1, '0');
  const text = `${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
  return negative ? `-${text}` : text;
}

/** "123.4" at scale 2 → 12340n. Refuses values that need more fraction digits than the scale. */
export function parseDecimal(text: string, scale: number, what = 'decimal'): bigint {
  const m = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) {
    throw new FloeError('InvalidArgument', `${what}: "${text}" is not a decimal number`);
  }
  let intPart = m[2] ?? '';
  let frac = m[3] ?? '';
  const exp = m[4] ? Number(m[4]) : 0;
  // Move the decimal point by the exponent, then pad/trim to the target scale.
  if (exp > 0) {
    const move = frac.padEnd(exp, '0');
    intPart += move.slice(0, exp);
    frac = move.slice(exp);
  } else if (exp < 0) {
    const whole = intPart.padStart(-exp, '0');
    frac = whole.slice(whole.length + exp) + frac;
    intPart = whole.slice(0, whole.length + exp);
  }
  if (frac.length > scale) {
    if (/[^0]/.test(frac.slice(scale))) {
      throw new FloeError('InvalidArgument', `${what}: "${text}" has more than ${scale} fraction digits`);
    }
    frac = frac.slice(0, scale);
  }
  const unscaled = BigInt((intPart || '0') + frac.padEnd(scale, '0'));
  return m[1] === '-' ? -unscaled : unscaled;
}

/** Big-endian two's complement (Parquet BYTE_ARRAY / FIXED decimals, Iceberg bounds) → bigint. */
export function bigintFromBigEndian(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  if (bytes[0]! & 0x80) v -= 1n << BigInt(bytes.length * 8);
  return v;
}

/** The fewest big-endian two's-complement bytes (Java `BigInteger.toByteArray()`: Iceberg bounds, Paimon rows). */
export function bigintToMinimalBigEndian(v: bigint): Uint8Array {
  const out: number[] = [];
  let x = v;
  for (;;) {
    out.unshift(Number(x & 0xffn));
    x >>= 8n;
    const signBit = (out[0]! & 0x80) !== 0;
    if ((x === 0n && !signBit) || (x === -1n && signBit)) break;
  }
  return Uint8Array.from(out);
}

/** Little-endian 32-bit words (Arrow Decimal128/256 storage) → signed bigint. */
export function bigintFromWords(words: Uint32Array, offset: number, count: number): bigint {
  let v = 0n;
  for (let i = count - 1; i >= 0; i--) v = (v << 32n) | BigInt(words[offset + i]!);
  const bits = BigInt(count * 32);
  if (words[offset + count - 1]! & 0x80000000) v -= 1n << bits;
  return v;
}

export function writeWords(value: bigint, words: Uint32Array, offset: number, count: number): void {
  let v = BigInt.asUintN(count * 32, value);
  for (let i = 0; i < count; i++) {
    words[offset + i] = Number(v & 0xffffffffn);
    v >>= 32n;
  }
}

export function decimalFitsPrecision(unscaled: bigint, precision: number): boolean {
  const abs = unscaled < 0n ? -unscaled : unscaled;
  return abs < 10n ** BigInt(precision);
}
