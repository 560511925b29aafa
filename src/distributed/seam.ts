/**
 * The distributed seam: one compaction run (Iceberg, or Paimon through paimon-seam.ts) split into three steps whose inputs and outputs are plain
 * JSON, so a workflow engine (BullMQ, Temporal) can run the rewrites on different machines and retry each.
 *
 *   planCompaction(spec, { runId })                     → PlanRef (small; the full plan is stored under the table)
 *   rewriteGroup(planRef, taskId, { attemptId, … })     → GroupOutput (files written, not yet referenced)
 *   commitCompaction(planRef, outputs, { partialProgress }) → CommitOutcome (one atomic replace commit)
 *
 * The pieces are `floe compact`'s own: the same planner (planIceberg) and the same rewrite and commit steps
 * (iceberg-steps.ts: executor, rewrite adapter, equality→position conversion, IcebergRewriteCommitter with
 * its validation, rebase and retries). `floe compact` runs those steps with its plan in memory.
 *
 * - Output names carry the run and a unique attempt id (`floe-run-<runId>-<attemptId>-<task>-<n>.parquet`), never
 *   a retry counter: engines re-run a stalled job with the same counter while the first may still be writing.
 * - The commit is idempotent by run id: the snapshot carries `floe.run-id`; a commit that finds one returns it
 *   and commits nothing (a worker killed after committing but before acknowledging).
 * - After the commit, the run's files that no live table state references are deleted — only names of this
 *   run's own pattern, never another run's. When a commit's outcome is unknown, every file is kept.
 * - rewriteGroup re-plans from the plan's own metadata file (the base snapshot) and checks the task's inputs
 *   against the stored plan, so every worker rewrites exactly what was planned.
 */
import { randomUUID } from 'node:crypto';
import { FloeError, isFloeError } from '../../util/errors.js';
import type { MaintenanceJobSpec } from '../orchestration/job-types.js';
import { icebergCompactOptions } from '../orchestration/compact-spec.js';
import { planIceberg, statsOf, type CompactOptions, type TableStats } from '../orchestration/compact-iceberg.js';
import type { ProgressListener } from '../core/execution/events.js';
import { cancelledError, isCancelled } from '../orchestration/cancel.js';
import {
  openIcebergForWrite,
  requireCommitOps,
  type AccessOptions,
  type OpenedIcebergTable,
} from '../../connectors/iceberg/open-for-write.js';
import { deleteFileId } from '../core/planning/deletes.js';
import type { Plan, RewriteTask } from '../core/planning/plan.js';
import type { RewriteGroup } from '../../connectors/iceberg/commit-rewrite.js';
import { isCommitStateUnknown } from '../../connectors/commit-state.js';
import {
  RUN_ID_PROPERTY,
  RUN_TASKS_PROPERTY,
  commitGroupOf,
  commitRunGroups,
  deleteIndexOf,
  outputPrefix,
  rewriteContext,
  rewritePlannedTask,
  runPattern,
} from '../orchestration/iceberg-steps.js';
import { decodeContentFile, encodeContentFile, type ContentFileJson } from '../orchestration/content-file-json.js';
import {
  abandonPaimonCompaction,
  commitPaimonCompaction,
  discardPaimonGroupOutput,
  planPaimonCompaction,
  rewritePaimonGroup,
} from './paimon-seam.js';
import { loadTableModel, type IcebergTable } from '../../connectors/iceberg/table.js';
import { loadRefreshedModel } from '../../connectors/iceberg/refreshed-model.js';
import { dataDirOf } from '../../connectors/iceberg/write-locations.js';
import { parseMetadata, parseMetadataBytes } from '../../connectors/iceberg/metadata.js';
import { detectTableFormat } from '../../connectors/table-format.js';
import { emptyCommitOutcome } from './commit-outcome.js';
import { fileIOFromEnv as paimonFileIO } from '../../connectors/storage/env.js';

export { RUN_ID_PROPERTY, outputPrefix } from '../orchestration/iceberg-steps.js';

export interface PlanRef {
  version: 1;
  runId: string;
  spec: MaintenanceJobSpec;
  format: 'iceberg' | 'paimon';
  /** The metadata file the plan was made from (its current snapshot is the base). */
  metadataLocation: string;
  baseSnapshotId: string;
  plannedAtMs: number;
  /** `<table>/.floe/runs/<runId>/plan.json`. */
  planLocation: string;
  taskIds: string[];
  /** What the table looked like at planning. */
  before: TableStats;
}

