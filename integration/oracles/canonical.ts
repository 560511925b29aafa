/**
 * Canonical row rendering shared by every oracle (Java Iceberg/Paimon, PyIceberg, DuckDB) and by floe's
 * own scan output, so rows from different engines compare as plain JSON.
 *
 * Rules, by Iceberg type name (Paimon types map onto them via {@link canonicalKind}):
 *
 * | type                      | canonical value                                                      |
 * | ------------------------- | -------------------------------------------------------------------- |
 * | null (any type)           | `null`                                                               |
 * | boolean                   | JSON boolean                                                         |
 * | int (also tinyint/smallint)| JSON number                                                         |
 * | long                      | decimal string, e.g. `"-42"` (64-bit values do not fit a JS number)  |
 * | float, double             | JSON number (float widened to double); NaN/±Infinity as `"NaN"`, `"Infinity"`, `"-Infinity"` |
 * | decimal(p,s)              | plain string with exactly s fraction digits, e.g. `"1.2500000000"`   |
 * | date                      | `"YYYY-MM-DD"`                                                       |
 * | time                      | `"HH:MM:SS.ffffff"`                                                  |
 * | timestamp                 | `"YYYY-MM-DDTHH:MM:SS.ffffff"` (always 6 fraction digits)            |
 * | timestamptz               | the UTC instant as above plus `"+00:00"`                             |
 * | timestamp_ns / timestamptz_ns | as above with 9 fraction digits                                  |
 * | string                    | the string                                                           |
 * | uuid                      | lowercase hyphenated text                                            |
 * | binary, fixed[n]          | lowercase hex                                                        |
 *
 * A row is an object column-name → canonical value. Its canonical line is JSON with keys sorted; a table's
 * content is the multiset of those lines (compare sorted).
 *
 * Accepted JS inputs per type in {@link canonicalValue} (what a Parquet/Avro decoder typically yields):
 * - long: bigint | number | string
 * - decimal: string (decimal text, rescaled) or bigint (the UNSCALED integer, as Parquet/Avro store it)
 * - date: number (days since epoch) | Date | string
 * - time: bigint | number (micros since midnight) | string
 * - timestamp/timestamptz: bigint | number (micros since epoch) | Date | string (ISO; an offset is honoured)
 * - timestamp_ns/timestamptz_ns: bigint (nanos since epoch) | string
 * - binary/fixed/uuid: Uint8Array (Buffer) | hex string (uuid: text)
 */

export type CanonicalValue = string | number | boolean | null;
export type CanonicalRow = Record<string, CanonicalValue>;

const PAIMON_KINDS: Record<string, string> = {
  TINYINT: 'int',
  SMALLINT: 'int',
  INT: 'int',
  INTEGER: 'int',
  BIGINT: 'long',
  FLOAT: 'float',
  DOUBLE: 'double',
  BOOLEAN: 'boolean',
  STRING: 'string',
  VARCHAR: 'string',
  CHAR: 'string',
  BYTES: 'binary',
  BINARY: 'binary',
  VARBINARY: 'binary',
  DATE: 'date',
};

