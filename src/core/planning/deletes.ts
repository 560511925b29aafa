/**
 * Which delete files apply to which data files, by the Iceberg spec's scan-planning rules, and which
 * delete files a set of rewrites makes removable. Shared by every Iceberg planner.
 *
 * Rules (Iceberg spec "Scan Planning"; Java `DeleteFileIndex`):
 * - equality delete: data seq < delete seq (strict), and same spec + partition — or table-wide
 *   ("global") when the delete's spec is unpartitioned (no fields, or only void transforms);
 * - position delete: data seq ≤ delete seq, same spec + partition, and, when file-scoped
 *   (`referencedDataFile`), only that data file;
 * - deletion vector: referenced file only, data seq ≤ DV seq; while a DV exists for a data file the
 *   position delete files no longer apply to it (the DV already holds them).
 * Stats-based pruning of equality deletes is deliberately not done: associating too many deletes only
 * makes removal more conservative and reading does the exact match anyway.
 */
import { partitionKey } from '../../../model/index.js';
import type { DataFile, DeleteFile, PartitionSpec, TableModel } from '../../../model/index.js';

const EMPTY: readonly DeleteFile[] = Object.freeze([]);

/** Iceberg's `PartitionSpec.isUnpartitioned`: no fields, or only void transforms. */
export function isUnpartitionedSpec(spec: PartitionSpec | undefined): boolean {
  if (!spec) return false;
  return spec.fields.every((f) => f.transform === 'void');
}

/** True for a deletion vector or a position delete file that names its one data file. */
export function isFileScoped(d: DeleteFile): boolean {
  return d.content === 'deletion-vector' || (d.content === 'position-deletes' && d.referencedDataFile !== undefined);
}

/** True when `d` removes rows through positions (position delete file or DV). */
export function isPositional(d: DeleteFile): boolean {
  return d.content !== 'equality-deletes';
}

/** Stable identity of a delete file; DVs share a Puffin path, so their blob offset is part of it. */
export function deleteFileId(d: DeleteFile): string {
  return d.content === 'deletion-vector' ? `${d.path}#${d.contentOffset}` : d.path;
}

function specsById(specs: readonly PartitionSpec[]): Map<number, PartitionSpec> {
  const m = new Map<number, PartitionSpec>();
  for (const s of specs) m.set(s.specId, s);
  return m;
}

/**
 * The pairwise rule, for one data file and one delete file. It does not know whether a DV masks a
 * position delete file for this data file; `buildDeleteIndex` handles that.
 */
export function deleteApplies(data: DataFile, del: DeleteFile, specs: readonly PartitionSpec[]): boolean {
  const samePartition =
    del.specId === data.specId && partitionKey(del.specId, del.partition) === partitionKey(data.specId, data.partition);
  switch (del.content) {
    case 'equality-deletes': {
      if (!(data.dataSequenceNumber < del.dataSequenceNumber)) return false;
      return samePartition || isUnpartitionedSpec(specs.find((s) => s.specId === del.specId));
    }
    case 'position-deletes':
      if (del.referencedDataFile !== undefined && del.referencedDataFile !== data.path) return false;
      return data.dataSequenceNumber <= del.dataSequenceNumber && samePartition;
    case 'deletion-vector':
      return del.referencedDataFile === data.path && data.dataSequenceNumber <= del.dataSequenceNumber && samePartition;
  }
}

/** Deletes ordered by data sequence number, so "every delete newer than s" is a suffix. */
class SeqSorted {
  readonly files: DeleteFile[] = [];
  private sorted = true;
  add(d: DeleteFile): void {
    const n = this.files.length;
    if (n > 0 && this.files[n - 1]!.dataSequenceNumber > d.dataSequenceNumber) this.sorted = false;
    this.files.push(d);
  }
  seal(): void {
    if (!this.sorted) {
      this.files.sort((a, b) =>
        a.dataSequenceNumber < b.dataSequenceNumber ? -1 : a.dataSequenceNumber > b.dataSequenceNumber ? 1 : 0,
      );
      this.sorted = true;
    }
  }
  /** Files with seq > s (strict) or seq ≥ s. */
  after(s: bigint, strict: boolean): readonly DeleteFile[] {
    const f = this.files;
    let lo = 0;
    let hi = f.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = f[mid]!.dataSequenceNumber;
      if (strict ? v <= s : v < s) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? f : lo === f.length ? EMPTY : f.slice(lo);
  }
}

export interface DeleteIndex {
  /**
   * Delete files that apply to `data`: global equality, partition equality, then DV or position deletes.
   * `key` is `partitionKey(data.specId, data.partition)` when the caller already has it.
   */
  forDataFile(data: DataFile, key?: string): readonly DeleteFile[];
}

