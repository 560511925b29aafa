/**
 * The simulated table: a neutral TableModel kept in memory, plus what the model itself cannot say —
 * how many rows of each data file each delete file removes. That bookkeeping is what lets the simulator
 * compute a rewrite's output size (live bytes = input bytes minus bytes of deleted rows) and check that
 * a plan never drops a delete some surviving file still needs.
 *
 * Sequence-number rules follow Iceberg v2: every commit gets the next sequence number; an equality delete
 * removes rows only from data files of a strictly lower data sequence number in its partition; a position
 * delete only from its target file. Compaction commits as Iceberg's RewriteFiles with the starting
 * sequence number: outputs carry the data sequence number the plan was made at, so equality deletes of
 * that age or older no longer apply to them (their rows were dropped while rewriting).
 */
import type {
  ContentFileBase,
  DataFile,
  DeleteFile,
  EqualityDeleteFile,
  PositionDeleteFile,
  Snapshot,
  TableModel,
} from '../../../model/index.js';
import type { Plan, RewriteTask } from '../planning/plan.js';
import { conversionReadBytes } from '../planning/tiered/planner.js';
import { buildDeleteIndex } from '../planning/deletes.js';
import type { CommitStream, NewDataFile, SizeModel, StreamCommit } from './types.js';

export interface LiveDataFile {
  file: DataFile;
  partitionLabel: string;
  /** Rows removed from this file, keyed by delete file path. */
  deletedBy: Map<string, number>;
  deletedRows: number;
}

export interface LiveDeleteFile {
  file: DeleteFile;
  /** Paths of live data files this delete removes at least one row from. */
  hits: Set<string>;
}

/** What applying one plan did to the table. */
export interface PlanEffect {
  tasks: number;
  tasksByKind: Record<string, number>;
  bytesRead: number;
  /** Files the tasks opened: each input data file, and each task's delete files once per task. */
  filesOpened: number;
  bytesWritten: number;
  dataFilesRemoved: number;
  dataFilesAdded: number;
  deleteFilesAdded: number;
  deleteFilesRemoved: number;
  violations: string[];
}

const LOCATION = 'sim://warehouse/db/table';

export class SimTable {
  readonly data = new Map<string, LiveDataFile>();
  readonly deletes = new Map<string, LiveDeleteFile>();
  /** Stream ids of data files → path (ids of rewritten files stay, pointing at a gone path). */
  private readonly idToPath = new Map<string, string>();
  /** Live data files per partition label ('' when unpartitioned). */
  private readonly byPartition = new Map<string, Set<LiveDataFile>>();
  readonly snapshots: Snapshot[] = [];
  lastSequenceNumber = 0n;
  private snapshotCounter = 0n;
  /** Increments on every change; schedulers compare it to see whether the table moved. */
  version = 0;
  /** Rows the table should hold, kept independently of the per-file bookkeeping (compaction must not change it). */
  expectedRows = 0;
  private outputCounter = 0;

  constructor(
    private readonly stream: Pick<CommitStream, 'partitioned' | 'base' | 'sizeModel'>,
    private readonly properties: Record<string, string>,
    startMs: number,
  ) {
    if (stream.base.length > 0) {
      const seq = this.nextSnapshot(startMs, 'append');
      for (const f of stream.base) this.addNewDataFile(f, seq);
    }
  }

  get sizeModel(): SizeModel {
    return this.stream.sizeModel;
  }

  // ------------------------------------------------------------------------------------------------
  // Reading

  liveRowsOf(f: LiveDataFile): number {
    return f.file.recordCount - f.deletedRows;
  }

  /** Bytes of the rows still live in the file (deleted rows cost their share of the file). */
  liveBytesOf(f: LiveDataFile): number {
    return (f.file.sizeBytes * this.liveRowsOf(f)) / f.file.recordCount;
  }

  liveRows(): number {
    let n = 0;
    for (const f of this.data.values()) n += this.liveRowsOf(f);
    return n;
  }

  liveBytes(): number {
    let n = 0;
    for (const f of this.data.values()) n += this.liveBytesOf(f);
    return n;
  }

