/**
 * One in-memory representation for Iceberg values, and the conversions into it:
 *   boolean → boolean; int, date (days) → number; long, time (µs), timestamp[tz] (µs), timestamp[tz]_ns (ns) → bigint;
 *   float/double → number; string → string; uuid → canonical lower-case string; decimal → exact decimal string
 *   ("-12.30"); fixed/binary → Uint8Array; struct → object keyed by field name; list → array; map → Map.
 * Sources: the single-value binary form (bounds, spec App. D), Avro-decoded partition values, v3 JSON
 * defaults (spec App. D "JSON single-value serialization") and Parquet values.
 */
import { FloeError } from '../../util/errors.js';
import type { Field, FieldType } from '../../model/index.js';
import { bigintFromBigEndian, formatDecimal } from '../../model/arrow/decimal.js';
import { uuidFromBytes } from '../../model/arrow/uuid.js';
import { valueFromJsonDefault } from '../formats/parquet/defaults.js';

function prim(t: FieldType): string | undefined {
  return t.kind === 'primitive' ? t.name : undefined;
}

/** Decodes a lower/upper bound (spec App. D "Binary single-value serialization"). */
export function decodeSingleValue(type: FieldType, bytes: Uint8Array): unknown {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const name = prim(type);
  switch (name) {
    case 'boolean':
      return buf.length > 0 && buf[0] !== 0;
    case 'int':
    case 'date':
      return buf.readInt32LE(0);
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns':
      // Old writers stored int bounds for columns later promoted to long: 4 bytes then.
      return buf.length === 4 ? BigInt(buf.readInt32LE(0)) : buf.readBigInt64LE(0);
    case 'float':
      return buf.readFloatLE(0);
    case 'double':
      return buf.length === 4 ? buf.readFloatLE(0) : buf.readDoubleLE(0);
    case 'string':
      return buf.toString('utf8');
    case 'uuid':
      return uuidFromBytes(buf);
    case 'decimal':
      return formatDecimal(bigintFromBigEndian(buf), (type as { scale?: number }).scale ?? 0);
    case 'fixed':
    case 'binary':
      return new Uint8Array(buf);
    default:
      // variant/geometry/nested: no decodable single value; keep the bytes.
      return new Uint8Array(buf);
  }
}

/** Avro-decoded value (avsc: longs bigint, bytes Buffer, logical types raw) → our representation. */
export function fromAvroValue(type: FieldType | undefined, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  const name = type && prim(type);
  switch (name) {
    case 'int':
    case 'date':
      return typeof v === 'bigint' ? Number(v) : v;
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return typeof v === 'bigint' ? v : BigInt(v as number);
    case 'decimal':
      if (v instanceof Uint8Array)
        return formatDecimal(bigintFromBigEndian(v), (type as { scale?: number }).scale ?? 0);
      return String(v);
    case 'uuid':
      if (v instanceof Uint8Array) return uuidFromBytes(v);
      return String(v).toLowerCase();
    case 'fixed':
    case 'binary':
      return v instanceof Uint8Array ? new Uint8Array(v) : v;
    default:
      if (v instanceof Uint8Array) return new Uint8Array(v);
      return v;
  }
}

const DAY_MS = 86_400_000;

export function daysFromIsoDate(s: string): number {
  const t = Date.parse(`${s}T00:00:00Z`);
  if (Number.isNaN(t)) throw new Error(`not a date: ${s}`);
  return Math.round(t / DAY_MS);
}

/** "2017-11-16T22:31:08.123456[+00:00]" → bigint in units of 10^-digits s. */
function parseIsoTimestamp(s: string, fractionDigits: number): bigint {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/.exec(s.trim());
  if (!m) throw new Error(`not a timestamp: ${s}`);
  const days = BigInt(daysFromIsoDate(m[1]!));
  let secs = days * 86400n + BigInt(Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4]));
  const zone = m[6];
  if (zone && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1n : 1n;
    const z = zone.slice(1).replace(':', '');
    secs -= sign * BigInt(Number(z.slice(0, 2)) * 3600 + Number(z.slice(2, 4)) * 60);
  }
  const frac = (m[5] ?? '').padEnd(fractionDigits, '0').slice(0, fractionDigits);
  return secs * 10n ** BigInt(fractionDigits) + BigInt(frac || '0');
}

function parseIsoTime(s: string): bigint {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$/.exec(s.trim());
  if (!m) throw new Error(`not a time: ${s}`);
  const secs = BigInt(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]));
  return secs * 1_000_000n + BigInt((m[4] ?? '').padEnd(6, '0').slice(0, 6) || '0');
}

