/**
 * One-off bin-pack rewrite with Spark `rewrite_data_files` semantics (apache/iceberg
 * `SizeBasedFileRewritePlanner` + `BinPackRewriteFilePlanner`):
 * 1. group live data files by partition of the table's current spec; files of other specs go into one
 *    group with an all-null partition (they may hold rows of many current partitions);
 * 2. candidates: size < min or > max, ≥ delete-file-threshold deletes, or deleted-row ratio (file-scoped
 *    deletes only) ≥ delete-ratio-threshold — or every file with rewrite-all;
 * 3. pack candidates in order into groups ≤ max-file-group-size-bytes (look-back 1);
 * 4. keep a group with > 1 and ≥ min-input-files files, > 1 file and more than target bytes, more than
 *    max bytes, or a delete-heavy file (rewrite-all keeps every group);
 * 5. max-files-to-rewrite cuts groups in order, then rewrite-job-order sorts them.
 * Removable deletes use the shared table-wide rule (Spark itself only drops DVs of rewritten files).
 */
import { FloeError } from '../../../../util/errors.js';
import { partitionKey } from '../../../../model/index.js';
import type { DeleteFile, PartitionSpec, PartitionTuple, TableModel } from '../../../../model/index.js';
import type { DecisionStep, Plan, RewriteTask } from '../plan.js';
import { taskInputBytes } from '../plan.js';
import { assignRemovableDeletes, buildDeleteIndex, isFileScoped } from '../deletes.js';
import type { BinpackOptions } from '../policy.js';
import { validateBinpackOptions } from '../policy.js';
import { sequentialPack } from './packing.js';
import { dataBytes, unionDeletes, type FileWithDeletes } from '../file-deletes.js';

type Candidate = FileWithDeletes;

interface Group {
  key: string;
  partition: PartitionTuple;
  lumped: boolean;
  files: Candidate[];
}

/** Iceberg's `expectedOutputFiles`: round the file count down when the remainder is small. */
export function expectedOutputFiles(inputSize: number, o: BinpackOptions): number {
  const target = o.targetFileSizeBytes;
  if (inputSize < target) return 1;
  const withRemainder = Math.ceil(inputSize / target);
  const withoutRemainder = Math.floor(inputSize / target);
  const avgWithoutRemainder = Math.floor(inputSize / withoutRemainder);
  if (inputSize % target > o.minFileSizeBytes) return withRemainder;
  if (avgWithoutRemainder < Math.min(1.1 * target, writeMaxFileSize(o))) return withoutRemainder;
  return withRemainder;
}

/** Target plus half the distance to max: the writer's roll size, so no tiny tail file is cut. */
export function writeMaxFileSize(o: BinpackOptions): number {
  return Math.floor(o.targetFileSizeBytes + (o.maxFileSizeBytes - o.targetFileSizeBytes) * 0.5);
}

function tooManyDeletes(c: Candidate, o: BinpackOptions): boolean {
  return c.deletes.length >= o.deleteFileThreshold;
}

/** Share of rows known deleted: only file-scoped deletes count, since a shared file's count is unknown per file. */
function deleteRatio(c: Candidate): number {
  if (c.deletes.length === 0) return 0;
  let known = 0;
  for (const d of c.deletes) if (isFileScoped(d)) known += d.recordCount;
  const rc = c.file.recordCount;
  if (rc <= 0) return 0;
  return Math.min(known, rc) / rc;
}

function tooHighDeleteRatio(c: Candidate, o: BinpackOptions): boolean {
  return c.deletes.length > 0 && deleteRatio(c) >= o.deleteRatioThreshold;
}

/** Why a file is a rewrite candidate, as a short label; undefined when it is fine as it is. */
function candidateReason(c: Candidate, o: BinpackOptions): string | undefined {
  const size = c.file.sizeBytes;
  if (size < o.minFileSizeBytes) return 'too small';
  if (size > o.maxFileSizeBytes) return 'too large';
  if (tooManyDeletes(c, o)) return 'too many deletes';
  if (tooHighDeleteRatio(c, o)) return 'high delete ratio';
  return undefined;
}

function groupKeepReason(files: readonly Candidate[], o: BinpackOptions): string | undefined {
  const n = files.length;
  const bytes = taskInputBytes(files.map((c) => c.file));
  if (n > 1 && n >= o.minInputFiles) return `${n} files ≥ min-input-files ${o.minInputFiles}`;
  if (n > 1 && bytes > o.targetFileSizeBytes) return `${n} files, ${bytes} bytes > target ${o.targetFileSizeBytes}`;
  if (bytes > o.maxFileSizeBytes) return `${bytes} bytes > max-file-size ${o.maxFileSizeBytes}`;
  if (files.some((c) => tooManyDeletes(c, o))) return `a file has ≥ ${o.deleteFileThreshold} deletes`;
  if (files.some((c) => tooHighDeleteRatio(c, o))) return `a file has deleted ratio ≥ ${o.deleteRatioThreshold}`;
  return undefined;
}

