/**
 * Aligns Arrow data read from an older file with the table's current schema, by field id: reorder,
 * rename, fill added columns (null or initial-default), and apply Iceberg's allowed promotions
 * (int→long, float→double, decimal(p,s)→decimal(p',s) with p' ≥ p). Representation-only differences
 * that readers produce (narrow ints for int, large/view strings, dictionaries, timestamp units of
 * INT96/millis files) are normalised too. Anything else is Unsupported.
 */
import * as arrow from 'apache-arrow';
import { FloeError } from '../../../util/errors.js';
import type { Field, FieldType } from '../../../model/table.js';
import { arrowSchemaForIceberg } from './arrow-schema.js';
import { buildData } from '../../../model/arrow/build.js';
import { valueFromJsonDefault } from './defaults.js';
import { fieldIdOf } from '../../../model/arrow/field-id.js';
import { decodeByteDictionary, narrowLargeBytes, narrowLargeList, viewToContiguous } from './narrow.js';
import { valueFromArrow } from '../../../model/arrow/rows.js';

export function castToSchema(table: arrow.Table, targetFields: Field[], file = 'table'): arrow.Table {
  const schema = arrowSchemaForIceberg(targetFields);
  const byId = new Map<number, number>();
  table.schema.fields.forEach((f, i) => {
    const id = fieldIdOf(f);
    if (id !== undefined) byId.set(id, i);
  });
  const struct = new arrow.Struct(schema.fields);
  const batches = table.batches.map((batch) => {
    const children = targetFields.map((field, c) => {
      const where = `${file}: column ${field.name} (id ${field.id})`;
      const target = schema.fields[c]!;
      const src = byId.get(field.id);
      const data =
        src === undefined
          ? fillData(field, target.type, batch.numRows, where)
          : castData(batch.data.children[src]!, target.type, field.type, where);
      checkRequired(data, field, where);
      return data;
    });
    return new arrow.RecordBatch(
      schema,
      arrow.makeData({ type: struct, length: batch.numRows, nullCount: 0, children }),
    );
  });
  return batches.length ? new arrow.Table(schema, batches) : new arrow.Table(schema);
}

function checkRequired(data: arrow.Data, field: Field, where: string): void {
  if (field.required && data.nullCount > 0) {
    throw new FloeError('Unsupported', `${where} is required but the data has ${data.nullCount} nulls`);
  }
}

function fillData(field: Field, type: arrow.DataType, length: number, where: string): arrow.Data {
  const value = valueFromJsonDefault(field.initialDefault, field.type, where);
  if (value === null && field.required) {
    throw new FloeError('Unsupported', `${where} is required, missing from the data file and has no initial-default`);
  }
  return buildData(type, new Array(length).fill(value), where);
}

const unsupported = (where: string, from: arrow.DataType, to: arrow.DataType) =>
  new FloeError('Unsupported', `${where}: cannot read ${String(from)} as ${String(to)}`);

