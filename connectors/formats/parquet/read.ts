/**
 * Row data reads through the Parquet codec (codec.ts: native arrow-rs or parquet-wasm), projected by Parquet field id. Files without ids (old Hive/Impala
 * migrations) get ids from the caller's name mapping; the result always carries `PARQUET:field_id`.
 */
import * as arrow from 'apache-arrow';
import { FloeError, errorForFile } from '../../../util/errors.js';
import { fieldIdOf, withFieldId } from '../../../model/arrow/field-id.js';
import { readParquetFooter } from './footer.js';
import { assertPageHeadersReadable } from './page-headers.js';
import { emptyColumnsTable, retypeTable } from './retype.js';
import type { ParquetFooter, ParquetReadOptions, ParquetSchemaNode } from './types.js';
import { parquetCodec, releaseBytes, type CodecFile } from './codec.js';

interface Plan {
  footer: ParquetFooter;
  /** Top-level parquet column names to read, in file order; undefined = all. */
  columns?: string[];
  /** Field ids in the requested output order (when projecting). */
  order?: number[];
  useNameMapping: boolean;
}

function planRead(bytes: Uint8Array, file: string, opts: ParquetReadOptions): Plan {
  const footer = readParquetFooter(bytes, file);
  assertPageHeadersReadable(bytes, footer, file, opts.rowGroups); // before arrow-rs sees the pages
  const hasIds = footer.schema.some((n) => n.fieldId !== undefined);
  const useNameMapping = !hasIds;
  const idOf = (n: ParquetSchemaNode): number | undefined => (hasIds ? n.fieldId : opts.nameMapping?.get(n.name));
  for (const rg of opts.rowGroups ?? []) {
    if (!Number.isInteger(rg) || rg < 0 || rg >= footer.rowGroups.length) {
      throw new FloeError(
        'InvalidArgument',
        `row group ${rg} out of range for ${file} (${footer.rowGroups.length} row groups)`,
        { context: { file } },
      );
    }
  }
  if (!opts.fieldIds) return { footer, useNameMapping };
  const byId = new Map<number, ParquetSchemaNode>();
  for (const n of footer.schema) {
    const id = idOf(n);
    if (id !== undefined) byId.set(id, n);
  }
  const wanted = new Set(opts.fieldIds.filter((id) => byId.has(id)));
  const columns = footer.schema
    .filter((n) => {
      const id = idOf(n);
      return id !== undefined && wanted.has(id);
    })
    .map((n) => n.name);
  return { footer, columns, order: opts.fieldIds.filter((id) => wanted.has(id)), useNameMapping };
}

/** Reads the requested row groups (all by default) as one Arrow table. */
export async function readParquetTable(
  bytes: Uint8Array,
  file: string,
  opts: ParquetReadOptions = {},
): Promise<arrow.Table> {
  const plan = planRead(bytes, file, opts);
  const rowGroups = opts.rowGroups ?? plan.footer.rowGroups.map((_, i) => i);
  const handle = await openOrThrow(bytes, file);
  try {
    return (await readWith(handle, plan, rowGroups, opts, file)).table;
  } finally {
    handle.free();
  }
}

/** One row group at a time (bounded memory for rewrites); `index` is the row group's position in the file. */
export function iterateRowGroups(
  bytes: Uint8Array,
  file: string,
  opts: ParquetReadOptions = {},
): AsyncGenerator<{ index: number; numRows: number; table: arrow.Table }> {
  return rowGroupsOf(bytes, file, opts, false);
}

/**
 * iterateRowGroups for a reader that is done with each table before it asks for the next (key columns
 * turned into a mask, say): each table's decoded memory is given back then (releaseBytes), so a pass over
 * many files leaves no pile of dead buffers for a later GC. A table kept past that reads as empty.
 */
export function scanRowGroups(
  bytes: Uint8Array,
  file: string,
  opts: ParquetReadOptions = {},
): AsyncGenerator<{ index: number; numRows: number; table: arrow.Table }> {
  return rowGroupsOf(bytes, file, opts, true);
}

