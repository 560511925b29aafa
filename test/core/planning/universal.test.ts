/**
 * Worked examples and one hand-derived case per Paimon option. Each expectation is derived in the comment
 * from the rules of apache/paimon master (UniversalCompaction, EarlyFullCompaction, ForceUpLevel0Compaction,
 * OffPeakHours, MergeTreeCompactManager, CoreOptions), not from running this code.
 * Notation: T = num-sorted-run.compaction-trigger, S = candidate size, sizes in MB (MiB) unless noted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { universal } from '../../../src/index.js';
import type { DataFile, LsmBucket } from '../../../model/index.js';
import type { Run, UniversalOptions, UniversalState } from '../../../src/core/planning/universal/index.js';

const MB = 1024 * 1024;
/** "L0:10 L3:100" → runs in bytes, newest first. */
const runs = (spec: string): Run[] =>
  spec.split(' ').map((t) => {
    const [l, s] = t.slice(1).split(':');
    return { level: Number(l), size: Number(s) * MB };
  });
const mb = (p: { runs: Run[] }) => p.runs.map((r) => r.size / MB);

const EX1 = runs('L0:10 L0:10 L0:10 L3:100 L5:100');
const EX2 = runs('L0:60 L0:60 L0:60 L1:50 L5:100');
const EX3 = runs('L0:1 L0:5 L0:20 L2:80 L3:300 L5:1000');
const EX4 = runs('L0:2 L0:2 L4:3 L5:100');

describe('worked examples (default options, 6 levels)', () => {
  it('[L0:10 ×3, L3:100, L5:100] → the three L0 runs into L2 (30 MB)', () => {
    // 5 runs ≥ T=5. Size amp: 130×100 = 13000 ≤ 200×100 = 20000 → no.
    // Size ratio: S=10; 10×1.01=10.1 ≥ 10 take (S=20); 20.2 ≥ 10 take (S=30); 30.3 < 100 at L3 (≥2) → stop.
    // createUnit(3): first run left out is L3 → output 3−1 = 2. Highest level 5 > 2 → keep deletes.
    const p = universal.pick(6, EX1, {}, 0)!;
    expect(mb(p)).toEqual([10, 10, 10]);
    expect(p.outputLevel).toBe(2);
    expect(p.inputBytes).toBe(30 * MB);
    expect(p.reason).toBe('size-ratio');
    expect(p.dropDelete).toBe(false);
  });

  it('[L0:60 ×3, L1:50, L5:100] → full compaction into L5', () => {
    // Size amp: newer runs 230 → 230×100 = 23000 > 200×100 = 20000 → all runs into max level 5.
    // Output 5 ≥ highest level 5 → deletes dropped.
    const p = universal.pick(6, EX2, {}, 0)!;
    expect(p.runs).toHaveLength(5);
    expect(p.outputLevel).toBe(5);
    expect(p.reason).toBe('size-amplification');
    expect(p.dropDelete).toBe(true);
  });

  it('[L0:1, L0:5, L0:20, L2:80, L3:300, L5:1000] → [1, 5, 20] into L1 (26 MB)', () => {
    // Size amp: 406×100 = 40600 ≤ 200×1000 → no. Size ratio: S=1, 1.01 < 5 and nothing triggered → none.
    // File number: 6 > 5 → start with 6−5+1 = 2 runs, S=6 (triggered); 6.06 < 20 but L0 ≤ 1 → take (S=26);
    // 26.26 < 80 at L2 → stop. createUnit(3): next run L2 → output 1.
    const p = universal.pick(6, EX3, {}, 0)!;
    expect(mb(p)).toEqual([1, 5, 20]);
    expect(p.outputLevel).toBe(1);
    expect(p.inputBytes).toBe(26 * MB);
    expect(p.reason).toBe('file-number');
    expect(p.dropDelete).toBe(false);
  });

  it('[L0:2, L0:2, L4:3, L5:100] → nothing with plain defaults (4 runs < T=5)', () => {
    // Every universal gate needs ≥ T runs, and the file-number fallback needs > T.
    expect(universal.pick(6, EX4, {}, 0)).toBeNull();
  });

  it('[L0:2, L0:2, L4:3, L5:100] → three runs into L4 once level 0 is forced up', () => {
    // compaction.force-up-level-0 (or any lookup mode): universal finds nothing, so forcePickL0 starts with
    // the 2 L0 runs forced (S=4); 4.04 ≥ 3 take L4 (S=7); 7.07 < 100 at L5 → stop. Next run L5 → output 4.
    const p = universal.pick(6, EX4, { forceUpLevel0: true }, 0)!;
    expect(mb(p)).toEqual([2, 2, 3]);
    expect(p.outputLevel).toBe(4);
    expect(p.reason).toBe('force-up-level-0');
    expect(p.dropDelete).toBe(false);
    // The same unit from the four-argument pickForSizeRatio with forcePick, as forcePickL0 calls it.
    expect(universal.pickForSizeRatio(5, EX4, {}, 2, true)!.outputLevel).toBe(4);
  });

  it('records each gate with its running sizes', () => {
    const d = universal.decide(6, EX1, {}, 0);
    const ratio = d.trail.filter((s) => s.gate === 'size-ratio' && s.values?.nextBytes !== undefined);
    expect(ratio.map((s) => [s.values!.candidateBytes, s.values!.nextBytes, s.outcome])).toEqual([
      [10 * MB, 10 * MB, 'pass'],
      [20 * MB, 10 * MB, 'pass'],
      [30 * MB, 100 * MB, 'fail'],
    ]);
    expect(d.trail.find((s) => s.gate === 'size-amplification')!.values).toMatchObject({
      candidateBytes: 130 * MB,
      earliestBytes: 100 * MB,
    });
    expect(d.trail.at(-1)!.gate).toBe('result');
  });
});

