/**
 * An `eq-to-pos` task of an Iceberg plan: the rows its equality deletes remove, turned into position
 * deletes (v2: one position-delete file per data file) or deletion vectors (v3: one DV per data file, all in
 * one Puffin file, each the union with the file's old DV so it can replace it). The data files stay.
 *
 * Output names start with the run's output prefix (`floe-run-<runId>-<attemptId>`), like rewrite outputs,
 * so the run's uncommitted files can be found by name.
 */
import * as arrow from 'apache-arrow';
import type { DataFile } from '../model/index.js';
import type { RewriteTask } from '../planning/plan.js';
import { writeParquet } from '../../connectors/formats/parquet/index.js';
import type { CommitIO, NewContentFile } from '../../connectors/iceberg/commit-rewrite.js';
import type { IcebergRewriteAdapter } from '../../connectors/iceberg/rewrite-adapter.js';
import type { IcebergTable } from '../../connectors/iceberg/table.js';
import { storeDeletionVectors } from '../../connectors/iceberg/puffin-dv-file.js';
import { encodeSingleValue } from '../../connectors/iceberg/write-bounds.js';
import { isCancelled } from './cancel.js';

/** Where rewrite outputs and converted position deletes go (as IcebergRewriteAdapter writes them). */
export function dataDirOf(table: IcebergTable): string {
  const md = table.metadata;
  return (md.properties['write.data.path'] ?? `${md.location.replace(/\/$/, '')}/data`).replace(/\/$/, '');
}

/** Where the commit's manifests and metadata go. */
export function metadataDirOf(table: IcebergTable): string {
  const md = table.metadata;
  return (md.properties['write.metadata.path'] ?? `${md.location.replace(/\/$/, '')}/metadata`).replace(/\/$/, '');
}

/** Removes files that will never be committed (best effort). */
export async function discardFiles(out: CommitIO, files: readonly NewContentFile[]): Promise<void> {
  await Promise.all(files.map((f) => out.remove(f.path).catch(() => undefined)));
}

/** The task's equality-deleted rows as position deletes (v2) or deletion vectors (v3). */
export function convertEqualityDeletes(
  task: RewriteTask,
  adapter: IcebergRewriteAdapter,
  out: CommitIO,
  table: IcebergTable,
  outputPrefix: string,
  signal?: AbortSignal,
): Promise<NewContentFile[]> {
  return table.metadata.formatVersion >= 3
    ? convertToDeletionVectors(task, adapter, out, table, outputPrefix, signal)
    : convertEqualityToPosition(task, adapter, out, table, outputPrefix, signal);
}

const FILE_PATH_ID = 2147483546;
const POS_ID = 2147483545;

/** One position-delete file per data file: the union of its old position deletes and its equality-deleted rows. */
async function convertEqualityToPosition(
  task: RewriteTask,
  adapter: IcebergRewriteAdapter,
  out: CommitIO,
  table: IcebergTable,
  outputPrefix: string,
  signal?: AbortSignal,
): Promise<NewContentFile[]> {
  const written: NewContentFile[] = [];
  try {
    for (const file of task.inputs) {
      if (isCancelled(signal)) throw new Error(`task ${task.id} aborted`);
      const positions = [...(await adapter.deletedPositions(file))].sort((a, b) => a - b);
      if (positions.length === 0) continue;
      written.push(await writePositionDeletes(file, positions, out, table, `${outputPrefix}-${task.id}`));
    }
  } catch (e) {
    await discardFiles(out, written);
    throw e;
  }
  return written;
}

/**
 * v3: one deletion vector per data file of the task, all in one Puffin file — each the union of the file's
 * old DV (or position deletes) and its equality-deleted rows, so it can replace the old DV.
 */
async function convertToDeletionVectors(
  task: RewriteTask,
  adapter: IcebergRewriteAdapter,
  out: CommitIO,
  table: IcebergTable,
  outputPrefix: string,
  signal?: AbortSignal,
): Promise<NewContentFile[]> {
  const dvs = [];
  for (const file of task.inputs) {
    if (isCancelled(signal)) throw new Error(`task ${task.id} aborted`);
    dvs.push({ file, positions: await adapter.deletedPositions(file) });
  }
  return storeDeletionVectors(out, `${dataDirOf(table)}/${outputPrefix}-${task.id}-dv.puffin`, dvs);
}

async function writePositionDeletes(
  file: DataFile,
  positions: number[],
  out: CommitIO,
  table: IcebergTable,
  namePrefix: string,
): Promise<NewContentFile> {
  const schema = new arrow.Schema([
    new arrow.Field('file_path', new arrow.Utf8(), false, new Map([['PARQUET:field_id', String(FILE_PATH_ID)]])),
    new arrow.Field('pos', new arrow.Int64(), false, new Map([['PARQUET:field_id', String(POS_ID)]])),
  ]);
  const paths = arrow.vectorFromArray(
    positions.map(() => file.path),
    new arrow.Utf8(),
  );
  const pos = arrow.makeVector(BigInt64Array.from(positions, (p) => BigInt(p)));
  const batch = new arrow.RecordBatch(
    schema,
    arrow.makeData({
      type: new arrow.Struct(schema.fields),
      length: positions.length,
      nullCount: 0,
      children: [paths.data[0]!, pos.data[0]!],
    }),
  );
  const written = await writeParquet(new arrow.Table(schema, [batch]), file.path, { codec: 'zstd', createdBy: 'floe' });
  const name = file.path.slice(file.path.lastIndexOf('/') + 1).replace(/\.parquet$/, '');
  const location = `${dataDirOf(table)}/${namePrefix}-pos-${name}.parquet`;
  await out.createNew(location, written.bytes);
  const str = { kind: 'primitive', name: 'string' } as const;
  const lng = { kind: 'primitive', name: 'long' } as const;
  // full (untruncated) bounds on file_path, as Java writes for position deletes: readers infer the one file
  return {
    content: 1,
    path: location,
    format: 'PARQUET',
    recordCount: positions.length,
    sizeBytes: written.bytes.byteLength,
    specId: file.specId,
    partitionOf: file.path,
    valueCounts: new Map([
      [FILE_PATH_ID, BigInt(positions.length)],
      [POS_ID, BigInt(positions.length)],
    ]),
    nullValueCounts: new Map([
      [FILE_PATH_ID, 0n],
      [POS_ID, 0n],
    ]),
    lowerBounds: new Map([
      [FILE_PATH_ID, encodeSingleValue(str, file.path)],
      [POS_ID, encodeSingleValue(lng, BigInt(positions[0]!))],
    ]),
    upperBounds: new Map([
      [FILE_PATH_ID, encodeSingleValue(str, file.path)],
      [POS_ID, encodeSingleValue(lng, BigInt(positions[positions.length - 1]!))],
    ]),
    referencedDataFile: file.path,
  };
}
