/**
 * Tiered (Amoro-style) planner. Expectations are worked out by hand from Amoro's rules
 * (reference sheet §2.3–2.7 and apache/amoro CommonPartitionEvaluator / AbstractPartitionPlan); the
 * P-numbered cases restate Amoro's TestIcebergPartitionPlan.
 */
import { describe, expect, it } from 'vitest';
import {
  TIERED_DEFAULTS,
  advanceTieredState,
  planTiered,
  tieredPolicyFromProperties,
  type TieredPolicy,
} from '../../../src/core/planning/tiered/index.js';
import type { Plan, RewriteTask } from '../../../src/core/planning/plan.js';
import { partitionKey } from '../../../model/index.js';
import { isFloeError } from '../../../util/errors.js';
import {
  KiB,
  MiB,
  GiB,
  dataFile,
  eqDelete,
  identitySpec,
  makeTable,
  paths,
  posDelete,
  snapshot,
  unpartitionedSpec,
  deletionVector,
} from './fixtures.js';

const HOUR = 3_600_000;
const NOW = 1_000 * HOUR;

function policy(p: Partial<TieredPolicy> = {}): TieredPolicy {
  return { ...TIERED_DEFAULTS, ...p };
}
const FULL_ON = { fullTriggerIntervalMs: HOUR };

function taskPaths(plan: Plan): string[][] {
  return plan.tasks.map((t) => paths(t.inputs));
}
function gates(t: RewriteTask | Plan): string[] {
  return t.trail.filter((s) => s.outcome === 'pass' || s.outcome === 'skip').map((s) => `${s.gate}:${s.outcome}`);
}

describe('tiered policy from properties', () => {
  it("has Amoro defaults (plus floe's size-tiered fragment merge)", () => {
    const p = tieredPolicyFromProperties({});
    expect(p).toEqual({
      enabled: true,
      targetSizeBytes: 134217728,
      maxTaskSizeBytes: 134217728,
      fragmentRatio: 8,
      minTargetSizeRatio: 0.75,
      minorTriggerFileCount: 12,
      minorTriggerIntervalMs: 3600000,
      majorDuplicateRatio: 0.1,
      fullTriggerIntervalMs: -1,
      fullRewriteAllFiles: true,
      maxFileCount: 10000,
      openFileCostBytes: 4194304,
      maxInputBytesPerThread: 536870912,
      availableCores: 1,
      fragmentSizeRatioPercent: 1,
      eqToPosDeleteRatio: 1.25,
    });
  });

  it('reads the self-optimizing.* names', () => {
    const p = tieredPolicyFromProperties({
      'self-optimizing.target-size': '1000',
      'self-optimizing.max-task-size-bytes': '5000',
      'self-optimizing.fragment-ratio': '4',
      'self-optimizing.min-target-size-ratio': '0.5',
      'self-optimizing.minor.trigger.file-count': '3',
      'self-optimizing.minor.trigger.interval': '-1',
      'self-optimizing.major.trigger.duplicate-ratio': '0.2',
      'self-optimizing.full.trigger.interval': '60000',
      'self-optimizing.full.rewrite-all-files': 'false',
      'self-optimizing.filter': 'id > 3',
      'self-optimizing.max-file-count': '50',
      'read.split.open-file-cost': '0',
      'self-optimizing.enabled': 'false',
    });
    expect(p).toMatchObject({
      targetSizeBytes: 1000,
      maxTaskSizeBytes: 5000,
      fragmentRatio: 4,
      minTargetSizeRatio: 0.5,
      minorTriggerFileCount: 3,
      minorTriggerIntervalMs: -1,
      majorDuplicateRatio: 0.2,
      fullTriggerIntervalMs: 60000,
      fullRewriteAllFiles: false,
      filter: 'id > 3',
      maxFileCount: 50,
      openFileCostBytes: 0,
      enabled: false,
    });
  });

  it('rejects malformed values naming the property', () => {
    expect(() => tieredPolicyFromProperties({ 'self-optimizing.target-size': '128MB' })).toThrow(
      /self-optimizing\.target-size/,
    );
    expect(() => tieredPolicyFromProperties({ 'self-optimizing.fragment-ratio': '0' })).toThrow(/fragment-ratio/);
  });
});

