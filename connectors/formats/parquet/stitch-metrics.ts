/**
 * Float/double facts a stitched file's footer cannot give: Iceberg's NaN counts and NaN-free bounds come
 * from the values (Parquet statistics say nothing about NaN), so the float-bearing columns — and only
 * those — are decoded. Same rules as the writer's own tracking (writer.ts): every float/double reachable
 * through structs, lists and maps, -0.0 below +0.0.
 */
import * as arrow from 'apache-arrow';
import { fieldIdOf } from '../../../model/arrow/field-id.js';
import { iterateRowGroups } from './read.js';
import type { WriterFieldMetrics } from './types.js';
import { compareFloat } from './writer.js';

function isFloat(t: arrow.DataType): boolean {
  return arrow.DataType.isFloat(t) && t.precision !== arrow.Precision.HALF;
}

function hasFloat(t: arrow.DataType): boolean {
  return isFloat(t) || (t.children ?? []).some((c) => hasFloat(c.type));
}

/** NaN counts and bounds of every float/double field of `schema` in a Parquet file, keyed by field id. */
export async function floatFieldMetrics(
  bytes: Uint8Array,
  file: string,
  schema: arrow.Schema,
): Promise<Map<number, WriterFieldMetrics>> {
  const out = new Map<number, WriterFieldMetrics>();
  const wanted = schema.fields.filter((f) => hasFloat(f.type) && fieldIdOf(f) !== undefined);
  if (wanted.length === 0) return out;
  const ids = wanted.map((f) => fieldIdOf(f)!);
  for await (const rg of iterateRowGroups(bytes, file, { fieldIds: ids })) {
    const position = new Map(rg.table.schema.fields.map((f, i) => [fieldIdOf(f), i]));
    for (const batch of rg.table.batches) {
      for (const field of wanted) {
        const i = position.get(fieldIdOf(field));
        if (i === undefined) continue;
        visit(out, field, batch.data.children[i]!, 0, batch.numRows);
      }
    }
  }
  return out;
}

/**
 * Rows [start, end) of `data`, described by the table schema's `field` (its ids, not the file's names).
 * Batches decoded from IPC are unsliced (offset 0), so indexes address the buffers directly.
 */
function visit(
  out: Map<number, WriterFieldMetrics>,
  field: arrow.Field,
  data: arrow.Data,
  start: number,
  end: number,
): void {
  const t = field.type as arrow.DataType;
  if (isFloat(t)) {
    const id = fieldIdOf(field);
    if (id === undefined) return;
    let m = out.get(id);
    if (!m) {
      m = { fieldId: id, nanCount: 0n };
      out.set(id, m);
    }
    const vals = data.values as Float32Array | Float64Array;
    let nan = 0;
    for (let i = start; i < end; i++) {
      if (!data.getValid(i)) continue;
      const v = vals[i]!;
      if (Number.isNaN(v)) {
        nan++;
        continue;
      }
      if (m.min === undefined || compareFloat(v, m.min) < 0) m.min = v;
      if (m.max === undefined || compareFloat(v, m.max) > 0) m.max = v;
    }
    m.nanCount += BigInt(nan);
    return;
  }
  if (arrow.DataType.isStruct(t)) {
    t.children.forEach((child, c) => visit(out, child, data.children[c]!, start, end));
  } else if (arrow.DataType.isList(t) || arrow.DataType.isMap(t)) {
    const offsets = data.valueOffsets as Int32Array;
    const inner = data.children[0]!;
    const from = offsets[start]!;
    const to = offsets[end]!;
    if (arrow.DataType.isList(t)) visit(out, t.children[0]!, inner, from, to);
    else
      (t.children[0]!.type as arrow.Struct).children.forEach((child, c) =>
        visit(out, child, inner.children[c]!, from, to),
      );
  }
}

/** The manifest metrics of one input file (Iceberg ColumnStats shape, by field id). */
export interface InputFileStats {
  valueCounts?: Map<number, bigint>;
  nullValueCounts?: Map<number, bigint>;
  nanValueCounts?: Map<number, bigint>;
  lowerBounds?: Map<number, unknown>;
  upperBounds?: Map<number, unknown>;
}

/**
 * Float/double fields of `schema` by id that Iceberg keeps metrics for (reachable through structs; inside a
 * list or map Java records none, see metrics.ts), each with bounds allowed.
 */
function floatFields(schema: arrow.Schema): Map<number, boolean> {
  const out = new Map<number, boolean>();
  const walk = (field: arrow.Field): void => {
    const t = field.type as arrow.DataType;
    const id = fieldIdOf(field);
    if (isFloat(t)) {
      if (id !== undefined) out.set(id, true);
    } else if (arrow.DataType.isStruct(t)) t.children.forEach((c) => walk(c));
  };
  schema.fields.forEach((f) => walk(f));
  return out;
}

/**
 * The same facts merged from the inputs' manifest metrics, when a file is made of whole inputs: NaN
 * counts add up and bounds widen. Undefined when any input lacks what is needed (no NaN count, bounds
 * missing although the column holds real values, a NaN bound from a pre-0.12 writer) — then decode.
 */
export function floatMetricsFromInputs(
  schema: arrow.Schema,
  inputs: readonly (InputFileStats | undefined)[],
): Map<number, WriterFieldMetrics> | undefined {
  const out = new Map<number, WriterFieldMetrics>();
  for (const [id, boundsAllowed] of floatFields(schema)) {
    const m: WriterFieldMetrics = { fieldId: id, nanCount: 0n };
    for (const s of inputs) {
      const nan = s?.nanValueCounts?.get(id);
      if (nan === undefined) return undefined;
      m.nanCount += nan;
      if (!boundsAllowed) continue;
      const lo = s!.lowerBounds?.get(id);
      const hi = s!.upperBounds?.get(id);
      if (typeof lo === 'number' && typeof hi === 'number' && !Number.isNaN(lo) && !Number.isNaN(hi)) {
        if (m.min === undefined || compareFloat(lo, m.min) < 0) m.min = lo;
        if (m.max === undefined || compareFloat(hi, m.max) > 0) m.max = hi;
        continue;
      }
      // no usable bounds: fine only if every value is null or NaN
      const values = s!.valueCounts?.get(id);
      const nulls = s!.nullValueCounts?.get(id);
      if (values === undefined || nulls === undefined || values - nulls - nan !== 0n) return undefined;
    }
    out.set(id, m);
  }
  return out;
}
