/**
 * Reading the live rows of a snapshot: every live data file, minus the rows its applicable deletes remove
 * (rules in deletes.ts), columns matched by field id and projected onto the read schema:
 *  - the read schema is the current schema, or the snapshot's own schema when reading at a snapshot id
 *    (what Java's time travel does);
 *  - a column the file lacks reads as the identity-partition value of that file if there is one, else the
 *    field's v3 `initial-default`, else null;
 *  - type promotion (int→long, float→double, decimal widening) happens on conversion.
 */
import { FloeError } from '../../util/errors.js';
import type { DataFile, Field, PartitionSpec, Schema } from '../../model/index.js';
import { DeleteIndex, DeleteLoader, equalityKey, requireParquet } from './deletes.js';
import { allFieldsById, liveFilesOf } from './manifests.js';
import { findSnapshot, schemaForSnapshot } from './metadata.js';
import { openParquet, readColumnsById, type NameMappingEntry } from './parquet-reader.js';
import type { IcebergTable } from './table.js';
import { withRealLocation } from '../storage/located-error.js';
import { fromJsonDefault } from './values.js';

export interface ScanOptions {
  /** Default: the table's current snapshot. */
  snapshotId?: bigint;
  /** Top-level field ids to return, in this order. Default: every column of the read schema. */
  fieldIds?: number[];
  /** Data files read at once. */
  concurrency?: number;
}

export interface RowBatch {
  /** The data file these rows come from. */
  file: string;
  /** Columns of `rows`, in order. */
  fields: Field[];
  /** One array per live row, values aligned with `fields` (representation: values.ts). */
  rows: unknown[][];
}

export interface ScanPlan {
  snapshotId?: bigint;
  schema: Schema;
  fields: Field[];
  dataFiles: DataFile[];
  index: DeleteIndex;
}

function nameMappingOf(table: IcebergTable): NameMappingEntry[] | undefined {
  const text = table.metadata.properties['schema.name-mapping.default'];
  if (!text) return undefined;
  try {
    return JSON.parse(text) as NameMappingEntry[];
  } catch {
    throw new FloeError('Corrupt', `table ${table.metadata.location}: schema.name-mapping.default is not valid JSON`, {
      context: { file: table.metadataLocation },
    });
  }
}

export async function planScan(table: IcebergTable, options: ScanOptions = {}): Promise<ScanPlan> {
  const md = table.metadata;
  const snapshotId = options.snapshotId ?? md.currentSnapshotId;
  const schema = schemaForSnapshot(md, options.snapshotId);
  let fields = schema.fields;
  if (options.fieldIds) {
    fields = options.fieldIds.map((id) => {
      const f = schema.fields.find((x) => x.id === id);
      if (!f)
        throw new FloeError(
          'InvalidArgument',
          `table ${md.location}: schema ${schema.schemaId} has no top-level field ${id}`,
        );
      return f;
    });
  }
  if (snapshotId === undefined)
    return { schema, fields, dataFiles: [], index: new DeleteIndex([], md.specs, (l) => l) };
  const files = await liveFilesOf(table.io, md, findSnapshot(md, snapshotId), allFieldsById(md));
  const index = new DeleteIndex(files.deleteFiles, md.specs, (l) => table.io.map(l));
  return { snapshotId, schema, fields, dataFiles: files.dataFiles, index };
}

/** Yields one batch per data file (files with no live rows yield nothing). */
export async function* scanTable(table: IcebergTable, options: ScanOptions = {}): AsyncGenerator<RowBatch> {
  const plan = await planScan(table, options);
  const fieldsById = allFieldsById(table.metadata);
  const loader = new DeleteLoader(table.io, fieldsById);
  const nameMapping = nameMappingOf(table);
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const pending: Promise<RowBatch>[] = [];
  let next = 0;
  const start = (): void => {
    const df = plan.dataFiles[next++]!;
    const p = readLiveRows(table, plan, df, loader, fieldsById, nameMapping);
    // Read-ahead may fail after the consumer has stopped (an earlier file failed): keep that failure observed.
    p.catch(() => undefined);
    pending.push(p);
  };
  while (next < plan.dataFiles.length && pending.length < concurrency) start();
  while (pending.length > 0) {
    const batch = await pending.shift()!;
    if (next < plan.dataFiles.length) start();
    if (batch.rows.length > 0) yield batch;
  }
}