describe('Amoro partition-plan cases', () => {
  it('P1: two fragments are merged by the minor interval trigger (never optimized = time 0)', () => {
    const f1 = dataFile({ size: 4 * KiB });
    const f2 = dataFile({ size: 4 * KiB });
    const plan = planTiered(makeTable({ dataFiles: [f1, f2] }), policy(), NOW);
    expect(taskPaths(plan)).toEqual([paths([f1, f2])]);
    const t = plan.tasks[0]!;
    expect(t.kind).toBe('minor');
    expect(t.deletes).toEqual([]);
    expect(gates(t)).toContain('minor-interval:pass');
    expect(t.trail.find((s) => s.gate === 'minor-file-count')!.outcome).toBe('fail');
  });

  it('P2: a single fragment is never compacted alone', () => {
    expect(planTiered(makeTable({ dataFiles: [dataFile({ size: 4 * KiB })] }), policy(), NOW).tasks).toEqual([]);
  });

  describe('P3: two undersized segments', () => {
    const a = dataFile({ size: 40 * MiB, records: 40, seq: 1 });
    const b = dataFile({ size: 40 * MiB, records: 40, seq: 1 });
    const da = posDelete({ seq: 2, records: 1, referencedDataFile: a.path });
    const db = posDelete({ seq: 2, records: 1, referencedDataFile: b.path });

    it('a: no deletes, full off → nothing (not minor, 80 MiB undersized < target)', () => {
      expect(planTiered(makeTable({ dataFiles: [a, b] }), policy(), NOW).tasks).toEqual([]);
    });
    it('b: 1 of 40 rows position-deleted (2.5 % ≤ 10 %) → still nothing', () => {
      expect(planTiered(makeTable({ dataFiles: [a, b], deleteFiles: [da, db] }), policy(), NOW).tasks).toEqual([]);
    });
    it('c: full interval reached → one full task rewriting both and dropping both deletes', () => {
      const plan = planTiered(makeTable({ dataFiles: [a, b], deleteFiles: [da, db] }), policy(FULL_ON), NOW);
      expect(taskPaths(plan)).toEqual([paths([a, b])]);
      expect(plan.tasks[0]!.kind).toBe('full');
      expect(new Set(plan.tasks[0]!.removableDeletes)).toEqual(new Set([da, db]));
      expect(gates(plan.tasks[0]!)).toEqual(expect.arrayContaining(['full-interval:pass', 'full-necessary:pass']));
    });
  });

  describe('P4: segments with deletes and fragments', () => {
    // target = max(A, B) + 1 so A, B are target-size; fragment-ratio = target / min(A, B) + 1 = 2.
    const A = dataFile({ size: 40 * KiB, records: 1000, seq: 1 });
    const B = dataFile({ size: 40 * KiB, records: 1000, seq: 1 });
    const C = dataFile({ size: 1 * KiB, records: 4, seq: 1 });
    const D = dataFile({ size: 1 * KiB, records: 4, seq: 1 });
    const a1 = posDelete({ seq: 2, records: 1, referencedDataFile: A.path });
    const a2 = posDelete({ seq: 3, records: 1, referencedDataFile: A.path });
    const b1 = posDelete({ seq: 2, records: 101, referencedDataFile: B.path });
    const c1 = posDelete({ seq: 2, records: 1, referencedDataFile: C.path });
    const d1 = posDelete({ seq: 2, records: 1, referencedDataFile: D.path });
    const table = makeTable({ dataFiles: [A, B, C, D], deleteFiles: [a1, a2, b1, c1, d1] });
    const base = { targetSizeBytes: 40 * KiB + 1, fragmentRatio: 2 };

    it('a: B (101 of 1000 rows deleted > 10 %) is rewritten with the fragments; A (2 position files) gets eq-to-pos', () => {
      const plan = planTiered(table, policy(base), NOW);
      const rewrite = plan.tasks.find((t) => t.kind !== 'eq-to-pos')!;
      const toPos = plan.tasks.find((t) => t.kind === 'eq-to-pos')!;
      expect(plan.tasks).toHaveLength(2);
      expect(rewrite.kind).toBe('major');
      expect(paths(rewrite.inputs)).toEqual(paths([B, C, D]));
      expect(new Set(rewrite.removableDeletes)).toEqual(new Set([b1, c1, d1]));
      expect(paths(toPos.inputs)).toEqual([A.path]);
      expect(new Set(toPos.removableDeletes)).toEqual(new Set([a1, a2]));
      expect(new Set(plan.removableDeletes)).toEqual(new Set([a1, a2, b1, c1, d1]));
      expect(gates(rewrite)).toContain('major-duplicate-ratio:pass');
    });

    it('b: full with rewrite-all-files → one full task over all four files', () => {
      const plan = planTiered(table, policy({ ...base, ...FULL_ON }), NOW);
      expect(taskPaths(plan)).toEqual([paths([A, B, C, D])]);
      expect(plan.tasks[0]!.kind).toBe('full');
      expect(plan.removableDeletes).toHaveLength(5);
    });
  });
});