describe('createUnit output-level rules', () => {
  it('absorbs following L0 runs and the first non-L0 run, then outputs at its level', () => {
    // runCount 1 → next run L0 → output 0 → absorb L0 (2 runs), then L2 (3 runs) → output 2; 3 < 4 runs.
    const u = universal.createUnit(runs('L0:1 L0:1 L2:1 L4:1'), 5, 1);
    expect(u.runs).toHaveLength(3);
    expect(u.outputLevel).toBe(2);
  });

  it('outputs to the max level when absorption takes every run', () => {
    // Only L0 runs follow: the loop takes all 3 → unit holds every run → max level 5.
    const u = universal.createUnit(runs('L0:1 L0:1 L0:1'), 5, 1);
    expect(u.runs).toHaveLength(3);
    expect(u.outputLevel).toBe(5);
  });
});

describe('options', () => {
  it('defaults: trigger 5, levels trigger+1, amp 200, ratio 1, stop trigger+3, lookup GENTLE interval max(T, 2T)', () => {
    const o = universal.resolveOptions({});
    expect([
      o.numRunCompactionTrigger,
      o.numLevels,
      o.maxSizeAmpPercent,
      o.sizeRatioPercent,
      o.numSortedRunStopTrigger,
    ]).toEqual([5, 6, 200, 1, 8]);
    expect(o.strategy).toBe('universal');
    const t3 = universal.resolveOptions({ numRunCompactionTrigger: 3 });
    expect([t3.numLevels, t3.numSortedRunStopTrigger]).toEqual([4, 6]);
  });

  it('numRunCompactionTrigger=4 makes [L0:2, L0:2, L4:3, L5:100] eligible for size ratio', () => {
    // 4 runs ≥ T=4. Amp: 7×100 = 700 ≤ 200×100. Ratio: S=2; 2.02 ≥ 2 take (S=4, triggered); 4.04 ≥ 3 take (S=7);
    // 7.07 < 100 at L5 → stop. Output = 5−1 = 4.
    const p = universal.pick(6, EX4, { numRunCompactionTrigger: 4 }, 0)!;
    expect(mb(p)).toEqual([2, 2, 3]);
    expect(p.outputLevel).toBe(4);
    expect(p.reason).toBe('size-ratio');
  });

  it('numLevels: a larger tree moves the full compaction deeper; a too-small one is raised to cover the runs', () => {
    // EX2 with 8 levels: size amp → all runs into L7; 7 ≥ highest 5 → drop deletes.
    const p = universal.pick(8, EX2, {}, 0)!;
    expect(p.outputLevel).toBe(7);
    expect(p.dropDelete).toBe(true);
    // Levels raises numLevels to (highest level + 1) = 6 when asked for 4.
    expect(universal.decide(4, EX2, {}, 0).numLevels).toBe(6);
    expect(universal.pick(4, EX2, {}, 0)!.outputLevel).toBe(5);
    expect(() => universal.pick(1, runs('L0:1'), {}, 0)).toThrow(/at least 2/);
  });

  it('maxSizeAmpPercent: the comparison is strict', () => {
    // EX2: 23000 > 229×100 → size amp; 23000 > 230×100 is false → falls to size ratio, which takes every run
    // (60.6 ≥ 60, 121.2 ≥ 60, 181.8 ≥ 50, 232.3 ≥ 100) → L5 all the same, but for another reason.
    expect(universal.pick(6, EX2, { maxSizeAmpPercent: 229 }, 0)!.reason).toBe('size-amplification');
    const p = universal.pick(6, EX2, { maxSizeAmpPercent: 230 }, 0)!;
    expect(p.reason).toBe('size-ratio');
    expect(p.runs).toHaveLength(5);
    expect(p.outputLevel).toBe(5);
  });

  const RATIO = runs('L0:10 L0:11 L0:1 L0:1 L5:1000');

  it('sizeRatioPercent: 10% lets 10 MB absorb exactly 11 MB', () => {
    // Ratio 10: 10×1.10 = 11 is not < 11 → take (S=21), then 1, 1 (S=23); 23.3 < 1000 at L5 → stop; output 4.
    // Amp never fires: 23×100 ≤ 200×1000. Ratio 9: 10.9 < 11 with nothing triggered → none; 5 runs is not > T.
    const p = universal.pick(6, RATIO, { sizeRatioPercent: 10 }, 0)!;
    expect(mb(p)).toEqual([10, 11, 1, 1]);
    expect(p.outputLevel).toBe(4);
    expect(universal.pick(6, RATIO, { sizeRatioPercent: 9 }, 0)).toBeNull();
    expect(universal.pick(6, RATIO, {}, 0)).toBeNull();
  });

  it('offPeak: the extra ratio applies only inside the window (overnight 22→6)', () => {
    // size-ratio 1 + off-peak 9 = 10 at 23:00 → same as the 10% case above; at 12:00 the ratio is 1 → none.
    const o: UniversalOptions = { offPeak: { startHour: 22, endHour: 6, ratioPercent: 9 } };
    expect(universal.pick(6, RATIO, o, { epochMs: 0, hourOfDay: 23 })!.outputLevel).toBe(4);
    expect(universal.pick(6, RATIO, o, { epochMs: 0, hourOfDay: 12 })).toBeNull();
    // Equal hours disable off-peak entirely.
    expect(
      universal.pick(
        6,
        RATIO,
        { offPeak: { startHour: 5, endHour: 5, ratioPercent: 9 } },
        { epochMs: 0, hourOfDay: 5 },
      ),
    ).toBeNull();
  });

  it('optimizationIntervalMs: full compaction when the last one is older than the interval', () => {
    // Interval 1 h. Last full compaction 2 h ago → 7200000 > 3600000 → all EX1 runs into L5, clock reset to now.
    // 30 min ago → not due; the normal result (3 runs into L2) follows. Never compacted (null) → due.
    const now = 10 * 3_600_000;
    const o = { optimizationIntervalMs: 3_600_000 };
    const due = universal.decide(6, EX1, o, now, { lastFullCompactionMs: now - 7_200_000 });
    expect(due.pick!.outputLevel).toBe(5);
    expect(due.pick!.runs).toHaveLength(5);
    expect(due.pick!.reason).toBe('early-full-interval');
    expect(due.state.lastFullCompactionMs).toBe(now);
    expect(universal.pick(6, EX1, o, now, { lastFullCompactionMs: now - 1_800_000 })!.outputLevel).toBe(2);
    expect(universal.pick(6, EX1, o, now, { lastFullCompactionMs: null })!.reason).toBe('early-full-interval');
  });

  it('a size-amp or whole-bucket unit also resets the last full-compaction time (only when early full compaction exists)', () => {
    // EX2 is a size-amp full compaction; with an interval configured, EarlyFullCompaction.updateLastFullCompaction runs.
    const o = { optimizationIntervalMs: 3_600_000 };
    expect(universal.decide(6, EX2, o, 5_000, { lastFullCompactionMs: 4_000 }).state.lastFullCompactionMs).toBe(5_000);
    expect(universal.decide(6, EX2, {}, 5_000, { lastFullCompactionMs: 4_000 }).state.lastFullCompactionMs).toBe(4_000);
  });

  it('totalSizeThreshold: full compaction while the bucket is strictly smaller', () => {
    // EX1 totals 230 MB: < 256 MB → full into L5; 230 MB is not < 230 MB → normal result into L2.
    expect(universal.pick(6, EX1, { totalSizeThreshold: 256 * MB }, 0)!.reason).toBe('early-full-total-size');
    expect(universal.pick(6, EX1, { totalSizeThreshold: 230 * MB }, 0)!.outputLevel).toBe(2);
  });

  it('incrementalSizeThreshold: full compaction once runs outside the max level exceed it', () => {
    // EX1 outside L5: 10+10+10+100 = 130 MB. > 129 MB → full; 130 MB is not > 130 MB → normal result.
    expect(universal.pick(6, EX1, { incrementalSizeThreshold: 129 * MB }, 0)!.reason).toBe(
      'early-full-incremental-size',
    );
    expect(universal.pick(6, EX1, { incrementalSizeThreshold: 130 * MB }, 0)!.outputLevel).toBe(2);
  });

  it('lookup (changelog-producer=lookup, first-row, deletion vectors, force-lookup) wraps universal in ForceUpLevel0', () => {
    for (const o of [
      { changelogProducer: 'lookup' },
      { mergeEngine: 'first-row' },
      { deletionVectorsEnabled: true },
      { forceLookup: true },
    ]) {
      expect(universal.resolveOptions(o).strategy).toBe('force-up-level-0');
      // RADICAL (default): EX4 forced up every time, as in the force-up-level-0 example.
      expect(universal.pick(6, EX4, o, 0)!.outputLevel).toBe(4);
    }
    expect(universal.resolveOptions({ changelogProducer: 'input' }).strategy).toBe('universal');
  });

  const gentleFiresAt = (o: UniversalOptions): number => {
    let state: UniversalState = {};
    for (let i = 1; i <= 50; i++) {
      const d = universal.decide(6, EX4, o, 0, state);
      state = d.state;
      if (d.pick) {
        expect(state.lookupCompactTriggerCount).toBe(0);
        return i;
      }
      expect(state.lookupCompactTriggerCount).toBe(i);
    }
    return -1;
  };

  it('lookupCompact GENTLE: forces L0 up on every max-interval-th empty pick; default interval max(T, 2T) = 10', () => {
    expect(gentleFiresAt({ forceLookup: true, lookupCompact: 'GENTLE' })).toBe(10);
    expect(gentleFiresAt({ forceLookup: true, lookupCompact: 'GENTLE', lookupCompactMaxInterval: 7 })).toBe(7);
  });

  it('lookupCompactMaxInterval below the trigger is raised to it (max(T, interval))', () => {
    expect(gentleFiresAt({ forceLookup: true, lookupCompact: 'GENTLE', lookupCompactMaxInterval: 3 })).toBe(5);
    // GENTLE without lookup has no effect: force-up-level-0 alone never waits.
    expect(universal.resolveOptions({ forceUpLevel0: true, lookupCompact: 'GENTLE' }).forceUpMaxInterval).toBeNull();
  });

  it('numSortedRunStopTrigger: writers stall above it; it never goes below the trigger', () => {
    const nine = runs('L0:1 L0:1 L0:1 L0:1 L0:1 L0:1 L0:1 L0:1 L5:1000');
    expect(universal.decide(6, nine, {}, 0).writerStalled).toBe(true); // 9 > 5+3
    expect(universal.decide(6, nine, { numSortedRunStopTrigger: 9 }, 0).writerStalled).toBe(false);
    expect(universal.resolveOptions({ numSortedRunStopTrigger: 2 }).numSortedRunStopTrigger).toBe(5);
  });

  it('deletionVectorsEnabled drops deletes even below the highest level', () => {
    // EX1 with DVs: the strategy becomes force-up-level-0 but universal already picks 3 runs into L2.
    // 2 < highest 5, yet deletion vectors allow dropping deletes.
    const p = universal.pick(6, EX1, { deletionVectorsEnabled: true }, 0)!;
    expect(p.outputLevel).toBe(2);
    expect(p.dropDelete).toBe(true);
  });

  it('chainTable (forceKeepDelete) always keeps deletes', () => {
    expect(universal.pick(6, EX2, { chainTable: true }, 0)!.dropDelete).toBe(false);
  });

  it('writeOnly never compacts', () => {
    expect(universal.pick(6, EX2, { writeOnly: true }, 0)).toBeNull();
  });

  it('forceRewriteAllFiles: a full compaction of a single max-level run rewrites every file', () => {
    const single: Run<string>[] = [{ level: 5, size: 300 * MB, files: ['a', 'b', 'c'] }];
    expect(universal.pickFull(6, single, {})).toBeNull();
    expect(universal.pickFull(6, single, { forceRewriteAllFiles: true })!.rewriteFiles).toEqual(['a', 'b', 'c']);
    expect(universal.pickFull(6, single, {}, (f) => f === 'b')!.rewriteFiles).toEqual(['b']);
    // More than one run: everything into the max level.
    const all = universal.pickFull(6, EX1, {})!;
    expect([all.outputLevel, all.runs.length, all.rewriteFiles, all.dropDelete]).toEqual([5, 5, null, true]);
  });

  it('parses Paimon dotted names and camelCase', () => {
    const o = universal.parseOptionAssignments([
      'num-sorted-run.compaction-trigger=3',
      'compaction.max-size-amplification-percent=150',
      'compaction.size-ratio=2',
      'compaction.offpeak.start.hour=22',
      'compaction.offpeak.end.hour=6',
      'compaction.offpeak-ratio=20',
      'compaction.optimization-interval=1 h',
      'compaction.total-size-threshold=100 mb',
      'compaction.incremental-size-threshold=1gb',
      'compaction.force-up-level-0=true',
      'lookup-compact=gentle',
      'lookup-compact.max-interval=12',
      'deletion-vectors.enabled=true',
      'numLevels=7',
    ]);
    expect(o).toMatchObject({
      numRunCompactionTrigger: 3,
      maxSizeAmpPercent: 150,
      sizeRatioPercent: 2,
      offPeak: { startHour: 22, endHour: 6, ratioPercent: 20 },
      optimizationIntervalMs: 3_600_000,
      totalSizeThreshold: 100 * MB,
      incrementalSizeThreshold: 1024 * MB,
      forceUpLevel0: true,
      lookupCompact: 'gentle',
      lookupCompactMaxInterval: 12,
      deletionVectorsEnabled: true,
      numLevels: 7,
    });
    expect(universal.resolveOptions(o).forceUpMaxInterval).toBe(12);
    expect(() => universal.parseOptionAssignments(['compaction.nope=1'])).toThrow(/unknown/);
  });
});