  /**
   * Query penalty: the delete files Iceberg's rules attach to each live data file (what a reader merges
   * into it), averaged over the live data files; 0 for an empty table.
   */
  deletesPerDataFile(): number {
    if (this.data.size === 0) return 0;
    const index = buildDeleteIndex(
      this.specs(),
      Array.from(this.deletes.values(), (d) => d.file),
    );
    let n = 0;
    for (const f of this.data.values()) n += index.forDataFile(f.file).length;
    return n / this.data.size;
  }

  private specs(): TableModel['specs'] {
    return [
      {
        specId: 0,
        fields: this.stream.partitioned ? [{ sourceId: 3, fieldId: 1000, name: 'part', transform: 'identity' }] : [],
      },
    ];
  }

  /** The neutral model the planners read. Arrays are fresh; file objects are shared and must not be mutated. */
  toModel(): TableModel {
    const fields = [
      { id: 1, name: 'id', required: true, type: { kind: 'primitive' as const, name: 'long' as const } },
      { id: 2, name: 'payload', required: false, type: { kind: 'primitive' as const, name: 'string' as const } },
    ];
    if (this.stream.partitioned) {
      fields.push({
        id: 3,
        name: 'part',
        required: false,
        type: { kind: 'primitive' as const, name: 'string' as const },
      });
    }
    const current = this.snapshots[this.snapshots.length - 1];
    return {
      format: 'iceberg',
      formatVersion: 2,
      location: LOCATION,
      metadataLocation: `${LOCATION}/metadata/v${this.snapshots.length}.metadata.json`,
      schemas: [{ schemaId: 0, fields, identifierFieldIds: [1] }],
      currentSchemaId: 0,
      specs: this.specs(),
      defaultSpecId: 0,
      properties: { ...this.properties },
      snapshots: this.snapshots.slice(),
      ...(current ? { currentSnapshotId: current.snapshotId } : {}),
      refs: current ? [{ name: 'main', type: 'branch', snapshotId: current.snapshotId }] : [],
      lastSequenceNumber: this.lastSequenceNumber,
      dataFiles: Array.from(this.data.values(), (f) => f.file),
      deleteFiles: Array.from(this.deletes.values(), (d) => d.file),
    };
  }

  // ------------------------------------------------------------------------------------------------
  // Writers' commits

  /** Applies one writer commit; returns the bytes it ingested (data + delete files). */
  commit(c: StreamCommit, nowMs: number): number {
    const hasDeletes = c.equalityDeletes.length + c.positionDeletes.length > 0;
    const seq = this.nextSnapshot(nowMs, hasDeletes ? 'overwrite' : 'append');
    let bytes = 0;
    for (const f of c.data) {
      this.addNewDataFile(f, seq);
      bytes += f.sizeBytes;
    }
    c.equalityDeletes.forEach((d, i) => {
      const file: EqualityDeleteFile = {
        content: 'equality-deletes',
        ...this.newDeleteFile(d, `eq-${seq}-${i}.parquet`, seq),
        equalityFieldIds: [1],
      };
      const live = this.addDelete(file);
      this.spreadEqualityDelete(live, d.partition, d.deletesRows);
      bytes += d.sizeBytes;
    });
    c.positionDeletes.forEach((d, i) => {
      const targetPath = this.idToPath.get(d.targetId);
      const file: PositionDeleteFile = {
        content: 'position-deletes',
        ...this.newDeleteFile(d, `pos-${seq}-${i}.parquet`, seq),
        ...(targetPath ? { referencedDataFile: targetPath } : {}),
      };
      const live = this.addDelete(file);
      // A target already compacted away loses nothing: the delete is dangling on arrival.
      const target = targetPath ? this.data.get(targetPath) : undefined;
      if (target) this.recordDeletion(target, live, Math.min(d.deletesRows, this.liveRowsOf(target)));
      bytes += d.sizeBytes;
    });
    return bytes;
  }

