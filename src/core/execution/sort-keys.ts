/**
 * Sort keys of Arrow rows for the sort and z-order strategies.
 *
 * Sort: each term's value is read exactly (rows.ts), transformed (day, truncate …) and compared in
 * Iceberg's order: signed numbers, floats with -0 < 0 and NaN above +Infinity, decimals by unscaled value,
 * strings by code point (= UTF-8 byte order), binary/fixed/uuid unsigned bytewise; DESC reverses the
 * values, the null order places nulls on its own.
 *
 * Z-order (Spark's `zorder(a,b)`, described in Iceberg's `SparkZOrderUDF` / `ZOrderByteUtils` docs): each
 * column becomes a fixed-length byte string whose unsigned byte order is the value order (numbers
 * big-endian with the sign bit flipped, floats by their IEEE bits flipped so negatives order, strings and
 * binary cut or zero-padded to `var-length-contribution` bytes, null = all zeros), and the bits of the
 * columns are interleaved, most significant first, round-robin. Rows are then sorted by that byte string,
 * so rows close in every z column land close together (a Morton curve).
 */
import { compareBytes, compareCodePoints } from '../../../util/compare.js';
import { floorDiv } from '../../../util/bigint-math.js';
import * as arrow from 'apache-arrow';
import { fieldIdOf } from '../../../model/arrow/field-id.js';
import { valueFromArrow } from '../../../model/arrow/rows.js';
import { FloeError } from '../../../util/errors.js';
import type { FieldType } from '../../../model/index.js';
import type { RowOrder, SortTerm } from '../planning/sort-order.js';
import { hilbertIndex } from './hilbert.js';

/** The keys of one batch's rows: per-term value columns (sort) or one interleaved byte string per row (z-order). */
export type BatchKeys = { kind: 'sort'; cols: unknown[][] } | { kind: 'zorder'; bytes: Uint8Array; len: number };

export interface RowComparator {
  keysOf(batch: arrow.RecordBatch): BatchKeys;
  compare(a: BatchKeys, i: number, b: BatchKeys, j: number): number;
}

export function rowComparator(order: RowOrder): RowComparator {
  if (order.kind === 'zorder') {
    return {
      keysOf: (batch) =>
        order.curve === 'hilbert'
          ? hilbertKeys(batch, order.terms)
          : zorderKeys(batch, order.terms, order.varLengthContribution),
      compare(a, i, b, j) {
        // one contiguous buffer per batch, `len` bytes per row: no per-row objects to allocate or collect
        const x = a as { bytes: Uint8Array; len: number };
        const y = b as { bytes: Uint8Array; len: number };
        const len = x.len;
        const xa = x.bytes;
        const yb = y.bytes;
        for (let k = 0, p = i * len, q = j * len; k < len; k++, p++, q++) {
          const d = xa[p]! - yb[q]!;
          if (d !== 0) return d;
        }
        return 0;
      },
    };
  }
  const cmps = order.terms.map(valueComparator);
  const terms = order.terms;
  return {
    keysOf: (batch) => ({ kind: 'sort', cols: terms.map((t) => termValues(batch, t)) }),
    compare(a, i, b, j) {
      const ca = (a as { cols: unknown[][] }).cols;
      const cb = (b as { cols: unknown[][] }).cols;
      for (let t = 0; t < terms.length; t++) {
        const x = ca[t]![i];
        const y = cb[t]![j];
        const term = terms[t]!;
        if (x === null || y === null) {
          if (x === y) continue;
          const nullFirst = term.nullOrder === 'nulls-first';
          return x === null ? (nullFirst ? -1 : 1) : nullFirst ? 1 : -1;
        }
        const c = cmps[t]!(x, y);
        if (c !== 0) return term.direction === 'desc' ? -c : c;
      }
      return 0;
    },
  };
}

/** The Arrow data of a term's column in `batch` (struct nesting followed by field id) and, per row, whether a parent is null. */
function columnOf(batch: arrow.RecordBatch, term: SortTerm): { data: arrow.Data; parents: arrow.Data[] } {
  let fields = batch.schema.fields;
  let data: arrow.Data = batch.data;
  const parents: arrow.Data[] = [];
  for (const [k, id] of term.path.entries()) {
    const at = fields.findIndex((f) => fieldIdOf(f) === id);
    if (at < 0)
      throw new FloeError(
        'Internal',
        `sort column ${term.name} (field id ${id}) is missing from the rows being sorted`,
      );
    if (k > 0) parents.push(data); // a struct column: its nulls make the field null
    const field = fields[at]!;
    data = data.children[at]!;
    fields = arrow.DataType.isStruct(field.type) ? (field.type as arrow.Struct).children : [];
  }
  return { data, parents };
}