/** Normalises an Iceberg or Paimon type name to the canonical kind used by the rules above. */
export function canonicalKind(type: string): string {
  const t = type.trim();
  const lower = t.toLowerCase().replace(/\s+/g, '');
  if (
    /^(int|long|float|double|boolean|string|uuid|binary|date|time|timestamp|timestamptz|timestamp_ns|timestamptz_ns)$/.test(
      lower,
    )
  ) {
    return lower;
  }
  if (lower.startsWith('decimal(')) return lower;
  if (lower.startsWith('fixed[')) return 'binary';
  const upper = t.toUpperCase().replace(/\s+NOT\s+NULL$/, '');
  const base = upper.replace(/\(.*\)/, '').trim();
  if (PAIMON_KINDS[base]) return PAIMON_KINDS[base];
  if (base === 'DECIMAL') return lower.replace(/notnull$/, '');
  const precision = Number(/\((\d+)\)/.exec(upper)?.[1] ?? 6);
  if (/^TIMESTAMP(\(\d+\))?\s+WITH\s+LOCAL\s+TIME\s+ZONE/.test(upper) || base === 'TIMESTAMP_LTZ') {
    return precision > 6 ? 'timestamptz_ns' : 'timestamptz';
  }
  if (base === 'TIMESTAMP') return precision > 6 ? 'timestamp_ns' : 'timestamp';
  throw new Error(`canonicalKind: unsupported type "${type}"`);
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function pad(n: number | bigint, width: number): string {
  return n.toString().padStart(width, '0');
}

/** YYYY-MM-DD of a day number (days since 1970-01-01), proleptic Gregorian. */
function civilDate(days: bigint): string {
  const d = new Date(Number(days) * 86_400_000);
  const y = d.getUTCFullYear();
  if (y < 0 || y > 9999) throw new Error(`canonical date out of range: day ${days}`);
  return `${pad(y, 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

/** "YYYY-MM-DDTHH:MM:SS" + fraction of the given sub-second digits. */
function formatEpoch(units: bigint, unitsPerSecond: bigint, digits: number): string {
  const unitsPerDay = 86_400n * unitsPerSecond;
  const day = floorDiv(units, unitsPerDay);
  const inDay = units - day * unitsPerDay;
  const secs = inDay / unitsPerSecond;
  const frac = inDay % unitsPerSecond;
  const hh = secs / 3600n;
  const mm = (secs % 3600n) / 60n;
  const ss = secs % 60n;
  return `${civilDate(day)}T${pad(hh, 2)}:${pad(mm, 2)}:${pad(ss, 2)}.${pad(frac, digits)}`;
}

/** Parses ISO text (optional offset) into units since epoch; no offset means the text is already UTC. */
function parseIsoToUnits(text: string, digits: 6 | 9): bigint {
  const m = /^(-?\d{4,})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/.exec(
    text.trim(),
  );
  if (!m) throw new Error(`canonical: cannot parse timestamp "${text}"`);
  const [, y, mo, d, h, mi, s, fracText = '', off] = m;
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 onto 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  const day = BigInt(Math.round(date.getTime() / 86_400_000));
  const perSecond = digits === 6 ? 1_000_000n : 1_000_000_000n;
  const fracFull = (fracText + '000000000').slice(0, 9);
  const frac = digits === 6 ? BigInt(fracFull.slice(0, 6)) : BigInt(fracFull);
  if (digits === 6 && /[1-9]/.test(fracFull.slice(6))) {
    throw new Error(`canonical: "${text}" has sub-microsecond digits`);
  }
  let secs = BigInt(Number(h) * 3600 + Number(mi) * 60 + Number(s));
  if (off && off !== 'Z') {
    const sign = off.startsWith('-') ? -1 : 1;
    const o = off.slice(1).replace(':', '');
    secs -= BigInt(sign * (Number(o.slice(0, 2)) * 3600 + Number(o.slice(2, 4)) * 60));
  }
  return (day * 86_400n + secs) * perSecond + frac;
}

function toBigInt(value: unknown, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`canonical ${what}: ${value} is not a safe integer`);
    return BigInt(value);
  }
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return BigInt(value.trim());
  throw new Error(`canonical ${what}: cannot use ${typeof value} ${String(value)}`);
}

function hex(value: unknown, what: string): string {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  if (typeof value === 'string' && /^([0-9a-fA-F]{2})*$/.test(value)) return value.toLowerCase();
  throw new Error(`canonical ${what}: expected bytes, got ${typeof value}`);
}

/** Decimal text with exactly `scale` fraction digits; rejects values that would lose digits. */
function decimalText(value: unknown, scale: number): string {
  if (typeof value === 'bigint') {
    // Unscaled integer (Parquet/Avro representation).
    const neg = value < 0n;
    const digits = (neg ? -value : value).toString().padStart(scale + 1, '0');
    const intPart = digits.slice(0, digits.length - scale);
    const frac = digits.slice(digits.length - scale);
    return `${neg ? '-' : ''}${intPart}${scale > 0 ? '.' + frac : ''}`;
  }
  const text = typeof value === 'number' ? numberToPlain(value) : String(value).trim();
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new Error(`canonical decimal: cannot parse "${text}"`);
  const [, sign, intRaw, fracRaw = ''] = m;
  if (fracRaw.length > scale && /[1-9]/.test(fracRaw.slice(scale))) {
    throw new Error(`canonical decimal: "${text}" has more than ${scale} fraction digits`);
  }
  const intPart = intRaw.replace(/^0+(?=\d)/, '') || '0';
  const frac = fracRaw.slice(0, scale).padEnd(scale, '0');
  const isZero = /^0*$/.test(intPart + frac);
  return `${sign === '-' && !isZero ? '-' : ''}${intPart}${scale > 0 ? '.' + frac : ''}`;
}

function numberToPlain(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`canonical decimal: ${n} is not finite`);
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return n.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
}

/** Renders one value of the given Iceberg/Paimon type by the canonical rules (see module doc). */
export function canonicalValue(type: string, value: unknown): CanonicalValue {
  if (value === null || value === undefined) return null;
  const kind = canonicalKind(type);
  if (kind.startsWith('decimal(')) {
    const scale = Number(/,(\d+)\)/.exec(kind)?.[1]);
    return decimalText(value, scale);
  }
  switch (kind) {
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      throw new Error(`canonical boolean: got ${String(value)}`);
    case 'int': {
      const n = typeof value === 'bigint' ? Number(value) : Number(value);
      if (!Number.isInteger(n)) throw new Error(`canonical int: got ${String(value)}`);
      return n;
    }
    case 'long':
      return toBigInt(value, 'long').toString();
    case 'float':
    case 'double': {
      const n = typeof value === 'string' ? Number(value) : Number(value as number);
      if (Number.isNaN(n)) return 'NaN';
      if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
      return n;
    }
    case 'string':
      return String(value);
    case 'uuid':
      if (value instanceof Uint8Array) {
        const h = hex(value, 'uuid');
        return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
      }
      return String(value).toLowerCase();
    case 'binary':
      return hex(value, 'binary');
    case 'date':
      if (value instanceof Date) return civilDate(BigInt(Math.floor(value.getTime() / 86_400_000)));
      if (typeof value === 'string')
        return civilDate(BigInt(Math.round(Date.parse(value.slice(0, 10) + 'T00:00:00Z') / 86_400_000)));
      return civilDate(toBigInt(value, 'date'));
    case 'time': {
      if (typeof value === 'string') {
        const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/.exec(value);
        if (!m) throw new Error(`canonical time: cannot parse "${value}"`);
        return `${m[1]}:${m[2]}:${m[3]}.${(m[4] ?? '').padEnd(6, '0')}`;
      }
      return formatEpoch(toBigInt(value, 'time'), 1_000_000n, 6).slice(11);
    }
    case 'timestamp':
    case 'timestamptz': {
      let micros: bigint;
      if (value instanceof Date) micros = BigInt(value.getTime()) * 1000n;
      else if (typeof value === 'string') micros = parseIsoToUnits(value, 6);
      else micros = toBigInt(value, kind);
      return formatEpoch(micros, 1_000_000n, 6) + (kind === 'timestamptz' ? '+00:00' : '');
    }
    case 'timestamp_ns':
    case 'timestamptz_ns': {
      const nanos = typeof value === 'string' ? parseIsoToUnits(value, 9) : toBigInt(value, kind);
      return formatEpoch(nanos, 1_000_000_000n, 9) + (kind === 'timestamptz_ns' ? '+00:00' : '');
    }
    default:
      throw new Error(`canonicalValue: unsupported kind ${kind}`);
  }
}

/** Renders a whole row given column types (column name → Iceberg/Paimon type name). */
export function canonicalRow(types: Record<string, string>, row: Record<string, unknown>): CanonicalRow {
  const out: CanonicalRow = {};
  for (const [name, type] of Object.entries(types)) out[name] = canonicalValue(type, row[name]);
  return out;
}

/** The canonical line of a row: JSON with keys sorted. */
export function canonicalLine(row: CanonicalRow): string {
  const sorted: CanonicalRow = {};
  for (const k of Object.keys(row).sort()) sorted[k] = row[k] === undefined ? null : row[k];
  return JSON.stringify(sorted);
}

/** Sorted canonical lines: two tables hold the same rows iff these arrays are equal. */
export function canonicalRows(rows: readonly CanonicalRow[]): string[] {
  return rows.map(canonicalLine).sort();
}

export interface RowDiff {
  equal: boolean;
  /** Lines in `expected` that `actual` lacks (with multiplicity). */
  missing: string[];
  /** Lines in `actual` that `expected` lacks (with multiplicity). */
  unexpected: string[];
  /** Human-readable summary, empty when equal. */
  text: string;
}

/** Multiset comparison of two row sets with a readable diff (first `limit` lines of each side). */
export function diffRows(
  expected: readonly CanonicalRow[],
  actual: readonly CanonicalRow[],
  labels: { expected?: string; actual?: string; limit?: number } = {},
): RowDiff {
  const counts = new Map<string, number>();
  for (const l of canonicalRows(expected)) counts.set(l, (counts.get(l) ?? 0) + 1);
  const unexpected: string[] = [];
  for (const l of canonicalRows(actual)) {
    const c = counts.get(l) ?? 0;
    if (c > 0) counts.set(l, c - 1);
    else unexpected.push(l);
  }
  const missing: string[] = [];
  for (const [l, c] of counts) for (let i = 0; i < c; i++) missing.push(l);
  missing.sort();
  const equal = missing.length === 0 && unexpected.length === 0;
  const limit = labels.limit ?? 20;
  const e = labels.expected ?? 'expected';
  const a = labels.actual ?? 'actual';
  const show = (xs: string[]) =>
    xs
      .slice(0, limit)
      .map((x) => `    ${x}`)
      .join('\n') + (xs.length > limit ? `\n    … ${xs.length - limit} more` : '');
  const text = equal
    ? ''
    : [
        `rows differ: ${e} has ${expected.length}, ${a} has ${actual.length}`,
        missing.length ? `  only in ${e} (${missing.length}):\n${show(missing)}` : '',
        unexpected.length ? `  only in ${a} (${unexpected.length}):\n${show(unexpected)}` : '',
      ]
        .filter(Boolean)
        .join('\n');
  return { equal, missing, unexpected, text };
}

/** Throws with the readable diff unless both row multisets are equal. */
export function assertSameRows(
  expected: readonly CanonicalRow[],
  actual: readonly CanonicalRow[],
  labels: { expected?: string; actual?: string } = {},
): void {
  const d = diffRows(expected, actual, labels);
  if (!d.equal) throw new Error(d.text);
}
