/**
 * The steps of one Iceberg compaction run on an opened table — rewrite one planned task, commit a batch of
 * rewritten groups — shared by both ways floe runs them:
 *
 * - `floe compact` / runMaintenanceJob (src/orchestration/compact-iceberg.ts): the plan stays in memory,
 *   the tasks run in this process (or on worker threads, group-worker.ts), commits as the options say;
 * - the distributed seam (seam.ts): the plan is stored under the table, each task runs wherever an engine
 *   puts it, one idempotent commit.
 *
 * Every output name starts with the run's prefix `floe-run-<runId>-<attemptId>`, and every commit's summary
 * names the run (`floe.run-id`) and its tasks (`floe.run-tasks`).
 */
import { executeTasks } from '../core/execution/executor.js';
import type { ProgressListener } from '../core/execution/events.js';
import type { TableModel } from '../../model/index.js';
import { deleteFileId } from '../core/planning/deletes.js';
import type { RewriteTask } from '../core/planning/plan.js';
import {
  IcebergRewriteCommitter,
  type CommitIO,
  type NewContentFile,
  type RewriteCommitResult,
  type RewriteGroup,
  type TableOperations,
} from '../../connectors/iceberg/commit-rewrite.js';
import { IcebergRewriteAdapter } from './iceberg-rewrite-adapter.js';
import { distinctFileBytes } from '../../connectors/iceberg/delete-writer.js';
import { DeleteIndex } from '../../connectors/iceberg/deletes.js';
import { allFieldsById } from '../../connectors/iceberg/manifests.js';
import type { IcebergTable } from '../../connectors/iceberg/table.js';
import { convertEqualityDeletes } from './convert-equality-deletes.js';

/** The snapshot summary property that names the run a commit belongs to. */
export const RUN_ID_PROPERTY = 'floe.run-id';
/** The snapshot summary property listing the run's tasks that commit carries. */
export const RUN_TASKS_PROPERTY = 'floe.run-tasks';

/** Output names of one attempt of a run start with this. */
export const outputPrefix = (runId: string, attemptId: string) => `floe-run-${runId}-${attemptId}`;
/** Every output name of a run (any attempt) starts with this. */
export const runPattern = (runId: string) => `floe-run-${runId}-`;

/** What rewriting the tasks of one table state needs; built once and shared by the tasks of one attempt. */
export interface RewriteContext {
  table: IcebergTable;
  out: CommitIO;
  deleteIndex: DeleteIndex;
  adapter: IcebergRewriteAdapter;
  outputPrefix: string;
}

/** Every delete file live in the model's snapshot, by the data files it applies to. */
export function deleteIndexOf(table: IcebergTable, model: Pick<TableModel, 'deleteFiles' | 'specs'>): DeleteIndex {
  return new DeleteIndex(model.deleteFiles, model.specs, (l) => table.io.map(l));
}

export function rewriteContext(
  table: IcebergTable,
  model: Pick<TableModel, 'deleteFiles' | 'specs'>,
  out: CommitIO,
  opts: { outputPrefix: string; propertyOverrides?: Record<string, string> },
): RewriteContext {
  const deleteIndex = deleteIndexOf(table, model);
  const adapter = new IcebergRewriteAdapter({
    md: table.metadata,
    io: table.io,
    out,
    deleteIndex,
    fieldsById: allFieldsById(table.metadata),
    propertyOverrides: opts.propertyOverrides ?? {}, // [stitch] overrides reach floe.rewrite.stitch.*
    outputPrefix: opts.outputPrefix,
  });
  return { table, out, deleteIndex, adapter, outputPrefix: opts.outputPrefix };
}

/** The files one task wrote (not referenced by the table until a commit), with what it read and wrote. */
export interface TaskOutput {
  taskId: string;
  files: NewContentFile[];
  bytesRead: number;
  bytesWritten: number;
  rowsIn: number;
  rowsOut: number;
}

/**
 * Rewrites one planned task: a data task through the executor (stops between row groups on `signal`,
 * removing what it wrote), an `eq-to-pos` task by converting its equality deletes. Throws the task's error.
 */
export async function rewritePlannedTask(
  ctx: RewriteContext,
  task: RewriteTask,
  opts: { onProgress?: ProgressListener; signal?: AbortSignal } = {},
): Promise<TaskOutput> {
  if (task.kind === 'eq-to-pos') {
    const files = await convertEqualityDeletes(task, ctx.adapter, ctx.outputPrefix, opts.signal);
    // DVs share their Puffin file: count each file once
    return { taskId: task.id, files, bytesRead: 0, bytesWritten: distinctFileBytes(files), rowsIn: 0, rowsOut: 0 };
  }
  const result = await executeTasks([task], ctx.adapter, {
    concurrency: 1,
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const done = result.done[0];
  if (!done) throw result.failed[0]?.error ?? new Error(`task ${task.id} did not run`);
  const rows = done.outputRows;
  return {
    taskId: task.id,
    // each output with the input rows it holds, for carrying concurrent deletes over at commit time
    files: rows ? done.outputs.map((f, i) => ({ ...f, sourceRows: rows[i]! })) : done.outputs,
    bytesRead: done.bytesRead,
    bytesWritten: done.bytesWritten,
    rowsIn: done.rowsIn,
    rowsOut: done.rowsOut,
  };
}

/**
 * The commit group of a rewritten task: a data task replaces its inputs, an `eq-to-pos` task only adds
 * deletes; both drop the deletes the plan calls removable. v3: each new DV replaces its data file's old DV
 * (if any) in the same commit.
 */
export function commitGroupOf(
  task: RewriteTask,
  files: readonly NewContentFile[],
  deleteIndex: DeleteIndex,
): RewriteGroup {
  const data = files.filter((f) => f.content === 0);
  const deletes = files.filter((f) => f.content !== 0);
  const withDv = new Set(deletes.filter((d) => d.format === 'PUFFIN').map((d) => d.referencedDataFile));
  const superseded = task.inputs
    .filter((f) => withDv.has(f.path))
    .flatMap((f) => {
      const old = deleteIndex.forDataFile(f).dv;
      return old ? [deleteFileId(old)] : [];
    });
  return {
    id: task.id,
    replacedDataFiles: task.kind === 'eq-to-pos' ? [] : task.inputs.map((f) => f.path),
    removedDeleteFiles: task.removableDeletes.map(deleteFileId),
    addedDataFiles: data,
    addedDeleteFiles: deletes,
    ...(superseded.length > 0 ? { supersededDeleteFiles: superseded } : {}),
  };
}

/** One atomic replace commit of rewritten groups (validation, rebase and retries in the committer). */
export async function commitRunGroups(
  out: CommitIO,
  ops: TableOperations,
  req: {
    baseSnapshotId: bigint;
    groups: RewriteGroup[];
    planner: string;
    runId: string;
    onRetry?: (attempt: number, reason: string) => void;
    /** false: concurrent position deletes of replaced files fail their group instead of being carried over. */
    rebaseConcurrentDeletes?: boolean;
  },
): Promise<RewriteCommitResult> {
  return new IcebergRewriteCommitter(out, ops).commit({
    baseSnapshotId: req.baseSnapshotId,
    groups: req.groups,
    summary: {
      'floe.planner': req.planner,
      [RUN_ID_PROPERTY]: req.runId,
      [RUN_TASKS_PROPERTY]: req.groups.map((g) => g.id).join(','),
    },
    ...(req.onRetry ? { onRetry: req.onRetry } : {}),
    ...(req.rebaseConcurrentDeletes === false ? { rebaseConcurrentDeletes: false } : {}),
  });
}
