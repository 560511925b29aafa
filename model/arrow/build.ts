/**
 * Builds Arrow data from exact JS values (the same shapes rowsFromArrow produces), without Arrow JS
 * builders: those convert timestamps through milliseconds and would lose microseconds.
 */
import * as arrow from 'apache-arrow';
import { FloeError } from '../../util/errors.js';
import { decimalFitsPrecision, parseDecimal, writeWords } from './decimal.js';
import { uuidToBytes } from './uuid.js';

const encoder = new TextEncoder();

function bitmap(values: readonly unknown[]): { nullBitmap: Uint8Array; nullCount: number } {
  const nullBitmap = new Uint8Array(Math.ceil(values.length / 8));
  let nullCount = 0;
  values.forEach((v, i) => {
    if (v === null || v === undefined) nullCount++;
    else nullBitmap[i >> 3]! |= 1 << (i & 7);
  });
  return { nullBitmap, nullCount };
}

function toBigInt(v: unknown, where: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  throw new FloeError('InvalidArgument', `${where}: ${String(v)} is not an exact integer`);
}

function toNumber(v: unknown, where: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  throw new FloeError('InvalidArgument', `${where}: ${String(v)} is not a number`);
}

function toBytes(v: unknown, where: string): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return encoder.encode(v);
  throw new FloeError('InvalidArgument', `${where}: expected bytes, got ${typeof v}`);
}

