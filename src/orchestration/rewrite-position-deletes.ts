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
import * as arrow from 'apache-arrow';
import { FloeError, isFloeError } from '../errors.js';
import { isCommitStateUnknown } from '../../connectors/iceberg/commit-state.js';
import {
  partitionKey,
  type DataFile,
  type DeleteFile,
  type DeletionVectorFile,
  type PositionDeleteFile,
  type TableModel,
} from '../model/index.js';
import type { Plan, RewriteTask } from '../planning/plan.js';
import { deleteApplies, deleteFileId } from '../planning/deletes.js';
import { findDanglingDeletes } from './dangling-deletes.js';
import { outcomeTracker } from './task-outcomes.js';
import { cancelledError, isCancelled } from './cancel.js';
import { statsOf, type CompactReport } from './compact-iceberg.js';
import { writeParquet } from '../../connectors/formats/parquet/index.js';
import {
  IcebergRewriteCommitter,
  type CommitIO,
  type NewContentFile,
  type RewriteGroup,
  type TableOperations,
} from '../../connectors/iceberg/commit-rewrite.js';
import { DeleteIndex, DeleteLoader } from '../../connectors/iceberg/deletes.js';
import { allFieldsById } from '../../connectors/iceberg/manifests.js';
import { loadTableModel, type IcebergTable } from '../../connectors/iceberg/table.js';
import { parseMetadata } from '../../connectors/iceberg/metadata.js';
import { readPuffinFooterRanged } from '../../connectors/iceberg/puffin.js';
import { storeDeletionVectors } from '../../connectors/iceberg/puffin-dv-file.js';
import { encodeSingleValue } from '../../connectors/iceberg/write-bounds.js';
import { randomUUID } from 'node:crypto';

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

function chunks<T extends { sizeBytes: number }>(files: T[], max: number): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let bytes = 0;
  for (const f of files) {
    if (cur.length > 0 && bytes + f.sizeBytes > max) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(f);
    bytes += f.sizeBytes;
  }
  if (cur.length) out.push(cur);
  return out;
}