/** Builds the index in O(m log m) for m delete files; a lookup costs O(log m + answer). */
export function buildDeleteIndex(specs: readonly PartitionSpec[], deleteFiles: readonly DeleteFile[]): DeleteIndex {
  const byId = specsById(specs);
  const globalEq = new SeqSorted();
  const eqByPartition = new Map<string, SeqSorted>();
  const posByPartition = new Map<string, SeqSorted>();
  const posByPath = new Map<string, DeleteFile[]>();
  const dvByPath = new Map<string, DeleteFile[]>();

  const bucket = (m: Map<string, SeqSorted>, k: string): SeqSorted => {
    let b = m.get(k);
    if (!b) m.set(k, (b = new SeqSorted()));
    return b;
  };
  for (const d of deleteFiles) {
    if (d.content === 'equality-deletes') {
      if (isUnpartitionedSpec(byId.get(d.specId))) globalEq.add(d);
      else bucket(eqByPartition, partitionKey(d.specId, d.partition)).add(d);
    } else if (d.content === 'deletion-vector') {
      const l = dvByPath.get(d.referencedDataFile);
      if (l) l.push(d);
      else dvByPath.set(d.referencedDataFile, [d]);
    } else if (d.referencedDataFile !== undefined) {
      const l = posByPath.get(d.referencedDataFile);
      if (l) l.push(d);
      else posByPath.set(d.referencedDataFile, [d]);
    } else {
      bucket(posByPartition, partitionKey(d.specId, d.partition)).add(d);
    }
  }
  globalEq.seal();
  for (const b of eqByPartition.values()) b.seal();
  for (const b of posByPartition.values()) b.seal();

  // Without path-scoped deletes the answer depends only on (partition, data seq): compute it once per
  // pair and share the array — a million files usually have a few thousand such pairs.
  const cache = new Map<string, Map<bigint, readonly DeleteFile[]>>();
  const shared = (k: string, seq: bigint): readonly DeleteFile[] => {
    let bySeq = cache.get(k);
    if (!bySeq) cache.set(k, (bySeq = new Map()));
    let r = bySeq.get(seq);
    if (r === undefined) {
      r = concat([
        globalEq.files.length > 0 ? globalEq.after(seq, true) : undefined,
        eqByPartition.get(k)?.after(seq, true),
        posByPartition.get(k)?.after(seq, false),
      ]);
      bySeq.set(seq, r);
    }
    return r;
  };
  return {
    forDataFile(data: DataFile, key?: string): readonly DeleteFile[] {
      const seq = data.dataSequenceNumber;
      const k = key ?? partitionKey(data.specId, data.partition);
      const dvCandidates = dvByPath.get(data.path);
      const scopedCandidates = posByPath.get(data.path);
      if (!dvCandidates && !scopedCandidates) return shared(k, seq);
      const sameFile = (d: DeleteFile) =>
        d.dataSequenceNumber >= seq && d.specId === data.specId && partitionKey(d.specId, d.partition) === k;
      const dvs = dvCandidates?.filter(sameFile);
      const eq = [globalEq.after(seq, true), eqByPartition.get(k)?.after(seq, true)];
      if (dvs && dvs.length > 0) return concat([...eq, dvs]);
      return concat([...eq, posByPartition.get(k)?.after(seq, false), scopedCandidates?.filter(sameFile)]);
    },
  };
}

/** Concatenates, returning a lone non-empty part itself (no copy). */
function concat(parts: (readonly DeleteFile[] | undefined)[]): readonly DeleteFile[] {
  let nonEmpty = 0;
  let only: readonly DeleteFile[] = EMPTY;
  for (const p of parts) {
    if (p && p.length > 0) {
      nonEmpty += 1;
      only = p;
    }
  }
  if (nonEmpty <= 1) return only;
  const out: DeleteFile[] = [];
  for (const p of parts) if (p) for (const d of p) out.push(d);
  return out;
}

/** Every live data file with the deletes that apply to it, in model order. */
export function associateDeletes(
  table: Pick<TableModel, 'specs' | 'dataFiles' | 'deleteFiles'>,
): Map<DataFile, readonly DeleteFile[]> {
  const index = buildDeleteIndex(table.specs, table.deleteFiles);
  const out = new Map<DataFile, readonly DeleteFile[]>();
  for (const f of table.dataFiles) out.set(f, index.forDataFile(f));
  return out;
}

export interface RemovableDeletes {
  /** Removable once every task commits: no data file outside the tasks' inputs needs them. */
  plan: DeleteFile[];
  /** Per task (same order as given): removable once that task alone commits. */
  perTask: DeleteFile[][];
}