async function* rowGroupsOf(
  bytes: Uint8Array,
  file: string,
  opts: ParquetReadOptions,
  transient: boolean,
): AsyncGenerator<{ index: number; numRows: number; table: arrow.Table }> {
  const plan = planRead(bytes, file, opts);
  const rowGroups = opts.rowGroups ?? plan.footer.rowGroups.map((_, i) => i);
  const handle = await openOrThrow(bytes, file);
  let held: Uint8Array | undefined;
  try {
    for (const index of rowGroups) {
      const { table, ipc } = await readWith(handle, plan, [index], opts, file);
      held = transient ? ipc : undefined;
      yield { index, numRows: plan.footer.rowGroups[index]!.numRows, table };
      if (held) releaseBytes(held);
      held = undefined;
    }
  } finally {
    if (held) releaseBytes(held);
    handle.free();
  }
}

async function openOrThrow(bytes: Uint8Array, file: string): Promise<CodecFile> {
  try {
    return await parquetCodec().open(bytes);
  } catch (e) {
    throw errorForFile('Corrupt', file, 'cannot open Parquet file', e);
  }
}

async function readWith(
  handle: CodecFile,
  plan: Plan,
  rowGroups: number[],
  opts: ParquetReadOptions,
  file: string,
): Promise<{ table: arrow.Table; ipc?: Uint8Array }> {
  const numRows = rowGroups.reduce((s, i) => s + plan.footer.rowGroups[i]!.numRows, 0);
  if (plan.columns && plan.columns.length === 0) return { table: emptyColumnsTable(numRows) };
  let table: arrow.Table;
  let ipc: Uint8Array;
  try {
    // Big batches: each Arrow JS batch costs IPC framing; arrow-rs' default of 1024 rows is slow here.
    const batchSize = opts.batchSize ?? 65_536;
    // the codec reads every row group when given none: no row groups asked for = the schema, no rows
    const groups = rowGroups.length || !plan.footer.rowGroups.length ? rowGroups : [0];
    ipc = await handle.decode(groups, plan.columns, batchSize);
    table = arrow.tableFromIPC(ipc);
    if (!rowGroups.length) table = table.slice(0, 0);
  } catch (e) {
    throw errorForFile('Corrupt', file, 'cannot decode Parquet data of', e);
  }
  if (plan.useNameMapping) table = applyNameMapping(table, opts.nameMapping);
  if (plan.order) {
    const index = new Map(table.schema.fields.map((f, i) => [fieldIdOf(f), i]));
    table = table.selectAt(plan.order.map((id) => index.get(id)!).filter((i) => i !== undefined));
  }
  return { table, ipc };
}

/** Adds field ids from an Iceberg name mapping (dotted paths; list elements 'x.element', maps 'x.key'/'x.value'). */
function applyNameMapping(table: arrow.Table, mapping: Map<string, number> | undefined): arrow.Table {
  if (!mapping || mapping.size === 0) return table;
  const tag = (field: arrow.Field, path: string[]): arrow.Field => {
    const key = path.join('.');
    const id = fieldIdOf(field) ?? mapping.get(key);
    const metadata = id === undefined ? field.metadata : withFieldId(field.metadata, id);
    return new arrow.Field(field.name, tagType(field.type, path), field.nullable, metadata);
  };
  const tagType = (type: arrow.DataType, path: string[]): arrow.DataType => {
    if (arrow.DataType.isStruct(type)) return new arrow.Struct(type.children.map((c) => tag(c, [...path, c.name])));
    if (arrow.DataType.isList(type)) return new arrow.List(tag(type.children[0]!, [...path, 'element']));
    if (arrow.DataType.isMap(type)) {
      const entries = type.children[0]!;
      const [k, v] = (entries.type as arrow.Struct).children as [arrow.Field, arrow.Field];
      const inner = new arrow.Struct([tag(k, [...path, 'key']), tag(v, [...path, 'value'])]);
      return new arrow.Map_(
        new arrow.Field(entries.name, inner, entries.nullable, entries.metadata) as arrow.Field<never>,
        type.keysSorted,
      );
    }
    return type;
  };
  const schema = new arrow.Schema(
    table.schema.fields.map((f) => tag(f, [f.name])),
    table.schema.metadata,
  );
  return retypeTable(table, schema);
}