export { encodeContentFile, decodeContentFile, type ContentFileJson } from '../orchestration/content-file-json.js';

export interface GroupOutput {
  runId: string;
  taskId: string;
  attemptId: string;
  files: ContentFileJson[];
  /** Paimon: what the commit adds and removes for this task (paimon-seam.ts), as tagged JSON. */
  paimon?: unknown;
  bytesRead: number;
  bytesWritten: number;
  rowsIn: number;
  rowsOut: number;
}

/**
 * The commit step's outcome (what `onCommitted` of the bindings gets). Not a second job result: the run's
 * result is made of it, with the rewrite outputs, by src/app/job-result.ts (compactionRunResult).
 */
export interface CommitOutcome {
  runId: string;
  /** Decimal string; absent when nothing was committed (no group to commit). */
  snapshotId?: string;
  /** True when an earlier commit of this run was found: nothing was committed now. */
  alreadyCommitted: boolean;
  committedTasks: string[];
  failedTasks: { id: string; reason: string }[];
  /** Files of this run removed because nothing references them. */
  removedFiles: string[];
  before: TableStats;
  after?: TableStats;
}

// ---------------------------------------------------------------------------------------------------------
// JSON codecs

const jsonText = (v: unknown) => `${JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x), 2)}\n`;

// ---------------------------------------------------------------------------------------------------------

/** The run's directory under the table, and the pattern its output names follow. */
export function runDir(tableLocation: string, runId: string): string {
  return `${tableLocation.replace(/\/+$/, '')}/.floe/runs/${runId}`;
}

function checkId(what: string, id: string): void {
  // the ids end up in object names: keep them to a safe alphabet
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(id))
    throw new FloeError('InvalidArgument', `${what} "${id}" must be 1–100 characters of A–Z, a–z, 0–9, '_', '.', '-'`);
}

/** The planner's options of a job spec: the same resolution as floe compact and runMaintenanceJob. */
function compactOptionsOf(spec: MaintenanceJobSpec, nowMs: number): CompactOptions {
  return icebergCompactOptions(spec.compact ?? {}, {
    ...(spec.properties ? { properties: spec.properties } : {}),
    nowMs,
    ...(spec.tieredState ? { tieredState: spec.tieredState } : {}),
  });
}

async function openTable(spec: MaintenanceJobSpec): Promise<OpenedIcebergTable> {
  return openIcebergForWrite(spec.table, (spec.access ?? {}) as AccessOptions);
}

/** The table as of `metadataLocation` (the plan's base), read through the opened table's IO. */
async function tableAt(opened: OpenedIcebergTable, metadataLocation: string): Promise<IcebergTable> {
  const metadata = parseMetadataBytes(await opened.io.read(metadataLocation), metadataLocation);
  return { ...opened.table, metadata, metadataLocation };
}

function taskJson(t: RewriteTask) {
  return {
    id: t.id,
    kind: t.kind,
    specId: t.specId,
    partition: t.partition,
    ...(t.partitionLabel ? { partitionLabel: t.partitionLabel } : {}),
    inputBytes: t.inputBytes,
    targetFileSizeBytes: t.targetFileSizeBytes,
    inputs: t.inputs.map((f) => ({ path: f.path, sizeBytes: f.sizeBytes, recordCount: f.recordCount })),
    deletes: t.deletes.map(deleteFileId),
    removableDeletes: t.removableDeletes.map(deleteFileId),
  };
}

/**
 * Plans a compaction and stores the full plan under the table. Idempotent by run id: a plan already stored
 * for `runId` is returned as it is (a re-enqueued run plans nothing new).
 */
