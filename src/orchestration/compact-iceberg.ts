/**
 * `floe compact` for Iceberg: plan (tiered or bin-pack) → rewrite tasks on the executor → atomic `replace`
 * commits. With partial progress each task group commits as soon as it is written; otherwise one commit at
 * the end. A group whose commit fails validation has its outputs deleted — they were never referenced, so a
 * crash at any point leaves only garbage for orphan cleanup, never a broken table.
 */
import * as arrow from 'apache-arrow';
import { isFloeError } from '../errors.js';
import type { DataFile, TableModel } from '../model/index.js';
import type { Plan, RewriteTask } from '../planning/plan.js';
import { compileFilter, planTiered, tieredPolicyFromProperties, type TieredState } from '../planning/tiered/index.js';
import { planBinpack, binpackOptionsFrom } from '../planning/binpack/index.js';
import { executeTasks, type TaskResult } from '../execution/executor.js';
import { safeEmitter, type ProgressListener } from '../execution/events.js';
import { writeParquet } from '../../connectors/formats/parquet/index.js';
import { IcebergRewriteCommitter, type CommitIO, type NewContentFile, type RewriteGroup, type TableOperations } from '../../connectors/iceberg/commit-rewrite.js';
import { IcebergRewriteAdapter } from '../../connectors/iceberg/rewrite-adapter.js';
import { isCommitStateUnknown } from '../../connectors/iceberg/commit-state.js';
import { DeleteIndex } from '../../connectors/iceberg/deletes.js';
import { allFieldsById } from '../../connectors/iceberg/manifests.js';
import { loadTableModel, type IcebergTable } from '../../connectors/iceberg/table.js';
import { parseMetadata } from '../../connectors/iceberg/metadata.js';
import { findDanglingDeletes } from './dangling-deletes.js';
import { encodeSingleValue } from '../../connectors/iceberg/write-bounds.js';

export interface CompactOptions {
  strategy?: 'tiered' | 'binpack';
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
  snapshots: string[];
  committedTasks: string[];
  failedTasks: { id: string; reason: string }[];
  /** Delete files removed (or, in a dry run, removable) because no live data file needs them. */
  danglingDeletes: string[];
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
  const props = { ...model.properties, ...(opts.options ?? {}) };
  if ((opts.strategy ?? 'tiered') === 'tiered') return planTiered(model, tieredPolicyFromProperties(props), now, opts.tieredState);
  // bin-pack has no filter of its own: narrow the candidate files the same way the tiered planner does
  const filter = props['self-optimizing.filter'];
  const scoped = filter ? { ...model, dataFiles: model.dataFiles.filter(compileFilter(filter, model)) } : model;
  return planBinpack(scoped, binpackOptionsFrom(props), now);
}

export async function compactIceberg(table: IcebergTable, out: CommitIO, ops: TableOperations, opts: CompactOptions = {}): Promise<CompactReport> {
  const started = Date.now();
  const now = opts.nowMs ?? Date.now();
  const emit = safeEmitter(opts.onProgress);
  const model = await loadTableModel(table);
  const before = statsOf(model);
  const plan = opts.onlyDanglingDeletes ? { planner: 'tiered' as const, plannedAtMs: now, tasks: [], removableDeletes: [], trail: [] } : planIceberg(model, opts, now);
  const report: CompactReport = {
    table: table.metadataLocation,
    plan,
    dryRun: !!opts.dryRun,
    before,
    snapshots: [],
    committedTasks: [],
    failedTasks: [],
    danglingDeletes: [],
    bytesRead: 0,
    bytesWritten: 0,
    rowsIn: 0,
    rowsOut: 0,
    durationMs: 0,
  };
  emit({ type: 'plan', tasks: plan.tasks.length, inputFiles: plan.tasks.reduce((n, t) => n + t.inputs.length, 0), inputBytes: plan.tasks.reduce((n, t) => n + t.inputBytes, 0) });
  if (opts.dryRun || model.currentSnapshotId === undefined) {
    if (opts.removeDanglingDeletes !== false) report.danglingDeletes = findDanglingDeletes(model).map((d) => d.path);
    report.durationMs = Date.now() - started;
    return report;
  }
  const baseSnapshotId = model.currentSnapshotId;
  const fieldsById = allFieldsById(table.metadata);
  const deleteIndex = new DeleteIndex(model.deleteFiles, model.specs, (l) => table.io.resolve(l));
  const adapter = new IcebergRewriteAdapter({ md: table.metadata, io: table.io, out, deleteIndex, fieldsById, propertyOverrides: opts.options }); // [stitch] overrides reach floe.rewrite.stitch.*
  const committer = new IcebergRewriteCommitter(out, ops);

  const rewriteTasks = plan.tasks.filter((t) => t.kind !== 'eq-to-pos');
  const convertTasks = plan.tasks.filter((t) => t.kind === 'eq-to-pos');
  if (convertTasks.length && table.metadata.formatVersion >= 3) {
    emit({ type: 'message', level: 'warn', text: `skipping ${convertTasks.length} equality→position task(s): v3 tables take deletion vectors, which floe does not write yet` });
  }

  const groupOf = (t: RewriteTask, outputs: NewContentFile[], deletes: NewContentFile[] = []): RewriteGroup => ({
    id: t.id,
    replacedDataFiles: t.kind === 'eq-to-pos' ? [] : t.inputs.map((f) => f.path),
    removedDeleteFiles: t.removableDeletes.map((d) => d.path),
    addedDataFiles: outputs,
    addedDeleteFiles: deletes,
  });

  const pending: { group: RewriteGroup; outputs: NewContentFile[] }[] = [];
  const commitGroups = async (batch: { group: RewriteGroup; outputs: NewContentFile[] }[]) => {
    if (batch.length === 0) return;
    try {
      const res = await committer.commit({
        baseSnapshotId,
        groups: batch.map((b) => b.group),
        summary: { 'floe.planner': plan.planner },
        onRetry: (attempt, reason) => emit({ type: 'commit-retry', attempt, reason }),
      });
      report.snapshots.push(res.snapshotId.toString());
      report.committedTasks.push(...res.committedGroups);
      emit({ type: 'commit', snapshotId: res.snapshotId.toString(), attempt: res.attempts, groups: res.committedGroups.length });
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
    }
  };

  const onDone = async (r: TaskResult<NewContentFile>) => {
    report.bytesRead += r.bytesRead;
    report.bytesWritten += r.bytesWritten;
    report.rowsIn += r.rowsIn;
    report.rowsOut += r.rowsOut;
    const item = { group: groupOf(r.task, r.outputs), outputs: r.outputs };
    if (opts.partialProgress) await commitGroups([item]);
    else pending.push(item);
  };

  const result = await executeTasks(rewriteTasks, adapter, { concurrency: opts.maxConcurrentGroups ?? 2, onProgress: emit });
  for (const r of result.done) await onDone(r);
  for (const f of result.failed) report.failedTasks.push({ id: f.task.id, reason: f.error instanceof Error ? f.error.message : String(f.error) });

  if (table.metadata.formatVersion < 3) {
    for (const t of convertTasks) {
      try {
        const deletes = await convertEqualityToPosition(t, adapter, out, table);
        const item = { group: groupOf(t, [], deletes), outputs: deletes };
        if (opts.partialProgress) await commitGroups([item]);
        else pending.push(item);
      } catch (e) {
        report.failedTasks.push({ id: t.id, reason: e instanceof Error ? e.message : String(e) });
      }
    }
  }
  await commitGroups(pending);
  if (opts.removeDanglingDeletes !== false) await removeDangling(table, out, ops, report, emit);

  if (report.snapshots.length > 0) {
    // the table as it stands after our commits, for the before/after summary
    const now = await ops.refresh();
    report.after = statsOf(await loadTableModel({ ...table, metadata: parseMetadata(now.metadata, now.location), metadataLocation: now.location }));
  }
  report.durationMs = Date.now() - started;
  return report;
}

