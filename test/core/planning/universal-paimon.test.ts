/**
 * Paimon's own picker tests (apache/paimon master, paimon-core/src/test/.../mergetree/compact/
 * UniversalCompactionTest, ForceUpLevel0CompactionTest, EarlyFullCompactionTest, OffPeakHoursTest),
 * re-expressed with their inputs and expected outputs. Sizes are bytes; each run holds one file.
 */
import { describe, expect, it } from 'vitest';
import { universal } from '../../../src/index.js';
import type { Run, UniversalOptions, UniversalState } from '../../../src/core/planning/universal/index.js';

/** LevelSortedRun(level, SortedRun.fromSingle(file(size))). */
const level = (l: number, size: number): Run<number> => ({ level: l, size, files: [size] });
const level0 = (...sizes: number[]): Run<number>[] => sizes.map((s) => level(0, s));
/** ofTesting(maxSizeAmp, sizeRatio, trigger): no early full compaction, no off-peak. */
const ofTesting = (
  maxSizeAmpPercent: number,
  sizeRatioPercent: number,
  numRunCompactionTrigger: number,
): UniversalOptions => ({
  maxSizeAmpPercent,
  sizeRatioPercent,
  numRunCompactionTrigger,
});
const fileSizes = (runs: Run<number>[]): number[] => runs.flatMap((r) => [...(r.files ?? [])]);

