/**
 * Amoro-style tiered self-optimizing for Iceberg tables, as a pure function of (table, policy, clock,
 * state). Follows apache/amoro `AbstractOptimizingPlanner` / `AbstractPartitionPlan` /
 * `IcebergPartitionPlan`:
 * 1. associate deletes (Iceberg rules), drop files outside `self-optimizing.filter`, evaluate each
 *    (spec, partition) — see evaluator.ts;
 * 2. rank necessary partitions by cost, take them until the input budget
 *    (max-input-file-size-per-thread × cores) is crossed, and keep going while no task came out;
 * 3. per partition: first-fit undersized segments into bins of max(target, max-task-size); bins of ≥ 2
 *    become merge tasks, a lone one turns eq-to-pos if its deletes call for it; then first-fit the
 *    files to rewrite, and separately the eq-to-pos segments; drop single-file no-delete rewrites.
 *
 * Where floe departs from Amoro (each has a test that Amoro's behaviour fails):
 * - removable deletes are decided table-wide (deletes.ts): a global equality delete stays while any
 *   file outside the plan still needs it; Amoro decides per partition and can drop it too early;
 * - a rewrite that would write as many files as it reads, applying no delete, is skipped (#3855 loop);
 * - time-based triggers are judged on the clock at every call; Amoro only looks again after a new
 *   snapshot, so a quiet table never gets its minor/full interval optimize;
 * - `self-optimizing.max-file-count` is enforced (Amoro documents it but never reads it);
 * - eq-to-pos work is its own task kind, packed apart from rewrites;
 * - a segment whose only delete is already per-file (file-scoped, DV, or Amoro-named) is not re-converted.
 */
import { FloeError } from '../../../../util/errors.js';
import { partitionKey } from '../../../../model/index.js';
import type { DataFile, DeleteFile, TableModel } from '../../../../model/index.js';
import type { DecisionStep, Plan, RewriteTask, TaskKind } from '../plan.js';
import { taskInputBytes } from '../plan.js';
import { assignRemovableDeletes, buildDeleteIndex } from '../deletes.js';
import type { TieredPolicy } from '../policy.js';
import { validateTieredPolicy } from '../policy.js';
import { firstFitPack } from '../binpack/packing.js';
import { PartitionEvaluation } from './evaluator.js';
import { dataBytes, unionDeletes, type FileWithDeletes } from '../file-deletes.js';
import { compileFilter } from '../predicate.js';
import { timesFor, type TieredState } from './state.js';
import { partitionLabeler } from '../partition-label.js';

interface Draft {
  kind: TaskKind;
  members: FileWithDeletes[];
  steps: DecisionStep[];
}

/** Amoro's writer: one file when the input is under target, else it rolls at target. */
export function estimatedOutputFiles(inputBytes: number, targetBytes: number): number {
  return inputBytes < targetBytes ? 1 : Math.ceil(inputBytes / targetBytes);
}

/**
 * floe's size-tiered minor merge (`self-optimizing.minor.fragment-size-ratio` ≥ 0): fragments without deletes
 * are taken smallest first while the next one is at most the running sum × (100 + ratio) / 100; larger
 * fragments wait until enough smaller content has accumulated. Files with deletes and segments are always kept.
 */
function sizeTieredFragments(e: PartitionEvaluation, policy: TieredPolicy, dropped: DecisionStep[]): FileWithDeletes[] {
  const ratio = policy.fragmentSizeRatioPercent;
  if (ratio < 0) return e.rewrite;
  const always: FileWithDeletes[] = [];
  const tierable: FileWithDeletes[] = [];
  for (const m of e.rewrite) (m.deletes.length === 0 && !e.rewriteIsSegment.has(m.file) ? tierable : always).push(m);
  tierable.sort((a, b) => a.file.sizeBytes - b.file.sizeBytes);
  let taken = 0;
  let sum = 0;
  for (const m of tierable) {
    if (taken >= 2 && m.file.sizeBytes > (sum * (100 + ratio)) / 100) break;
    taken++;
    sum += m.file.sizeBytes;
  }
  const waiting = tierable.slice(taken);
  if (waiting.length > 0) {
    dropped.push({
      gate: 'size-tier',
      detail: `${waiting.length} larger fragment(s) wait: the next one (${waiting[0]!.file.sizeBytes} bytes) exceeds ${sum} bytes of smaller fragments × ${(100 + ratio) / 100}`,
      outcome: 'skip',
      values: { waiting: waiting.length, takenBytes: sum, nextBytes: waiting[0]!.file.sizeBytes },
    });
  }
  return [...always, ...tierable.slice(0, taken)];
}

