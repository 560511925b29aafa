/**
 * Paimon BinaryRow: the byte layout Paimon uses for partitions, min/max keys and stats rows in manifests
 * (paimon-common `BinaryRow`, `BinaryRowWriter`, `AbstractBinaryWriter`).
 *
 *   [null bits: ((n + 63 + 8) / 64) * 8 bytes; byte 0 = RowKind, field i's bit = i + 8, LSB first]
 *   [fixed part: 8 bytes per field, little-endian]
 *   [variable part: 8-byte aligned chunks, zero padded]
 *
 * Strings/binaries of ≤ 7 bytes live inside their slot (byte 7 = 0x80 | length); longer ones, non-compact
 * decimals (precision > 18) and non-compact timestamps (precision > 3) go to the variable part and the slot
 * holds (offset << 32) | length (or nanos-of-milli for timestamps). Manifests store rows "serialized": a
 * 4-byte big-endian arity, then the row bytes (`SerializationUtils.serializeBinaryRow`).
 *
 * Value representation (shared with the scan): BOOLEAN boolean; TINYINT/SMALLINT/INT number; DATE days
 * (number); TIME millis of day (number); BIGINT bigint; FLOAT/DOUBLE number; DECIMAL exact decimal string
 * ("-12.30"); TIMESTAMP[_LTZ] bigint micros since epoch for precision ≤ 6, bigint nanos above; CHAR/VARCHAR
 * string; BINARY/VARBINARY Uint8Array; ROW nested value array; ARRAY/MAP/MULTISET raw bytes (Uint8Array).
 * (Nested values the Parquet scan reads are shaped differently — arrays, `Map`s, ROW objects keyed by member
 * name, members in the file's units — see write-nested.ts; they never occur in BinaryRows: not keys, no stats.)
 */
import { FloeError } from '../../util/errors.js';
import { bigintFromBigEndian, bigintToMinimalBigEndian, formatDecimal } from '../../model/arrow/decimal.js';
import { MAX_COMPACT_DECIMAL_PRECISION, MAX_COMPACT_TIMESTAMP_PRECISION, type PaimonType } from './types.js';

export function nullBitsSizeInBytes(arity: number): number {
  return Math.floor((arity + 63 + 8) / 64) * 8;
}

function corrupt(what: string, context: string): never {
  throw new FloeError('Corrupt', `corrupt BinaryRow in ${context}: ${what}`, { context: { file: context } });
}

// ---------------------------------------------------------------------------------------------- decimals

/** Exact decimal text (or number/bigint) → unscaled integer at `scale`; rejects values needing rounding. */
export function decimalToUnscaled(value: unknown, scale: number): bigint {
  if (typeof value === 'bigint') return value * 10n ** BigInt(scale);
  const text = typeof value === 'number' ? String(value) : String(value);
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m) throw new FloeError('InvalidArgument', `not a decimal value: ${text}`);
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (frac.length > scale)
    throw new FloeError('InvalidArgument', `decimal ${text} has more than ${scale} fraction digits`);
  const v = BigInt((m[2] || '0') + frac.padEnd(scale, '0'));
  return m[1] === '-' ? -v : v;
}

// --------------------------------------------------------------------------------------------- decoding

export interface DecodedRow {
  /** RowKind byte (0 = +I, 1 = -U, 2 = +U, 3 = -D). */
  rowKind: number;
  values: unknown[];
}

/** Decodes `arity` fields of a BinaryRow that starts at `base` of `buf`, typed by `types`. */
export function decodeBinaryRow(
  buf: Uint8Array,
  types: readonly PaimonType[],
  context: string,
  base = 0,
  end = buf.length,
): DecodedRow {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const arity = types.length;
  const bits = nullBitsSizeInBytes(arity);
  if (base + bits + 8 * arity > end)
    corrupt(`row of ${arity} fields needs ${bits + 8 * arity} bytes, has ${end - base}`, context);
  const values: unknown[] = new Array(arity);
  for (let i = 0; i < arity; i++) {
    const bit = i + 8;
    if (buf[base + (bit >> 3)]! & (1 << (bit & 7))) {
      values[i] = null;
      continue;
    }
    values[i] = decodeField(buf, view, base, end, base + bits + 8 * i, types[i]!, context);
  }
  return { rowKind: buf[base]!, values };
}

