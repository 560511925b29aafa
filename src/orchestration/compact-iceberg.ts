/**
 * `floe compact` for Iceberg: plan (tiered or bin-pack) → rewrite tasks on the executor → atomic `replace`
 * commits. With partial progress each task group commits as soon as it is written; otherwise one commit at
 * the end. A group whose commit fails validation has its outputs deleted — they were never referenced, so a
 * crash at any point leaves only garbage for orphan cleanup, never a broken table.
 */
import { randomUUID } from 'node:crypto';
import * as arrow from 'apache-arrow';
import { isFloeError } from '../errors.js';
import type { DataFile, DeleteFile, TableModel } from '../model/index.js';
import type { Plan, RewriteTask } from '../planning/plan.js';
import { compileFilter, planTiered, tieredPolicyFromProperties, type TieredState } from '../planning/tiered/index.js';
import { planBinpack, binpackOptionsFrom } from '../planning/binpack/index.js';
import { planFull } from '../planning/full.js';
import { planSortStrategy, type SortStrategyOptions } from '../planning/sort-planner.js'; // [sort]
import { labelTasks } from '../planning/partition-label.js';
import { executeTasks, type TaskResult } from '../execution/executor.js';
import { safeEmitter, type ProgressListener } from '../execution/events.js';
import { writeParquet } from '../../connectors/formats/parquet/index.js';
import {
  IcebergRewriteCommitter,
  type CommitIO,
  type NewContentFile,
  type RewriteGroup,
  type TableOperations,
} from '../../connectors/iceberg/commit-rewrite.js';
import { IcebergRewriteAdapter } from '../../connectors/iceberg/rewrite-adapter.js';
import { isCommitStateUnknown } from '../../connectors/iceberg/commit-state.js';
import { DeleteIndex } from '../../connectors/iceberg/deletes.js';
import { allFieldsById } from '../../connectors/iceberg/manifests.js';
import { loadTableModel, type IcebergTable } from '../../connectors/iceberg/table.js';
import { parseMetadata } from '../../connectors/iceberg/metadata.js';
import { findDanglingDeletes } from './dangling-deletes.js';
import { settleRemovableDeletes } from './settle-deletes.js';
import { outcomeTracker, type CancelInfo, type TaskOutcome } from './task-outcomes.js';
import { cancelledError, isCancelled } from './cancel.js';
import { probeWritable } from './write-probe.js';
import { deleteFileId } from '../planning/deletes.js';
import { storeDeletionVectors } from '../../connectors/iceberg/puffin-dv-file.js';
import { encodeSingleValue } from '../../connectors/iceberg/write-bounds.js';

export interface CompactOptions {
  strategy?: 'tiered' | 'binpack' | 'sort' | 'zorder';
  /** [sort] `--strategy sort|zorder`: the order, z columns, memory budget and spill directory (sort-planner.ts). */
  sort?: SortStrategyOptions;
  /**
   * Full compaction: every data file of the selected partitions (`self-optimizing.filter`, `--where`) is
   * rewritten into target-size files — bin-pack with Spark's `rewrite-all=true` (see planFull).
   */
  full?: boolean;
  /** Planner properties layered over the table's own (`--option k=v`, `--target-size`). */
  options?: Record<string, string>;
  dryRun?: boolean;
  /** Commit each group as soon as it is written (Spark `partial-progress.enabled`). */
  partialProgress?: boolean;
  /** Tasks written at once (Spark `max-concurrent-file-group-rewrites`). */
  maxConcurrentGroups?: number;
  nowMs?: number;
  onProgress?: ProgressListener;
  /** After rewriting, drop delete files no live data file needs (default true). */
  removeDanglingDeletes?: boolean;
  /** Skip rewriting; only drop dangling delete files. */
  onlyDanglingDeletes?: boolean;
  /** Tiered planner memory (per-partition last optimize times) from the previous run; the service persists it. */
  tieredState?: TieredState;
  /**
   * Cancels the job (cancel.ts): it stops between row groups and tasks, removes the files it wrote and did
   * not commit, and throws `cancelledError` — or, when a commit had started, lets it finish and returns
   * with `cancelled` set.
   */
  signal?: AbortSignal;
}