function castData(data: arrow.Data, target: arrow.DataType, ice: FieldType, where: string): arrow.Data {
  const src = data.type as arrow.DataType;
  if (arrow.DataType.isDictionary(src)) {
    return decodeByteDictionary(data, target, where) ?? castData(decode(data, ice, where), target, ice, where);
  }

  if (ice.kind === 'struct') {
    if (!arrow.DataType.isStruct(src) || !arrow.DataType.isStruct(target)) throw unsupported(where, src, target);
    const srcIndex = new Map(src.children.map((f, i) => [fieldIdOf(f), i] as const));
    const children = ice.fields.map((f, c) => {
      const w = `${where}.${f.name}`;
      const i = srcIndex.get(f.id);
      const t = target.children[c]!.type;
      const child = i === undefined ? fillData(f, t, data.length, w) : castData(data.children[i]!, t, f.type, w);
      return child;
    });
    return data.clone(target, data.offset, data.length, data.nullCount, undefined, children);
  }
  if (ice.kind === 'list') {
    if (!arrow.DataType.isList(target)) throw unsupported(where, src, target);
    if (arrow.DataType.isLargeList(src)) {
      return narrowLargeList(data, target, where, (c) =>
        castData(c, target.children[0]!.type, ice.element, `${where}.element`),
      );
    }
    if (!arrow.DataType.isList(src)) throw unsupported(where, src, target);
    const child = castData(data.children[0]!, target.children[0]!.type, ice.element, `${where}.element`);
    return data.clone(target, data.offset, data.length, data.nullCount, undefined, [child]);
  }
  if (ice.kind === 'map') {
    if (!arrow.DataType.isMap(src) || !arrow.DataType.isMap(target)) throw unsupported(where, src, target);
    const entries = data.children[0]!;
    const entriesType = target.children[0]!.type as arrow.Struct;
    const key = castData(entries.children[0]!, entriesType.children[0]!.type, ice.key, `${where}.key`);
    const value = castData(entries.children[1]!, entriesType.children[1]!.type, ice.value, `${where}.value`);
    const newEntries = entries.clone(entriesType, entries.offset, entries.length, entries.nullCount, undefined, [
      key,
      value,
    ]);
    return data.clone(target, data.offset, data.length, data.nullCount, undefined, [newEntries]);
  }

  if (String(src) === String(target)) return data.clone(target);
  // v3 `unknown`: always null (a writer that stored the column anyway may only hold nulls)
  if (arrow.DataType.isNull(target)) {
    if (data.nullCount !== data.length)
      throw new FloeError(
        'Corrupt',
        `${where} has type unknown but the data holds ${data.length - data.nullCount} non-null values`,
      );
    return arrow.makeData({ type: target, length: data.length, nullCount: data.length });
  }
  const n = data.length;
  const valid = (i: number) => data.getValid(i);

  if (arrow.DataType.isInt(target) && arrow.DataType.isInt(src) && target.isSigned) {
    // Lossless widening only: a signed source may keep its width, an unsigned one must grow.
    const lossless = src.isSigned ? src.bitWidth <= target.bitWidth : src.bitWidth < target.bitWidth;
    if (!lossless) throw unsupported(where, src, target);
    const vals = data.values as ArrayLike<number>;
    if (target.bitWidth === 64) {
      const out = new BigInt64Array(n);
      for (let i = 0; i < n; i++) if (valid(i)) out[i] = BigInt(vals[i]!);
      return withValues(data, target, out);
    }
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = vals[i]!;
    return withValues(data, target, out);
  }
  if (arrow.DataType.isFloat(target) && arrow.DataType.isFloat(src) && target.precision === arrow.Precision.DOUBLE) {
    const vals = data.values as ArrayLike<number>;
    if (src.precision === arrow.Precision.HALF) throw unsupported(where, src, target);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = vals[i]!;
    return withValues(data, target, out);
  }
  if (arrow.DataType.isDecimal(target) && arrow.DataType.isDecimal(src)) {
    if (src.scale !== target.scale || src.precision > target.precision) throw unsupported(where, src, target);
    if (src.bitWidth === target.bitWidth) return data.clone(target);
    return rebuild(data, target, ice, where);
  }
  if (arrow.DataType.isTimestamp(target) && arrow.DataType.isTimestamp(src)) {
    // Only the unit differs (INT96 → ns, legacy TIMESTAMP_MILLIS → ms); tz spelling ('UTC'/'+00:00') is not a change.
    if (Boolean(src.timezone) !== Boolean(target.timezone) && !isInt96Like(src)) throw unsupported(where, src, target);
    return rescale(data, target, unitNanos(src.unit), unitNanos(target.unit));
  }
  if (arrow.DataType.isTime(target) && arrow.DataType.isTime(src)) {
    return rescale(data, target, unitNanos(src.unit), unitNanos(target.unit));
  }
  if (arrow.DataType.isDate(target) && arrow.DataType.isDate(src) && target.unit === arrow.DateUnit.DAY) {
    return rebuild(data, target, ice, where);
  }
  // large/view layouts: the same bytes with 32-bit offsets (no per-value strings)
  if (
    (arrow.DataType.isUtf8(target) && arrow.DataType.isLargeUtf8(src)) ||
    (arrow.DataType.isBinary(target) && arrow.DataType.isLargeBinary(src))
  ) {
    return narrowLargeBytes(data, target, where);
  }
  if (
    (arrow.DataType.isUtf8(target) && arrow.DataType.isUtf8View(src)) ||
    (arrow.DataType.isBinary(target) && arrow.DataType.isBinaryView(src))
  ) {
    return viewToContiguous(data, target, where);
  }
  // pyarrow writes binary columns that Iceberg calls fixed/uuid as FIXED_LEN_BYTE_ARRAY, but a file may carry them as binary
  if (arrow.DataType.isFixedSizeBinary(target) && (arrow.DataType.isBinary(src) || arrow.DataType.isLargeBinary(src))) {
    return rebuild(data, target, ice, where);
  }
  if (
    arrow.DataType.isFixedSizeBinary(target) &&
    arrow.DataType.isFixedSizeBinary(src) &&
    src.byteWidth === target.byteWidth
  ) {
    return data.clone(target);
  }
  throw unsupported(where, src, target);
}