/**
 * Decides which delete files the rewrites make removable, table-wide. A delete file may go only when
 * every live data file it applies to is an input of a task (rewritten, or its deletes converted into a
 * new position delete); per task, only when all of them are inputs of that same task. Deletes that apply
 * to no live file ("dangling") are not listed: no task reads them.
 *
 * `deletesOf` must be the association of every live data file (filtered-out files included), so a
 * global equality delete stays while any untouched partition still needs it.
 */
export function computeRemovableDeletes(
  liveDataFiles: readonly DataFile[],
  deletesOf: (f: DataFile, i: number) => readonly DeleteFile[],
  taskInputs: readonly (readonly DataFile[])[],
  deleteOrder: readonly DeleteFile[],
): RemovableDeletes {
  const taskOf = new Map<DataFile, number>();
  taskInputs.forEach((inputs, t) => {
    for (const f of inputs) taskOf.set(f, t);
  });
  const ordinal = new Map<DeleteFile, number>();
  deleteOrder.forEach((d, i) => ordinal.set(d, i));
  const n = deleteOrder.length;
  const needed = new Float64Array(n);
  const covered = new Float64Array(n);
  // ≥ 0: every dependent so far is in that task; -1: none seen yet; -2: several tasks or uncovered.
  const owner = new Int32Array(n).fill(-1);
  // Association arrays are often shared between files; resolve their ordinals once.
  const ordinalsOf = new Map<readonly DeleteFile[], Int32Array>();
  liveDataFiles.forEach((f, i) => {
    const ds = deletesOf(f, i);
    if (ds.length === 0) return;
    let ords = ordinalsOf.get(ds);
    if (!ords) {
      ords = Int32Array.from(ds, (d) => ordinal.get(d) ?? -1);
      ordinalsOf.set(ds, ords);
    }
    const t = taskOf.get(f);
    for (const o of ords) {
      if (o < 0) continue; // not a live delete file of the table
      needed[o]! += 1;
      if (t === undefined) {
        owner[o] = -2;
        continue;
      }
      covered[o]! += 1;
      if (owner[o] === -1) owner[o] = t;
      else if (owner[o] !== t) owner[o] = -2;
    }
  });
  const plan: DeleteFile[] = [];
  const perTask: DeleteFile[][] = taskInputs.map(() => []);
  for (let o = 0; o < n; o++) {
    if (needed[o] === 0 || covered[o] !== needed[o]) continue;
    plan.push(deleteOrder[o]!);
    if (owner[o]! >= 0) perTask[owner[o]!]!.push(deleteOrder[o]!);
  }
  return { plan, perTask };
}

/**
 * computeRemovableDeletes for freshly planned tasks: sets each task's `removableDeletes` and returns the
 * table-wide result. `deletesOfFile[i]` are the deletes of `table.dataFiles[i]`.
 */
export function assignRemovableDeletes(
  table: Pick<TableModel, 'dataFiles' | 'deleteFiles'>,
  deletesOfFile: readonly (readonly DeleteFile[])[],
  tasks: readonly { inputs: DataFile[]; removableDeletes: DeleteFile[] }[],
): RemovableDeletes {
  const removable = computeRemovableDeletes(
    table.dataFiles,
    (_f, i) => deletesOfFile[i]!,
    tasks.map((t) => t.inputs),
    table.deleteFiles,
  );
  tasks.forEach((t, i) => (t.removableDeletes = removable.perTask[i]!));
  return removable;
}

/**
 * Re-decides the removable deletes of a plan whose `unrun` tasks will not run (equality→position tasks on a
 * v3 table, which floe cannot write as deletion vectors): their inputs keep every delete that applies to
 * them, so no task — and not the plan — may promise to drop those. Keeps "the plan's claim matches the
 * commit" true. Mutates and returns `plan`.
 */
export function withoutTasks<
  P extends { tasks: { inputs: DataFile[]; removableDeletes: DeleteFile[] }[]; removableDeletes: DeleteFile[] },
>(
  plan: P,
  table: Pick<TableModel, 'specs' | 'dataFiles' | 'deleteFiles'>,
  unrun: (t: P['tasks'][number]) => boolean,
): P {
  const index = buildDeleteIndex(table.specs, table.deleteFiles);
  const removable = computeRemovableDeletes(
    table.dataFiles,
    (f) => index.forDataFile(f),
    plan.tasks.map((t) => (unrun(t) ? [] : t.inputs)),
    table.deleteFiles,
  );
  plan.tasks.forEach((t, i) => (t.removableDeletes = unrun(t) ? [] : removable.perTask[i]!));
  plan.removableDeletes = removable.plan;
  return plan;
}
