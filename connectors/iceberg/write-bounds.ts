/**
 * Iceberg's single-value binary serialisation (spec Appendix D), used for column bounds in manifests and for
 * partition summaries in manifest lists. Values arrive in floe's decoded form: bigint for longs/timestamps,
 * number for ints/dates/floats, string for strings and exact decimals ("12.3400"), Uint8Array for binary.
 */
import type { FieldType } from '../../model/index.js';
import { bigintToMinimalBigEndian } from '../../model/arrow/decimal.js';
import { FloeError } from '../../util/errors.js';

export function encodeSingleValue(type: FieldType, value: unknown): Buffer {
  if (type.kind !== 'primitive') throw new FloeError('Unsupported', `no single-value form for ${type.kind}`);
  switch (type.name) {
    case 'boolean':
      return Buffer.from([value ? 1 : 0]);
    case 'int':
    case 'date':
    case 'tinyint':
    case 'smallint': {
      const b = Buffer.alloc(4);
      b.writeInt32LE(Number(value));
      return b;
    }
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns': {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(BigInt(value as bigint | number));
      return b;
    }
    case 'float': {
      const b = Buffer.alloc(4);
      b.writeFloatLE(Number(value));
      return b;
    }
    case 'double': {
      const b = Buffer.alloc(8);
      b.writeDoubleLE(Number(value));
      return b;
    }
    case 'string':
      return Buffer.from(String(value), 'utf8');
    case 'uuid':
      return typeof value === 'string' ? Buffer.from(value.replace(/-/g, ''), 'hex') : Buffer.from(value as Uint8Array);
    case 'fixed':
    case 'binary':
      return Buffer.from(value as Uint8Array);
    case 'decimal':
      return unscaledToMinimalBytes(decimalToUnscaled(value, type.scale ?? 0));
    default:
      throw new FloeError('Unsupported', `no single-value form for ${type.name}`);
  }
}

/** "12.34" at scale 4 → 123400n; a bigint is taken as already unscaled. */
export function decimalToUnscaled(value: unknown, scale: number): bigint {
  if (typeof value === 'bigint') return value;
  const s = String(value).trim();
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(s);
  if (!m) throw new FloeError('InvalidArgument', `not a decimal: ${s}`);
  const frac = (m[3] ?? '').padEnd(scale, '0');
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) {
    throw new FloeError('InvalidArgument', `decimal ${s} has more than ${scale} fractional digits`);
  }
  const digits = `${m[2] || '0'}${frac.slice(0, scale)}`;
  const n = BigInt(digits);
  return m[1] === '-' ? -n : n;
}

/** Two's-complement big-endian with the fewest bytes (Java BigInteger.toByteArray), as a Buffer. */
export function unscaledToMinimalBytes(n: bigint): Buffer {
  const b = bigintToMinimalBigEndian(n);
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** Fixed-width two's-complement big-endian (Avro decimal `fixed` in partition tuples). */
export function unscaledToFixedBytes(n: bigint, size: number): Buffer {
  const out = Buffer.alloc(size);
  let v = BigInt.asUintN(size * 8, n);
  for (let i = size - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}
