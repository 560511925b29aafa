/**
 * `floe compact --deletes-only`: position-delete / deletion-vector maintenance without rewriting data —
 * Spark's `rewrite_position_delete_files` (options `rewrite-all`, `min-input-files`,
 * `target-file-size-bytes`, `min-file-size-bytes`, `max-file-group-size-bytes`).
 *
 * - v2: per partition, small position delete files (below `min-file-size-bytes`, or all with `rewrite-all`)
 *   are merged into one, once there are `min-input-files` of them; entries whose data file is gone (or to
 *   which the delete no longer applies by sequence number) are dropped.
 * - v3: a snapshot holds one DV per data file, so there is nothing to merge per file. Instead: dangling DVs
 *   are dropped; the live DVs of Puffin files that are mostly dead blobs (live blob bytes below half the
 *   file, or all with `rewrite-all`) are copied into one new Puffin file per partition, so the old files
 *   can go; position delete files left from v2 are turned into DVs (merged with nothing: a data file with
 *   a DV already ignores them).
 * Everything commits as one `replace` snapshot that changes delete files only, validated like a rewrite
 * (commit-rewrite.ts): an input that a concurrent commit removed or replaced fails its group.
 */
import { randomUUID } from 'node:crypto';
import { FloeError, isFloeError } from '../../util/errors.js';
import {
  partitionKey,
  type DataFile,
  type DeleteFile,
  type DeletionVectorFile,
  type PositionDeleteFile,
  type TableModel,
} from '../../model/index.js';
import type { Plan, RewriteTask } from '../core/planning/plan.js';
import { deleteApplies, deleteFileId } from '../core/planning/deletes.js';
import { findDanglingDeletes } from './dangling-deletes.js';
import { outcomeTracker } from './task-outcomes.js';
import { cancelledError, isCancelled } from './cancel.js';
import { newCompactReport, statsOf, type CompactReport } from './compact-report.js';
import { discardFiles } from './discard-files.js';
import { deleteIndexOf } from './iceberg-steps.js';
import { chunksBySize } from '../core/execution/split-tasks.js';
import {
  IcebergRewriteCommitter,
  type CommitIO,
  type NewContentFile,
  type RewriteGroup,
  type TableOperations,
} from '../../connectors/iceberg/commit-rewrite.js';
import { isCommitStateUnknown } from '../../connectors/commit-state.js';
import {
  deleteFileWriter,
  distinctFileBytes,
  type DataFileDeletes,
  type DeleteFileWriter,
} from '../../connectors/iceberg/delete-writer.js';
import { DeleteLoader, type DeleteIndex } from '../../connectors/iceberg/deletes.js';
import { allFieldsById } from '../../connectors/iceberg/manifests.js';
import { puffinBlobBytes } from '../../connectors/iceberg/puffin-dv-file.js';
import { loadRefreshedModel } from '../../connectors/iceberg/refreshed-model.js';
import { loadTableModel, type IcebergTable } from '../../connectors/iceberg/table.js';

export interface PositionDeleteRewriteOptions {
  rewriteAll: boolean;
  minInputFiles: number;
  targetFileSizeBytes: number;
  minFileSizeBytes: number;
  maxFileGroupSizeBytes: number;
}

/** Spark's option names and defaults; the target defaults to `write.delete.target-file-size-bytes` (64 MiB). */
export function positionDeleteOptionsFrom(props: Record<string, string>): PositionDeleteRewriteOptions {
  const num = (k: string, d: number): number => {
    const v = props[k];
    if (v === undefined) return d;
    if (!/^\d+$/.test(v)) throw new FloeError('InvalidArgument', `${k}=${v}: expected a non-negative integer`);
    return Number(v);
  };
  const rewriteAll = props['rewrite-all'];
  if (rewriteAll !== undefined && rewriteAll !== 'true' && rewriteAll !== 'false')
    throw new FloeError('InvalidArgument', `rewrite-all=${rewriteAll}: expected true or false`);
  const target = num('target-file-size-bytes', num('write.delete.target-file-size-bytes', 64 * 1024 * 1024));
  return {
    rewriteAll: rewriteAll === 'true',
    minInputFiles: Math.max(1, num('min-input-files', 5)),
    targetFileSizeBytes: target,
    minFileSizeBytes: num('min-file-size-bytes', Math.floor(target * 0.75)),
    maxFileGroupSizeBytes: num('max-file-group-size-bytes', 100 * 1024 * 1024 * 1024),
  };
}