describe('UniversalCompactionTest', () => {
  it('testOutputLevel: createUnit over levels 0,0,1,3,4 with max level 5', () => {
    const runs = [0, 0, 1, 3, 4].map((l) => level(l, 1));
    expect(universal.createUnit(runs, 5, 1).outputLevel).toBe(1);
    expect(universal.createUnit(runs, 5, 2).outputLevel).toBe(1);
    expect(universal.createUnit(runs, 5, 3).outputLevel).toBe(2);
    expect(universal.createUnit(runs, 5, 4).outputLevel).toBe(3);
    expect(universal.createUnit(runs, 5, 5).outputLevel).toBe(5);
  });

  it('testPick: by size amplification, size ratio and file number', () => {
    const o = ofTesting(25, 1, 3);
    expect(fileSizes(universal.pick(3, level0(1, 2, 3, 3), o, 0)!.runs)).toEqual([1, 2, 3, 3]);
    expect(fileSizes(universal.pick(4, [level(0, 1), level(1, 1), level(2, 1), level(3, 50)], o, 0)!.runs)).toEqual([
      1, 1, 1,
    ]);
    // "3 should be in the candidate, by size ratio after picking by file num"
    expect(fileSizes(universal.pick(4, [level(0, 1), level(1, 2), level(2, 3), level(3, 50)], o, 0)!.runs)).toEqual([
      1, 2, 3,
    ]);
  });

  it('testOptimizedCompactionInterval: interval 1000 ms, state carried between picks', () => {
    const o: UniversalOptions = { ...ofTesting(100, 1, 3), optimizationIntervalMs: 1000 };
    const small = [level(0, 1), level(1, 3), level(2, 5)];
    let state: UniversalState = {};
    const at = (now: number, runs: Run<number>[]) => {
      const d = universal.decide(3, runs, o, now, state);
      state = d.state;
      return d.pick;
    };
    expect(fileSizes(at(0, small)!.runs)).toEqual([1, 3, 5]); // first time: forced
    expect(fileSizes(at(1001, small)!.runs)).toEqual([1, 3, 5]); // interval elapsed
    expect(at(1001, small)).toBeNull(); // just compacted
    expect(fileSizes(at(1500, [level(0, 3), level(1, 3), level(2, 5)])!.runs)).toEqual([3, 3, 5]); // size amp
    expect(at(2001, small)).toBeNull(); // size amp reset the clock at 1500
  });

  it('testTotalSizeThreshold: 10 bytes', () => {
    const o: UniversalOptions = { ...ofTesting(100, 1, 3), totalSizeThreshold: 10 };
    expect(fileSizes(universal.pick(3, [level(0, 1), level(1, 3), level(2, 5)], o, 0)!.runs)).toEqual([1, 3, 5]);
    expect(universal.pick(3, [level(0, 2), level(1, 6), level(2, 10)], o, 0)).toBeNull();
    expect(universal.pick(3, [level(3, 5)], o, 0)).toBeNull();
  });

  it('testNoOutputLevel0', () => {
    const o = ofTesting(25, 1, 3);
    expect(fileSizes(universal.pick(3, [level(0, 1), level(0, 1), level(1, 1), level(2, 50)], o, 0)!.runs)).toEqual([
      1, 1, 1,
    ]);
    expect(fileSizes(universal.pick(3, [level(0, 1), level(0, 2), level(1, 3), level(2, 50)], o, 0)!.runs)).toEqual([
      1, 2, 3,
    ]);
  });

  it('testFileNumCompactionConsidersLevel2 (master #9185)', () => {
    const p = universal.pick(3, [level(0, 10), level(0, 20), level(1, 97), level(2, 100)], ofTesting(200, 1, 3), 0)!;
    expect(p.runs).toHaveLength(4);
    expect(p.outputLevel).toBe(2);
  });

  it('testExtremeCaseNoOutputLevel0', () => {
    const p = universal.pick(6, level0(1, 1, 1, 1024, 1024 * 1024), ofTesting(200, 1, 5), 0)!;
    expect(fileSizes(p.runs)).toEqual([1, 1, 1, 1024, 1024 * 1024]);
    expect(p.outputLevel).toBe(5);
  });

  it('testSizeAmplification: trigger 1, amp 25%, ratio 0, one new 1-byte run per round', () => {
    const o = ofTesting(25, 0, 1);
    let sizes = [1];
    const round = () => {
      sizes = [1, ...sizes];
      const unit = universal.pickForSizeAmp(3, level0(...sizes), o);
      if (unit) sizes = [unit.runs.reduce((n, r) => n + r.size, 0)];
      return sizes;
    };
    const expected = [
      [2],
      [3],
      [4],
      [1, 4],
      [6],
      [1, 6],
      [8],
      [1, 8],
      [1, 1, 8],
      [11],
      [1, 11],
      [1, 1, 11],
      [14],
      [1, 14],
      [1, 1, 14],
      [1, 1, 1, 14],
      [18],
    ];
    for (const e of expected) expect(round()).toEqual(e);
  });

  /** Paimon's helper: runs at levels 0..n-1, pickForSizeRatio(n, runs); compacted sizes removed by value, sum prepended. */
  const pickForSizeRatioSizes = (o: UniversalOptions, sizes: number[]): number[] => {
    const unit = universal.pickForSizeRatio(
      sizes.length,
      sizes.map((s, i) => level(i, s)),
      o,
    );
    if (!unit) return sizes;
    const compact = fileSizes(unit.runs);
    const rest = [...sizes];
    for (const c of compact) rest.splice(rest.indexOf(c), 1);
    return [compact.reduce((a, b) => a + b, 0), ...rest];
  };

  it('testSizeRatio: trigger 5, ratio 1%', () => {
    const o = ofTesting(25, 1, 5);
    let sizes = [1, 1, 1, 1];
    const expected = [
      [5],
      [1, 5],
      [1, 1, 5],
      [1, 1, 1, 5],
      [4, 5],
      [1, 4, 5],
      [1, 1, 4, 5],
      [3, 4, 5],
      [1, 3, 4, 5],
      [2, 3, 4, 5],
      [1, 2, 3, 4, 5],
      [16],
      [1, 16],
      [1, 1, 16],
      [1, 1, 1, 16],
      [4, 16],
      [1, 4, 16],
      [1, 1, 4, 16],
      [3, 4, 16],
      [1, 3, 4, 16],
      [2, 3, 4, 16],
      [1, 2, 3, 4, 16],
      [11, 16],
    ];
    for (const e of expected) {
      sizes = pickForSizeRatioSizes(o, [1, ...sizes]);
      expect(sizes).toEqual(e);
    }
  });

  it('testSizeRatioThreshold', () => {
    expect(pickForSizeRatioSizes(ofTesting(25, 10, 2), [8, 9, 10])).toEqual([8, 9, 10]);
    expect(pickForSizeRatioSizes(ofTesting(25, 20, 2), [8, 9, 10])).toEqual([27]);
  });

  it('testLookup: ForceUpLevel0Compaction without max interval', () => {
    const o: UniversalOptions = { ...ofTesting(25, 1, 3), forceUpLevel0: true };
    let p = universal.pick(3, level0(1, 2, 2, 2), o, 0)!;
    expect(fileSizes(p.runs)).toEqual([1, 2, 2, 2]);
    expect(p.outputLevel).toBe(2);
    p = universal.pick(3, [level(0, 1), level(1, 2), level(2, 2)], o, 0)!;
    expect(fileSizes(p.runs)).toEqual([1, 2, 2]);
    expect(p.outputLevel).toBe(2);
    p = universal.pick(3, [level(0, 1), level(2, 2)], o, 0)!;
    expect(fileSizes(p.runs)).toEqual([1]);
    expect(p.outputLevel).toBe(1);
  });

  it('testForcePickL0: GENTLE lookup with max interval 5 forces L0 up every 5th empty pick', () => {
    const o: UniversalOptions = {
      ...ofTesting(25, 1, 5),
      forceLookup: true,
      lookupCompact: 'GENTLE',
      lookupCompactMaxInterval: 5,
    };
    let state: UniversalState = {};
    const cases: [Run<number>[], number[], number][] = [
      [level0(1, 2, 2, 2), [1, 2, 2, 2], 2],
      [[level(0, 2), level(1, 2), level(2, 2)], [2, 2, 2], 2],
      [[level(0, 1), level(2, 2)], [1], 1],
    ];
    for (const [runs, files, out] of cases) {
      for (let i = 1; i <= 5; i++) {
        const d = universal.decide(3, runs, o, 0, state);
        state = d.state;
        if (i < 5) {
          expect(d.pick).toBeNull();
        } else {
          expect(fileSizes(d.pick!.runs)).toEqual(files);
          expect(d.pick!.outputLevel).toBe(out);
        }
      }
    }
  });
});

