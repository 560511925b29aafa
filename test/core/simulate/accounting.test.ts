/**
 * The simulator's bookkeeping on streams small enough to work out by hand. Expected numbers are derived
 * in the comments from the stream, not taken from a run.
 */
import { describe, expect, it } from 'vitest';
import type { Plan, RewriteTask } from '../../../src/core/planning/plan.js';
import type { TableModel } from '../../../model/index.js';
import {
  normalizePolicy,
  normalizeStream,
  simulatePolicy,
  writeAmplification,
  type CommitStreamSpec,
  type PlannerRunner,
  type Policy,
} from '../../../src/core/simulate/index.js';

const MB = 1024 * 1024;

/** Spark-like bin-pack of everything under target, every `every` minutes, target 128 MiB. */
function binpackEvery(every: number, extra: Record<string, string | number> = {}): Policy {
  return normalizePolicy({
    name: `binpack-${every}m`,
    planner: 'binpack',
    properties: { 'target-file-size-bytes': 128 * MB, 'min-input-files': 1, ...extra },
    schedule: { kind: 'periodic', everyMinutes: every },
  });
}

/** A planner the test scripts: `decide` builds the plan from the model. */
function scripted(decide: (t: TableModel, nowMs: number) => Partial<Plan> | undefined): (p: Policy) => PlannerRunner {
  return () => ({
    plan(table, nowMs) {
      const p = decide(table, nowMs) ?? {};
      return {
        planner: 'tiered',
        plannedAtMs: nowMs,
        tasks: p.tasks ?? [],
        removableDeletes: p.removableDeletes ?? [],
        trail: [],
      };
    },
  });
}

function task(partial: Partial<RewriteTask> & Pick<RewriteTask, 'kind' | 'inputs'>): RewriteTask {
  return {
    id: 't1',
    specId: 0,
    partition: [],
    deletes: [],
    removableDeletes: [],
    targetFileSizeBytes: 128 * MB,
    inputBytes: partial.inputs.reduce((n, f) => n + f.sizeBytes, 0),
    trail: [],
    ...partial,
  };
}

describe('accounting: 3 commits of 2 files, bin-pack every 2 minutes', () => {
  // Commits at minutes 1, 2, 3, each two 10 MiB files of 100 rows. Bin-pack (real planner) runs at
  // minutes 2 and 4, after that minute's commit:
  //   m2: 4 files (40 MiB) → 1 file of 40 MiB         read 40, written 40
  //   m3: +2 files → 3 files
  //   m4: 40 + 10 + 10 MiB → 1 file of 60 MiB         read 60, written 60
  // Live data files, sampled at minutes 0..4 after the commits and before that minute's compaction:
  // 0, 2, 4, 3, 3; at the end (after the minute-4 compaction) 1.
  const spec: CommitStreamSpec = {
    name: 'three-commits',
    durationMinutes: 4,
    commits: [1, 2, 3].map((m) => ({ atMinute: m, data: [{ sizeBytes: 10 * MB, records: 100, count: 2 }] })),
  };
  const r = simulatePolicy(normalizeStream(spec), binpackEvery(2));

  it('counts bytes ingested, read and written', () => {
    expect(r.bytesIngested).toBe(60 * MB);
    expect(r.compactionBytesRead).toBe(100 * MB);
    expect(r.compactionBytesWritten).toBe(100 * MB);
    expect(r.writeAmplification).toBeCloseTo(100 / 60, 12);
  });

  it('samples live files every minute and summarises them', () => {
    expect(r.timeline.map((p) => p.liveDataFiles)).toEqual([0, 2, 4, 3, 3]);
    expect(r.liveDataFiles).toEqual({ mean: 12 / 5, p95: 4, max: 4, final: 1 });
    expect(r.timeline.map((p) => p.cumulativeBytesWritten)).toEqual([0, 0, 40 * MB, 40 * MB, 100 * MB]);
  });

  it('counts runs and tasks, and finds no violations', () => {
    expect(r.plannerCalls).toBe(2);
    expect(r.compactionRuns).toBe(2);
    expect(r.tasks).toBe(2);
    expect(r.violations).toEqual([]);
  });
});

describe('write amplification', () => {
  it('is compaction bytes written over bytes ingested', () => {
    expect(writeAmplification(300, 100)).toBe(3);
    expect(writeAmplification(0, 100)).toBe(0);
    expect(writeAmplification(5, 0)).toBe(0);
  });

  it('counts delete files the writers commit as ingested bytes', () => {
    const s = normalizeStream({
      name: 's',
      durationMinutes: 2,
      commits: [
        { atMinute: 0, data: [{ sizeBytes: 1000, records: 10 }], equalityDeletes: [{ sizeBytes: 50, records: 1 }] },
      ],
    });
    const r = simulatePolicy(s, normalizePolicy({ name: 'none', planner: 'none' }));
    expect(r.bytesIngested).toBe(1050);
    expect(r.writeAmplification).toBe(0);
  });
});