export interface TableStats {
  dataFiles: number;
  dataBytes: number;
  deleteFiles: number;
  deleteBytes: number;
  records: number;
}

export interface CompactReport {
  table: string;
  plan: Plan;
  dryRun: boolean;
  before: TableStats;
  after?: TableStats;
  /** The snapshot the plan was made against (decimal string); absent for a table without snapshots. */
  baseSnapshotId?: string;
  snapshots: string[];
  committedTasks: string[];
  failedTasks: { id: string; reason: string }[];
  /** Planned tasks that did not run or whose output was not committed, with the reason (cancel, dry run, no snapshot). */
  skippedTasks: { id: string; reason: string }[];
  /** Every planned task, in plan order, with its outcome (task-outcomes.ts). */
  tasks: TaskOutcome[];
  /** The extra commit that drops dangling and settled delete files, when one was needed. */
  deleteCleanup?: { outcome: 'committed' | 'failed'; snapshotId?: string; reason?: string; removed: number };
  /** Set when the job was cancelled but something was committed (otherwise it throws cancelledError). */
  cancelled?: CancelInfo;
  /** Delete files removed (or, in a dry run, removable) because no live data file needs them. */
  danglingDeletes: string[];
  /**
   * The plan's table-wide removable deletes dropped after the tasks they span all committed (ids: the path,
   * `path#offset` for a deletion vector). With each task's own removals this is what the plan promised.
   */
  settledDeletes?: string[];
  bytesRead: number;
  bytesWritten: number;
  rowsIn: number;
  rowsOut: number;
  durationMs: number;
}

export function statsOf(m: Pick<TableModel, 'dataFiles' | 'deleteFiles'>): TableStats {
  return {
    dataFiles: m.dataFiles.length,
    dataBytes: m.dataFiles.reduce((n, f) => n + f.sizeBytes, 0),
    deleteFiles: m.deleteFiles.length,
    deleteBytes: m.deleteFiles.reduce((n, f) => n + f.sizeBytes, 0),
    records: m.dataFiles.reduce((n, f) => n + f.recordCount, 0),
  };
}

export function planIceberg(model: TableModel, opts: CompactOptions, now: number): Plan {
  // on v3, equality→position tasks write deletion vectors (one per data file, merged with its old DV)
  return planFor(model, opts, now);
}

function planFor(model: TableModel, opts: CompactOptions, now: number): Plan {
  const props = { ...model.properties, ...(opts.options ?? {}) };
  if (opts.full) return planFull(model, props, now);
  if ((opts.strategy ?? 'tiered') === 'tiered')
    return planTiered(model, tieredPolicyFromProperties(props), now, opts.tieredState);
  // bin-pack has no filter of its own: narrow the candidate files the same way the tiered planner does
  const filter = props['self-optimizing.filter'];
  const scoped = filter ? { ...model, dataFiles: model.dataFiles.filter(compileFilter(filter, model)) } : model;
  if (opts.strategy === 'sort' || opts.strategy === 'zorder')
    return labelTasks(planSortStrategy(scoped, opts.strategy, opts.sort, props, binpackOptionsFrom(props), now), model); // [sort]
  return labelTasks(planBinpack(scoped, binpackOptionsFrom(props), now), model);
}