/** A term's transformed values for every row of `batch` (null for null, also under a null struct). */
export function termValues(batch: arrow.RecordBatch, term: SortTerm): unknown[] {
  const { data, parents } = columnOf(batch, term);
  const out = new Array<unknown>(batch.numRows);
  const transform = transformOf(term);
  for (let i = 0; i < batch.numRows; i++) {
    if (parents.some((p) => !p.getValid(i))) {
      out[i] = null;
      continue;
    }
    const v = valueFromArrow(data, i, term.type);
    out[i] = v === null || v === undefined ? null : transform(normalize(v, term.type));
  }
  return out;
}

/** Values in a form that compares and transforms easily: decimals as unscaled bigint, dates as days. */
function normalize(v: unknown, type: FieldType): unknown {
  if (type.kind !== 'primitive') return v;
  if (type.name === 'decimal' && typeof v === 'string') return unscaled(v, type.scale ?? 0);
  if (type.name === 'uuid' && typeof v === 'string') return Buffer.from(v.replace(/-/g, ''), 'hex');
  if ((type.name === 'int' || type.name === 'date') && typeof v === 'bigint') return Number(v);
  if ((type.name === 'long' || type.name.startsWith('timestamp') || type.name === 'time') && typeof v === 'number')
    return BigInt(v);
  return v;
}

function unscaled(text: string, scale: number): bigint {
  const neg = text.startsWith('-');
  const [whole = '0', frac = ''] = (neg ? text.slice(1) : text).split('.');
  const digits = BigInt(whole + frac.padEnd(scale, '0').slice(0, scale));
  return neg ? -digits : digits;
}

const US_PER_HOUR = 3_600_000_000n;
const US_PER_DAY = 86_400_000_000n;

function transformOf(term: SortTerm): (v: unknown) => unknown {
  const t = term.type.kind === 'primitive' ? term.type.name : '';
  const nanos = t.endsWith('_ns');
  const micros = (v: unknown): bigint => (nanos ? floorDiv(v as bigint, 1000n) : (v as bigint));
  const days = (v: unknown): number => (t === 'date' ? (v as number) : Number(floorDiv(micros(v), US_PER_DAY)));
  const ymd = (v: unknown) => new Date(days(v) * 86_400_000);
  switch (term.transform) {
    case 'identity':
      return (v) => v;
    case 'hour':
      return (v) => Number(floorDiv(micros(v), US_PER_HOUR));
    case 'day':
      return days;
    case 'month':
      return (v) => {
        const d = ymd(v);
        return (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth();
      };
    case 'year':
      return (v) => ymd(v).getUTCFullYear() - 1970;
  }
  const w = /^truncate\[(\d+)\]$/.exec(term.transform);
  if (w) {
    const width = Number(w[1]);
    if (t === 'string') return (v) => [...(v as string)].slice(0, width).join('');
    if (t === 'binary') return (v) => (v as Uint8Array).subarray(0, width);
    if (t === 'int') return (v) => (v as number) - ((((v as number) % width) + width) % width);
    const bw = BigInt(width);
    return (v) => (v as bigint) - ((((v as bigint) % bw) + bw) % bw);
  }
  throw new FloeError('Unsupported', `sort transform ${term.transform} is not supported`);
}

/** Compares two non-null normalized values of one term, ascending. */
function valueComparator(term: SortTerm): (a: unknown, b: unknown) => number {
  const t = term.type.kind === 'primitive' ? term.type.name : '';
  if (term.transform !== 'identity' && !term.transform.startsWith('truncate'))
    return (a, b) => (a as number) - (b as number);
  if (t === 'float' || t === 'double') return (a, b) => compareFloatTotal(a as number, b as number);
  if (t === 'string') return (a, b) => compareCodePoints(a as string, b as string);
  if (t === 'binary' || t === 'fixed' || t === 'uuid') return (a, b) => compareBytes(a as Uint8Array, b as Uint8Array);
  if (t === 'boolean') return (a, b) => Number(a) - Number(b);
  return (a, b) =>
    (a as number | bigint) < (b as number | bigint) ? -1 : (a as number | bigint) > (b as number | bigint) ? 1 : 0;
}

/** Iceberg's float order: -Infinity < … < -0 < 0 < … < Infinity < NaN. */
export function compareFloatTotal(a: number, b: number): number {
  const na = Number.isNaN(a);
  const nb = Number.isNaN(b);
  if (na || nb) return na === nb ? 0 : na ? 1 : -1;
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === 0 && b === 0) {
    const za = Object.is(a, -0);
    const zb = Object.is(b, -0);
    return za === zb ? 0 : za ? -1 : 1;
  }
  return 0;
}