/** One extra `replace` commit that drops the delete files no live data file needs any more. */
async function removeDangling(table: IcebergTable, out: CommitIO, ops: TableOperations, report: CompactReport, emit: ProgressListener): Promise<void> {
  const now = await ops.refresh();
  const current = await loadTableModel({ ...table, metadata: parseMetadata(now.metadata, now.location), metadataLocation: now.location });
  const dangling = findDanglingDeletes(current);
  if (dangling.length === 0 || current.currentSnapshotId === undefined) return;
  const res = await new IcebergRewriteCommitter(out, ops).commit({
    baseSnapshotId: current.currentSnapshotId,
    groups: [{ id: 'dangling-deletes', replacedDataFiles: [], removedDeleteFiles: dangling.map((d) => d.path), addedDataFiles: [], addedDeleteFiles: [] }],
    summary: { 'floe.action': 'remove-dangling-deletes' },
  });
  report.snapshots.push(res.snapshotId.toString());
  report.danglingDeletes = dangling.map((d) => d.path);
  emit({ type: 'commit', snapshotId: res.snapshotId.toString(), attempt: res.attempts, groups: 1 });
}

async function discard(out: CommitIO, files: NewContentFile[]): Promise<void> {
  await Promise.all(files.map((f) => out.remove(f.path).catch(() => undefined)));
}

const FILE_PATH_ID = 2147483546;
const POS_ID = 2147483545;

/** One position-delete file per data file: the union of its old position deletes and its equality-deleted rows. */
async function convertEqualityToPosition(task: RewriteTask, adapter: IcebergRewriteAdapter, out: CommitIO, table: IcebergTable): Promise<NewContentFile[]> {
  const written: NewContentFile[] = [];
  try {
    for (const file of task.inputs) {
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

async function writePositionDeletes(file: DataFile, positions: number[], out: CommitIO, table: IcebergTable, task: RewriteTask): Promise<NewContentFile> {
  const schema = new arrow.Schema([
    new arrow.Field('file_path', new arrow.Utf8(), false, new Map([['PARQUET:field_id', String(FILE_PATH_ID)]])),
    new arrow.Field('pos', new arrow.Int64(), false, new Map([['PARQUET:field_id', String(POS_ID)]])),
  ]);
  const paths = arrow.vectorFromArray(positions.map(() => file.path), new arrow.Utf8());
  const pos = arrow.makeVector(BigInt64Array.from(positions, (p) => BigInt(p)));
  const batch = new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: positions.length, nullCount: 0, children: [paths.data[0]!, pos.data[0]!] }));
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
    valueCounts: new Map([[FILE_PATH_ID, BigInt(positions.length)], [POS_ID, BigInt(positions.length)]]),
    nullValueCounts: new Map([[FILE_PATH_ID, 0n], [POS_ID, 0n]]),
    lowerBounds: new Map([[FILE_PATH_ID, encodeSingleValue(str, file.path)], [POS_ID, encodeSingleValue(lng, BigInt(positions[0]!))]]),
    upperBounds: new Map([[FILE_PATH_ID, encodeSingleValue(str, file.path)], [POS_ID, encodeSingleValue(lng, BigInt(positions[positions.length - 1]!))]]),
    referencedDataFile: file.path,
  };
}