export async function compactIceberg(
  table: IcebergTable,
  out: CommitIO,
  ops: TableOperations,
  opts: CompactOptions = {},
): Promise<CompactReport> {
  const started = Date.now();
  const now = opts.nowMs ?? Date.now();
  const emit = safeEmitter(opts.onProgress);
  const signal = opts.signal;
  if (isCancelled(signal)) throw cancelledError(table.metadataLocation, 0, signal!.reason);
  const model = await loadTableModel(table);
  const before = statsOf(model);
  const plan = opts.onlyDanglingDeletes
    ? { planner: 'tiered' as const, plannedAtMs: now, tasks: [], removableDeletes: [], trail: [] }
    : planIceberg(model, opts, now);
  const report: CompactReport = {
    table: table.metadataLocation,
    plan,
    dryRun: !!opts.dryRun,
    before,
    snapshots: [],
    committedTasks: [],
    failedTasks: [],
    skippedTasks: [],
    tasks: [],
    danglingDeletes: [],
    bytesRead: 0,
    bytesWritten: 0,
    rowsIn: 0,
    rowsOut: 0,
    durationMs: 0,
    ...(model.currentSnapshotId !== undefined ? { baseSnapshotId: model.currentSnapshotId.toString() } : {}),
  };
  const { skipped, committedIn, finish } = outcomeTracker(report, plan.tasks, started);
  emit({
    type: 'plan',
    tasks: plan.tasks.length,
    inputFiles: plan.tasks.reduce((n, t) => n + t.inputs.length, 0),
    inputBytes: plan.tasks.reduce((n, t) => n + t.inputBytes, 0),
  });
  if (opts.dryRun || model.currentSnapshotId === undefined) {
    if (opts.removeDanglingDeletes !== false) report.danglingDeletes = findDanglingDeletes(model).map(deleteFileId);
    for (const t of plan.tasks)
      skipped.set(t.id, opts.dryRun ? 'dry run: nothing was written' : 'the table has no current snapshot');
    return finish();
  }
  const baseSnapshotId = model.currentSnapshotId;
  const formatVersion = table.metadata.formatVersion;
  const rewriteTasks = plan.tasks.filter((t) => t.kind !== 'eq-to-pos');
  const convertTasks = plan.tasks.filter((t) => t.kind === 'eq-to-pos');
  const runnable = plan.tasks;

  // refuse what cannot be committed before a single byte is written (a catalog table opened by path, a
  // read-only directory), and stop here when cancelled meanwhile
  if (ops.preflight) await ops.preflight(await ops.refresh());
  if (runnable.length > 0) await probeWritable(out, [dataDirOf(table), metadataDirOf(table)], table.metadataLocation);
  if (isCancelled(signal)) throw cancelledError(table.metadataLocation, 0, signal!.reason);

  const fieldsById = allFieldsById(table.metadata);
  const deleteIndex = new DeleteIndex(model.deleteFiles, model.specs, (l) => table.io.resolve(l));
  const adapter = new IcebergRewriteAdapter({
    md: table.metadata,
    io: table.io,
    out,
    deleteIndex,
    fieldsById,
    propertyOverrides: opts.options,
  }); // [stitch] overrides reach floe.rewrite.stitch.*
  const committer = new IcebergRewriteCommitter(out, ops);

  const groupOf = (t: RewriteTask, outputs: NewContentFile[], deletes: NewContentFile[] = []): RewriteGroup => {
    // v3: each new DV replaces its data file's old DV (if any) in the same commit
    const withDv = new Set(deletes.filter((d) => d.format === 'PUFFIN').map((d) => d.referencedDataFile));
    const superseded = t.inputs
      .filter((f) => withDv.has(f.path))
      .flatMap((f) => {
        const old = deleteIndex.forDataFile(f).dv;
        return old ? [deleteFileId(old)] : [];
      });
    return {
      id: t.id,
      replacedDataFiles: t.kind === 'eq-to-pos' ? [] : t.inputs.map((f) => f.path),
      removedDeleteFiles: t.removableDeletes.map(deleteFileId),
      addedDataFiles: outputs,
      addedDeleteFiles: deletes,
      ...(superseded.length > 0 ? { supersededDeleteFiles: superseded } : {}),
    };
  };

  type Item = { group: RewriteGroup; outputs: NewContentFile[] };
  const pending: Item[] = [];
  /** Every group this run wrote, for removing what a cancel left uncommitted. */
  const every: Item[] = [];
  /** Data files our commits added (rewrite outputs), for settling the plan's table-wide deletes. */
  const added = new Set<string>();
  /** A cancel seen once a commit had started: that commit finished, nothing after it runs. */
  let cancelledAfterCommit = false;
  const cancelNow = async (uncommitted: Item[], why: string): Promise<void> => {
    const files = uncommitted.flatMap((b) => b.outputs);
    await discard(out, files);
    for (const b of uncommitted) skipped.set(b.group.id, why);
    for (const t of plan.tasks)
      if (!committedIn.has(t.id) && !skipped.has(t.id) && !report.failedTasks.some((f) => f.id === t.id))
        skipped.set(t.id, why);
    if (report.snapshots.length === 0) throw cancelledError(table.metadataLocation, files.length, signal?.reason);
  };
  const commitGroups = async (batch: Item[]) => {
    if (batch.length === 0) return;
    if (isCancelled(signal)) return cancelNow(batch, 'cancelled before its commit; its output was removed');
    try {
      const res = await committer.commit({
        baseSnapshotId,
        groups: batch.map((b) => b.group),
        summary: { 'floe.planner': plan.planner },
        onRetry: (attempt, reason) => emit({ type: 'commit-retry', attempt, reason }),
      });
      const sid = res.snapshotId.toString();
      report.snapshots.push(sid);
      report.committedTasks.push(...res.committedGroups);
      for (const id of res.committedGroups) committedIn.set(id, sid);
      for (const b of batch)
        if (res.committedGroups.includes(b.group.id)) for (const f of b.group.addedDataFiles) added.add(f.path);
      emit({ type: 'commit', snapshotId: sid, attempt: res.attempts, groups: res.committedGroups.length });
      for (const f of res.failedGroups) {
        report.failedTasks.push(f);
        await discard(out, batch.find((b) => b.group.id === f.id)?.outputs ?? []);
      }
    } catch (e) {
      for (const b of batch) {
        report.failedTasks.push({ id: b.group.id, reason: e instanceof Error ? e.message : String(e) });
        // if the catalog may have taken the commit, the outputs may be live: keep them
        if (!isCommitStateUnknown(e)) await discard(out, b.outputs);
      }
      if (!isFloeError(e) || !['PreconditionFailed', 'CommitConflict'].includes(e.kind)) throw e;
    } finally {
      if (isCancelled(signal)) cancelledAfterCommit = true;
    }
  };

  const result = await executeTasks(rewriteTasks, adapter, {
    concurrency: opts.maxConcurrentGroups ?? 2,
    onProgress: emit,
    ...(signal ? { signal } : {}),
  });
  for (const r of result.done) {
    report.bytesRead += r.bytesRead;
    report.bytesWritten += r.bytesWritten;
    report.rowsIn += r.rowsIn;
    report.rowsOut += r.rowsOut;
  }
  const written: Item[] = result.done.map((r) => ({ group: groupOf(r.task, r.outputs), outputs: r.outputs }));
  every.push(...written);
  if (isCancelled(signal)) {
    // tasks stopped mid-way removed their own outputs; the finished ones are removed here
    for (const f of result.failed) skipped.set(f.task.id, 'cancelled before it finished; nothing of it was kept');
    await cancelNow(written, 'cancelled before its commit; its output was removed');
  }
  for (const f of result.failed)
    report.failedTasks.push({ id: f.task.id, reason: f.error instanceof Error ? f.error.message : String(f.error) });
  for (const item of written) {
    if (opts.partialProgress) await commitGroups([item]);
    else pending.push(item);
    if (cancelledAfterCommit) break;
  }

  if (!cancelledAfterCommit) {
    for (const t of convertTasks) {
      if (isCancelled(signal)) {
        await cancelNow(pending, 'cancelled before its commit; its output was removed');
        pending.length = 0;
        break;
      }
      try {
        const deletes =
          formatVersion >= 3
            ? await convertToDeletionVectors(t, adapter, out, table, signal)
            : await convertEqualityToPosition(t, adapter, out, table, signal);
        // DVs share their Puffin file: count each file once
        report.bytesWritten += [...new Map(deletes.map((d) => [d.path, Number(d.sizeBytes)])).values()].reduce(
          (n, b) => n + b,
          0,
        );
        const item = { group: groupOf(t, [], deletes), outputs: deletes };
        every.push(item);
        if (opts.partialProgress) await commitGroups([item]);
        else pending.push(item);
        if (cancelledAfterCommit) break;
      } catch (e) {
        if (isCancelled(signal)) continue; // handled at the top of the next round or below
        report.failedTasks.push({ id: t.id, reason: e instanceof Error ? e.message : String(e) });
      }
    }
  }
  if (!cancelledAfterCommit) await commitGroups(pending);
  if (isCancelled(signal) || cancelledAfterCommit) {
    const failedIds = new Set(report.failedTasks.map((f) => f.id));
    const left = every.filter((b) => !committedIn.has(b.group.id) && !failedIds.has(b.group.id));
    await discard(
      out,
      left.flatMap((b) => b.outputs),
    );
    for (const b of left) skipped.set(b.group.id, 'cancelled before its commit; its output was removed');
    for (const t of plan.tasks)
      if (!committedIn.has(t.id) && !skipped.has(t.id) && !report.failedTasks.some((f) => f.id === t.id))
        skipped.set(t.id, 'cancelled');
    report.cancelled = {
      afterCommitStarted: cancelledAfterCommit,
      committedSnapshots: [...report.snapshots],
      message: cancelledAfterCommit
        ? `cancelled while committing: the commit finished (snapshot ${report.snapshots.join(', ')}); nothing after it ran`
        : `cancelled after committing snapshot ${report.snapshots.join(', ')}; the rest was not committed and its files were removed`,
    };
  } else {
    await removeUnneededDeletes(table, out, ops, report, emit, {
      dangling: opts.removeDanglingDeletes !== false,
      settle: settleInputOf(plan, report.committedTasks, added),
    });
  }

  if (report.snapshots.length > 0) {
    // the table as it stands after our commits, for the before/after summary
    const now = await ops.refresh();
    report.after = statsOf(
      await loadTableModel({
        ...table,
        metadata: parseMetadata(now.metadata, now.location),
        metadataLocation: now.location,
      }),
    );
  }
  return finish();
}