/** Below this share of live blob bytes (of all its blobs' bytes) a Puffin file counts as mostly dead (v3). */
const PUFFIN_LIVE_RATIO = 0.5;

/** One partition's delete files that a rewrite may take: position delete files, and (v3) DVs of mostly dead Puffin files. */
interface PartitionCandidates {
  specId: number;
  partition: DeleteFile['partition'];
  pos: PositionDeleteFile[];
  dvs: DeletionVectorFile[];
}

/** The plan: one task (kind `position-deletes`) per group of delete files; `deletes` are its inputs. */
export function planPositionDeleteRewrite(
  model: TableModel,
  o: PositionDeleteRewriteOptions,
  now: number,
  puffinBlobBytes: ReadonlyMap<string, number> = new Map(),
): Plan {
  const dangling = new Set(findDanglingDeletes(model).map(deleteFileId));
  const byPartition = candidatesByPartition(model, o, dangling, puffinBlobBytes);
  const tasks: RewriteTask[] = [];
  const trail: Plan['trail'] = [];
  for (const [, s] of byPartition) {
    let inputs: DeleteFile[];
    if (model.formatVersion >= 3) {
      // every leftover position delete file becomes DVs; DVs of mostly dead Puffin files move
      inputs = [...s.pos, ...s.dvs];
    } else {
      const small = s.pos.filter((d) => o.rewriteAll || d.sizeBytes < o.minFileSizeBytes);
      inputs = small.length >= (o.rewriteAll ? 1 : o.minInputFiles) ? small : [];
      if (small.length > 0 && inputs.length === 0)
        trail.push({
          gate: 'min-input-files',
          detail: `${small.length} small position delete file(s) in a partition, fewer than min-input-files ${o.minInputFiles}`,
          outcome: 'skip',
        });
    }
    for (const group of chunksBySize(inputs, o.maxFileGroupSizeBytes)) {
      tasks.push({
        id: `pd-${tasks.length}`,
        kind: 'position-deletes',
        specId: s.specId,
        partition: s.partition,
        inputs: [],
        deletes: group,
        removableDeletes: group,
        targetFileSizeBytes: o.targetFileSizeBytes,
        inputBytes: group.reduce((n, d) => n + (d.content === 'deletion-vector' ? d.contentSizeBytes : d.sizeBytes), 0),
        trail: [],
      });
    }
  }
  const danglingFiles = model.deleteFiles.filter((d) => dangling.has(deleteFileId(d)));
  return {
    planner: 'binpack',
    plannedAtMs: now,
    tasks,
    removableDeletes: [...tasks.flatMap((t) => t.removableDeletes), ...danglingFiles],
    trail,
  };
}

/** The live (not dangling) delete files a rewrite may take, by partition. */
function candidatesByPartition(
  model: TableModel,
  o: PositionDeleteRewriteOptions,
  dangling: ReadonlySet<string>,
  puffinBlobBytes: ReadonlyMap<string, number>,
): Map<string, PartitionCandidates> {
  const byPartition = new Map<string, PartitionCandidates>();
  const slot = (d: DeleteFile) => {
    const k = partitionKey(d.specId, d.partition);
    let s = byPartition.get(k);
    if (!s) byPartition.set(k, (s = { specId: d.specId, partition: d.partition, pos: [], dvs: [] }));
    return s;
  };
  // v3: Puffin files with mostly dead blobs (dangling DVs count as dead; those go in the cleanup group)
  const live = new Map<string, number>();
  const sizes = new Map<string, number>();
  for (const d of model.deleteFiles) {
    if (d.content !== 'deletion-vector') continue;
    sizes.set(d.path, puffinBlobBytes.get(d.path) ?? d.sizeBytes);
    if (!dangling.has(deleteFileId(d))) live.set(d.path, (live.get(d.path) ?? 0) + d.contentSizeBytes);
  }
  const deadPuffin = (p: string) => o.rewriteAll || (live.get(p) ?? 0) < (sizes.get(p) ?? 0) * PUFFIN_LIVE_RATIO;
  for (const d of model.deleteFiles) {
    if (dangling.has(deleteFileId(d))) continue;
    if (d.content === 'position-deletes') slot(d).pos.push(d);
    else if (d.content === 'deletion-vector' && model.formatVersion >= 3 && deadPuffin(d.path)) slot(d).dvs.push(d);
  }
  return byPartition;
}

export interface RewritePositionDeletesOptions {
  options?: Record<string, string>;
  dryRun?: boolean;
  nowMs?: number;
  signal?: AbortSignal;
}