/** v3 `initial-default` / `write-default` JSON → our representation. */
export function fromJsonDefault(field: Field, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  const t = field.type;
  // struct defaults: a JSON object keyed by child field id (spec Appendix D); one parser for nested shapes
  if (t.kind !== 'primitive') return valueFromJsonDefault(v, t, `field ${field.name} (id ${field.id})`);
  try {
    switch (prim(t)) {
      case 'boolean':
        return Boolean(v);
      case 'int':
        return Number(v);
      case 'long':
        return BigInt(v as number | bigint | string);
      case 'float':
      case 'double':
        return Number(v);
      case 'decimal':
        return String(v);
      case 'date':
        return typeof v === 'string' ? daysFromIsoDate(v) : Number(v);
      case 'time':
        return typeof v === 'string' ? parseIsoTime(v) : BigInt(v as number);
      case 'timestamp':
      case 'timestamptz':
        return typeof v === 'string' ? parseIsoTimestamp(v, 6) : BigInt(v as number);
      case 'timestamp_ns':
      case 'timestamptz_ns':
        return typeof v === 'string' ? parseIsoTimestamp(v, 9) : BigInt(v as number);
      case 'string':
        return String(v);
      case 'uuid':
        return String(v).toLowerCase();
      case 'fixed':
      case 'binary':
        return new Uint8Array(Buffer.from(String(v), 'hex'));
      default:
        return v;
    }
  } catch (e) {
    throw new FloeError(
      'Corrupt',
      `default value of field ${field.name} (id ${field.id}) is invalid: ${(e as Error).message}`,
    );
  }
}

function pad(n: number | bigint, w: number): string {
  return n.toString().padStart(w, '0');
}

export function formatDate(days: number): string {
  return new Date(days * DAY_MS).toISOString().slice(0, 10);
}

function formatEpoch(v: bigint, digits: number, tz: boolean): string {
  const unit = 10n ** BigInt(digits);
  let secs = v / unit;
  let frac = v % unit;
  if (frac < 0n) {
    frac += unit;
    secs -= 1n;
  }
  const days = secs >= 0n ? secs / 86400n : -((-secs + 86399n) / 86400n);
  const sod = Number(secs - days * 86400n);
  const date = formatDate(Number(days));
  const hh = pad(Math.floor(sod / 3600), 2);
  const mm = pad(Math.floor((sod % 3600) / 60), 2);
  const ss = pad(sod % 60, 2);
  return `${date}T${hh}:${mm}:${ss}.${pad(frac, digits)}${tz ? '+00:00' : ''}`;
}

/**
 * Our representation → a JSON-friendly display value: dates/times/timestamps as the spec's ISO strings,
 * binary as hex, decimals as strings, non-finite floats as "NaN"/"Infinity"/"-Infinity"; longs stay bigint
 * (the writer decides how to print them).
 */
export function displayValue(type: FieldType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type.kind) {
    case 'struct': {
      const o = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const f of type.fields) out[f.name] = displayValue(f.type, o[f.name]);
      return out;
    }
    case 'list':
      return (v as unknown[]).map((x) => displayValue(type.element, x));
    case 'map': {
      const out: Record<string, unknown> = {};
      const entries = v instanceof Map ? [...v.entries()] : Object.entries(v as object);
      for (const [k, x] of entries) out[String(displayValue(type.key, k))] = displayValue(type.value, x);
      return out;
    }
    case 'primitive':
      break;
  }
  switch (type.name) {
    case 'date':
      return typeof v === 'number' ? formatDate(v) : v;
    case 'time':
      if (typeof v === 'bigint') {
        const s = Number(v / 1_000_000n);
        return `${pad(Math.floor(s / 3600), 2)}:${pad(Math.floor((s % 3600) / 60), 2)}:${pad(s % 60, 2)}.${pad(v % 1_000_000n, 6)}`;
      }
      return v;
    case 'timestamp':
    case 'timestamptz':
      return typeof v === 'bigint' ? formatEpoch(v, 6, type.name === 'timestamptz') : v;
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return typeof v === 'bigint' ? formatEpoch(v, 9, type.name === 'timestamptz_ns') : v;
    case 'fixed':
    case 'binary':
    case 'geometry':
    case 'geography':
      return v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v;
    case 'float':
    case 'double':
      // JSON has no NaN/Infinity (JSON.stringify would print null, indistinguishable from a null value)
      if (typeof v === 'number' && !Number.isFinite(v))
        return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
      return v;
    default:
      return v;
  }
}