describe('MergeTreeCompactManager filtering', () => {
  it('drops a unit whose only file already sits at the output level', () => {
    // The total-size trigger picks every run into L5; the L0 run has no files, so the unit is the one L5 file,
    // already at L5 → nothing to do.
    const rs: Run<string>[] = [
      { level: 0, size: 0, files: [] },
      { level: 5, size: 5 * MB, files: ['f'] },
    ];
    const d = universal.decide(6, rs, { totalSizeThreshold: 1024 * MB }, 0);
    expect(d.pick).toBeNull();
    expect(d.trail.some((s) => s.gate === 'trivial-unit')).toBe(true);
  });

  it('drops a unit with no files', () => {
    const rs: Run<string>[] = [
      { level: 0, size: 0, files: [] },
      { level: 0, size: 0, files: [] },
    ];
    expect(universal.pick(6, rs, { totalSizeThreshold: 1 }, 0)).toBeNull();
  });

  it('rejects runs that are not newest first', () => {
    expect(() => universal.pick(6, runs('L3:1 L0:1'), {}, 0)).toThrow(/newest first/);
    expect(() => universal.pick(6, runs('L2:1 L2:1'), {}, 0)).toThrow(/newest first/);
  });
});

describe('planLsmBucket', () => {
  const file = (name: string, level: number, sizeMb: number, creationTimeMs?: number): DataFile => ({
    content: 'data',
    path: `bucket-0/${name}`,
    format: 'parquet',
    sizeBytes: sizeMb * MB,
    recordCount: 100,
    specId: 0,
    partition: ['2024-01-01'],
    dataSequenceNumber: 0n,
    fileSequenceNumber: 0n,
    lsm: {
      bucket: 0,
      level,
      minKey: [],
      maxKey: [],
      minSequenceNumber: 0n,
      maxSequenceNumber: 0n,
      schemaId: 0,
      creationTimeMs,
    },
  });
  const HOUR = 3_600_000;
  const now = 100 * HOUR;
  // EX1 as files; L3 and L5 hold two files each (a level is one run of several files).
  const bucket = (l5CreatedAt: number): LsmBucket => {
    const l0 = [file('a', 0, 10), file('b', 0, 10), file('c', 0, 10)];
    const l3 = [file('d', 3, 50), file('e', 3, 50)];
    const l5 = [file('f', 5, 60, l5CreatedAt), file('g', 5, 40, l5CreatedAt - HOUR)];
    return {
      partition: ['2024-01-01'],
      bucket: 0,
      runs: [
        ...l0.map((f) => ({ level: 0, files: [f], sizeBytes: f.sizeBytes })),
        { level: 3, files: l3, sizeBytes: 100 * MB },
        { level: 5, files: l5, sizeBytes: 100 * MB },
      ],
    };
  };

  it('maps the picked runs to a universal RewriteTask', () => {
    // Same sizes as EX1 → the three L0 files into L2, deletes kept.
    const task = universal.planLsmBucket(bucket(now), 6, {}, now)!;
    expect(task.kind).toBe('universal');
    expect(task.inputs.map((f) => f.path)).toEqual(['bucket-0/a', 'bucket-0/b', 'bucket-0/c']);
    expect([task.outputLevel, task.dropDelete, task.inputBytes, task.bucket]).toEqual([2, false, 30 * MB, 0]);
    expect(task.partition).toEqual(['2024-01-01']);
    expect(task.targetFileSizeBytes).toBe(128 * MB);
  });

  it('seeds the last full compaction from the newest max-level file, like a restarted Paimon writer', () => {
    // Interval 1 h. Newest L5 file created 30 min ago → not due → normal unit into L2.
    // Created 2 h ago → due → all 7 files into L5, and the returned state records now.
    const o = { optimizationIntervalMs: HOUR };
    expect(universal.planLsmBucket(bucket(now - HOUR / 2), 6, o, now)!.outputLevel).toBe(2);
    const due = universal.planLsmBucketWithState(bucket(now - 2 * HOUR), 6, o, now);
    expect(due.task!.outputLevel).toBe(5);
    expect(due.task!.inputs).toHaveLength(7);
    expect(due.state.lastFullCompactionMs).toBe(now);
    // An explicit state wins over the files.
    expect(
      universal.planLsmBucket(bucket(now - 2 * HOUR), 6, o, now, { lastFullCompactionMs: now - 60_000 })!.outputLevel,
    ).toBe(2);
  });

  it('returns null when Paimon would not compact', () => {
    const b = bucket(now);
    b.runs = b.runs.slice(3); // only L3 and L5: 2 runs < T
    expect(universal.planLsmBucket(b, 6, {}, now)).toBeNull();
  });
});