  private addNewDataFile(f: NewDataFile, seq: bigint): void {
    const file: DataFile = {
      content: 'data',
      path: `${this.dirOf(f.partition)}/${f.id}.parquet`,
      format: 'parquet',
      sizeBytes: f.sizeBytes,
      recordCount: f.records,
      specId: 0,
      partition: this.tupleOf(f.partition),
      dataSequenceNumber: seq,
      fileSequenceNumber: seq,
      snapshotId: this.currentSnapshotId(),
    };
    this.idToPath.set(f.id, file.path);
    this.addDataFile(file, f.partition ?? '');
    this.expectedRows += f.records;
  }

  /**
   * Spreads `rows` deleted rows over the partition's older live files in proportion to their live rows
   * (an upsert hits existing keys uniformly). Cumulative rounding keeps the total exact in one pass:
   * file i gets floor(C_i) − floor(C_{i−1}) of the running exact sum C, never more than ceil(its share)
   * and so never more than its live rows.
   */
  private spreadEqualityDelete(del: LiveDeleteFile, partition: string | null, rows: number): void {
    const seq = del.file.dataSequenceNumber;
    const candidates: LiveDataFile[] = [];
    let total = 0;
    for (const f of this.byPartition.get(partition ?? '') ?? []) {
      const live = this.liveRowsOf(f);
      if (f.file.dataSequenceNumber < seq && live > 0) {
        candidates.push(f);
        total += live;
      }
    }
    const toDelete = Math.min(rows, total);
    if (toDelete === 0) return;
    let cumulativeLive = 0;
    let given = 0;
    candidates.forEach((f, i) => {
      const live = this.liveRowsOf(f);
      cumulativeLive += live;
      // Integer arithmetic where it fits keeps the split exact; the last file takes what is left.
      const upTo = i === candidates.length - 1 ? toDelete : Math.floor((toDelete * cumulativeLive) / total);
      const n = Math.min(live, upTo - given);
      given += n;
      this.recordDeletion(f, del, n);
    });
  }

  private recordDeletion(f: LiveDataFile, del: LiveDeleteFile, rows: number): void {
    if (rows <= 0) return;
    f.deletedBy.set(del.file.path, (f.deletedBy.get(del.file.path) ?? 0) + rows);
    f.deletedRows += rows;
    del.hits.add(f.file.path);
    this.expectedRows -= rows;
  }

  // ------------------------------------------------------------------------------------------------
  // Compaction

  /**
   * Applies a plan as one RewriteFiles commit: every task replaces its inputs by ceil(live bytes /
   * target) files (eq-to-pos tasks instead replace the task's deletes on each input by one position
   * delete), then the removable deletes go. Problems are reported as violations, not thrown, so a faulty
   * planner shows up in the report instead of aborting the run.
   */
  applyPlan(plan: Plan, nowMs: number): PlanEffect {
    const effect: PlanEffect = {
      tasks: plan.tasks.length,
      tasksByKind: {},
      bytesRead: 0,
      filesOpened: 0,
      bytesWritten: 0,
      dataFilesRemoved: 0,
      dataFilesAdded: 0,
      deleteFilesAdded: 0,
      deleteFilesRemoved: 0,
      violations: [],
    };
    const removable = new Map<string, DeleteFile>();
    for (const d of plan.removableDeletes) removable.set(d.path, d);
    for (const t of plan.tasks) for (const d of t.removableDeletes) removable.set(d.path, d);
    if (plan.tasks.length === 0 && removable.size === 0) return effect;

    const startingSeq = this.lastSequenceNumber;
    const seq = this.nextSnapshot(nowMs, 'replace');
    const consumed = new Set<string>();
    for (const task of plan.tasks) {
      effect.tasksByKind[task.kind] = (effect.tasksByKind[task.kind] ?? 0) + 1;
      const inputs: LiveDataFile[] = [];
      for (const input of task.inputs) {
        const live = this.data.get(input.path);
        if (!live) effect.violations.push(`task ${task.id}: input ${input.path} is not a live data file`);
        else if (consumed.has(input.path))
          effect.violations.push(`task ${task.id}: input ${input.path} is already used by another task`);
        else {
          consumed.add(input.path);
          inputs.push(live);
        }
      }
      const taskDeletes = new Set(task.deletes.map((d) => d.path));
      effect.filesOpened += inputs.length;
      for (const d of task.deletes) {
        if (this.deletes.has(d.path)) {
          effect.bytesRead += d.sizeBytes;
          effect.filesOpened++;
        } else effect.violations.push(`task ${task.id}: delete ${d.path} is not a live delete file`);
      }
      if (task.kind === 'eq-to-pos') this.convertToPositionDeletes(task, inputs, taskDeletes, startingSeq, seq, effect);
      else this.rewrite(task, inputs, taskDeletes, startingSeq, seq, effect);
    }

    for (const d of removable.values()) {
      const live = this.deletes.get(d.path);
      if (!live) {
        effect.violations.push(`removable delete ${d.path} is not a live delete file`);
        continue;
      }
      for (const hitPath of live.hits) {
        const f = this.data.get(hitPath);
        const rows = f?.deletedBy.get(d.path) ?? 0;
        if (f && rows > 0) {
          effect.violations.push(
            `removing ${d.path} resurrects ${rows} deleted rows of ${hitPath}, which survives the plan`,
          );
          f.deletedBy.delete(d.path);
          f.deletedRows -= rows;
        }
      }
      this.deletes.delete(d.path);
      effect.deleteFilesRemoved++;
    }

    const rows = this.liveRows();
    if (rows !== this.expectedRows) {
      effect.violations.push(`compaction changed the table's live rows from ${this.expectedRows} to ${rows}`);
      this.expectedRows = rows; // report once, not on every later plan
    }
    return effect;
  }