/** INT96 timestamps carry no UTC flag; arrow-rs reads them as tz-less ns, valid for either Iceberg timestamp type. */
function isInt96Like(t: arrow.Timestamp): boolean {
  return t.unit === arrow.TimeUnit.NANOSECOND && !t.timezone;
}

function unitNanos(unit: arrow.TimeUnit): bigint {
  switch (unit) {
    case arrow.TimeUnit.SECOND:
      return 1_000_000_000n;
    case arrow.TimeUnit.MILLISECOND:
      return 1_000_000n;
    case arrow.TimeUnit.MICROSECOND:
      return 1_000n;
    default:
      return 1n;
  }
}

function rescale(data: arrow.Data, target: arrow.DataType, fromNs: bigint, toNs: bigint): arrow.Data {
  const n = data.length;
  const vals = data.values as ArrayLike<number | bigint>;
  const wide = arrow.DataType.isTimestamp(target) || (target as arrow.Time).bitWidth === 64;
  const out = wide ? new BigInt64Array(n) : new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (!data.getValid(i)) continue;
    const ns = BigInt(vals[i]!) * fromNs;
    // floor division: pre-epoch values round toward -infinity, as Java's Math.floorDiv does for INT96
    let q = ns / toNs;
    if (ns % toNs !== 0n && ns < 0n) q -= 1n;
    out[i] = (wide ? q : Number(q)) as never;
  }
  return withValues(data, target, out);
}

function withValues(data: arrow.Data, type: arrow.DataType, values: ArrayBufferView): arrow.Data {
  return arrow.makeData({
    type,
    length: data.length,
    nullCount: data.nullCount,
    nullBitmap: sliceBitmap(data),
    data: values,
  } as never);
}

/** The validity bitmap re-based to offset 0 (our new value buffers start at 0). */
function sliceBitmap(data: arrow.Data): Uint8Array | undefined {
  if (!data.nullBitmap || data.nullCount === 0) return undefined;
  if (data.offset % 8 === 0) return data.nullBitmap.subarray(data.offset / 8);
  const out = new Uint8Array(Math.ceil(data.length / 8));
  for (let i = 0; i < data.length; i++) if (data.getValid(i)) out[i >> 3]! |= 1 << (i & 7);
  return out;
}

/** Slow but exact path: decode every value losslessly and rebuild in the target type. */
function rebuild(data: arrow.Data, target: arrow.DataType, ice: FieldType, where: string): arrow.Data {
  const values: unknown[] = new Array(data.length);
  for (let i = 0; i < data.length; i++) values[i] = valueFromArrow(data, i, ice);
  return buildData(target, values, where);
}

function decode(data: arrow.Data, ice: FieldType, where: string): arrow.Data {
  const dict = data.type as arrow.Dictionary;
  const values: unknown[] = new Array(data.length);
  const dictData = data.dictionary!.data[0]!;
  const indices = data.values as ArrayLike<number | bigint>;
  for (let i = 0; i < data.length; i++)
    values[i] = data.getValid(i) ? valueFromArrow(dictData, Number(indices[i]!), ice) : null;
  return buildData(dict.dictionary, values, where);
}