describe('triggers', () => {
  const recent = (ms: number) => ({ table: { lastMinorMs: ms, lastMajorMs: ms, lastFullMs: ms } });

  it('minor file count: 12 fragments fire without the interval, 11 do not', () => {
    const twelve = Array.from({ length: 12 }, () => dataFile({ size: 1 * MiB }));
    const state = recent(NOW - 1000);
    expect(planTiered(makeTable({ dataFiles: twelve }), policy(), NOW, state).tasks).toHaveLength(1);
    expect(planTiered(makeTable({ dataFiles: twelve.slice(1) }), policy(), NOW, state).tasks).toEqual([]);
  });

  it('equality delete files count toward the minor file count', () => {
    const frags = Array.from({ length: 10 }, () => dataFile({ size: 1 * MiB, seq: 1 }));
    const eqs = [eqDelete({ seq: 2 }), eqDelete({ seq: 2 })];
    const plan = planTiered(makeTable({ dataFiles: frags, deleteFiles: eqs }), policy(), NOW, recent(NOW - 1000));
    expect(plan.tasks).toHaveLength(1);
    expect(plan.tasks[0]!.trail.find((s) => s.gate === 'minor-file-count')!.values).toMatchObject({ smallFiles: 12 });
  });

  it('minor interval: strictly more than the interval since the last minor optimize', () => {
    const two = [dataFile({ size: 1 * MiB }), dataFile({ size: 1 * MiB })];
    const t = makeTable({ dataFiles: two });
    expect(planTiered(t, policy(), NOW, recent(NOW - HOUR)).tasks).toEqual([]);
    expect(planTiered(t, policy(), NOW, recent(NOW - HOUR - 1)).tasks).toHaveLength(1);
    expect(planTiered(t, policy({ minorTriggerIntervalMs: -1 }), NOW).tasks).toEqual([]);
  });

  it('an equality delete with the same sequence number as the data does not apply, so it cannot trigger', () => {
    const f = dataFile({ size: 1 * MiB, seq: 3 });
    expect(planTiered(makeTable({ dataFiles: [f], deleteFiles: [eqDelete({ seq: 3 })] }), policy(), NOW).tasks).toEqual(
      [],
    );
    const newer = eqDelete({ seq: 4 });
    const plan = planTiered(makeTable({ dataFiles: [f], deleteFiles: [newer] }), policy(), NOW);
    // fragment + eq delete = 2 small files, interval reached; a lone file with a delete is worth a rewrite
    expect(taskPaths(plan)).toEqual([[f.path]]);
    expect(plan.removableDeletes).toEqual([newer]);
  });

  it('major: undersized content ≥ target with two smallest fitting → merge the pairs that fit', () => {
    const u = [60, 60, 60].map((s) => dataFile({ size: s * MiB }));
    const plan = planTiered(makeTable({ dataFiles: u }), policy(), NOW, recent(NOW));
    // first-fit into 128 MiB bins: [60, 60] and [60]; the lone one stays
    expect(taskPaths(plan)).toEqual([paths([u[0]!, u[1]!])]);
    expect(plan.tasks[0]!.kind).toBe('major');
    expect(plan.trail.some((s) => s.gate === 'undersized-alone')).toBe(true);
    // 2 × 60 = 120 < 128: not enough content, nothing to do
    expect(planTiered(makeTable({ dataFiles: u.slice(0, 2) }), policy(), NOW, recent(NOW)).tasks).toEqual([]);
  });

  it('duplicate ratio: more than 10 % position-deleted rows rewrites a target-size segment', () => {
    const f = dataFile({ size: 120 * MiB, records: 1000, seq: 1 });
    const over = posDelete({ seq: 2, records: 101, referencedDataFile: f.path });
    const plan = planTiered(makeTable({ dataFiles: [f], deleteFiles: [over] }), policy(), NOW, recent(NOW));
    expect(plan.tasks.map((t) => t.kind)).toEqual(['major']);
    const exactly = posDelete({ seq: 2, records: 100, referencedDataFile: f.path });
    expect(planTiered(makeTable({ dataFiles: [f], deleteFiles: [exactly] }), policy(), NOW, recent(NOW)).tasks).toEqual(
      [],
    );
  });

  it('a segment with more than one position delete file fires minor and gets eq-to-pos', () => {
    const f = dataFile({ size: 120 * MiB, records: 1000, seq: 1 });
    const d = [posDelete({ seq: 2, records: 1 }), posDelete({ seq: 3, records: 1 })];
    const plan = planTiered(makeTable({ dataFiles: [f], deleteFiles: d }), policy(), NOW, recent(NOW));
    expect(plan.tasks.map((t) => t.kind)).toEqual(['eq-to-pos']);
    expect(gates(plan.tasks[0]!)).toContain('minor-combine-pos:pass');
    expect(new Set(plan.tasks[0]!.removableDeletes)).toEqual(new Set(d));
  });

  it('full: rewrite-all-files=false leaves clean target-size files alone', () => {
    const big = dataFile({ size: 120 * MiB });
    const f1 = dataFile({ size: 1 * MiB });
    const f2 = dataFile({ size: 1 * MiB });
    const plan = planTiered(
      makeTable({ dataFiles: [big, f1, f2] }),
      policy({ ...FULL_ON, fullRewriteAllFiles: false }),
      NOW,
    );
    expect(taskPaths(plan)).toEqual([paths([f1, f2])]);
    expect(plan.tasks[0]!.kind).toBe('full');
    // last full within the interval: not full mode, the fragments go by minor instead
    const later = planTiered(makeTable({ dataFiles: [big, f1, f2] }), policy(FULL_ON), NOW, {
      table: { lastFullMs: NOW - 10 },
    });
    expect(later.tasks.map((t) => t.kind)).toEqual(['minor']);
  });

  it('ranks partitions by cost and stops after the input budget is crossed', () => {
    const spec = identitySpec(0, 2);
    const mk = (p: string, n: number) => Array.from({ length: n }, () => dataFile({ partition: [p], size: 10 * MiB }));
    const a = mk('a', 2); // cost 2×20 + 2×4 = 48 MiB
    const b = mk('b', 3); // 2×30 + 3×4 = 72 MiB
    const c = mk('c', 4); // 2×40 + 4×4 = 96 MiB
    const table = makeTable({ specs: [spec], dataFiles: [...a, ...b, ...c] });
    let plan = planTiered(table, policy({ maxInputBytesPerThread: 50 * MiB }), NOW);
    expect(taskPaths(plan)).toEqual([paths(c)]);
    expect(plan.tasks[0]!.trail.find((s) => s.gate === 'rank')!.values).toMatchObject({ rank: 1, cost: 96 * MiB });
    expect(plan.trail.find((s) => s.gate === 'budget')!.values).toMatchObject({ deferredPartitions: 2 });
    plan = planTiered(table, policy({ maxInputBytesPerThread: 100 * MiB }), NOW);
    expect(taskPaths(plan)).toEqual([paths(c), paths(b)]);
    plan = planTiered(table, policy({ maxInputBytesPerThread: 50 * MiB, availableCores: 4 }), NOW);
    expect(plan.tasks).toHaveLength(3);
    // the budget is per thread (Amoro: max-input-file-size-per-thread × the optimizer's threads), and says so
    const budget = plan.trail.find((s) => s.gate === 'budget')!;
    expect(budget.values).toMatchObject({ budget: 200 * MiB, deferredPartitions: 0 });
    expect(budget.detail).toContain(`(max-input-file-size-per-thread ${50 * MiB} × 4 cores)`);
  });

  it('partitions of different spec ids are planned apart even with equal partition values', () => {
    const specs = [identitySpec(0, 2), identitySpec(1, 2, 1)];
    const old = dataFile({ specId: 0, partition: ['a'], size: 1 * MiB });
    const neu = dataFile({ specId: 1, partition: ['a', 1n], size: 1 * MiB });
    const neu2 = dataFile({ specId: 1, partition: ['a', 1n], size: 1 * MiB });
    const plan = planTiered(makeTable({ specs, dataFiles: [old, neu, neu2] }), policy(), NOW);
    expect(taskPaths(plan)).toEqual([paths([neu, neu2])]);
    expect(plan.tasks[0]!.specId).toBe(1);
  });

  it('disabled table: no tasks', () => {
    const two = [dataFile({ size: 1 * MiB }), dataFile({ size: 1 * MiB })];
    const plan = planTiered(makeTable({ dataFiles: two }), policy({ enabled: false }), NOW);
    expect(plan.tasks).toEqual([]);
    expect(plan.trail[0]!.gate).toBe('enabled');
  });
});