describe('ForceUpLevel0CompactionTest', () => {
  const o: UniversalOptions = { ...ofTesting(200, 1, 5), forceUpLevel0: true };

  it('testForceCompaction0', () => {
    expect(universal.pick(3, [level(0, 1), level(0, 1)], o, 0)!.outputLevel).toBe(2);
    expect(universal.pick(3, [level(0, 1), level(1, 10)], o, 0)!.outputLevel).toBe(2);
    expect(universal.pick(3, [level(0, 1), level(0, 5), level(2, 10)], o, 0)!.outputLevel).toBe(1);
    expect(universal.pick(3, [level(2, 10)], o, 0)).toBeNull();
    expect(universal.pick(3, [level(0, 1), level(0, 5), level(0, 10), level(0, 20)], o, 0)!.outputLevel).toBe(2);
  });

  it('testForceCompaction0ConsidersLevel2', () => {
    let p = universal.pick(3, [level(0, 1), level(1, 99), level(2, 100)], o, 0)!;
    expect(p.runs).toHaveLength(3);
    expect(p.outputLevel).toBe(2);
    p = universal.pick(3, [level(0, 1), level(1, 99), level(2, 102)], o, 0)!;
    expect(p.runs).toHaveLength(2);
    expect(p.outputLevel).toBe(1);
  });
});