/** Where rewrite outputs and converted position deletes go (as IcebergRewriteAdapter writes them). */
function dataDirOf(table: IcebergTable): string {
  const md = table.metadata;
  return (md.properties['write.data.path'] ?? `${md.location.replace(/\/$/, '')}/data`).replace(/\/$/, '');
}

/** Where the commit's manifests and metadata go. */
function metadataDirOf(table: IcebergTable): string {
  const md = table.metadata;
  return (md.properties['write.metadata.path'] ?? `${md.location.replace(/\/$/, '')}/metadata`).replace(/\/$/, '');
}

/** What the final cleanup needs to settle the plan's table-wide removable deletes. */
interface SettleRequest {
  candidates: DeleteFile[];
  converted: Set<string>;
  added: Set<string>;
}

/**
 * The plan's table-wide removable deletes that no committed task could drop alone (their dependents span
 * tasks), with the files the committed tasks converted; nothing when no task committed.
 */
function settleInputOf(
  plan: Plan,
  committed: readonly string[],
  added: ReadonlySet<string>,
): SettleRequest | undefined {
  const done = new Set(committed);
  const tasks = plan.tasks.filter((t) => done.has(t.id));
  if (tasks.length === 0) return undefined;
  const droppedByTasks = new Set(tasks.flatMap((t) => t.removableDeletes.map(deleteFileId)));
  const candidates = plan.removableDeletes.filter((d) => !droppedByTasks.has(deleteFileId(d)));
  const converted = new Set(tasks.filter((t) => t.kind === 'eq-to-pos').flatMap((t) => t.inputs.map((f) => f.path)));
  return { candidates, converted, added: new Set(added) };
}