/**
 * Bytes an equality→position conversion reads from a data file: only the equality key columns (a
 * ranged read per column chunk), from the file's column sizes when the manifest has them, else a tenth
 * of the file (Amoro's cost model uses the same tenth for such files).
 */
export function conversionReadBytes(file: DataFile, deletes: readonly DeleteFile[]): number {
  const ids = new Set<number>();
  for (const d of deletes) if (d.content === 'equality-deletes') for (const id of d.equalityFieldIds) ids.add(id);
  const sizes = file.stats?.columnSizes;
  if (ids.size > 0 && sizes) {
    let n = 0;
    for (const id of ids) {
      const c = sizes.get(id);
      if (c === undefined) return Math.ceil(file.sizeBytes / 10);
      n += Number(c);
    }
    return Math.min(file.sizeBytes, n);
  }
  return Math.ceil(file.sizeBytes / 10);
}

/** Splits one partition into task drafts, and reports the drafts it dropped. */
function splitPartition(e: PartitionEvaluation, policy: TieredPolicy): { drafts: Draft[]; dropped: DecisionStep[] } {
  const capacity = Math.max(policy.targetSizeBytes, policy.maxTaskSizeBytes);
  const size = (m: FileWithDeletes) => m.file.sizeBytes;
  const drafts: Draft[] = [];
  const dropped: DecisionStep[] = [];
  const binStep = (n: number, bytes: number, what: string): DecisionStep => ({
    gate: 'bin',
    detail: `${what}: ${n} files, ${bytes} bytes, first-fit into bins of ${capacity} bytes (max(target-size, max-task-size-bytes))`,
    outcome: 'pick',
    values: { files: n, bytes, binCapacity: capacity },
  });

  // Batched conversion: segments that only equality deletes send to eq-to-pos wait for their batch.
  const due = e.conversionDue();
  const rewritePos = due ? [...e.rewritePos] : e.rewritePos.filter((m) => !e.eqOnly.has(m.file));
  if (!due) {
    dropped.push({
      gate: 'eq-to-pos-batch',
      detail:
        `${e.rewritePos.length - rewritePos.length} segments keep their equality deletes until the batch is due ` +
        `(delete-to-data ratio ${e.deleteToDataRatio().toFixed(3)} < ${policy.eqToPosDeleteRatio}, oldest delete within minor.trigger.interval)`,
      outcome: 'skip',
      values: { waiting: e.rewritePos.length - rewritePos.length, ratio: e.deleteToDataRatio() },
    });
  }
  // Undersized segments merge only among themselves, and only when at least two share a bin.
  for (const bin of firstFitPack(e.undersized, size, capacity, policy.maxFileCount)) {
    if (bin.length > 1) {
      drafts.push({
        kind: e.full ? 'full' : 'major',
        members: bin,
        steps: [binStep(bin.length, dataBytes(bin), 'undersized segments merged')],
      });
    } else {
      const only = bin[0]!;
      if (e.shouldRewritePos(only.file, only.deletes, false)) {
        if (due || !e.isBatchedConversion(only.file, only.deletes)) rewritePos.push(only);
        else {
          dropped.push({
            gate: 'eq-to-pos-batch',
            detail: `${only.file.path}: a lone undersized segment keeps its equality deletes until the batch is due`,
            outcome: 'skip',
            values: { bytes: only.file.sizeBytes },
          });
        }
      } else {
        dropped.push({
          gate: 'undersized-alone',
          detail: `${only.file.path}: no other undersized segment fits its bin, left as is`,
          outcome: 'skip',
          values: { bytes: only.file.sizeBytes },
        });
      }
    }
  }
  const toRewrite = e.full ? e.rewrite : sizeTieredFragments(e, policy, dropped);
  for (const bin of firstFitPack(toRewrite, size, capacity, policy.maxFileCount)) {
    const segments = bin.filter((m) => e.rewriteIsSegment.has(m.file)).length;
    const kind: TaskKind = e.full ? 'full' : segments > 0 ? 'major' : 'minor';
    const what = e.full
      ? `full rewrite (rewrite-all-files ${policy.fullRewriteAllFiles})`
      : `${bin.length - segments} fragments + ${segments} segments over duplicate-ratio ${policy.majorDuplicateRatio}`;
    drafts.push({ kind, members: bin, steps: [binStep(bin.length, dataBytes(bin), what)] });
  }
  // Amoro packs conversions by data-file size (one 128 MiB segment per task, each task re-reading all
  // of its deletes); with batching on they are packed by the bytes they read, the key columns.
  const readBytes = (m: FileWithDeletes) => conversionReadBytes(m.file, m.deletes);
  // A conversion holds the delete keys and the matched positions, not the rows, so a batched one may take
  // a thread's whole input budget (max-input-file-size-per-thread) of key-column bytes.
  const convWeight = e.batching() ? readBytes : size;
  const convCapacity = e.batching() ? Math.max(capacity, policy.maxInputBytesPerThread) : capacity;
  for (const bin of firstFitPack(rewritePos, convWeight, convCapacity, policy.maxFileCount)) {
    const step = binStep(
      bin.length,
      dataBytes(bin),
      'target-size segments whose deletes become one position delete per file',
    );
    if (e.batching()) {
      let read = 0;
      for (const m of bin) read += readBytes(m);
      step.detail += `; packed by the ${read} bytes the conversion reads (key columns only)`;
      step.values = { ...step.values, readBytes: read };
    }
    drafts.push({ kind: 'eq-to-pos', members: bin, steps: [step] });
  }

  // Pointless rewrites: Amoro drops a lone file without deletes; floe also drops any rewrite that
  // would write back as many files as it reads without applying a delete (Amoro #3855).
  const kept: Draft[] = [];
  for (const d of drafts) {
    if (d.kind === 'eq-to-pos') {
      kept.push(d);
      continue;
    }
    const hasDeletes = d.members.some((m) => m.deletes.length > 0);
    const bytes = dataBytes(d.members);
    if (d.members.length === 1 && !hasDeletes) {
      dropped.push({
        gate: 'single-file',
        detail: `${d.members[0]!.file.path}: a lone file with no deletes gains nothing from a rewrite`,
        outcome: 'skip',
        values: { bytes },
      });
      continue;
    }
    const out = estimatedOutputFiles(bytes, policy.targetSizeBytes);
    if (!hasDeletes && out >= d.members.length) {
      dropped.push({
        gate: 'same-file-count',
        detail: `${d.members.length} files (${bytes} bytes) would be rewritten into ${out} files of ≤ ${policy.targetSizeBytes} bytes with no delete applied`,
        outcome: 'skip',
        values: { inputs: d.members.length, outputs: out, bytes },
      });
      continue;
    }
    d.steps.push({
      gate: 'worthwhile',
      detail: hasDeletes
        ? `applies deletes to ${d.members.filter((m) => m.deletes.length > 0).length} of ${d.members.length} files`
        : `${d.members.length} files → about ${out} files`,
      outcome: 'pass',
      values: { inputs: d.members.length, estimatedOutputs: out },
    });
    kept.push(d);
  }
  return { drafts: kept, dropped };
}