  private rewrite(
    task: RewriteTask,
    inputs: LiveDataFile[],
    taskDeletes: Set<string>,
    startingSeq: bigint,
    seq: bigint,
    effect: PlanEffect,
  ): void {
    const target = task.targetFileSizeBytes;
    if (!(target > 0)) {
      effect.violations.push(`task ${task.id}: target file size ${target} is not positive; task skipped`);
      return;
    }
    let liveBytes = 0;
    let liveRows = 0;
    const partitionLabel = inputs[0]?.partitionLabel ?? '';
    for (const f of inputs) {
      if (f.partitionLabel !== partitionLabel) {
        effect.violations.push(`task ${task.id}: mixes partitions "${partitionLabel}" and "${f.partitionLabel}"`);
      }
      for (const [delPath, rows] of f.deletedBy) {
        if (rows > 0 && !taskDeletes.has(delPath)) {
          effect.violations.push(
            `task ${task.id}: ${f.file.path} is rewritten without applying ${delPath} (${rows} rows)`,
          );
        }
      }
      effect.bytesRead += f.file.sizeBytes;
      liveBytes += this.liveBytesOf(f);
      liveRows += this.liveRowsOf(f);
      this.removeDataFile(f);
      effect.dataFilesRemoved++;
    }
    const totalBytes = Math.round(liveBytes);
    if (liveRows === 0) return;
    const outputs = Math.min(liveRows, Math.max(1, Math.ceil(totalBytes / target)));
    const partition = inputs[0]!.file.partition;
    for (let k = 0; k < outputs; k++) {
      const sizeBytes = Math.max(1, share(totalBytes, outputs, k));
      const file: DataFile = {
        content: 'data',
        path: `${this.dirOf(this.stream.partitioned ? partitionLabel : null)}/c${seq}-${this.outputCounter++}.parquet`,
        format: 'parquet',
        sizeBytes,
        recordCount: share(liveRows, outputs, k),
        specId: task.specId,
        partition,
        dataSequenceNumber: startingSeq,
        fileSequenceNumber: seq,
        snapshotId: this.currentSnapshotId(),
      };
      this.addDataFile(file, partitionLabel);
      effect.bytesWritten += sizeBytes;
      effect.dataFilesAdded++;
    }
  }