export async function planCompaction(
  spec: MaintenanceJobSpec,
  opts: { runId?: string; nowMs?: number } = {},
): Promise<PlanRef> {
  const runId = opts.runId ?? randomUUID();
  checkId('runId', runId);
  if (spec.job !== 'compact')
    throw new FloeError(
      'InvalidArgument',
      `planCompaction needs a compact job spec, got "${spec.job}" for ${spec.table}`,
    );
  if (!spec.access?.catalog) {
    const files = paimonFileIO(spec.access?.locationMap);
    let paimon;
    try {
      paimon = (await detectTableFormat(spec.table, files)) === 'paimon';
    } finally {
      files.destroy();
    }
    if (paimon) return planPaimonCompaction(spec, runId, opts.nowMs ?? Date.now());
  }
  const opened = await openTable(spec);
  try {
    const planLocation = `${runDir(opened.table.metadata.location, runId)}/plan.json`;
    const { store, key } = opened.files.resolve(planLocation);
    try {
      const existing = JSON.parse(new TextDecoder().decode(await store.get(key))) as { ref: PlanRef };
      return existing.ref;
    } catch (e) {
      if (!isFloeError(e, 'NotFound')) throw e;
    }
    const table = opened.table;
    const model = await loadTableModel(table);
    if (model.currentSnapshotId === undefined)
      throw new FloeError('InvalidArgument', `table ${spec.table} has no snapshot: nothing to compact`, {
        context: { table: spec.table },
      });
    const nowMs = opts.nowMs ?? Date.now();
    const plan = planIceberg(model, compactOptionsOf(spec, nowMs), nowMs);
    const ref: PlanRef = {
      version: 1,
      runId,
      spec,
      format: 'iceberg',
      metadataLocation: table.metadataLocation,
      baseSnapshotId: model.currentSnapshotId.toString(),
      plannedAtMs: nowMs,
      planLocation,
      taskIds: plan.tasks.map((t) => t.id),
      before: statsOf(model),
    };
    const doc = {
      ref,
      planner: plan.planner,
      tasks: plan.tasks.map(taskJson),
      removableDeletes: plan.removableDeletes.map(deleteFileId),
    };
    try {
      await store.put(key, jsonText(doc), { ifNoneMatch: '*', contentType: 'application/json' });
    } catch (e) {
      // two planners of one run: the first plan stands
      if (!isFloeError(e, 'PreconditionFailed')) throw e;
      return (JSON.parse(new TextDecoder().decode(await store.get(key))) as { ref: PlanRef }).ref;
    }
    return ref;
  } finally {
    opened.files.destroy();
  }
}

/** The plan again, from the plan's base metadata, checked against the stored plan. */
async function replan(
  ref: PlanRef,
  opened: OpenedIcebergTable,
): Promise<{ table: IcebergTable; plan: Plan; model: Awaited<ReturnType<typeof loadTableModel>> }> {
  const table = await tableAt(opened, ref.metadataLocation);
  const model = await loadTableModel(table);
  const plan = planIceberg(model, compactOptionsOf(ref.spec, ref.plannedAtMs), ref.plannedAtMs);
  const { store, key } = opened.files.resolve(ref.planLocation);
  const stored = JSON.parse(new TextDecoder().decode(await store.get(key))) as {
    tasks: { id: string; inputs: { path: string }[] }[];
  };
  const same =
    stored.tasks.length === plan.tasks.length &&
    stored.tasks.every(
      (s, i) =>
        s.id === plan.tasks[i]!.id &&
        s.inputs.map((f) => f.path).join('\n') === plan.tasks[i]!.inputs.map((f) => f.path).join('\n'),
    );
  if (!same) {
    throw new FloeError(
      'Internal',
      `the plan of run ${ref.runId} could not be reproduced from ${ref.metadataLocation} (planner changed?); the stored plan ${ref.planLocation} is kept, nothing was written`,
      { context: { table: ref.spec.table, file: ref.planLocation } },
    );
  }
  return { table, plan, model };
}

/**
 * Rewrites one task of the plan. Returns the files it wrote (not referenced by the table until the commit).
 * Cancelled through `signal`: stops between row groups, removes what it wrote, throws the cancelled error.
 */
