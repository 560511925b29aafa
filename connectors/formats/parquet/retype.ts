/** Re-labels Arrow data with a structurally identical type (new names / field-id metadata), sharing buffers. */
import * as arrow from 'apache-arrow';

export function retypeData(data: arrow.Data, type: arrow.DataType): arrow.Data {
  const childTypes = type.children ?? [];
  const children = data.children.map((c, i) => (childTypes[i] ? retypeData(c, childTypes[i]!.type) : c));
  return data.clone(type, data.offset, data.length, data.nullCount, undefined, children);
}

/** A table whose schema is `schema` (same shapes, possibly new names/metadata), sharing all buffers. */
export function retypeTable(table: arrow.Table, schema: arrow.Schema): arrow.Table {
  const struct = new arrow.Struct(schema.fields);
  const batches = table.batches.map(
    (b) => new arrow.RecordBatch(schema, retypeData(b.data, struct) as arrow.Data<arrow.Struct>),
  );
  return batches.length ? new arrow.Table(schema, batches) : new arrow.Table(schema);
}

/** Zero-column table that still knows its row count (for projections that select nothing). */
export function emptyColumnsTable(numRows: number): arrow.Table {
  const schema = new arrow.Schema([]);
  const data = arrow.makeData({ type: new arrow.Struct([]), length: numRows, nullCount: 0, children: [] });
  return new arrow.Table(schema, [new arrow.RecordBatch(schema, data)]);
}

/** Total buffer bytes of an Arrow table/batch: our estimate of uncompressed size. */
export function arrowByteLength(x: arrow.Table | arrow.RecordBatch): number {
  const batches = x instanceof arrow.Table ? x.batches : [x];
  let n = 0;
  for (const b of batches) n += b.data.byteLength;
  return n;
}