export async function rewritePositionDeletes(
  table: IcebergTable,
  out: CommitIO,
  ops: TableOperations,
  opts: RewritePositionDeletesOptions = {},
): Promise<CompactReport> {
  const started = Date.now();
  const now = opts.nowMs ?? Date.now();
  if (isCancelled(opts.signal)) throw cancelledError(table.metadataLocation, 0, opts.signal!.reason);
  const model = await loadTableModel(table);
  const o = positionDeleteOptionsFrom({ ...model.properties, ...(opts.options ?? {}) });
  const plan = planPositionDeleteRewrite(model, o, now, await puffinBlobBytesOf(table, model));
  const danglingIds = findDanglingDeletes(model).map(deleteFileId);
  const report = newCompactReport(table.metadataLocation, plan, model, {
    dryRun: !!opts.dryRun,
    danglingDeletes: opts.dryRun ? danglingIds : [],
  });
  const tracker = outcomeTracker(report, plan.tasks, started);
  if (opts.dryRun || model.currentSnapshotId === undefined || (plan.tasks.length === 0 && danglingIds.length === 0)) {
    for (const t of plan.tasks)
      tracker.skipped.set(t.id, opts.dryRun ? 'dry run: nothing was written' : 'the table has no current snapshot');
    return tracker.finish();
  }
  if (ops.preflight) await ops.preflight(await ops.refresh());
  const writer = new TaskDeleteWriter(table, model, out, report, opts.signal);
  const groups = await writer.writeAll(plan.tasks);
  const committed = await commitDeleteGroups(out, ops, model.currentSnapshotId, groups, danglingIds, report, tracker);
  // the table after the commit (a reload: the commit may have rebased onto concurrent snapshots)
  if (committed) report.after = statsOf(await loadRefreshedModel(table, ops));
  return tracker.finish();
}

/** A Puffin file's blob bytes (from its footer) against its live DVs' bytes tell how much of it is dead. */
function puffinBlobBytesOf(table: IcebergTable, model: TableModel): Promise<Map<string, number>> {
  return puffinBlobBytes(
    table.io,
    model.deleteFiles.filter((d): d is DeletionVectorFile => d.content === 'deletion-vector'),
  );
}

interface WrittenGroup {
  group: RewriteGroup;
  written: NewContentFile[];
}

/**
 * Writes each task's new delete files: for every data file of the task's partition that the task's inputs
 * apply to, its deleted positions — one DV per data file in one Puffin file (v3), or one position delete
 * file for all of them (v2). On any error every file written so far is removed.
 */
class TaskDeleteWriter {
  private readonly loader: DeleteLoader;
  private readonly index: DeleteIndex;
  private readonly files: DeleteFileWriter;
  private readonly written: NewContentFile[] = [];

  constructor(
    private readonly table: IcebergTable,
    private readonly model: TableModel,
    private readonly out: CommitIO,
    private readonly report: CompactReport,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.loader = new DeleteLoader(table.io, allFieldsById(table.metadata));
    this.index = deleteIndexOf(table, model);
    this.files = deleteFileWriter(table.metadata, out);
  }

  async writeAll(tasks: readonly RewriteTask[]): Promise<WrittenGroup[]> {
    const groups: WrittenGroup[] = [];
    try {
      for (const t of tasks) {
        if (isCancelled(this.signal))
          throw cancelledError(
            this.table.metadataLocation,
            new Set(this.written.map((w) => w.path)).size,
            this.signal!.reason,
          );
        groups.push(await this.writeTask(t));
      }
    } catch (e) {
      await discardFiles(this.out, this.written);
      throw e;
    }
    return groups;
  }

  private async writeTask(t: RewriteTask): Promise<WrittenGroup> {
    const inPartition = this.model.dataFiles.filter(
      (f) => f.specId === t.specId && partitionKey(f.specId, f.partition) === partitionKey(t.specId, t.partition),
    );
    const posInputs = t.deletes.filter((d): d is PositionDeleteFile => d.content === 'position-deletes');
    this.report.bytesRead += t.inputBytes;
    let adds: NewContentFile[];
    if (this.files.deletionVectors) {
      const dvInputs = t.deletes.filter((d): d is DeletionVectorFile => d.content === 'deletion-vector');
      const dvs = await this.deletionVectorsOf(inPartition, posInputs, dvInputs);
      adds = await this.files.writeDeletionVectors(`floe-dv-${t.id}-${randomUUID()}`, dvs);
    } else {
      const deletes = await this.positionDeletesOf(inPartition, posInputs);
      adds = await this.files.writePositionDeletes(`floe-pos-${t.id}-${randomUUID()}`, deletes);
    }
    this.written.push(...adds);
    this.report.bytesWritten += distinctFileBytes(adds);
    const ids = t.deletes.map(deleteFileId);
    return {
      group: {
        id: t.id,
        replacedDataFiles: [],
        removedDeleteFiles: ids,
        addedDataFiles: [],
        addedDeleteFiles: adds,
        supersededDeleteFiles: ids,
      },
      written: adds,
    };
  }