export { compareBytes, compareCodePoints };

// ---- z-order --------------------------------------------------------------------------------------

const encoder = new TextEncoder();

/** Bytes per value of a z column: fixed for numbers, `varLength` for strings and binary. */
function zWidth(type: FieldType, varLength: number): number {
  const t = type.kind === 'primitive' ? type.name : '';
  if (t === 'boolean') return 1;
  if (['string', 'binary', 'fixed', 'uuid'].includes(t)) return varLength;
  return 8;
}

const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

/** The order-preserving fixed-width bytes of one normalized value (see the module comment). */
export function zBytes(v: unknown, type: FieldType, width: number): Uint8Array {
  const out = new Uint8Array(width);
  if (v === null || v === undefined) return out;
  const t = type.kind === 'primitive' ? type.name : '';
  const view = new DataView(out.buffer);
  if (t === 'boolean') {
    out[0] = v ? 1 : 0;
    return out;
  }
  if (t === 'float' || t === 'double') {
    view.setFloat64(0, v as number);
    // positive: flip the sign bit (above all negatives); negative: flip every bit (larger magnitude lower)
    if (out[0]! & 0x80) for (let i = 0; i < 8; i++) out[i] = ~out[i]! & 0xff;
    else out[0] = out[0]! ^ 0x80;
    return out;
  }
  if (['string', 'binary', 'fixed', 'uuid'].includes(t)) {
    const bytes = typeof v === 'string' ? encoder.encode(v) : (v as Uint8Array);
    out.set(bytes.subarray(0, width));
    return out;
  }
  // int, long, date, time, timestamps, decimal (unscaled, clamped to 64 bits): big-endian, sign bit flipped
  let n = typeof v === 'bigint' ? v : BigInt(v as number);
  if (n < I64_MIN) n = I64_MIN;
  if (n > I64_MAX) n = I64_MAX;
  view.setBigInt64(0, n);
  out[0] = out[0]! ^ 0x80;
  return out;
}

/** Interleaves the bits of `parts`, most significant first, one bit of each part in turn (a part that runs out drops out). */
export function interleaveBits(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let outBit = 0;
  const maxBits = Math.max(0, ...parts.map((p) => p.length * 8));
  for (let bit = 0; bit < maxBits; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    for (const p of parts) {
      if (byte >= p.length) continue;
      if (p[byte]! & mask) out[outBit >> 3]! |= 0x80 >> (outBit & 7);
      outBit++;
    }
  }
  return out;
}

function zorderKeys(batch: arrow.RecordBatch, terms: readonly SortTerm[], varLength: number): BatchKeys {
  const n = batch.numRows;
  const widths = terms.map((t) => zWidth(t.type, varLength));
  const len = widths.reduce((a, b) => a + b, 0);
  const out = new Uint8Array(n * len);
  const cols = terms.map((t) => termValues(batch, t));
  for (let i = 0; i < n; i++)
    out.set(interleaveBits(terms.map((t, c) => zBytes(cols[c]![i], t.type, widths[c]!))), i * len);
  return { kind: 'zorder', bytes: out, len };
}

/** Hilbert keys (hilbert.ts): every column as 8 order-preserving bytes (strings/binary: their first 8), null = 0. */
function hilbertKeys(batch: arrow.RecordBatch, terms: readonly SortTerm[]): BatchKeys {
  const n = batch.numRows;
  const len = terms.length * 8;
  const out = new Uint8Array(n * len);
  const cols = terms.map((t) => termValues(batch, t));
  for (let i = 0; i < n; i++) out.set(hilbertIndex(terms.map((t, c) => zBytes(cols[c]![i], t.type, 8))), i * len);
  return { kind: 'zorder', bytes: out, len };
}