function varPart(
  buf: Uint8Array,
  view: DataView,
  base: number,
  end: number,
  slot: number,
  context: string,
): Uint8Array {
  const mark = buf[slot + 7]!;
  if (mark & 0x80) {
    const len = mark & 0x7f;
    if (len > 7) corrupt(`inline length ${len} > 7`, context);
    return buf.subarray(slot, slot + len);
  }
  const len = view.getUint32(slot, true);
  const off = view.getUint32(slot + 4, true);
  if (base + off + len > end) corrupt(`variable data at ${off}+${len} lies outside the row`, context);
  return buf.subarray(base + off, base + off + len);
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

function decodeField(
  buf: Uint8Array,
  view: DataView,
  base: number,
  end: number,
  slot: number,
  t: PaimonType,
  context: string,
): unknown {
  switch (t.root) {
    case 'BOOLEAN':
      return buf[slot] !== 0;
    case 'TINYINT':
      return view.getInt8(slot);
    case 'SMALLINT':
      return view.getInt16(slot, true);
    case 'INT':
    case 'DATE':
    case 'TIME':
      return view.getInt32(slot, true);
    case 'BIGINT':
      return view.getBigInt64(slot, true);
    case 'FLOAT':
      return view.getFloat32(slot, true);
    case 'DOUBLE':
      return view.getFloat64(slot, true);
    case 'CHAR':
    case 'VARCHAR':
      return utf8.decode(varPart(buf, view, base, end, slot, context));
    case 'BINARY':
    case 'VARBINARY':
    case 'BLOB':
    case 'VARIANT':
      return Uint8Array.from(varPart(buf, view, base, end, slot, context));
    case 'DECIMAL': {
      if (t.precision! <= MAX_COMPACT_DECIMAL_PRECISION) return formatDecimal(view.getBigInt64(slot, true), t.scale!);
      const len = view.getUint32(slot, true);
      const off = view.getUint32(slot + 4, true);
      if (len > 16 || base + off + len > end) corrupt(`decimal bytes at ${off}+${len} lie outside the row`, context);
      return formatDecimal(bigintFromBigEndian(buf.subarray(base + off, base + off + len)), t.scale!);
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const p = t.precision ?? 6;
      let millis: bigint;
      let nanoOfMilli = 0n;
      if (p <= MAX_COMPACT_TIMESTAMP_PRECISION) {
        millis = view.getBigInt64(slot, true);
      } else {
        nanoOfMilli = BigInt(view.getUint32(slot, true));
        const off = view.getUint32(slot + 4, true);
        if (base + off + 8 > end) corrupt(`timestamp millis at ${off} lie outside the row`, context);
        millis = view.getBigInt64(base + off, true);
      }
      return p > 6 ? millis * 1_000_000n + nanoOfMilli : millis * 1000n + nanoOfMilli / 1000n;
    }
    case 'ROW': {
      const bytes = varPart(buf, view, base, end, slot, context);
      return decodeBinaryRow(
        bytes,
        t.fields.map((f) => f.type),
        context,
      ).values;
    }
    case 'ARRAY':
    case 'MAP':
    case 'MULTISET':
    case 'VECTOR':
      return Uint8Array.from(varPart(buf, view, base, end, slot, context));
  }
}

/**
 * Decodes a serialized row (4-byte BE arity + BinaryRow). `types` may be longer or shorter than the stored
 * arity only by being a prefix match: a mismatch is an error because the bytes would be misread.
 */
export function decodeSerializedRow(bytes: Uint8Array, types: readonly PaimonType[], context: string): unknown[] {
  if (bytes.length < 4) corrupt(`serialized row of ${bytes.length} bytes has no arity`, context);
  const arity = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(0, false);
  if (arity !== types.length) corrupt(`row has ${arity} fields, expected ${types.length}`, context);
  return decodeBinaryRow(bytes.subarray(4), types, context).values;
}

/** Arity of a serialized row without decoding it. */
export function serializedRowArity(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(0, false);
}

// --------------------------------------------------------------------------------------------- encoding

const utf8enc = new TextEncoder();

function pad8(n: number): number {
  return (n + 7) & ~7;
}

/** Encodes a BinaryRow exactly as Java's BinaryRowWriter would (fields written in order). */
export function encodeBinaryRow(types: readonly PaimonType[], values: readonly unknown[], rowKind = 0): Uint8Array {
  if (types.length !== values.length) {
    throw new FloeError('InvalidArgument', `BinaryRow: ${values.length} values for ${types.length} types`);
  }
  const arity = types.length;
  const fixed = nullBitsSizeInBytes(arity) + 8 * arity;
  const varChunks: Uint8Array[] = [];
  let varLen = 0;
  const head = new Uint8Array(fixed);
  const hv = new DataView(head.buffer);
  head[0] = rowKind;
  const bits = nullBitsSizeInBytes(arity);
  const appendVar = (data: Uint8Array, reserve = data.length): number => {
    const off = fixed + varLen;
    const chunk = new Uint8Array(pad8(reserve));
    chunk.set(data);
    varChunks.push(chunk);
    varLen += chunk.length;
    return off;
  };
  const setSlot = (slot: number, offset: number, low: number) => {
    hv.setUint32(slot, low >>> 0, true);
    hv.setUint32(slot + 4, offset, true);
  };
  for (let i = 0; i < arity; i++) {
    const t = types[i]!;
    const v = values[i];
    const slot = bits + 8 * i;
    if (v === null || v === undefined) {
      head[(i + 8) >> 3]! |= 1 << ((i + 8) & 7);
      // Java still reserves variable space for null non-compact decimals / timestamps.
      if (t.root === 'DECIMAL' && t.precision! > MAX_COMPACT_DECIMAL_PRECISION)
        setSlot(slot, appendVar(new Uint8Array(0), 16), 0);
      else if (
        (t.root === 'TIMESTAMP' || t.root === 'TIMESTAMP_LTZ') &&
        (t.precision ?? 6) > MAX_COMPACT_TIMESTAMP_PRECISION
      ) {
        setSlot(slot, appendVar(new Uint8Array(0), 8), 0);
      }
      continue;
    }
    switch (t.root) {
      case 'BOOLEAN':
        head[slot] = v ? 1 : 0;
        break;
      case 'TINYINT':
        hv.setInt8(slot, Number(v));
        break;
      case 'SMALLINT':
        hv.setInt16(slot, Number(v), true);
        break;
      case 'INT':
      case 'DATE':
      case 'TIME':
        hv.setInt32(slot, Number(v), true);
        break;
      case 'BIGINT':
        hv.setBigInt64(slot, BigInt(v as bigint | number), true);
        break;
      case 'FLOAT':
        hv.setFloat32(slot, Number(v), true);
        break;
      case 'DOUBLE':
        hv.setFloat64(slot, Number(v), true);
        break;
      case 'CHAR':
      case 'VARCHAR':
      case 'BINARY':
      case 'VARBINARY':
      case 'BLOB':
      case 'VARIANT':
      case 'ARRAY':
      case 'MAP':
      case 'MULTISET':
      case 'VECTOR':
      case 'ROW': {
        let data: Uint8Array;
        if (t.root === 'ROW')
          data = encodeBinaryRow(
            t.fields.map((f) => f.type),
            v as unknown[],
          );
        else if (typeof v === 'string') data = utf8enc.encode(v);
        else if (v instanceof Uint8Array) data = v;
        else throw new FloeError('InvalidArgument', `BinaryRow field ${i}: cannot encode ${typeof v} as ${t.root}`);
        if (data.length <= 7 && t.root !== 'ROW' && t.root !== 'ARRAY' && t.root !== 'MAP' && t.root !== 'MULTISET') {
          head.set(data, slot);
          head[slot + 7] = 0x80 | data.length;
        } else {
          setSlot(slot, appendVar(data), data.length);
        }
        break;
      }
      case 'DECIMAL': {
        const unscaled = decimalToUnscaled(v, t.scale!);
        if (t.precision! <= MAX_COMPACT_DECIMAL_PRECISION) hv.setBigInt64(slot, unscaled, true);
        else {
          const bytes = bigintToMinimalBigEndian(unscaled);
          if (bytes.length > 16) throw new FloeError('InvalidArgument', `decimal ${String(v)} does not fit 16 bytes`);
          setSlot(slot, appendVar(bytes, 16), bytes.length);
        }
        break;
      }
      case 'TIMESTAMP':
      case 'TIMESTAMP_LTZ': {
        const p = t.precision ?? 6;
        const raw = BigInt(v as bigint | number);
        const perMilli = p > 6 ? 1_000_000n : 1000n;
        let millis = raw / perMilli;
        let rest = raw % perMilli;
        if (rest < 0n) {
          rest += perMilli;
          millis -= 1n;
        }
        const nanoOfMilli = p > 6 ? rest : rest * 1000n;
        if (p <= MAX_COMPACT_TIMESTAMP_PRECISION) hv.setBigInt64(slot, millis, true);
        else {
          const b = new Uint8Array(8);
          new DataView(b.buffer).setBigInt64(0, millis, true);
          setSlot(slot, appendVar(b), Number(nanoOfMilli));
        }
        break;
      }
    }
  }
  const out = new Uint8Array(fixed + varLen);
  out.set(head);
  let pos = fixed;
  for (const c of varChunks) {
    out.set(c, pos);
    pos += c.length;
  }
  return out;
}

/** 4-byte big-endian arity + BinaryRow, the manifest form. */
export function encodeSerializedRow(types: readonly PaimonType[], values: readonly unknown[]): Uint8Array {
  const row = encodeBinaryRow(types, values);
  const out = new Uint8Array(4 + row.length);
  new DataView(out.buffer).setInt32(0, types.length, false);
  out.set(row, 4);
  return out;
}