  /** Moves the rows the task's deletes remove from each input into one new position delete per input. */
  private convertToPositionDeletes(
    task: RewriteTask,
    inputs: LiveDataFile[],
    taskDeletes: Set<string>,
    startingSeq: bigint,
    seq: bigint,
    effect: PlanEffect,
  ): void {
    const sm = this.stream.sizeModel;
    for (const f of inputs) {
      // Only the key columns are read (ranged reads of their column chunks): their real share when the
      // file carries column sizes, else the stream's keyColumnReadFraction.
      effect.bytesRead += f.file.stats?.columnSizes
        ? conversionReadBytes(f.file, task.deletes)
        : f.file.sizeBytes * sm.keyColumnReadFraction;
      let moved = 0;
      for (const [delPath, rows] of f.deletedBy) {
        if (!taskDeletes.has(delPath)) continue;
        moved += rows;
        f.deletedBy.delete(delPath);
        this.deletes.get(delPath)?.hits.delete(f.file.path);
      }
      if (moved === 0) continue;
      f.deletedRows -= moved;
      const file: PositionDeleteFile = {
        content: 'position-deletes',
        path: f.file.path.replace(/\.parquet$/, `-delete-${seq}.parquet`),
        format: 'parquet',
        sizeBytes: Math.round(sm.positionDeleteFileOverheadBytes + moved * sm.positionDeleteBytesPerRow),
        recordCount: moved,
        specId: f.file.specId,
        partition: f.file.partition,
        dataSequenceNumber: startingSeq,
        fileSequenceNumber: seq,
        snapshotId: this.currentSnapshotId(),
        referencedDataFile: f.file.path,
      };
      const live = this.addDelete(file);
      f.deletedBy.set(file.path, moved);
      f.deletedRows += moved;
      live.hits.add(f.file.path);
      effect.bytesWritten += file.sizeBytes;
      effect.deleteFilesAdded++;
    }
  }

  // ------------------------------------------------------------------------------------------------
  // Plumbing

  private nextSnapshot(nowMs: number, operation: string): bigint {
    const seq = ++this.lastSequenceNumber;
    const parent = this.snapshots[this.snapshots.length - 1];
    this.snapshots.push({
      snapshotId: ++this.snapshotCounter,
      ...(parent ? { parentSnapshotId: parent.snapshotId } : {}),
      sequenceNumber: seq,
      timestampMs: nowMs,
      operation,
      summary: { operation },
    });
    this.version++;
    return seq;
  }

  private currentSnapshotId(): bigint {
    return this.snapshotCounter;
  }

  /** The fields a delete file committed at `seq` shares with every other kind of content file. */
  private newDeleteFile(
    d: { partition: string | null; sizeBytes: number; records: number },
    name: string,
    seq: bigint,
  ): ContentFileBase {
    return {
      path: `${this.dirOf(d.partition)}/${name}`,
      format: 'parquet',
      sizeBytes: d.sizeBytes,
      recordCount: d.records,
      specId: 0,
      partition: this.tupleOf(d.partition),
      dataSequenceNumber: seq,
      fileSequenceNumber: seq,
      snapshotId: this.currentSnapshotId(),
    };
  }

  private dirOf(partition: string | null): string {
    return partition === null ? `${LOCATION}/data` : `${LOCATION}/data/part=${encodeURIComponent(partition)}`;
  }

  private tupleOf(partition: string | null): string[] {
    return partition === null ? [] : [partition];
  }

  private addDataFile(file: DataFile, partitionLabel: string): void {
    const live: LiveDataFile = { file, partitionLabel, deletedBy: new Map(), deletedRows: 0 };
    this.data.set(file.path, live);
    let set = this.byPartition.get(partitionLabel);
    if (!set) this.byPartition.set(partitionLabel, (set = new Set()));
    set.add(live);
  }

  private removeDataFile(f: LiveDataFile): void {
    this.data.delete(f.file.path);
    this.byPartition.get(f.partitionLabel)?.delete(f);
    for (const delPath of f.deletedBy.keys()) this.deletes.get(delPath)?.hits.delete(f.file.path);
  }

  private addDelete(file: DeleteFile): LiveDeleteFile {
    const live: LiveDeleteFile = { file, hits: new Set() };
    this.deletes.set(file.path, live);
    return live;
  }
}

/** The k-th of n near-equal integer parts of total (the first total % n parts get one more). */
export function share(total: number, n: number, k: number): number {
  return Math.floor(total / n) + (k < total % n ? 1 : 0);
}
