/**
 * TIMESTAMP(7..9) / TIMESTAMP_LTZ(7..9) columns as Java Paimon writes them: Parquet INT96 (no logical
 * type; `ParquetSchemaConverter.createTimestampWithLogicalType`), 8 bytes nanos-of-day then 4 bytes Julian
 * day, little-endian (`ParquetRowDataWriter.timestampToInt96`). Java reads an INT64 column of such a type
 * as epoch millis, so nothing else will do.
 *
 * arrow-rs (parquet-wasm) cannot write INT96, but INT96 and FIXED_LEN_BYTE_ARRAY(12) have the same PLAIN
 * (and dictionary) value layout. So these columns are written as Arrow FixedSizeBinary(12) holding the
 * INT96 bytes, and the finished file's footer is re-typed: the schema elements and column chunks become
 * INT96, their column statistics (byte-order min/max, meaningless for INT96; Java writes none) are
 * dropped, and the `ARROW:schema` hint (which would make Arrow readers see fixed binaries) is removed.
 * Data pages and offsets are untouched. In Paimon data files floe writes, FixedSizeBinary(12) is used for
 * nothing else (BINARY(n) maps to Arrow Binary, DECIMAL to Decimal).
 */
import * as arrow from 'apache-arrow';
import { FloeError } from '../../util/errors.js';
import { fieldIdOf } from '../../model/arrow/field-id.js';
import { readFooter, withFooter } from '../formats/parquet/footer-edit.js';
import { isList, T, TStruct } from '../formats/parquet/stitch-thrift.js';
import type { PaimonType } from './types.js';

const JULIAN_EPOCH_OFFSET_DAYS = 2_440_588n;
const MILLIS_PER_DAY = 86_400_000n;
const NANOS_PER_MILLI = 1_000_000n;

/** Whether Java writes this type as INT96. */
export function isInt96Timestamp(t: PaimonType): boolean {
  return (t.root === 'TIMESTAMP' || t.root === 'TIMESTAMP_LTZ') && (t.precision ?? 6) > 6;
}

export function int96ArrowType(): arrow.DataType {
  return new arrow.FixedSizeBinary(12);
}

/**
 * Epoch nanos → the 12 INT96 bytes Java writes: from Paimon's Timestamp (floor millis + nano-of-milli),
 * with Java's truncating `/` and `%` on the millis (a pre-1970 value has a negative nanos-of-day, which
 * every reader decodes linearly back to the same instant).
 */
export function int96Bytes(nanos: bigint): Uint8Array {
  let millis = nanos / NANOS_PER_MILLI;
  if (millis * NANOS_PER_MILLI > nanos) millis -= 1n; // floor
  const nanoOfMilli = nanos - millis * NANOS_PER_MILLI;
  const julianDay = millis / MILLIS_PER_DAY + JULIAN_EPOCH_OFFSET_DAYS;
  const nanosOfDay = (millis % MILLIS_PER_DAY) * NANOS_PER_MILLI + nanoOfMilli;
  const out = new Uint8Array(12);
  const view = new DataView(out.buffer);
  view.setBigInt64(0, nanosOfDay, true);
  view.setInt32(8, Number(julianDay), true);
  return out;
}

/** Field ids of the FixedSizeBinary(12) (INT96-to-be) fields of a schema, at any depth. */
export function int96FieldIds(schema: arrow.Schema): Set<number> {
  const out = new Set<number>();
  const walk = (f: arrow.Field): void => {
    const t = f.type as arrow.DataType;
    if (arrow.DataType.isFixedSizeBinary(t) && t.byteWidth === 12) {
      const id = fieldIdOf(f);
      if (id !== undefined) out.add(id);
    }
    for (const c of t.children ?? []) walk(c);
  };
  schema.fields.forEach(walk);
  return out;
}

// parquet.thrift ids
const FMD_SCHEMA = 2;
const FMD_ROW_GROUPS = 4;
const FMD_KV = 5;
const SE_TYPE = 1;
const SE_TYPE_LENGTH = 2;
const SE_NAME = 4;
const SE_NUM_CHILDREN = 5;
const SE_FIELD_ID = 9;
const RG_COLUMNS = 1;
const CC_META = 3;
const CC_COLUMN_INDEX_OFFSET = 6;
const CC_COLUMN_INDEX_LENGTH = 7;
const CMD_TYPE = 1;
const CMD_PATH = 3;
const CMD_STATISTICS = 12;
const TYPE_INT96 = 3;
const TYPE_FLBA = 7;

const utf8 = new TextDecoder();

/** The finished Parquet file `bytes` with the FIXED_LEN_BYTE_ARRAY(12) leaves whose id is in `ids` as INT96. */
export function retypeInt96Columns(bytes: Uint8Array, ids: ReadonlySet<number>, file: string): Uint8Array {
  if (ids.size === 0) return bytes;
  const { meta, start } = readFooter(bytes, file, 4);
  const schema = (meta.list(FMD_SCHEMA)?.items ?? []) as TStruct[];
  // leaf paths (below the root) of the columns to re-type
  const paths = new Set<string>();
  let pos = 1;
  const walk = (count: number, prefix: string[]): void => {
    for (let i = 0; i < count; i++) {
      const el = schema[pos++]!;
      const name = utf8.decode(el.get(SE_NAME) as Uint8Array);
      const children = el.int(SE_NUM_CHILDREN) ?? 0;
      const path = [...prefix, name];
      if (children > 0) {
        walk(children, path);
        continue;
      }
      const id = el.int(SE_FIELD_ID);
      if (id === undefined || !ids.has(id)) continue;
      if (el.int(SE_TYPE) !== TYPE_FLBA || el.int(SE_TYPE_LENGTH) !== 12)
        throw new FloeError('Internal', `${file}: column ${path.join('.')} was not written as 12-byte fixed binary`, {
          context: { file },
        });
      el.set(SE_TYPE, T.I32, TYPE_INT96);
      el.delete(SE_TYPE_LENGTH);
      paths.add(path.join('\u0000'));
    }
  };
  walk(schema[0]?.int(SE_NUM_CHILDREN) ?? 0, []);
  if (paths.size !== ids.size)
    throw new FloeError('Internal', `${file}: found ${paths.size} of ${ids.size} INT96 columns in the footer`, {
      context: { file },
    });
  for (const rg of (meta.list(FMD_ROW_GROUPS)?.items ?? []) as TStruct[]) {
    for (const cc of (rg.list(RG_COLUMNS)?.items ?? []) as TStruct[]) {
      const md = cc.struct(CC_META);
      const path = md?.list(CMD_PATH);
      if (!md || !path) continue;
      if (!paths.has(path.items.map((p) => utf8.decode(p as Uint8Array)).join('\u0000'))) continue;
      md.set(CMD_TYPE, T.I32, TYPE_INT96);
      md.delete(CMD_STATISTICS);
      cc.delete(CC_COLUMN_INDEX_OFFSET);
      cc.delete(CC_COLUMN_INDEX_LENGTH);
    }
  }
  const kv = meta.list(FMD_KV);
  if (kv && isList(kv)) {
    kv.items = kv.items.filter(
      (x) => !(x instanceof TStruct && utf8.decode(x.get(1) as Uint8Array) === 'ARROW:schema'),
    );
    if (kv.items.length === 0) meta.delete(FMD_KV);
  }
  return withFooter(bytes, start, meta);
}