/** Counts live rows without materialising them beyond one file at a time. */
export async function countLiveRows(table: IcebergTable, options: ScanOptions = {}): Promise<number> {
  let n = 0;
  for await (const b of scanTable(table, { ...options, fieldIds: options.fieldIds ?? [] })) n += b.rows.length;
  return n;
}

function specOf(table: IcebergTable, specId: number): PartitionSpec | undefined {
  return table.metadata.specs.find((s) => s.specId === specId);
}

async function readLiveRows(
  table: IcebergTable,
  plan: ScanPlan,
  df: DataFile,
  loader: DeleteLoader,
  fieldsById: Map<number, Field>,
  nameMapping: NameMappingEntry[] | undefined,
): Promise<RowBatch> {
  requireParquet(df.path, df.format);
  const deletes = plan.index.forDataFile(df);

  // Equality deletes need their key columns even when the caller did not project them.
  const eqIds = [...new Set(deletes.equality.flatMap((d) => d.equalityFieldIds))];
  const readFields = [...plan.fields];
  for (const id of eqIds) {
    if (readFields.some((f) => f.id === id)) continue;
    const f = plan.schema.fields.find((x) => x.id === id) ?? fieldsById.get(id);
    if (!f)
      throw new FloeError(
        'Corrupt',
        `equality delete on field ${id}, which no schema of ${table.metadata.location} defines`,
      );
    readFields.push(f);
  }

  let bytes: Uint8Array;
  try {
    bytes = await table.io.read(df.path);
  } catch (e) {
    if (e instanceof FloeError) throw e.withContext({ snapshotId: plan.snapshotId?.toString() });
    throw e;
  }
  let pq;
  try {
    pq = openParquet(bytes, df.path);
  } catch (e) {
    throw withRealLocation(table.io, df.path, e);
  }
  if (pq.numRows !== df.recordCount) {
    throw new FloeError(
      'Corrupt',
      `data file ${df.path} has ${pq.numRows} rows but its manifest says ${df.recordCount}`,
      {
        context: { file: df.path },
      },
    );
  }
  let rows;
  try {
    rows = await readColumnsById(pq, readFields, nameMapping);
  } catch (e) {
    throw withRealLocation(table.io, df.path, e);
  }

  // Fill columns the file does not have.
  const spec = specOf(table, df.specId);
  for (let c = 0; c < readFields.length; c++) {
    const f = readFields[c]!;
    let fill: unknown;
    let computed = false;
    for (const r of rows) {
      if (r[c] !== undefined) continue;
      if (!computed) {
        fill = missingColumnValue(f, df, spec);
        computed = true;
      }
      r[c] = fill;
    }
  }

  const deleted = await loader.deletedPositions(df, deletes);
  const eqSets = await Promise.all(
    deletes.equality.map(async (d) => ({
      cols: d.equalityFieldIds.map((id) => readFields.findIndex((f) => f.id === id)),
      keys: await loader.equalityKeys(d),
    })),
  );
  const live: unknown[][] = [];
  for (let pos = 0; pos < rows.length; pos++) {
    if (deleted.has(pos)) continue;
    const r = rows[pos]!;
    if (eqSets.some((e) => e.keys.has(equalityKey(e.cols.map((c) => r[c]))))) continue;
    live.push(readFields.length === plan.fields.length ? r : r.slice(0, plan.fields.length));
  }
  return { file: df.path, fields: plan.fields, rows: live };
}

function missingColumnValue(f: Field, df: DataFile, spec: PartitionSpec | undefined): unknown {
  const i = spec?.fields.findIndex((pf) => pf.sourceId === f.id && pf.transform === 'identity') ?? -1;
  if (i >= 0) return df.partition[i] ?? null;
  if (f.initialDefault !== undefined) return fromJsonDefault(f, f.initialDefault);
  return null;
}