describe('improvements over Amoro', () => {
  it('a global equality delete is kept while a file outside the plan still needs it', () => {
    // Amoro plans partition a alone, sees the global delete used only by a's files there, and removes it:
    // rows of partition b it deleted come back.
    const specs = [unpartitionedSpec(0), identitySpec(1, 2)];
    const a1 = dataFile({ specId: 1, partition: ['a'], size: 1 * MiB, seq: 1 });
    const a2 = dataFile({ specId: 1, partition: ['a'], size: 1 * MiB, seq: 1 });
    const b = dataFile({ specId: 1, partition: ['b'], size: 120 * MiB, seq: 1, records: 1000 });
    const global = eqDelete({ specId: 0, seq: 2 });
    const plan = planTiered(
      makeTable({ specs, defaultSpecId: 1, dataFiles: [a1, a2, b], deleteFiles: [global] }),
      policy(),
      NOW,
    );
    expect(taskPaths(plan)).toEqual([paths([a1, a2])]);
    expect(plan.tasks[0]!.deletes).toEqual([global]);
    expect(plan.tasks[0]!.removableDeletes).toEqual([]);
    expect(plan.removableDeletes).toEqual([]);

    // When b is covered too (its eq delete becomes a position delete), the global delete can go once
    // every task has committed — but no single task may drop it.
    const b2 = dataFile({ specId: 1, partition: ['b'], size: 1 * MiB, seq: 1 });
    const both = planTiered(
      makeTable({ specs, defaultSpecId: 1, dataFiles: [a1, a2, b, b2], deleteFiles: [global] }),
      policy(),
      NOW,
    );
    // a: minor over a1+a2; b: the fragment b2 rewritten with the delete applied, b converted eq → pos
    expect(both.tasks.map((t) => t.kind).sort()).toEqual(['eq-to-pos', 'minor', 'minor']);
    expect(both.removableDeletes).toEqual([global]);
    for (const t of both.tasks) expect(t.removableDeletes).toEqual([]);
  });

  it('#3855: a rewrite that would write back as many files, applying no delete, is skipped', () => {
    // 8 target-size files of 120 MiB in one 1 GiB task bin: Amoro rewrites them into 8 files (7 × 128 + 64)
    // and the 64 MiB tail triggers the same again.
    const files = Array.from({ length: 8 }, () => dataFile({ size: 120 * MiB }));
    const p = policy({ ...FULL_ON, maxTaskSizeBytes: 1 * GiB });
    const plan = planTiered(makeTable({ dataFiles: files }), p, NOW);
    expect(plan.tasks).toEqual([]);
    const skip = plan.trail.find((s) => s.gate === 'same-file-count')!;
    expect(skip.values).toMatchObject({ inputs: 8, outputs: 8 });
    // 8 × 100 MiB = 800 MiB → 7 files: a real reduction, planned
    const smaller = Array.from({ length: 8 }, () => dataFile({ size: 100 * MiB }));
    expect(planTiered(makeTable({ dataFiles: smaller }), p, NOW).tasks).toHaveLength(1);
  });

  it('time-based triggers fire from the clock with no new snapshot since the last optimize', () => {
    const two = [dataFile({ size: 1 * MiB }), dataFile({ size: 1 * MiB })];
    const t = makeTable({ dataFiles: two, snapshots: [snapshot({ snapshotId: 7n, timestampMs: 0 })] });
    const lastOptimize = 10 * HOUR;
    const state = { table: { lastMinorMs: lastOptimize }, lastOptimizedSnapshotId: 7n };
    // Amoro never re-evaluates a table whose snapshot equals lastOptimizedSnapshotId.
    const plan = planTiered(t, policy(), lastOptimize + HOUR + 1, state);
    expect(plan.tasks).toHaveLength(1);
    expect(plan.trail.some((s) => s.gate === 'snapshot')).toBe(true);
    expect(planTiered(t, policy(), lastOptimize + HOUR, state).tasks).toEqual([]);
    // the full interval likewise
    const fullState = {
      table: { lastMinorMs: lastOptimize + HOUR, lastFullMs: lastOptimize },
      lastOptimizedSnapshotId: 7n,
    };
    const full = planTiered(t, policy(FULL_ON), lastOptimize + HOUR + 1, fullState);
    expect(full.tasks.map((x) => x.kind)).toEqual(['full']);
  });

  it('trigger clocks are kept per partition: a busy partition does not hold back a quiet one', () => {
    const spec = identitySpec(0, 2);
    const a = [dataFile({ partition: ['a'], size: 1 * MiB }), dataFile({ partition: ['a'], size: 1 * MiB })];
    const b = [dataFile({ partition: ['b'], size: 1 * MiB }), dataFile({ partition: ['b'], size: 1 * MiB })];
    const state = { partitions: { [partitionKey(0, ['a'])]: { lastMinorMs: NOW - 1000 } } };
    const plan = planTiered(makeTable({ specs: [spec], dataFiles: [...a, ...b] }), policy(), NOW, state);
    expect(taskPaths(plan)).toEqual([paths(b)]);
  });

  it('self-optimizing.max-file-count caps what one plan reads (Amoro ignores it)', () => {
    const frags = Array.from({ length: 20 }, () => dataFile({ size: 1 * MiB }));
    const plan = planTiered(makeTable({ dataFiles: frags }), policy({ maxFileCount: 8 }), NOW);
    expect(plan.tasks.map((t) => t.inputs.length)).toEqual([8]);
    expect(plan.trail.find((s) => s.gate === 'max-file-count')!.values).toMatchObject({ deferredTasks: 2 });
  });

  it('a segment whose only delete is already per file (file-scoped or DV) is not converted again', () => {
    const f = dataFile({ size: 120 * MiB, records: 1000, seq: 1 });
    const shared = posDelete({ seq: 2, records: 5 });
    const scoped = posDelete({ seq: 2, records: 5, referencedDataFile: f.path });
    const dv = deletionVector({ seq: 2, records: 5, referencedDataFile: f.path });
    // Two fragments make the partition necessary; then the segment is judged on its own deletes.
    const frags = [dataFile({ size: 1 * MiB, seq: 3 }), dataFile({ size: 1 * MiB, seq: 3 })];
    const kinds = (d: typeof shared | typeof dv) =>
      planTiered(makeTable({ dataFiles: [f, ...frags], deleteFiles: [d] }), policy(), NOW)
        .tasks.map((t) => t.kind)
        .sort();
    expect(kinds(shared)).toEqual(['eq-to-pos', 'minor']); // Amoro's rule: a shared file becomes per file
    expect(kinds(scoped)).toEqual(['minor']);
    expect(kinds(dv)).toEqual(['minor']);
  });
});