/** One step per kind of dropped work in a partition (a partition may drop thousands of files). */
function summarizeDropped(label: string, dropped: readonly DecisionStep[]): DecisionStep[] {
  const byGate = new Map<string, DecisionStep[]>();
  for (const s of dropped) {
    const l = byGate.get(s.gate);
    if (l) l.push(s);
    else byGate.set(s.gate, [s]);
  }
  return [...byGate].map(([gate, steps]) => ({
    gate,
    detail: `partition ${label}: ${steps.length === 1 ? steps[0]!.detail : `${steps.length} times, e.g. ${steps[0]!.detail}`}`,
    outcome: 'skip' as const,
    values: steps.length === 1 ? (steps[0]!.values ?? {}) : { count: steps.length },
  }));
}

export function planTiered(table: TableModel, policy: TieredPolicy, nowMs: number, state?: TieredState): Plan {
  validateTieredPolicy(policy);
  requireIceberg(table);
  const trail: DecisionStep[] = [];
  const plan: Plan = {
    planner: 'tiered',
    plannedAtMs: nowMs,
    ...(table.currentSnapshotId !== undefined ? { baseSnapshotId: table.currentSnapshotId } : {}),
    tasks: [],
    removableDeletes: [],
    trail,
  };
  if (!policy.enabled) {
    trail.push({ gate: 'enabled', detail: 'self-optimizing.enabled is false', outcome: 'skip' });
    return plan;
  }
  if (state?.lastOptimizedSnapshotId !== undefined && state.lastOptimizedSnapshotId === table.currentSnapshotId) {
    trail.push({
      gate: 'snapshot',
      detail: `no snapshot since the last optimize (${state.lastOptimizedSnapshotId}); time-based triggers are still judged on the clock`,
      outcome: 'info',
    });
  }
  const labelOf = memoLabeler(table);
  const { partitions, deletesOfFile } = evaluatePartitions(table, policy, nowMs, state, trail);
  const ranked = rankNecessary(partitions, trail);
  const selection = selectWithinBudget(ranked, policy, labelOf, trail);
  noteSelection(selection, ranked, policy, labelOf, trail);
  const tasks = tasksOf(selection.drafts, ranked, policy, labelOf);
  const removable = assignRemovableDeletes(table, deletesOfFile, tasks);
  noteRemovableDeletes(tasks, removable, trail);
  plan.tasks = tasks;
  plan.removableDeletes = removable.plan;
  return plan;
}

