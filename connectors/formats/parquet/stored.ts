/**
 * The part of an Arrow schema that goes into a Parquet file. Iceberg v3 `unknown` columns (Arrow Null)
 * are always null and omitted from data files (readers fill them by field id), at any struct level.
 */
import * as arrow from 'apache-arrow';
import { FloeError } from '../../../util/errors.js';

export interface StoredView {
  schema: arrow.Schema;
  /** Drops the omitted children from a batch's struct data (buffers shared). */
  project(data: arrow.Data<arrow.Struct>): arrow.Data<arrow.Struct>;
}

/** undefined when every field is stored (the common case: no work per batch). */
export function storedView(schema: arrow.Schema, file: string): StoredView | undefined {
  if (!schema.fields.some((f) => hasNull(f.type))) return undefined;
  const root = strip(new arrow.Struct(schema.fields), file);
  const fields = (root.type as arrow.Struct).children;
  return {
    schema: new arrow.Schema(fields, schema.metadata),
    project: (data) => root.apply(data) as arrow.Data<arrow.Struct>,
  };
}

function hasNull(t: arrow.DataType): boolean {
  return arrow.DataType.isNull(t) || (t.children ?? []).some((c) => hasNull(c.type));
}

interface Stripper {
  type: arrow.DataType;
  apply(data: arrow.Data): arrow.Data;
}

function strip(type: arrow.DataType, file: string): Stripper {
  if (arrow.DataType.isStruct(type) && type.children.some((c) => hasNull(c.type))) {
    const keep: { index: number; field: arrow.Field; s: Stripper }[] = [];
    type.children.forEach((f, index) => {
      if (arrow.DataType.isNull(f.type)) return;
      const s = strip(f.type, file);
      keep.push({ index, s, field: new arrow.Field(f.name, s.type, f.nullable, f.metadata) });
    });
    if (keep.length === 0) {
      throw new FloeError(
        'Unsupported',
        `${file}: a struct whose fields are all of type unknown cannot be written to Parquet`,
      );
    }
    const out = new arrow.Struct(keep.map((k) => k.field));
    return {
      type: out,
      apply: (data) =>
        data.clone(
          out,
          data.offset,
          data.length,
          data.nullCount,
          undefined,
          keep.map((k) => k.s.apply(data.children[k.index]!)),
        ),
    };
  }
  if (hasNull(type) && !arrow.DataType.isNull(type)) {
    throw new FloeError(
      'Unsupported',
      `${file}: type unknown inside ${String(type)} (list element / map value) is not supported`,
    );
  }
  return { type, apply: (d) => d };
}