  /**
   * v3: the new DV of each data file whose DV is an input (copied from a mostly dead Puffin file), or which
   * has no DV and an input position delete file applies to (turned into a DV with its other position deletes).
   */
  private async deletionVectorsOf(
    files: readonly DataFile[],
    posInputs: readonly PositionDeleteFile[],
    dvInputs: readonly DeletionVectorFile[],
  ): Promise<DataFileDeletes[]> {
    const dvs: DataFileDeletes[] = [];
    for (const f of files) {
      const applicable = this.index.forDataFile(f);
      if (applicable.dv && dvInputs.some((d) => deleteFileId(d) === deleteFileId(applicable.dv!)))
        dvs.push({
          file: f,
          positions: await this.loader.deletedPositions(f, { positional: [], equality: [], dv: applicable.dv }),
        });
      else if (!applicable.dv && applicable.positional.some((p) => posInputs.includes(p)))
        dvs.push({ file: f, positions: await this.loader.deletedPositions(f, { ...applicable, equality: [] }) });
    }
    return dvs;
  }

  /** v2: each data file's positions deleted by the input position delete files that apply to it. */
  private async positionDeletesOf(
    files: readonly DataFile[],
    posInputs: readonly PositionDeleteFile[],
  ): Promise<DataFileDeletes[]> {
    const deletes: DataFileDeletes[] = [];
    for (const f of files) {
      const applicable = posInputs.filter((d) => deleteApplies(f, d, this.model.specs));
      if (applicable.length === 0) continue;
      deletes.push({
        file: f,
        positions: await this.loader.deletedPositions(f, { positional: applicable, equality: [] }),
      });
    }
    return deletes;
  }
}

/**
 * One `replace` commit of the written groups and a group dropping the dangling deletes. Failed groups have
 * their files removed; when every group lost to concurrent commits the run fails per task (like
 * compaction's). Resolves true when a snapshot was committed.
 */
async function commitDeleteGroups(
  out: CommitIO,
  ops: TableOperations,
  baseSnapshotId: bigint,
  groups: readonly WrittenGroup[],
  danglingIds: readonly string[],
  report: CompactReport,
  tracker: ReturnType<typeof outcomeTracker<CompactReport>>,
): Promise<boolean> {
  const all = groups.map((g) => g.group);
  if (danglingIds.length)
    all.push({
      id: 'dangling-deletes',
      replacedDataFiles: [],
      removedDeleteFiles: [...danglingIds],
      addedDataFiles: [],
      addedDeleteFiles: [],
    });
  try {
    const res = await new IcebergRewriteCommitter(out, ops).commit({
      baseSnapshotId,
      groups: all,
      summary: { 'floe.action': 'rewrite-position-deletes' },
    });
    const sid = res.snapshotId.toString();
    report.snapshots.push(sid);
    for (const id of res.committedGroups) if (id !== 'dangling-deletes') tracker.committedIn.set(id, sid);
    report.committedTasks = res.committedGroups.filter((id) => id !== 'dangling-deletes');
    if (res.committedGroups.includes('dangling-deletes')) report.danglingDeletes = [...danglingIds];
    for (const f of res.failedGroups) {
      if (f.id === 'dangling-deletes') continue;
      report.failedTasks.push(f);
      await discardFiles(out, groups.find((x) => x.group.id === f.id)?.written ?? []);
    }
    return true;
  } catch (e) {
    // nothing of ours is referenced unless the outcome is unknown (then orphan cleanup decides later)
    if (!isCommitStateUnknown(e))
      await discardFiles(
        out,
        groups.flatMap((g) => g.written),
      );
    // every group lost to concurrent commits: a failed run, reported per task like compaction's
    if (!isFloeError(e) || !['PreconditionFailed', 'CommitConflict'].includes(e.kind)) throw e;
    const why = new Map(
      ((e.context?.failedGroups as { id: string; reason: string }[] | undefined) ?? []).map((f) => [f.id, f.reason]),
    );
    for (const g of groups) report.failedTasks.push({ id: g.group.id, reason: why.get(g.group.id) ?? e.message });
    return false;
  }
}