describe('self-optimizing.filter', () => {
  const micros = (iso: string) => BigInt(Date.parse(iso)) * 1000n;
  const opTime = micros('2022-01-01T12:00:00Z');
  const file = (lo: number, hi: number) =>
    dataFile({
      size: 4 * KiB,
      stats: {
        lowerBounds: new Map<number, unknown>([
          [1, BigInt(lo)],
          [2, String(lo)],
          [3, opTime],
        ]),
        upperBounds: new Map<number, unknown>([
          [1, BigInt(hi)],
          [2, String(hi)],
          [3, opTime],
        ]),
        nullValueCounts: new Map([[3, 0n]]),
        valueCounts: new Map([[3, 4n]]),
      },
    });
  const table = makeTable({ dataFiles: [file(1, 4), file(5, 8)] });
  const tasksWith = (filter: string) => planTiered(table, policy({ filter }), NOW).tasks.length;

  it('matches Amoro TestOptimizingEvaluator filter cases', () => {
    expect(tasksWith("op_time >= '2022-01-01T12:00:00'")).toBe(1);
    expect(tasksWith("op_time > '2022-01-01T12:00:00'")).toBe(0);
    expect(tasksWith('id > 0')).toBe(1);
    expect(tasksWith('id > 8')).toBe(0);
    expect(tasksWith("name > '0'")).toBe(1);
    expect(tasksWith("name > '8'")).toBe(0);
  });

  it('supports AND / OR / NOT, IN and IS NULL', () => {
    expect(tasksWith('id > 4')).toBe(0); // only one fragment left
    expect(tasksWith('id <= 4 OR id >= 5')).toBe(1);
    expect(tasksWith('NOT (id > 8)')).toBe(1);
    expect(tasksWith('id IN (2, 6)')).toBe(1);
    expect(tasksWith('id IN (2, 3)')).toBe(0);
    expect(tasksWith('op_time IS NULL')).toBe(0);
    expect(tasksWith('op_time IS NOT NULL AND id < 100')).toBe(1);
  });

  it('judges identity-partitioned columns by their partition value', () => {
    const spec = identitySpec(0, 2);
    const t = makeTable({
      specs: [spec],
      dataFiles: [
        dataFile({ partition: ['x'] }),
        dataFile({ partition: ['x'] }),
        dataFile({ partition: ['y'] }),
        dataFile({ partition: ['y'] }),
      ],
    });
    const plan = planTiered(t, policy({ filter: "name = 'y'" }), NOW);
    expect(plan.tasks.map((x) => x.partition)).toEqual([['y']]);
  });

  it('rejects unknown columns and bad syntax, naming the property', () => {
    for (const f of ['nope > 1', 'id >', "name = 'x", 'id > 1 AND']) {
      let err: unknown;
      try {
        planTiered(table, policy({ filter: f }), NOW);
      } catch (e) {
        err = e;
      }
      expect(isFloeError(err, 'InvalidArgument')).toBe(true);
      expect((err as Error).message).toContain('self-optimizing.filter');
    }
  });
});