describe('EarlyFullCompactionTest', () => {
  const runs = (...sizes: number[]) => level0(...sizes);
  const tryFull = (o: UniversalOptions, rs: Run<number>[], now: number, last?: number | null) =>
    universal.tryEarlyFullCompaction(5, rs, o, now, { lastFullCompactionMs: last });

  it('is created only when an option is set', () => {
    expect(universal.resolveOptions({}).earlyFullCompaction).toBe(false);
    expect(universal.resolveOptions({ optimizationIntervalMs: 3_600_000 }).earlyFullCompaction).toBe(true);
    expect(universal.resolveOptions({ totalSizeThreshold: 100 * 1024 * 1024 }).earlyFullCompaction).toBe(true);
    expect(universal.resolveOptions({ incrementalSizeThreshold: 1 }).earlyFullCompaction).toBe(true);
  });

  it('testSingleRun / testNoOptions', () => {
    expect(tryFull({ optimizationIntervalMs: 1000, totalSizeThreshold: 1000 }, runs(100), 0).unit).toBeNull();
    expect(tryFull({}, runs(100, 200), 0).unit).toBeNull();
  });

  it('testIntervalDoesNotRetriggerWhenSeededRecent', () => {
    const o = { optimizationIntervalMs: 1000 };
    expect(tryFull(o, runs(100, 200), 10_000, 9_500).unit).toBeNull();
    expect(tryFull(o, runs(100, 200), 10_501, 9_500).unit!.outputLevel).toBe(4);
  });

  it('testIntervalTriggersWhenSeededOld', () => {
    expect(tryFull({ optimizationIntervalMs: 1000 }, runs(100, 200), 10_000, 5_000).unit!.outputLevel).toBe(4);
  });

  it('testInterval', () => {
    const o = { optimizationIntervalMs: 1000 };
    const first = tryFull(o, runs(100, 200), 10_000, null);
    expect(first.unit!.outputLevel).toBe(4);
    expect(first.unit!.runs).toHaveLength(2);
    expect(first.lastFullCompactionMs).toBe(10_000);
    expect(tryFull(o, runs(100, 200), 10_500, first.lastFullCompactionMs).unit).toBeNull();
    const again = tryFull(o, runs(100, 200), 11_001, first.lastFullCompactionMs);
    expect(again.unit!.outputLevel).toBe(4);
    expect(again.unit!.runs).toHaveLength(2);
  });

  it('testTotalSizeThreshold: strictly below 1000', () => {
    const o = { totalSizeThreshold: 1000 };
    const u = tryFull(o, runs(100, 200), 0).unit!;
    expect(u.outputLevel).toBe(4);
    expect(u.runs).toHaveLength(2);
    expect(tryFull(o, runs(500, 500), 0).unit).toBeNull();
    expect(tryFull(o, runs(500, 1000), 0).unit).toBeNull();
  });

  it('testIncrementalSizeThreshold: runs outside the max level above 500', () => {
    const o = { incrementalSizeThreshold: 500 };
    expect(tryFull(o, runs(400, 200), 0).unit!.runs).toHaveLength(2);
    expect(tryFull(o, runs(100, 200), 0).unit).toBeNull();
    expect(tryFull(o, [level(0, 100), level(0, 300), level(4, 500)], 0).unit).toBeNull();
    const u = tryFull(o, [level(0, 100), level(0, 300), level(0, 300), level(4, 500)], 0).unit!;
    expect(u.outputLevel).toBe(4);
    expect(u.runs).toHaveLength(4);
  });

  it('testIntervalTriggersFirst', () => {
    expect(
      tryFull({ optimizationIntervalMs: 1000, totalSizeThreshold: 500 }, runs(300, 300), 10_000, null).unit!
        .outputLevel,
    ).toBe(4);
  });

  it('testThresholdTriggersWhenIntervalFails', () => {
    const o = { optimizationIntervalMs: 1000, totalSizeThreshold: 500 };
    const first = tryFull(o, runs(10, 20), 10_000, null);
    expect(first.unit).not.toBeNull();
    expect(tryFull(o, runs(30, 30), 10_500, first.lastFullCompactionMs).unit!.outputLevel).toBe(4);
    expect(tryFull(o, runs(300, 300), 10_500, first.lastFullCompactionMs).unit).toBeNull();
  });

  it('testUpdateLastWhenFullCompactIsTriggeredByTotalSize', () => {
    const o = { optimizationIntervalMs: 1000, totalSizeThreshold: 500 };
    const a = tryFull(o, runs(300, 300), 10_000, null);
    expect(a.unit!.outputLevel).toBe(4);
    const b = tryFull(o, runs(300, 100), 10_100, a.lastFullCompactionMs);
    expect(b.unit!.outputLevel).toBe(4);
    expect(b.lastFullCompactionMs).toBe(10_100);
    expect(tryFull(o, runs(300, 300), 11_001, b.lastFullCompactionMs).unit).toBeNull();
  });

  it('testUpdateLastWhenFullCompactIsTriggeredByIncSize', () => {
    const o = { optimizationIntervalMs: 1000, incrementalSizeThreshold: 500 };
    const a = tryFull(o, runs(300, 100), 10_000, null);
    expect(a.unit!.outputLevel).toBe(4);
    const b = tryFull(o, runs(300, 300), 10_100, a.lastFullCompactionMs);
    expect(b.unit!.outputLevel).toBe(4);
    expect(tryFull(o, runs(300, 100), 11_001, b.lastFullCompactionMs).unit).toBeNull();
  });
});

describe('OffPeakHoursTest (ratio 10)', () => {
  const window = (startHour: number, endHour: number) =>
    universal.resolveOptions({ offPeak: { startHour, endHour, ratioPercent: 10 } }).offPeak;

  it('is disabled by default, with either hour at -1, or equal hours', () => {
    expect(universal.resolveOptions({}).offPeak).toBeNull();
    expect(window(-1, -1)).toBeNull();
    expect(window(5, 5)).toBeNull();
    expect(window(2, -1)).toBeNull();
    expect(window(-1, 2)).toBeNull();
  });

  it('normal window [2, 8)', () => {
    const w = window(2, 8);
    expect([1, 2, 5, 7, 8, 9].map((h) => universal.offPeakRatio(w, h))).toEqual([0, 10, 10, 10, 0, 0]);
  });

  it('overnight window [22, 6)', () => {
    const w = window(22, 6);
    expect([21, 22, 23, 0, 5, 6, 10, 7].map((h) => universal.offPeakRatio(w, h))).toEqual([0, 10, 10, 10, 10, 0, 0, 0]);
  });
});