describe('delete effects', () => {
  // Base file A: 100 rows, 1000 bytes (seq 1). Minute 0: an equality delete removing 30 rows (seq 2).
  const deletesSpec = (sizeModel = {}): CommitStreamSpec => ({
    name: 'eq',
    durationMinutes: 1,
    base: [{ id: 'A', sizeBytes: 1000, records: 100 }],
    commits: [{ atMinute: 0, equalityDeletes: [{ sizeBytes: 50, records: 30 }] }],
    sizeModel,
  });

  it('a rewrite writes ceil(live bytes / target) files of the live rows and drops the removable delete', () => {
    // Live: 70 rows, 700 bytes; target 300 → 3 files of 234/233/233 bytes, 24/23/23 rows.
    // Read: 1000 (A) + 50 (the delete it applies). Written: 700.
    const r = simulatePolicy(
      normalizeStream(deletesSpec()),
      normalizePolicy({ name: 'p', planner: 'tiered', schedule: { everyMinutes: 1 } }),
      {
        planner: scripted((t) =>
          t.deleteFiles.length === 0
            ? undefined
            : {
                tasks: [
                  task({
                    kind: 'major',
                    inputs: t.dataFiles,
                    deletes: t.deleteFiles,
                    removableDeletes: t.deleteFiles,
                    targetFileSizeBytes: 300,
                  }),
                ],
              },
        ),
      },
    );
    expect(r.violations).toEqual([]);
    expect(r.compactionBytesRead).toBe(1050);
    expect(r.compactionBytesWritten).toBe(700);
    expect(r.liveDataFiles.final).toBe(3);
    expect(r.deleteFiles.final).toBe(0);
    expect(r.finalLiveBytes).toBe(700);
  });

  it('eq-to-pos keeps the data file and replaces the equality delete by a position delete', () => {
    // Size model: 10 bytes/row + 100 bytes/file; key columns are 10 % of a file.
    // New position delete: 30 rows → 100 + 300 = 400 bytes. Read: 0.1 × 1000 + 50 = 150.
    const stream = normalizeStream(
      deletesSpec({ positionDeleteBytesPerRow: 10, positionDeleteFileOverheadBytes: 100, keyColumnReadFraction: 0.1 }),
    );
    let seen: TableModel | undefined;
    const r = simulatePolicy(stream, normalizePolicy({ name: 'p', planner: 'tiered', schedule: { everyMinutes: 1 } }), {
      planner: scripted((t) => {
        seen = t;
        return {
          tasks: [
            task({ kind: 'eq-to-pos', inputs: t.dataFiles, deletes: t.deleteFiles, removableDeletes: t.deleteFiles }),
          ],
        };
      }),
    });
    expect(r.violations).toEqual([]);
    expect(r.compactionBytesRead).toBe(150);
    expect(r.compactionBytesWritten).toBe(400);
    expect(r.liveDataFiles.final).toBe(1);
    expect(r.deleteFiles.final).toBe(1);
    expect(r.finalLiveBytes).toBe(700);
    expect(seen!.deleteFiles[0]!.content).toBe('equality-deletes');
  });

  it('reports a plan that drops a delete a surviving file still needs', () => {
    const r = simulatePolicy(normalizeStream(deletesSpec()), normalizePolicy({ name: 'p', planner: 'tiered' }), {
      planner: scripted((t) => (t.deleteFiles.length ? { removableDeletes: t.deleteFiles } : undefined)),
    });
    expect(r.violations.some((v) => v.includes('resurrects 30 deleted rows'))).toBe(true);
    expect(r.violations.some((v) => v.includes('live rows from 70 to 100'))).toBe(true);
  });

  it('reports a rewrite that does not apply a delete of its input', () => {
    const r = simulatePolicy(normalizeStream(deletesSpec()), normalizePolicy({ name: 'p', planner: 'tiered' }), {
      planner: scripted((t) =>
        t.deleteFiles.length ? { tasks: [task({ kind: 'major', inputs: t.dataFiles })] } : undefined,
      ),
    });
    expect(r.violations.some((v) => v.includes('without applying'))).toBe(true);
  });

  it('spreads equality-deleted rows over older files by live rows, and a position delete hits its target only', () => {
    // Base: B1 100 rows, B2 300 rows. Minute 0: new file N (200 rows), an eq delete of 40 rows (→ 10 from
    // B1, 30 from B2, none from N: same sequence number), and a position delete of 5 rows of N.
    const stream = normalizeStream({
      name: 'spread',
      durationMinutes: 1,
      base: [
        { id: 'B1', sizeBytes: 1000, records: 100 },
        { id: 'B2', sizeBytes: 3000, records: 300 },
      ],
      commits: [
        {
          atMinute: 0,
          data: [{ id: 'N', sizeBytes: 2000, records: 200 }],
          equalityDeletes: [{ sizeBytes: 10, records: 40 }],
          positionDeletes: [{ sizeBytes: 10, records: 5, target: 0 }],
        },
      ],
    });
    let model: TableModel | undefined;
    simulatePolicy(stream, normalizePolicy({ name: 'p', planner: 'tiered' }), {
      planner: scripted((t) => {
        model = t;
        return undefined;
      }),
    });
    expect(model).toBeDefined();
    // Rewrite each file alone with a tiny target to read back its live rows through the accounting.
    const rows: Record<string, number> = {};
    for (const f of model!.dataFiles) {
      const r = simulatePolicy(stream, normalizePolicy({ name: 'p', planner: 'tiered' }), {
        planner: scripted((t) => {
          const me = t.dataFiles.find((x) => x.path === f.path);
          return me
            ? { tasks: [task({ kind: 'major', inputs: [me], deletes: t.deleteFiles, targetFileSizeBytes: 1e9 })] }
            : undefined;
        }),
      });
      rows[f.path.replace(/.*\//, '')] = r.compactionBytesWritten / (f.sizeBytes / f.recordCount);
    }
    expect(rows).toEqual({ 'B1.parquet': 90, 'B2.parquet': 270, 'N.parquet': 195 });
    const pos = model!.deleteFiles.find((d) => d.content === 'position-deletes');
    expect(pos && 'referencedDataFile' in pos ? pos.referencedDataFile : undefined).toMatch(/N\.parquet$/);
    expect(model!.deleteFiles.map((d) => d.dataSequenceNumber)).toEqual([2n, 2n]);
    expect(model!.dataFiles.map((d) => d.dataSequenceNumber)).toEqual([1n, 1n, 2n]);
  });
});