export function planBinpack(table: TableModel, options: BinpackOptions, nowMs: number): Plan {
  validateBinpackOptions(options);
  const o = options;
  const currentSpec = requireSpecs(table, o);
  const { groups, deletesOfFile } = groupByPartition(table, currentSpec);
  const planTrail: DecisionStep[] = [optionsStep(o)];
  const { kept, totalGroups } = keptGroups(groups, o, currentSpec.specId, planTrail);
  const selected = orderForRewrite(capFilesToRewrite(kept, o, planTrail), o);
  const tasks = selected.map((k, i) => taskOf(k, i, currentSpec.specId, o));
  const removable = assignRemovableDeletes(table, deletesOfFile, tasks);
  planTrail.push({
    gate: 'summary',
    detail: `${groups.size} partitions, ${totalGroups} candidate groups, ${tasks.length} kept; ${removable.plan.length} delete files removable`,
    outcome: 'info',
    values: {
      partitions: groups.size,
      groups: totalGroups,
      tasks: tasks.length,
      removableDeletes: removable.plan.length,
    },
  });

  return {
    planner: 'binpack',
    plannedAtMs: nowMs,
    ...(table.currentSnapshotId !== undefined ? { baseSnapshotId: table.currentSnapshotId } : {}),
    tasks,
    removableDeletes: removable.plan,
    trail: planTrail,
  };
}

/** A group of files kept for rewriting, with the decisions that kept it. */
interface Kept {
  group: Group;
  files: Candidate[];
  trail: DecisionStep[];
}

/** The current spec (groups are formed in it) and the output spec must both be specs of the table. */
function requireSpecs(table: TableModel, o: BinpackOptions): PartitionSpec {
  const currentSpec = table.specs.find((s) => s.specId === table.defaultSpecId);
  if (!currentSpec) {
    throw new FloeError(
      'Corrupt',
      `table ${table.location}: default partition spec ${table.defaultSpecId} is missing`,
      {
        context: { table: table.location, specId: table.defaultSpecId },
      },
    );
  }
  const outputSpecId = o.outputSpecId ?? table.defaultSpecId;
  if (!table.specs.some((s) => s.specId === outputSpecId)) {
    throw new FloeError(
      'InvalidArgument',
      `table ${table.location}: output-spec-id ${outputSpecId} is not a spec of the table`,
      {
        context: { table: table.location, outputSpecId },
      },
    );
  }
  return currentSpec;
}

/**
 * Live data files with their deletes, grouped by partition of the current spec; files of older specs share
 * one all-null group (they may hold rows of many current partitions). `deletesOfFile` is by data-file index.
 */
function groupByPartition(
  table: TableModel,
  currentSpec: PartitionSpec,
): { groups: Map<string, Group>; deletesOfFile: (readonly DeleteFile[])[] } {
  const index = buildDeleteIndex(table.specs, table.deleteFiles);
  const deletesOfFile: (readonly DeleteFile[])[] = new Array(table.dataFiles.length);
  const lumpedPartition: PartitionTuple = currentSpec.fields.map(() => null);
  const lumpedKey = partitionKey(currentSpec.specId, lumpedPartition);
  const groups = new Map<string, Group>();
  table.dataFiles.forEach((f, i) => {
    const lumped = f.specId !== currentSpec.specId;
    const ownKey = partitionKey(f.specId, f.partition);
    const deletes = index.forDataFile(f, ownKey);
    deletesOfFile[i] = deletes;
    const key = lumped ? lumpedKey : ownKey;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, partition: lumped ? lumpedPartition : f.partition, lumped, files: [] }));
    else if (lumped) g.lumped = true;
    g.files.push({ file: f, deletes });
  });
  return { groups, deletesOfFile };
}

function optionsStep(o: BinpackOptions): DecisionStep {
  return {
    gate: 'options',
    detail:
      `target ${o.targetFileSizeBytes}, min ${o.minFileSizeBytes}, max ${o.maxFileSizeBytes}, min-input-files ${o.minInputFiles}, ` +
      `max group ${o.maxFileGroupSizeBytes} bytes / ${o.maxFileGroupInputFiles} files, rewrite-all ${o.rewriteAll}`,
    outcome: 'info',
    values: {
      targetFileSizeBytes: o.targetFileSizeBytes,
      minFileSizeBytes: o.minFileSizeBytes,
      maxFileSizeBytes: o.maxFileSizeBytes,
      minInputFiles: o.minInputFiles,
      deleteFileThreshold: o.deleteFileThreshold,
      deleteRatioThreshold: o.deleteRatioThreshold,
      rewriteAll: o.rewriteAll,
    },
  };
}

