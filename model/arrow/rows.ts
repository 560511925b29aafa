/**
 * A lossless JS view of Arrow data, for scans and equality checks. Values are read from the raw buffers:
 * Arrow JS's own getters turn timestamps into float milliseconds and decimals into lossy numbers.
 */
import * as arrow from 'apache-arrow';
import type { Field, FieldType } from '../table.js';
import { bigintFromWords, formatDecimal } from './decimal.js';
import { fieldIdOf } from './field-id.js';
import { uuidFromBytes } from './uuid.js';

const utf8 = new TextDecoder();

/**
 * Rows keyed by the Iceberg field name, one entry per field in `fields` (null when the table lacks the
 * id). Expects a table aligned to `fields` (see castToSchema); columns are found by field id.
 */
export function* rowsFromArrow(table: arrow.Table, fields: Field[]): Iterable<Record<string, unknown>> {
  const index = new Map<number, number>();
  table.schema.fields.forEach((f, i) => {
    const id = fieldIdOf(f);
    if (id !== undefined && !index.has(id)) index.set(id, i);
  });
  for (const batch of table.batches) {
    const columns = fields.map((f) => {
      const i = index.get(f.id);
      return i === undefined ? undefined : batch.data.children[i];
    });
    for (let r = 0; r < batch.numRows; r++) {
      const row: Record<string, unknown> = {};
      fields.forEach((f, c) => {
        const data = columns[c];
        row[f.name] = data ? valueFromArrow(data, r, f.type) : null;
      });
      yield row;
    }
  }
}

/** The exact JS value at row `i` of `data`; `type` (Iceberg) refines fixed(16) into uuid strings. */
export function valueFromArrow(data: arrow.Data, i: number, type?: FieldType): unknown {
  if (!data.getValid(i)) return null;
  const t = data.type as arrow.DataType;
  const values = data.values as ArrayLike<number | bigint> & { subarray?: unknown };
  if (arrow.DataType.isBool(t)) {
    const bit = data.offset + i;
    return ((data.values as Uint8Array)[bit >> 3]! & (1 << (bit & 7))) !== 0;
  }
  if (arrow.DataType.isInt(t) || arrow.DataType.isFloat(t)) return values[i];
  if (arrow.DataType.isDecimal(t)) {
    const words = t.bitWidth / 32;
    return formatDecimal(bigintFromWords(data.values as Uint32Array, i * words, words), t.scale);
  }
  if (arrow.DataType.isDate(t)) {
    const v = values[i]!;
    return t.unit === arrow.DateUnit.DAY ? v : Number(BigInt(v) / 86_400_000n);
  }
  if (arrow.DataType.isTime(t) || arrow.DataType.isTimestamp(t)) return BigInt(values[i]!);
  if (
    arrow.DataType.isUtf8(t) ||
    arrow.DataType.isLargeUtf8(t) ||
    arrow.DataType.isBinary(t) ||
    arrow.DataType.isLargeBinary(t)
  ) {
    const offsets = data.valueOffsets as ArrayLike<number | bigint>;
    const bytes = (data.values as Uint8Array).subarray(Number(offsets[i]), Number(offsets[i + 1]));
    return arrow.DataType.isUtf8(t) || arrow.DataType.isLargeUtf8(t) ? utf8.decode(bytes) : bytes.slice();
  }
  if (arrow.DataType.isFixedSizeBinary(t)) {
    const bytes = (data.values as Uint8Array).slice(i * t.byteWidth, (i + 1) * t.byteWidth);
    return type?.kind === 'primitive' && type.name === 'uuid' ? uuidFromBytes(bytes) : bytes;
  }
  if (arrow.DataType.isStruct(t)) {
    const out: Record<string, unknown> = {};
    const childTypes = type?.kind === 'struct' ? type.fields : undefined;
    t.children.forEach((f, c) => {
      const id = fieldIdOf(f);
      const iceberg = childTypes?.find((x) => x.id === id);
      out[iceberg?.name ?? f.name] = valueFromArrow(data.children[c]!, i, iceberg?.type);
    });
    return out;
  }
  if (arrow.DataType.isList(t)) {
    const offsets = data.valueOffsets as Int32Array;
    const child = data.children[0]!;
    const elem = type?.kind === 'list' ? type.element : undefined;
    const out: unknown[] = [];
    for (let k = offsets[i]!; k < offsets[i + 1]!; k++) out.push(valueFromArrow(child, k, elem));
    return out;
  }
  if (arrow.DataType.isMap(t)) {
    const offsets = data.valueOffsets as Int32Array;
    const entries = data.children[0]!;
    const [keys, vals] = entries.children as [arrow.Data, arrow.Data];
    const out = new Map<unknown, unknown>();
    for (let k = offsets[i]!; k < offsets[i + 1]!; k++) {
      out.set(
        valueFromArrow(keys, k, type?.kind === 'map' ? type.key : undefined),
        valueFromArrow(vals, k, type?.kind === 'map' ? type.value : undefined),
      );
    }
    return out;
  }
  if (arrow.DataType.isDictionary(t)) {
    const vector = arrow.makeVector(data);
    return vector.get(i);
  }
  if (arrow.DataType.isNull(t)) return null;
  return arrow.makeVector(data).get(i);
}