export async function rewriteGroup(
  ref: PlanRef,
  taskId: string,
  opts: { attemptId?: string; onProgress?: ProgressListener; signal?: AbortSignal } = {},
): Promise<GroupOutput> {
  const attemptId = opts.attemptId ?? randomUUID();
  checkId('attemptId', attemptId);
  if (ref.format === 'paimon') return rewritePaimonGroup(ref, taskId, attemptId, opts);
  const opened = await openTable(ref.spec);
  try {
    const { table, plan, model } = await replan(ref, opened);
    const task = plan.tasks.find((t) => t.id === taskId);
    if (!task)
      throw new FloeError(
        'InvalidArgument',
        `run ${ref.runId} has no task "${taskId}" (tasks: ${ref.taskIds.join(', ') || 'none'})`,
      );
    if (isCancelled(opts.signal)) throw cancelledError(table.metadataLocation, 0, opts.signal!.reason);
    const ctx = rewriteContext(table, model, opened.io, {
      outputPrefix: outputPrefix(ref.runId, attemptId),
      propertyOverrides: ref.spec.properties ?? {},
    });
    let done;
    try {
      done = await rewritePlannedTask(ctx, task, {
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    } catch (err) {
      if (isCancelled(opts.signal)) throw cancelledError(table.metadataLocation, 0, opts.signal!.reason);
      throw isFloeError(err)
        ? err
        : new FloeError(
            'Internal',
            `task ${taskId} of run ${ref.runId} failed: ${err instanceof Error ? err.message : String(err)}`,
            { cause: err },
          );
    }
    if (isCancelled(opts.signal)) {
      await Promise.all(done.files.map((f) => opened.io.remove(f.path).catch(() => undefined)));
      throw cancelledError(table.metadataLocation, done.files.length, opts.signal!.reason);
    }
    return {
      runId: ref.runId,
      taskId,
      attemptId,
      files: done.files.map(encodeContentFile),
      bytesRead: done.bytesRead,
      bytesWritten: done.bytesWritten,
      rowsIn: done.rowsIn,
      rowsOut: done.rowsOut,
    };
  } finally {
    opened.files.destroy();
  }
}

/** The snapshot of this run, if one was committed (any snapshot whose summary names the run). */
function committedSnapshotOf(metadata: ReturnType<typeof parseMetadata>, runId: string): bigint | undefined {
  return metadata.snapshots.find((s) => s.summary?.[RUN_ID_PROPERTY] === runId)?.snapshotId;
}

/**
 * Commits the run's groups in one atomic replace snapshot (summary `floe.run-id`). Without partial progress
 * every planned task must have an output, or nothing is committed; with it, the tasks that have one commit.
 * Idempotent by run id. Afterwards removes the run's files that the table does not reference.
 */
export async function commitCompaction(
  ref: PlanRef,
  outputs: readonly GroupOutput[],
  opts: { partialProgress?: boolean; onProgress?: ProgressListener } = {},
): Promise<CommitOutcome> {
  if (ref.format === 'paimon') return commitPaimonCompaction(ref, outputs, opts);
  const opened = await openTable(ref.spec);
  try {
    const ops = requireCommitOps(opened);
    const base = emptyCommitOutcome(ref);
    const found = async (): Promise<CommitOutcome | undefined> => {
      const now = await ops.refresh();
      const md = parseMetadata(now.metadata, now.location);
      const sid = committedSnapshotOf(md, ref.runId);
      if (sid === undefined) return undefined;
      const snap = md.snapshots.find((s) => s.snapshotId === sid)!;
      const tasks = (snap.summary[RUN_TASKS_PROPERTY] ?? '').split(',').filter(Boolean);
      // the table as it stands now, for the run's before/after figures
      const after = statsOf(await loadTableModel({ ...opened.table, metadata: md, metadataLocation: now.location }));
      return { ...base, snapshotId: sid.toString(), alreadyCommitted: true, committedTasks: tasks, after };
    };
    const earlier = await found();
    if (earlier) {
      earlier.removedFiles = await removeUncommitted(ref, opened);
      return earlier;
    }
    for (const o of outputs)
      if (o.runId !== ref.runId)
        throw new FloeError(
          'InvalidArgument',
          `output of task ${o.taskId} belongs to run ${o.runId}, not ${ref.runId}`,
        );
    const byTask = new Map<string, GroupOutput>();
    for (const o of outputs) byTask.set(o.taskId, o);
    const { plan, model, table } = await replan(ref, opened);
    const missing = plan.tasks.filter((t) => !byTask.has(t.id)).map((t) => t.id);
    if (missing.length > 0 && !opts.partialProgress) {
      throw new FloeError(
        'InvalidArgument',
        `run ${ref.runId}: no output for task(s) ${missing.join(', ')}; nothing committed (pass partialProgress to commit the rest)`,
        { context: { table: ref.spec.table, missing } },
      );
    }
    // the base state's delete index: a new DV supersedes its data file's DV there
    const deleteIndex = deleteIndexOf(table, model);
    const groups: RewriteGroup[] = plan.tasks
      .filter((t) => byTask.has(t.id))
      .map((t) => commitGroupOf(t, byTask.get(t.id)!.files.map(decodeContentFile), deleteIndex));
    if (groups.length === 0) return { ...base, removedFiles: await removeUncommitted(ref, opened) };
    let res;
    try {
      res = await commitRunGroups(opened.io, ops, {
        baseSnapshotId: BigInt(ref.baseSnapshotId),
        groups,
        planner: plan.planner,
        runId: ref.runId,
        ...(opts.onProgress
          ? {
              onRetry: (attempt: number, reason: string) => opts.onProgress!({ type: 'commit-retry', attempt, reason }),
            }
          : {}),
      });
    } catch (e) {
      // a duplicate commit of this run (two commit jobs at once) fails validation: the other one's stands
      if (!isCommitStateUnknown(e)) {
        const other = await found().catch(() => undefined);
        if (other) {
          other.removedFiles = await removeUncommitted(ref, opened);
          return other;
        }
        await removeUncommitted(ref, opened);
      }
      throw e;
    }
    opts.onProgress?.({
      type: 'commit',
      snapshotId: res.snapshotId.toString(),
      attempt: res.attempts,
      groups: res.committedGroups.length,
    });
    const after = statsOf(await loadRefreshedModel(opened.table, ops));
    return {
      ...base,
      snapshotId: res.snapshotId.toString(),
      committedTasks: res.committedGroups,
      failedTasks: res.failedGroups,
      removedFiles: await removeUncommitted(ref, opened),
      after,
    };
  } finally {
    opened.files.destroy();
  }
}

/**
 * Deletes this run's output files (by name pattern, under the table's data directory) that no snapshot the
 * table keeps references, and the run's directory under `.floe/runs/`.
 */
async function removeUncommitted(ref: PlanRef, opened: OpenedIcebergTable): Promise<string[]> {
  const now = await opened.ops!.refresh();
  const md = parseMetadata(now.metadata, now.location);
  const table = { ...opened.table, metadata: md, metadataLocation: now.location };
  // referenced = live in the snapshot of this run and in the current one (the lease keeps later rewrites off)
  const referenced = new Set<string>();
  const current = await loadTableModel(table);
  for (const f of current.dataFiles) referenced.add(f.path);
  for (const f of current.deleteFiles) referenced.add(f.path);
  const runSnap = committedSnapshotOf(md, ref.runId);
  if (runSnap !== undefined && runSnap !== md.currentSnapshotId) {
    const at = await loadTableModel({ ...table, metadata: { ...md, currentSnapshotId: runSnap } });
    for (const f of at.dataFiles) referenced.add(f.path);
    for (const f of at.deleteFiles) referenced.add(f.path);
  }
  const dataDir = dataDirOf(md);
  const pattern = runPattern(ref.runId);
  const { store, key } = opened.files.resolve(dataDir);
  const prefix = key === '' ? '' : `${key}/`;
  const doomed: string[] = [];
  for await (const e of store.list(prefix)) {
    const name = e.key.slice(e.key.lastIndexOf('/') + 1);
    if (!name.startsWith(pattern)) continue;
    const location = `${dataDir}/${e.key.slice(prefix.length)}`;
    if (referenced.has(location) || referenced.has(opened.files.map(location))) continue;
    doomed.push(e.key);
  }
  if (doomed.length > 0) {
    const r = await store.deleteMany(doomed);
    if (r.failed.length > 0) throw r.failed[0]!.error;
  }
  const run = opened.files.resolve(runDir(md.location, ref.runId));
  const runFiles: string[] = [];
  for await (const e of run.store.list(`${run.key}/`)) runFiles.push(e.key);
  if (runFiles.length > 0) await run.store.deleteMany(runFiles);
  return doomed.map((k) => store.describe(k));
}

/**
 * Gives a run up (a rewrite failed for good, so the commit will never run): removes the run's files that the
 * table does not reference, and its plan. A run that has committed keeps everything it committed.
 */
export async function abandonCompaction(ref: PlanRef): Promise<string[]> {
  if (ref.format === 'paimon') return abandonPaimonCompaction(ref);
  const opened = await openTable(ref.spec);
  try {
    requireCommitOps(opened);
    return await removeUncommitted(ref, opened);
  } finally {
    opened.files.destroy();
  }
}

/** Removes the files of one group output (a rewrite that finished after its run was given up). */
export async function discardGroupOutput(ref: PlanRef, output: GroupOutput): Promise<void> {
  if (ref.format === 'paimon') return discardPaimonGroupOutput(ref, output);
  const opened = await openTable(ref.spec);
  try {
    await Promise.all(output.files.map((f) => opened.io.remove(String(f.path)).catch(() => undefined)));
  } finally {
    opened.files.destroy();
  }
}