/**
 * One extra `replace` commit that drops the delete files no live data file needs any more: those that
 * dangle (apply to no live file), and the plan's table-wide removable deletes once the tasks they span
 * have all committed (settle-deletes.ts) — so a run ends with what its plan said.
 */
async function removeUnneededDeletes(
  table: IcebergTable,
  out: CommitIO,
  ops: TableOperations,
  report: CompactReport,
  emit: ProgressListener,
  what: { dangling: boolean; settle: SettleRequest | undefined },
): Promise<void> {
  if (!what.dangling && (!what.settle || what.settle.candidates.length === 0)) return;
  const now = await ops.refresh();
  const current = await loadTableModel({
    ...table,
    metadata: parseMetadata(now.metadata, now.location),
    metadataLocation: now.location,
  });
  if (current.currentSnapshotId === undefined) return;
  const dangling = what.dangling ? findDanglingDeletes(current) : [];
  const settled = what.settle ? settleRemovableDeletes({ current, ...what.settle }) : [];
  const ids = [...new Set([...dangling, ...settled].map(deleteFileId))];
  if (ids.length === 0) return;
  let res;
  try {
    res = await new IcebergRewriteCommitter(out, ops).commit({
      baseSnapshotId: current.currentSnapshotId,
      groups: [
        {
          id: 'dangling-deletes',
          replacedDataFiles: [],
          removedDeleteFiles: ids,
          addedDataFiles: [],
          addedDeleteFiles: [],
        },
      ],
      summary: { 'floe.action': 'remove-dangling-deletes' },
    });
  } catch (e) {
    // the rewrites stand; only the delete files stay referenced (harmless, removable by a re-run)
    if (!isFloeError(e)) throw e;
    report.deleteCleanup = { outcome: 'failed', reason: e.message, removed: 0 };
    emit({
      type: 'message',
      level: 'warn',
      text: `dropping ${ids.length} unneeded delete file(s) failed: ${e.message}`,
    });
    return;
  }
  report.snapshots.push(res.snapshotId.toString());
  report.danglingDeletes = dangling.map(deleteFileId);
  report.settledDeletes = settled.map(deleteFileId);
  report.deleteCleanup = { outcome: 'committed', snapshotId: res.snapshotId.toString(), removed: ids.length };
  emit({ type: 'commit', snapshotId: res.snapshotId.toString(), attempt: res.attempts, groups: 1 });
}