/** Each partition's candidates packed into groups; the groups worth rewriting kept, the others noted as skipped. */
function keptGroups(
  groups: Map<string, Group>,
  o: BinpackOptions,
  currentSpecId: number,
  planTrail: DecisionStep[],
): { kept: Kept[]; totalGroups: number } {
  const kept: Kept[] = [];
  let totalGroups = 0;
  for (const g of groups.values()) {
    const reasons = candidatesOf(g, o);
    if (reasons.size === 0) continue;
    const packed = sequentialPack(
      [...reasons.keys()],
      (c) => c.file.sizeBytes,
      o.maxFileGroupSizeBytes,
      o.maxFileGroupInputFiles,
    );
    totalGroups += packed.length;
    for (const files of packed) {
      const bytes = taskInputBytes(files.map((c) => c.file));
      const keep = o.rewriteAll ? 'rewrite-all keeps every group' : groupKeepReason(files, o);
      if (keep === undefined) {
        planTrail.push({
          gate: 'group',
          detail: `partition ${g.key}: group of ${files.length} files (${bytes} bytes) has too few files, too little content and no delete-heavy file`,
          outcome: 'skip',
          values: { files: files.length, bytes },
        });
        continue;
      }
      kept.push({ group: g, files, trail: keptGroupTrail(g, files, reasons, keep, bytes, currentSpecId, o) });
    }
  }
  return { kept, totalGroups };
}

/** The partition's rewrite candidates, in file order, each with why it is one. */
function candidatesOf(g: Group, o: BinpackOptions): Map<Candidate, string> {
  const reasons = new Map<Candidate, string>();
  for (const c of g.files) {
    const r = o.rewriteAll ? 'rewrite-all' : candidateReason(c, o);
    if (r !== undefined) reasons.set(c, r);
  }
  return reasons;
}

function keptGroupTrail(
  g: Group,
  files: Candidate[],
  reasons: Map<Candidate, string>,
  keep: string,
  bytes: number,
  currentSpecId: number,
  o: BinpackOptions,
): DecisionStep[] {
  const trail: DecisionStep[] = [];
  if (g.lumped) {
    trail.push({
      gate: 'partition',
      detail: `files of older specs are grouped as one unpartitioned group of spec ${currentSpecId}`,
      outcome: 'info',
    });
  }
  const counts = new Map<string, number>();
  for (const c of files) {
    const r = reasons.get(c)!;
    counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  trail.push({
    gate: 'candidates',
    detail:
      [...counts].map(([k, n]) => `${n} × ${k}`).join(', ') +
      ` (min ${o.minFileSizeBytes}, max ${o.maxFileSizeBytes}, delete-file-threshold ${o.deleteFileThreshold}, delete-ratio-threshold ${o.deleteRatioThreshold})`,
    outcome: 'pick',
    values: Object.fromEntries(counts),
  });
  trail.push({ gate: 'group', detail: keep, outcome: 'pass', values: { files: files.length, bytes } });
  return trail;
}

/** max-files-to-rewrite: groups in order, the last one cut to the remaining count. */
function capFilesToRewrite(kept: Kept[], o: BinpackOptions, planTrail: DecisionStep[]): Kept[] {
  if (o.maxFilesToRewrite === undefined) return kept;
  const selected: Kept[] = [];
  let used = 0;
  for (const k of kept) {
    if (used >= o.maxFilesToRewrite) {
      planTrail.push({
        gate: 'max-files-to-rewrite',
        detail: `partition ${k.group.key}: group dropped, ${used} files already selected`,
        outcome: 'skip',
      });
      continue;
    }
    const take = Math.min(k.files.length, o.maxFilesToRewrite - used);
    if (take < k.files.length) {
      k.trail.push({
        gate: 'max-files-to-rewrite',
        detail: `cut to ${take} of ${k.files.length} files`,
        outcome: 'info',
        values: { take },
      });
    }
    selected.push({ ...k, files: k.files.slice(0, take) });
    used += take;
  }
  return selected;
}

/** rewrite-job-order: a stable sort of the groups (none keeps the planned order). */
function orderForRewrite(selected: Kept[], o: BinpackOptions): Kept[] {
  const cmp: Record<string, (a: Kept, b: Kept) => number> = {
    'bytes-asc': (a, b) => dataBytes(a.files) - dataBytes(b.files),
    'bytes-desc': (a, b) => dataBytes(b.files) - dataBytes(a.files),
    'files-asc': (a, b) => a.files.length - b.files.length,
    'files-desc': (a, b) => b.files.length - a.files.length,
  };
  const order = cmp[o.rewriteJobOrder];
  return order ? [...selected].sort(order) : selected; // Array.prototype.sort is stable
}

function taskOf(k: Kept, i: number, currentSpecId: number, o: BinpackOptions): RewriteTask {
  const inputs = k.files.map((c) => c.file);
  const inputBytes = taskInputBytes(inputs);
  return {
    id: `binpack-${i + 1}`,
    kind: 'binpack',
    specId: currentSpecId,
    partition: k.group.partition,
    inputs,
    deletes: unionDeletes(k.files),
    removableDeletes: [],
    targetFileSizeBytes: o.targetFileSizeBytes,
    inputBytes,
    expectedOutputFiles: expectedOutputFiles(inputBytes, o),
    maxOutputFileSizeBytes: writeMaxFileSize(o),
    trail: k.trail,
  };
}