function requireIceberg(table: TableModel): void {
  if (table.format !== 'iceberg') {
    throw new FloeError(
      'Unsupported',
      `table ${table.location}: the tiered planner plans Iceberg tables, not ${table.format}`,
      {
        context: { table: table.location, format: table.format },
      },
    );
  }
}

type LabelOf = (e: PartitionEvaluation) => string;

/** Partition labels for messages, computed once per partition (a plan names a partition many times). */
function memoLabeler(table: TableModel): LabelOf {
  const labeler = partitionLabeler(table);
  const labels = new Map<PartitionEvaluation, string>();
  return (e) => {
    let l = labels.get(e);
    if (l === undefined) labels.set(e, (l = labeler(e.specId, e.partition)));
    return l;
  };
}

/**
 * Every data file with its deletes, evaluated per (spec, partition); files outside `self-optimizing.filter`
 * are left out of the evaluation but keep their deletes (by data-file index), which removability needs.
 */
function evaluatePartitions(
  table: TableModel,
  policy: TieredPolicy,
  nowMs: number,
  state: TieredState | undefined,
  trail: DecisionStep[],
): { partitions: Map<string, PartitionEvaluation>; deletesOfFile: (readonly DeleteFile[])[] } {
  const filter = policy.filter ? compileFilter(policy.filter, table) : undefined;
  const index = buildDeleteIndex(table.specs, table.deleteFiles);
  const snapshotTime = new Map<bigint, number>();
  for (const sn of table.snapshots) snapshotTime.set(sn.snapshotId, sn.timestampMs);
  const committedAtMs = (d: DeleteFile): number | undefined =>
    d.snapshotId === undefined ? undefined : snapshotTime.get(d.snapshotId);
  const deletesOfFile: (readonly DeleteFile[])[] = new Array(table.dataFiles.length);
  const partitions = new Map<string, PartitionEvaluation>();
  let filteredOut = 0;
  table.dataFiles.forEach((f, i) => {
    const key = partitionKey(f.specId, f.partition);
    const deletes = index.forDataFile(f, key);
    deletesOfFile[i] = deletes;
    if (filter && !filter(f)) {
      filteredOut += 1;
      return;
    }
    let e = partitions.get(key);
    if (!e)
      partitions.set(
        key,
        (e = new PartitionEvaluation(key, f.specId, f.partition, policy, nowMs, timesFor(state, key), committedAtMs)),
      );
    e.add({ file: f, deletes });
  });
  if (filter) {
    trail.push({
      gate: 'filter',
      detail: `self-optimizing.filter ${JSON.stringify(policy.filter)} leaves out ${filteredOut} of ${table.dataFiles.length} data files`,
      outcome: 'info',
      values: { filteredOut },
    });
  }
  return { partitions, deletesOfFile };
}

