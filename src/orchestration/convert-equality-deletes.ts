/**
 * An `eq-to-pos` task of an Iceberg plan: the rows its equality deletes remove, turned into position
 * deletes (v2: one position-delete file per data file) or deletion vectors (v3: one DV per data file, all in
 * one Puffin file, each the union with the file's old DV so it can replace it). The data files stay.
 *
 * This module says which rows of which data file are deleted; the adapter's delete writer
 * (connectors/iceberg/delete-writer.ts) writes and describes the files. Output names start with the run's
 * output prefix (`floe-run-<runId>-<attemptId>`), like rewrite outputs, so the run's uncommitted files can
 * be found by name.
 */
import type { RewriteTask } from '../core/planning/plan.js';
import type { NewContentFile } from '../../connectors/iceberg/commit-rewrite.js';
import { dataFileStem, type DataFileDeletes } from '../../connectors/iceberg/delete-writer.js';
import type { IcebergRewriteAdapter } from './iceberg-rewrite-adapter.js';
import { isCancelled } from './cancel.js';

/** The task's equality-deleted rows as position deletes (v2) or deletion vectors (v3). */
export async function convertEqualityDeletes(
  task: RewriteTask,
  adapter: IcebergRewriteAdapter,
  outputPrefix: string,
  signal?: AbortSignal,
): Promise<NewContentFile[]> {
  const name = `${outputPrefix}-${task.id}`;
  const writer = adapter.deleteWriter;
  if (!writer.deletionVectors) return convertToPositionDeletes(task, adapter, name, signal);
  // every data file's DV is the union of its old DV (or position deletes) and its equality-deleted rows
  const dvs: DataFileDeletes[] = [];
  for (const file of task.inputs) {
    throwIfCancelled(task, signal);
    dvs.push({ file, positions: await adapter.deletedPositions(file) });
  }
  return writer.writeDeletionVectors(`${name}-dv`, dvs);
}

/** v2: one position-delete file per data file, the union of its old position deletes and its equality-deleted rows. */
async function convertToPositionDeletes(
  task: RewriteTask,
  adapter: IcebergRewriteAdapter,
  name: string,
  signal?: AbortSignal,
): Promise<NewContentFile[]> {
  const written: NewContentFile[] = [];
  try {
    for (const file of task.inputs) {
      throwIfCancelled(task, signal);
      const positions = await adapter.deletedPositions(file);
      written.push(
        ...(await adapter.deleteWriter.writePositionDeletes(`${name}-pos-${dataFileStem(file.path)}`, [
          { file, positions },
        ])),
      );
    }
  } catch (e) {
    await Promise.all(written.map((f) => adapter.discardOutput(f).catch(() => undefined)));
    throw e;
  }
  return written;
}

function throwIfCancelled(task: RewriteTask, signal: AbortSignal | undefined): void {
  if (isCancelled(signal)) throw new Error(`task ${task.id} aborted`);
}