describe('state', () => {
  it('advanceTieredState stamps the plan time on each planned partition by its strongest task kind', () => {
    const spec = identitySpec(0, 2);
    const a = [dataFile({ partition: ['a'], size: 1 * MiB }), dataFile({ partition: ['a'], size: 1 * MiB })];
    const t = makeTable({ specs: [spec], dataFiles: a });
    const plan = planTiered(t, policy(), NOW);
    const s = advanceTieredState({ partitions: { other: { lastFullMs: 5 } } }, plan);
    expect(s.partitions![partitionKey(0, ['a'])]).toEqual({ lastMinorMs: NOW });
    expect(s.partitions!.other).toEqual({ lastFullMs: 5 });
    expect(s.lastOptimizedSnapshotId).toBe(t.currentSnapshotId);
    // right after, the minor interval is not reached for that partition
    expect(planTiered(t, policy(), NOW + 1000, s).tasks).toEqual([]);
  });

  it('refuses Paimon tables', () => {
    const t = { ...makeTable(), format: 'paimon' as const };
    expect(() => planTiered(t, policy(), NOW)).toThrow(/Iceberg/);
  });
});

describe('floe size-tiered fragment merge (self-optimizing.minor.fragment-size-ratio)', () => {
  // 12 fragments of 100 KiB written since the last merge, and one 1,100 KiB fragment that earlier merges grew
  const small = Array.from({ length: 12 }, (_, i) => dataFile({ path: `s${i}`, size: 100 * KiB }));
  const grown = dataFile({ path: 'grown', size: 1100 * KiB });
  const table = makeTable({ dataFiles: [...small, grown] });

  it('merges the new fragments and lets the grown one wait (12 × 100 KiB = 1,200 KiB ≥ 1,100 KiB joins)', () => {
    // sorted: 100 ×12 then 1100; the running sum reaches 1,200 KiB ≥ 1,100 KiB × 100/101, so the grown
    // fragment joins: it has as many bytes of peers as it holds itself
    const plan = planTiered(table, policy({ fragmentSizeRatioPercent: 1 }), NOW);
    expect(plan.tasks.flatMap((t) => paths(t.inputs)).sort()).toEqual([...paths(small), 'grown'].sort());
  });

  it('keeps the grown fragment out while the new ones hold fewer bytes than it does', () => {
    const big = dataFile({ path: 'big', size: 5 * MiB });
    const plan = planTiered(makeTable({ dataFiles: [...small, big] }), policy({ fragmentSizeRatioPercent: 1 }), NOW);
    // 12 × 100 KiB = 1,200 KiB < 5 MiB / 1.01: only the small ones are merged
    expect(plan.tasks.flatMap((t) => paths(t.inputs)).sort()).toEqual(paths(small).sort());
    expect(plan.tasks[0]!.kind).toBe('minor');
    expect(gates(plan.tasks[0]!).concat(plan.trail.map((s) => `${s.gate}:${s.outcome}`))).toContain('size-tier:skip');
  });

  it('-1 restores Amoro: every fragment is merged, the grown one included', () => {
    const big = dataFile({ path: 'big', size: 5 * MiB });
    const plan = planTiered(makeTable({ dataFiles: [...small, big] }), policy({ fragmentSizeRatioPercent: -1 }), NOW);
    expect(plan.tasks.flatMap((t) => paths(t.inputs)).sort()).toEqual([...paths(small), 'big'].sort());
  });

  it('never holds back a fragment that has deletes to apply', () => {
    const big = dataFile({ path: 'big', size: 5 * MiB, seq: 1 });
    const del = posDelete({ path: 'pd', seq: 2, referencedDataFile: 'big' });
    const plan = planTiered(
      makeTable({ dataFiles: [...small, big], deleteFiles: [del] }),
      policy({ fragmentSizeRatioPercent: 1 }),
      NOW,
    );
    expect(plan.tasks.flatMap((t) => paths(t.inputs))).toContain('big');
  });
});