/** The plan: one task (kind `position-deletes`) per group of delete files; `deletes` are its inputs. */
export function planPositionDeleteRewrite(
  model: TableModel,
  o: PositionDeleteRewriteOptions,
  now: number,
  puffinBlobBytes: ReadonlyMap<string, number> = new Map(),
): Plan {
  const dangling = new Set(findDanglingDeletes(model).map(deleteFileId));
  const byPartition = new Map<
    string,
    { specId: number; partition: DeleteFile['partition']; pos: PositionDeleteFile[]; dvs: DeletionVectorFile[] }
  >();
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
    for (const group of chunks(inputs, o.maxFileGroupSizeBytes)) {
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
  // a Puffin file's blob bytes (from its footer) against its live DVs' bytes tell how much of it is dead
  const puffinBlobBytes = new Map<string, number>();
  for (const d of model.deleteFiles) {
    if (d.content !== 'deletion-vector' || puffinBlobBytes.has(d.path)) continue;
    const footer = await readPuffinFooterRanged(
      (off, len) => table.io.readRange(d.path, off, len),
      d.sizeBytes,
      d.path,
    );
    puffinBlobBytes.set(
      d.path,
      footer.blobs.reduce((n, b) => n + b.length, 0),
    );
  }
  const plan = planPositionDeleteRewrite(model, o, now, puffinBlobBytes);
  const danglingIds = findDanglingDeletes(model).map(deleteFileId);
  const report: CompactReport = {
    table: table.metadataLocation,
    plan,
    dryRun: !!opts.dryRun,
    before: statsOf(model),
    snapshots: [],
    committedTasks: [],
    failedTasks: [],
    skippedTasks: [],
    tasks: [],
    danglingDeletes: opts.dryRun ? danglingIds : [],
    bytesRead: 0,
    bytesWritten: 0,
    rowsIn: 0,
    rowsOut: 0,
    durationMs: 0,
    ...(model.currentSnapshotId !== undefined ? { baseSnapshotId: model.currentSnapshotId.toString() } : {}),
  };
  const { skipped, committedIn, finish } = outcomeTracker(report, plan.tasks, started);
  if (opts.dryRun || model.currentSnapshotId === undefined || (plan.tasks.length === 0 && danglingIds.length === 0)) {
    for (const t of plan.tasks)
      skipped.set(t.id, opts.dryRun ? 'dry run: nothing was written' : 'the table has no current snapshot');
    return finish();
  }
  if (ops.preflight) await ops.preflight(await ops.refresh());

  const md = table.metadata;
  const loader = new DeleteLoader(table.io, allFieldsById(md));
  const index = new DeleteIndex(model.deleteFiles, model.specs, (l) => table.io.map(l));
  const dataDir = (md.properties['write.data.path'] ?? `${md.location.replace(/\/$/, '')}/data`).replace(/\/$/, '');
  const groups: { group: RewriteGroup; written: NewContentFile[] }[] = [];
  const written: NewContentFile[] = [];
  try {
    for (const t of plan.tasks) {
      if (isCancelled(opts.signal))
        throw cancelledError(table.metadataLocation, new Set(written.map((w) => w.path)).size, opts.signal!.reason);
      const inPartition = model.dataFiles.filter(
        (f) => f.specId === t.specId && partitionKey(f.specId, f.partition) === partitionKey(t.specId, t.partition),
      );
      const posInputs = t.deletes.filter((d): d is PositionDeleteFile => d.content === 'position-deletes');
      const dvInputs = t.deletes.filter((d): d is DeletionVectorFile => d.content === 'deletion-vector');
      report.bytesRead += t.inputBytes;
      let adds: NewContentFile[];
      if (model.formatVersion >= 3) {
        const dvs: { file: DataFile; positions: Iterable<number> }[] = [];
        for (const f of inPartition) {
          const applicable = index.forDataFile(f);
          if (applicable.dv && dvInputs.some((d) => deleteFileId(d) === deleteFileId(applicable.dv!)))
            dvs.push({
              file: f,
              positions: await loader.deletedPositions(f, { positional: [], equality: [], dv: applicable.dv }),
            });
          else if (!applicable.dv && applicable.positional.some((p) => posInputs.includes(p)))
            dvs.push({ file: f, positions: await loader.deletedPositions(f, { ...applicable, equality: [] }) });
        }
        adds = await storeDeletionVectors(out, `${dataDir}/floe-dv-${t.id}-${randomUUID()}.puffin`, dvs);
      } else {
        const entries: { file: DataFile; positions: number[] }[] = [];
        for (const f of inPartition) {
          const applicable = posInputs.filter((d) => deleteApplies(f, d, model.specs));
          if (applicable.length === 0) continue;
          const positions = [...(await loader.deletedPositions(f, { positional: applicable, equality: [] }))].sort(
            (a, b) => a - b,
          );
          if (positions.length > 0) entries.push({ file: f, positions });
        }
        adds = entries.length
          ? [await writeMergedPositionDeletes(out, `${dataDir}/floe-pos-${t.id}-${randomUUID()}.parquet`, entries)]
          : [];
      }
      written.push(...adds);
      report.bytesWritten += [...new Map(adds.map((a) => [a.path, Number(a.sizeBytes)])).values()].reduce(
        (n, b) => n + b,
        0,
      );
      const ids = t.deletes.map(deleteFileId);
      groups.push({
        group: {
          id: t.id,
          replacedDataFiles: [],
          removedDeleteFiles: ids,
          addedDataFiles: [],
          addedDeleteFiles: adds,
          supersededDeleteFiles: ids,
        },
        written: adds,
      });
    }
  } catch (e) {
    await Promise.all([...new Set(written.map((w) => w.path))].map((p) => out.remove(p).catch(() => undefined)));
    throw e;
  }
  const all = [...groups.map((g) => g.group)];
  if (danglingIds.length)
    all.push({
      id: 'dangling-deletes',
      replacedDataFiles: [],
      removedDeleteFiles: danglingIds,
      addedDataFiles: [],
      addedDeleteFiles: [],
    });
  try {
    const res = await new IcebergRewriteCommitter(out, ops).commit({
      baseSnapshotId: model.currentSnapshotId,
      groups: all,
      summary: { 'floe.action': 'rewrite-position-deletes' },
    });
    const sid = res.snapshotId.toString();
    report.snapshots.push(sid);
    for (const id of res.committedGroups) if (id !== 'dangling-deletes') committedIn.set(id, sid);
    report.committedTasks = res.committedGroups.filter((id) => id !== 'dangling-deletes');
    if (res.committedGroups.includes('dangling-deletes')) report.danglingDeletes = danglingIds;
    for (const f of res.failedGroups) {
      if (f.id === 'dangling-deletes') continue;
      report.failedTasks.push(f);
      const g = groups.find((x) => x.group.id === f.id);
      await Promise.all(
        [...new Set((g?.written ?? []).map((w) => w.path))].map((p) => out.remove(p).catch(() => undefined)),
      );
    }
  } catch (e) {
    // nothing of ours is referenced unless the outcome is unknown (then orphan cleanup decides later)
    if (!isCommitStateUnknown(e))
      await Promise.all([...new Set(written.map((w) => w.path))].map((p) => out.remove(p).catch(() => undefined)));
    // every group lost to concurrent commits: a failed run, reported per task like compaction's
    if (!isFloeError(e) || !['PreconditionFailed', 'CommitConflict'].includes(e.kind)) throw e;
    const why = new Map(
      ((e.context?.failedGroups as { id: string; reason: string }[] | undefined) ?? []).map((f) => [f.id, f.reason]),
    );
    for (const g of groups) report.failedTasks.push({ id: g.group.id, reason: why.get(g.group.id) ?? e.message });
    return finish();
  }
  const cur = await ops.refresh();
  report.after = statsOf(
    await loadTableModel({
      ...table,
      metadata: parseMetadata(cur.metadata, cur.location),
      metadataLocation: cur.location,
    }),
  );
  return finish();
}

const FILE_PATH_ID = 2147483546;
const POS_ID = 2147483545;

/** One position delete file over several data files, sorted by path then position (as the spec asks). */
async function writeMergedPositionDeletes(
  out: CommitIO,
  location: string,
  entries: { file: DataFile; positions: number[] }[],
): Promise<NewContentFile> {
  const sorted = [...entries].sort((a, b) => (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  const paths: string[] = [];
  const pos: bigint[] = [];
  for (const e of sorted) {
    for (const p of e.positions) {
      paths.push(e.file.path);
      pos.push(BigInt(p));
    }
  }
  const schema = new arrow.Schema([
    new arrow.Field('file_path', new arrow.Utf8(), false, new Map([['PARQUET:field_id', String(FILE_PATH_ID)]])),
    new arrow.Field('pos', new arrow.Int64(), false, new Map([['PARQUET:field_id', String(POS_ID)]])),
  ]);
  const pv = arrow.vectorFromArray(paths, new arrow.Utf8());
  const posv = arrow.makeVector(BigInt64Array.from(pos));
  const batch = new arrow.RecordBatch(
    schema,
    arrow.makeData({
      type: new arrow.Struct(schema.fields),
      length: paths.length,
      nullCount: 0,
      children: [pv.data[0]!, posv.data[0]!],
    }),
  );
  const w = await writeParquet(new arrow.Table(schema, [batch]), location, { codec: 'zstd', createdBy: 'floe' });
  await out.createNew(location, w.bytes);
  const str = { kind: 'primitive', name: 'string' } as const;
  const lng = { kind: 'primitive', name: 'long' } as const;
  const minPos = pos.reduce((a, b) => (b < a ? b : a));
  const maxPos = pos.reduce((a, b) => (b > a ? b : a));
  const single = sorted.length === 1;
  return {
    content: 1,
    path: location,
    format: 'PARQUET',
    recordCount: paths.length,
    sizeBytes: w.bytes.byteLength,
    specId: sorted[0]!.file.specId,
    partitionOf: sorted[0]!.file.path,
    valueCounts: new Map([
      [FILE_PATH_ID, BigInt(paths.length)],
      [POS_ID, BigInt(paths.length)],
    ]),
    nullValueCounts: new Map([
      [FILE_PATH_ID, 0n],
      [POS_ID, 0n],
    ]),
    lowerBounds: new Map([
      [FILE_PATH_ID, encodeSingleValue(str, sorted[0]!.file.path)],
      [POS_ID, encodeSingleValue(lng, minPos)],
    ]),
    upperBounds: new Map([
      [FILE_PATH_ID, encodeSingleValue(str, sorted[sorted.length - 1]!.file.path)],
      [POS_ID, encodeSingleValue(lng, maxPos)],
    ]),
    ...(single ? { referencedDataFile: sorted[0]!.file.path } : {}),
  };
}