describe('invariants over random buckets', () => {
  // Properties that follow from Paimon's rules, whatever the sizes: the unit is a prefix of the runs; the output
  // level is never 0, never above the max level, never below a picked run's level, and strictly below the first
  // run left out (the tree stays ordered); with more than T runs the file-number fallback always picks.
  it('hold for any newest-first run list', () => {
    const bucketArb = fc.record({
      l0: fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 8 }),
      higher: fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 5000 })), { minLength: 5, maxLength: 5 }),
      trigger: fc.integer({ min: 1, max: 7 }),
      amp: fc.integer({ min: 0, max: 400 }),
      ratio: fc.integer({ min: 0, max: 50 }),
      forceUp: fc.boolean(),
    });
    fc.assert(
      fc.property(bucketArb, ({ l0, higher, trigger, amp, ratio, forceUp }) => {
        const rs: Run[] = [
          ...l0.map((s) => ({ level: 0, size: s * MB })),
          ...higher.flatMap(([present, s], i) => (present ? [{ level: i + 1, size: s * MB }] : [])),
        ];
        if (rs.length === 0) return;
        const o: UniversalOptions = {
          numRunCompactionTrigger: trigger,
          maxSizeAmpPercent: amp,
          sizeRatioPercent: ratio,
          forceUpLevel0: forceUp,
        };
        const p = universal.pick(6, rs, o, 0);
        if (rs.length > trigger) expect(p).not.toBeNull();
        if (!p) return;
        expect(p.runs).toEqual(rs.slice(0, p.runs.length));
        expect(p.outputLevel).toBeGreaterThanOrEqual(1);
        expect(p.outputLevel).toBeLessThanOrEqual(5);
        for (const r of p.runs) expect(p.outputLevel).toBeGreaterThanOrEqual(r.level);
        if (p.runs.length < rs.length) expect(p.outputLevel).toBeLessThan(rs[p.runs.length]!.level);
        const highest = Math.max(...rs.map((r) => r.level));
        expect(p.dropDelete).toBe(p.outputLevel >= highest);
      }),
      { numRuns: 300 },
    );
  });
});