/** The partitions that need optimizing, most costly first (ties by key, so plans are deterministic). */
interface Ranked {
  necessary: PartitionEvaluation[];
  costs: Map<PartitionEvaluation, number>;
}

function rankNecessary(partitions: Map<string, PartitionEvaluation>, trail: DecisionStep[]): Ranked {
  const necessary = [...partitions.values()].filter((e) => e.necessary());
  const costs = new Map(necessary.map((e) => [e, e.cost()] as const));
  necessary.sort((a, b) => costs.get(b)! - costs.get(a)! || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  trail.push({
    gate: 'partitions',
    detail: `${partitions.size} partitions evaluated, ${necessary.length} need optimizing`,
    outcome: 'info',
    values: { partitions: partitions.size, necessary: necessary.length },
  });
  return { necessary, costs };
}

interface Selection {
  drafts: { e: PartitionEvaluation; d: Draft; rank: number }[];
  budget: number;
  spent: number;
  deferredList: { e: PartitionEvaluation; rank: number }[];
  fileCount: number;
  cappedTasks: number;
  cappedPartitions: Set<string>;
  selectedTypes: Set<string>;
}

/** Tasks of the ranked partitions within the input budget and `self-optimizing.max-file-count`. */
function selectWithinBudget(ranked: Ranked, policy: TieredPolicy, labelOf: LabelOf, trail: DecisionStep[]): Selection {
  const sel: Selection = {
    drafts: [],
    budget: policy.maxInputBytesPerThread * policy.availableCores,
    spent: 0,
    deferredList: [],
    fileCount: 0,
    cappedTasks: 0,
    cappedPartitions: new Set<string>(),
    selectedTypes: new Set<string>(),
  };
  ranked.necessary.forEach((e, rank) => {
    // Amoro takes partitions until the budget is crossed (the crossing one included), then more only
    // while nothing came out of them.
    if (sel.spent > sel.budget && sel.drafts.length > 0) {
      sel.deferredList.push({ e, rank });
      return;
    }
    sel.spent += ranked.costs.get(e)!;
    const { drafts: ds, dropped } = splitPartition(e, policy);
    if (dropped.length > 0 && ds.length === 0) {
      trail.push({
        gate: 'partition',
        detail: `partition ${labelOf(e)}: necessary but every candidate task was pointless`,
        outcome: 'skip',
      });
    }
    trail.push(...summarizeDropped(labelOf(e), dropped));
    for (const d of ds) {
      if (sel.fileCount + d.members.length > policy.maxFileCount) {
        sel.cappedTasks += 1;
        sel.cappedPartitions.add(labelOf(e));
        continue;
      }
      sel.fileCount += d.members.length;
      sel.drafts.push({ e, d, rank });
    }
    if (ds.length > 0) sel.selectedTypes.add(e.type());
  });
  return sel;
}

/** Up to this many deferred partitions are named one by one (a readable number; --json keeps the count). */
const DEFERRED_SHOWN = 50;

/** The budget, every deferred partition and why, the max-file-count cut, and the process type. */
function noteSelection(
  sel: Selection,
  ranked: Ranked,
  policy: TieredPolicy,
  labelOf: LabelOf,
  trail: DecisionStep[],
): void {
  const { budget, spent, deferredList, fileCount, cappedTasks, cappedPartitions } = sel;
  const deferred = deferredList.length;
  trail.push({
    gate: 'budget',
    detail:
      `input budget ${budget} bytes (max-input-file-size-per-thread ${policy.maxInputBytesPerThread} × ${policy.availableCores} cores); ` +
      `selected cost ${spent}; ${deferred} necessary partitions deferred to a later plan`,
    outcome: 'info',
    values: { budget, selectedCost: spent, deferredPartitions: deferred },
  });
  for (const { e, rank } of deferredList.slice(0, DEFERRED_SHOWN)) {
    trail.push({
      gate: 'deferred',
      detail:
        `partition ${labelOf(e)} (rank ${rank + 1} of ${ranked.necessary.length}, cost ${ranked.costs.get(e)}, type ${e.type()}) deferred to a later plan: ` +
        `the partitions ranked above it already use ${spent} of the ${budget}-byte input budget`,
      outcome: 'skip',
      values: { partition: labelOf(e), rank: rank + 1, cost: ranked.costs.get(e)!, selectedCost: spent, budget },
    });
  }
  if (deferredList.length > DEFERRED_SHOWN) {
    trail.push({
      gate: 'deferred',
      detail: `… and ${deferredList.length - DEFERRED_SHOWN} more partitions deferred for the same reason`,
      outcome: 'skip',
    });
  }
  if (cappedTasks > 0) {
    trail.push({
      gate: 'max-file-count',
      detail:
        `${cappedTasks} tasks deferred: the plan already reads ${fileCount} of at most ${policy.maxFileCount} data files ` +
        `(self-optimizing.max-file-count); partitions: ${[...cappedPartitions].slice(0, 20).join('; ')}${cappedPartitions.size > 20 ? `; … ${cappedPartitions.size - 20} more` : ''}`,
      outcome: 'skip',
      values: { deferredTasks: cappedTasks, files: fileCount, maxFileCount: policy.maxFileCount },
    });
  }
  const processType = sel.selectedTypes.has('full')
    ? 'full'
    : sel.selectedTypes.has('major')
      ? 'major'
      : sel.selectedTypes.size > 0
        ? 'minor'
        : 'none';
  trail.push({ gate: 'process-type', detail: `process type ${processType}`, outcome: 'info', values: { processType } });
}

function tasksOf(drafts: Selection['drafts'], ranked: Ranked, policy: TieredPolicy, labelOf: LabelOf): RewriteTask[] {
  // Steps shared by every task of a partition are built once (a big plan has hundreds of thousands of tasks).
  const partitionSteps = new Map<PartitionEvaluation, DecisionStep[]>();
  const stepsOf = (e: PartitionEvaluation, rank: number): DecisionStep[] => {
    let steps = partitionSteps.get(e);
    if (!steps) {
      steps = [
        ...e.explanation(),
        {
          gate: 'rank',
          detail: `partition ${labelOf(e)} ranked ${rank + 1} of ${ranked.necessary.length} by cost ${ranked.costs.get(e)} (partition type ${e.type()})`,
          outcome: 'pick',
          values: { rank: rank + 1, cost: ranked.costs.get(e)!, partitionType: e.type() },
        },
      ];
      partitionSteps.set(e, steps);
    }
    return steps;
  };
  return drafts.map(({ e, d, rank }, i) => {
    const inputs: DataFile[] = d.members.map((m) => m.file);
    return {
      id: `tiered-${i + 1}`,
      kind: d.kind,
      specId: e.specId,
      partition: e.partition,
      partitionLabel: labelOf(e),
      inputs,
      deletes: unionDeletes(d.members),
      removableDeletes: [],
      targetFileSizeBytes: policy.targetSizeBytes,
      inputBytes: taskInputBytes(inputs),
      trail: [...stepsOf(e, rank), ...d.steps],
    };
  });
}

/** Each task's trail says which of its deletes go with it; the plan's says how many go in all. */
function noteRemovableDeletes(
  tasks: RewriteTask[],
  removable: ReturnType<typeof assignRemovableDeletes>,
  trail: DecisionStep[],
): void {
  tasks.forEach((t) => {
    const kept = t.deletes.length - t.removableDeletes.length;
    t.trail.push({
      gate: 'deletes',
      detail: `applies ${t.deletes.length} delete files; ${t.removableDeletes.length} removable when this task commits, ${kept} still needed by files outside it`,
      outcome: 'info',
      values: { applied: t.deletes.length, removable: t.removableDeletes.length },
    });
  });
  let taskLocal = 0;
  for (const r of removable.perTask) taskLocal += r.length;
  trail.push({
    gate: 'removable-deletes',
    detail: `${removable.plan.length} delete files removable once every task commits (${taskLocal} of them by a single task)`,
    outcome: 'info',
    values: { plan: removable.plan.length, perTask: taskLocal },
  });
}
