/**
 * Iceberg's uuid is FIXED_LEN_BYTE_ARRAY(16) with the UUID logical type. arrow-rs (parquet-wasm) cannot
 * emit that annotation, and Java's generic Parquet reader picks its value reader from the annotation: an
 * unannotated column comes back as byte[] instead of java.util.UUID. So the writer marks uuid fields with
 * Arrow's canonical `arrow.uuid` extension name and this module adds the logical type to the finished
 * file's footer (the thrift FileMetaData is re-encoded; data pages and offsets are untouched).
 */
import * as arrow from 'apache-arrow';
import { fieldIdOf } from '../../../model/arrow/field-id.js';
import { readFooter, withFooter } from './footer-edit.js';
import { T, TStruct } from './stitch-thrift.js';

export const ARROW_EXTENSION_KEY = 'ARROW:extension:name';
export const ARROW_UUID = 'arrow.uuid';

/** Field ids of every uuid-marked field, at any depth. */
export function uuidFieldIds(schema: arrow.Schema): Set<number> {
  const out = new Set<number>();
  const walk = (f: arrow.Field): void => {
    const id = fieldIdOf(f);
    if (id !== undefined && f.metadata.get(ARROW_EXTENSION_KEY) === ARROW_UUID) out.add(id);
    for (const c of (f.type as arrow.DataType).children ?? []) walk(c);
  };
  schema.fields.forEach(walk);
  return out;
}

// parquet.thrift: FileMetaData.schema = 2; SchemaElement.type = 1, field_id = 9, logicalType = 10;
// LogicalType.UUID = 14; Type.FIXED_LEN_BYTE_ARRAY = 7
const FMD_SCHEMA = 2;
const SE_TYPE = 1;
const SE_FIELD_ID = 9;
const SE_LOGICAL = 10;
const LT_UUID = 14;
const FIXED_LEN_BYTE_ARRAY = 7;

/** The same file with the UUID logical type on the FIXED_LEN_BYTE_ARRAY columns whose field id is in `ids`. */
export function annotateUuidColumns(bytes: Uint8Array, ids: ReadonlySet<number>, file: string): Uint8Array {
  return annotateUuidFooter(bytes, ids, file, 4);
}

/**
 * The same for the last bytes of a file only (a streamed file's footer, `minStart` 0): `bytes` ends with the
 * footer, its length and PAR1; what precedes the footer in `bytes` is kept as it is.
 */
export function annotateUuidFooter(
  bytes: Uint8Array,
  ids: ReadonlySet<number>,
  file: string,
  minStart = 0,
): Uint8Array {
  if (ids.size === 0) return bytes;
  const { meta, start } = readFooter(bytes, file, minStart);
  const schema = meta.list(FMD_SCHEMA);
  let changed = 0;
  for (const el of schema?.items ?? []) {
    if (!(el instanceof TStruct)) continue;
    const id = el.int(SE_FIELD_ID);
    if (id === undefined || !ids.has(id) || el.int(SE_TYPE) !== FIXED_LEN_BYTE_ARRAY) continue;
    el.set(SE_LOGICAL, T.STRUCT, new TStruct([{ id: LT_UUID, type: T.STRUCT, value: new TStruct() }]));
    changed++;
  }
  if (changed === 0) return bytes;
  return withFooter(bytes, start, meta);
}