async function discard(out: CommitIO, files: NewContentFile[]): Promise<void> {
  await Promise.all(files.map((f) => out.remove(f.path).catch(() => undefined)));
}

const FILE_PATH_ID = 2147483546;
const POS_ID = 2147483545;

/** One position-delete file per data file: the union of its old position deletes and its equality-deleted rows. */
async function convertEqualityToPosition(
  task: RewriteTask,
  adapter: IcebergRewriteAdapter,
  out: CommitIO,
  table: IcebergTable,
  signal?: AbortSignal,
): Promise<NewContentFile[]> {
  const written: NewContentFile[] = [];
  try {
    for (const file of task.inputs) {
      if (isCancelled(signal)) throw new Error(`task ${task.id} aborted`);
      const positions = [...(await adapter.deletedPositions(file))].sort((a, b) => a - b);
      if (positions.length === 0) continue;
      written.push(await writePositionDeletes(file, positions, out, table, task));
    }
  } catch (e) {
    await discard(out, written);
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
  signal?: AbortSignal,
): Promise<NewContentFile[]> {
  const dvs = [];
  for (const file of task.inputs) {
    if (isCancelled(signal)) throw new Error(`task ${task.id} aborted`);
    dvs.push({ file, positions: await adapter.deletedPositions(file) });
  }
  const location = `${dataDirOf(table)}/floe-dv-${task.id}-${randomUUID()}.puffin`;
  return storeDeletionVectors(out, location, dvs);
}

async function writePositionDeletes(
  file: DataFile,
  positions: number[],
  out: CommitIO,
  table: IcebergTable,
  task: RewriteTask,
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
  const md = table.metadata;
  const dataDir = (md.properties['write.data.path'] ?? `${md.location.replace(/\/$/, '')}/data`).replace(/\/$/, '');
  const name = file.path.slice(file.path.lastIndexOf('/') + 1).replace(/\.parquet$/, '');
  const location = `${dataDir}/${name}-floe-pos-${task.id}-${Date.now().toString(36)}.parquet`;
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