/** One Arrow Data of `type` holding `values` (null/undefined = null). */
export function buildData(type: arrow.DataType, values: readonly unknown[], where = 'value'): arrow.Data {
  const length = values.length;
  const { nullBitmap, nullCount } = bitmap(values);
  // No validity buffer when nothing is null (Arrow allows it; it keeps byte estimates honest).
  const base = { type, length, nullCount, nullBitmap: nullCount ? nullBitmap : undefined } as const;

  if (arrow.DataType.isBool(type)) {
    const data = new Uint8Array(Math.ceil(length / 8));
    values.forEach((v, i) => {
      if (v === true) data[i >> 3]! |= 1 << (i & 7);
    });
    return arrow.makeData({ ...base, type, data });
  }
  if (arrow.DataType.isInt(type)) {
    if (type.bitWidth === 64) {
      const data = type.isSigned ? new BigInt64Array(length) : new BigUint64Array(length);
      values.forEach((v, i) => {
        if (v != null) data[i] = toBigInt(v, where);
      });
      return arrow.makeData({ ...base, type, data } as never);
    }
    const Ctor = {
      8: type.isSigned ? Int8Array : Uint8Array,
      16: type.isSigned ? Int16Array : Uint16Array,
      32: type.isSigned ? Int32Array : Uint32Array,
    }[type.bitWidth as 8 | 16 | 32];
    const data = new Ctor(length);
    values.forEach((v, i) => {
      if (v != null) data[i] = toNumber(v, where);
    });
    return arrow.makeData({ ...base, type, data } as never);
  }
  if (arrow.DataType.isFloat(type)) {
    const data = type.precision === arrow.Precision.SINGLE ? new Float32Array(length) : new Float64Array(length);
    values.forEach((v, i) => {
      if (v != null) data[i] = toNumber(v, where);
    });
    return arrow.makeData({ ...base, type, data } as never);
  }
  if (arrow.DataType.isDecimal(type)) {
    const words = type.bitWidth / 32;
    const data = new Uint32Array(length * words);
    values.forEach((v, i) => {
      if (v == null) return;
      const unscaled =
        typeof v === 'bigint' ? v * 10n ** BigInt(type.scale) : parseDecimal(String(v), type.scale, where);
      if (!decimalFitsPrecision(unscaled, type.precision)) {
        throw new FloeError(
          'InvalidArgument',
          `${where}: ${String(v)} does not fit decimal(${type.precision},${type.scale})`,
        );
      }
      writeWords(unscaled, data, i * words, words);
    });
    return arrow.makeData({ ...base, type, data });
  }
  if (arrow.DataType.isDate(type)) {
    if (type.unit === arrow.DateUnit.DAY) {
      const data = new Int32Array(length);
      values.forEach((v, i) => {
        if (v != null) data[i] = toNumber(v, where);
      });
      return arrow.makeData({ ...base, type, data } as never);
    }
    const data = new BigInt64Array(length);
    values.forEach((v, i) => {
      if (v != null) data[i] = toBigInt(v, where);
    });
    return arrow.makeData({ ...base, type, data } as never);
  }
  if (arrow.DataType.isTime(type) || arrow.DataType.isTimestamp(type)) {
    const wide = arrow.DataType.isTimestamp(type) || (type as arrow.Time).bitWidth === 64;
    if (wide) {
      const data = new BigInt64Array(length);
      values.forEach((v, i) => {
        if (v != null) data[i] = toBigInt(v, where);
      });
      return arrow.makeData({ ...base, type, data } as never);
    }
    const data = new Int32Array(length);
    values.forEach((v, i) => {
      if (v != null) data[i] = toNumber(v, where);
    });
    return arrow.makeData({ ...base, type, data } as never);
  }
  if (arrow.DataType.isUtf8(type) || arrow.DataType.isBinary(type)) {
    const parts = values.map((v) => (v == null ? new Uint8Array(0) : toBytes(v, where)));
    const valueOffsets = new Int32Array(length + 1);
    let total = 0;
    parts.forEach((p, i) => {
      total += p.length;
      valueOffsets[i + 1] = total;
    });
    const data = new Uint8Array(total);
    parts.forEach((p, i) => data.set(p, valueOffsets[i]!));
    return arrow.makeData({ ...base, type, valueOffsets, data } as never);
  }
  if (arrow.DataType.isFixedSizeBinary(type)) {
    const width = type.byteWidth;
    const data = new Uint8Array(length * width);
    values.forEach((v, i) => {
      if (v == null) return;
      const b = typeof v === 'string' && width === 16 ? uuidToBytes(v) : toBytes(v, where);
      if (b.length !== width) throw new FloeError('InvalidArgument', `${where}: ${b.length} bytes for fixed(${width})`);
      data.set(b, i * width);
    });
    return arrow.makeData({ ...base, type, data });
  }
  if (arrow.DataType.isStruct(type)) {
    const children = type.children.map((child) =>
      buildData(
        child.type,
        values.map((v) => (v == null ? null : (v as Record<string, unknown>)[child.name])),
        `${where}.${child.name}`,
      ),
    );
    return arrow.makeData({ ...base, type, children });
  }
  if (arrow.DataType.isList(type)) {
    const valueOffsets = new Int32Array(length + 1);
    const flat: unknown[] = [];
    values.forEach((v, i) => {
      if (v != null) {
        if (!Array.isArray(v)) throw new FloeError('InvalidArgument', `${where}: expected an array`);
        flat.push(...v);
      }
      valueOffsets[i + 1] = flat.length;
    });
    const child = buildData(type.children[0]!.type, flat, `${where}.element`);
    return arrow.makeData({ ...base, type, valueOffsets, child });
  }
  if (arrow.DataType.isMap(type)) {
    const entriesType = type.children[0]!.type as arrow.Struct;
    const [keyField, valueField] = entriesType.children as [arrow.Field, arrow.Field];
    const valueOffsets = new Int32Array(length + 1);
    const keys: unknown[] = [];
    const vals: unknown[] = [];
    values.forEach((v, i) => {
      if (v != null) {
        const entries =
          v instanceof Map
            ? [...v.entries()]
            : Array.isArray(v)
              ? (v as [unknown, unknown][])
              : Object.entries(v as object);
        for (const [k, x] of entries) {
          keys.push(k);
          vals.push(x);
        }
      }
      valueOffsets[i + 1] = keys.length;
    });
    const entries = arrow.makeData({
      type: entriesType,
      length: keys.length,
      nullCount: 0,
      children: [buildData(keyField.type, keys, `${where}.key`), buildData(valueField.type, vals, `${where}.value`)],
    });
    return arrow.makeData({ ...base, type, valueOffsets, child: entries });
  }
  if (arrow.DataType.isNull(type)) return arrow.makeData({ type, length, nullCount: length });
  throw new FloeError('Unsupported', `${where}: cannot build Arrow ${String(type)} from JS values`);
}

/** An Arrow table with `schema` from row objects keyed by field name. */
export function tableFromRows(schema: arrow.Schema, rows: readonly Record<string, unknown>[]): arrow.Table {
  const children = schema.fields.map((f) =>
    buildData(
      f.type,
      rows.map((r) => r[f.name]),
      f.name,
    ),
  );
  const data = arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, nullCount: 0, children });
  return new arrow.Table([new arrow.RecordBatch(schema, data)]);
}