describe('--explain readability (issue 13.8)', () => {
  it('names every partition the input budget deferred, with its rank, cost and the budget', () => {
    const spec = identitySpec(0, 2);
    const mk = (p: string, n: number) => Array.from({ length: n }, () => dataFile({ partition: [p], size: 10 * MiB }));
    const table = makeTable({ specs: [spec], dataFiles: [...mk('a', 2), ...mk('b', 3), ...mk('c', 4)] });
    const plan = planTiered(table, policy({ maxInputBytesPerThread: 50 * MiB }), NOW);
    const deferred = plan.trail.filter((s) => s.gate === 'deferred');
    expect(deferred.map((s) => s.values?.partition)).toEqual(['p2=b', 'p2=a']);
    expect(deferred[0]!.detail).toBe(
      `partition p2=b (rank 2 of 3, cost ${72 * MiB}, type minor) deferred to a later plan: ` +
        `the partitions ranked above it already use ${96 * MiB} of the ${50 * MiB}-byte input budget`,
    );
    expect(deferred.every((s) => s.outcome === 'skip')).toBe(true);
    expect(plan.tasks[0]!.partitionLabel).toBe('p2=c');
  });

  it('a partition never optimized says so instead of "N ms since … (at 0)"', () => {
    const files = [dataFile({ size: MiB }), dataFile({ size: MiB })];
    const plan = planTiered(makeTable({ dataFiles: files }), policy(FULL_ON), NOW);
    const full = plan.tasks[0]!.trail.find((s) => s.gate === 'full-interval')!;
    expect(full.detail).toMatch(/^never full optimized/);
    expect(full.detail).not.toMatch(/at 0|ms since/);
    const minor = planTiered(makeTable({ dataFiles: files }), policy(), NOW).tasks[0]!.trail.find(
      (s) => s.gate === 'minor-interval',
    )!;
    expect(minor.detail).toMatch(/never minor optimized/);
    const later = planTiered(makeTable({ dataFiles: files }), policy(), NOW, {
      table: { lastMinorMs: NOW - 2 * HOUR },
    });
    const step = later.tasks[0]!.trail.find((s) => s.gate === 'minor-interval')!;
    expect(step.detail).toContain(
      `2h (7200000 ms) since last minor optimize (at ${new Date(NOW - 2 * HOUR).toISOString()})`,
    );
    expect(step.detail).toContain('minor.trigger.interval 1h (3600000 ms)');
  });

  it('day/hour/month partitions and identity date columns print as dates', () => {
    const schema = {
      schemaId: 0,
      fields: [
        { id: 1, name: 'id', required: true, type: { kind: 'primitive' as const, name: 'long' as const } },
        { id: 2, name: 'd', required: false, type: { kind: 'primitive' as const, name: 'date' as const } },
        { id: 3, name: 'ts', required: false, type: { kind: 'primitive' as const, name: 'timestamp' as const } },
      ],
    };
    const day = 19724; // 2024-01-02
    const cases: [string, number, string][] = [
      ['day', day, 'ts_day=2024-01-02'],
      ['hour', day * 24 + 10, 'ts_hour=2024-01-02-10'],
      ['month', (2024 - 1970) * 12, 'ts_month=2024-01'],
      ['year', 2024 - 1970, 'ts_year=2024'],
    ];
    for (const [transform, value, label] of cases) {
      const spec = { specId: 0, fields: [{ sourceId: 3, fieldId: 1000, name: `ts_${transform}`, transform }] };
      const files = [dataFile({ size: MiB, partition: [value] }), dataFile({ size: MiB, partition: [value] })];
      const plan = planTiered(makeTable({ schemas: [schema], specs: [spec], dataFiles: files }), policy(), NOW);
      expect(plan.tasks[0]!.partitionLabel).toBe(label);
      expect(plan.tasks[0]!.trail.find((s) => s.gate === 'rank')!.detail).toContain(`partition ${label} ranked 1`);
    }
    const identity = { specId: 0, fields: [{ sourceId: 2, fieldId: 1000, name: 'd', transform: 'identity' }] };
    const files = [dataFile({ size: MiB, partition: [day] }), dataFile({ size: MiB, partition: [day] })];
    const plan = planTiered(makeTable({ schemas: [schema], specs: [identity], dataFiles: files }), policy(), NOW);
    expect(plan.tasks[0]!.partitionLabel).toBe('d=2024-01-02');
  });
});
