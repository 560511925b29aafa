/**
 * Issue 11.5: the simulator's read cost (per-run and per-file charges) and query penalty (delete files
 * per data file), and the outcome they are for — floe's batched equality→position conversion reads less
 * than Amoro's convert-at-every-minor and leaves readers fewer delete files per data file, in the same
 * simulated run. Hand-sized streams first (expected numbers derived in the comments), then the preset.
 */
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../src/core/planning/plan.js';
import type { TableModel } from '../../../model/index.js';
import {
  DEFAULT_SIZE_MODEL,
  getPreset,
  normalizePolicy,
  normalizeStream,
  simulate,
  simulatePolicy,
  type CommitStreamSpec,
  type PlannerRunner,
  type PolicyResult,
} from '../../../src/core/simulate/index.js';

function byName(results: PolicyResult[], name: string): PolicyResult {
  const r = results.find((x) => x.policy === name);
  if (!r) throw new Error(`no result for ${name}`);
  return r;
}

/** Rewrites every data file with every delete once there is a delete (one task). */
const rewriteAll = (): PlannerRunner => ({
  plan(t: TableModel, nowMs: number): Plan {
    const tasks =
      t.deleteFiles.length === 0
        ? []
        : [
            {
              id: 't1',
              kind: 'major' as const,
              specId: 0,
              partition: [],
              inputs: t.dataFiles,
              deletes: t.deleteFiles,
              removableDeletes: t.deleteFiles,
              targetFileSizeBytes: 300,
              inputBytes: t.dataFiles.reduce((n, f) => n + f.sizeBytes, 0),
              trail: [],
            },
          ];
    return { planner: 'tiered', plannedAtMs: nowMs, tasks, removableDeletes: [], trail: [] };
  },
});

describe('read cost: bytes read plus a per-run and a per-file charge', () => {
  // Base A: 1000 bytes, 100 rows (seq 1). Minute 0: B (500 bytes, 50 rows) and an equality delete of 50
  // bytes (seq 2), removing 30 rows of A. The scripted planner rewrites A and B with the delete.
  const spec: CommitStreamSpec = {
    name: 'charges',
    durationMinutes: 1,
    base: [{ id: 'A', sizeBytes: 1000, records: 100 }],
    commits: [
      {
        atMinute: 0,
        data: [{ id: 'B', sizeBytes: 500, records: 50 }],
        equalityDeletes: [{ sizeBytes: 50, records: 30 }],
      },
    ],
    sizeModel: { fileOpenCostBytes: 100, runCostBytes: 1000, runCostBytesPerLiveFile: 10 },
  };
  const r = simulatePolicy(
    normalizeStream(spec),
    normalizePolicy({ name: 'p', planner: 'tiered', schedule: { everyMinutes: 1 } }),
    {
      planner: rewriteAll,
    },
  );

  it('charges each file a task opens and each committed run', () => {
    // read: A 1000 + B 500 + delete 50 = 1550; opened: 2 data + 1 delete = 3; one run over 3 live files.
    // cost = 1550 + (1000 + 3 × 10) + 3 × 100 = 2880
    expect(r.violations).toEqual([]);
    expect(r.compactionBytesRead).toBe(1550);
    expect(r.filesOpened).toBe(3);
    expect(r.compactionRuns).toBe(1);
    expect(r.compactionReadCost).toBe(2880);
  });

  it('counts the delete files Iceberg attaches to each data file as the query penalty', () => {
    // The periodic schedule first runs at minute 1. Minutes 0 and 1, before compaction: the delete (seq 2)
    // applies to A (seq 1) but not to B (seq 2): 1 / 2. After the minute-1 rewrite (outputs at seq 2, the
    // delete removed): 0.
    expect(r.timeline.map((p) => p.deletesPerDataFile)).toEqual([0.5, 0.5]);
    expect(r.queryPenalty).toEqual({ mean: 0.5, p95: 0.5, max: 0.5, final: 0 });
  });

  it('defaults: 64 KiB per file opened, 256 KiB + 1 KiB per live file per run', () => {
    expect(DEFAULT_SIZE_MODEL.fileOpenCostBytes).toBe(64 * 1024);
    expect(DEFAULT_SIZE_MODEL.runCostBytes).toBe(256 * 1024);
    expect(DEFAULT_SIZE_MODEL.runCostBytesPerLiveFile).toBe(1024);
    const s = normalizeStream({ ...spec, sizeModel: {} });
    expect(s.sizeModel.fileOpenCostBytes).toBe(64 * 1024);
  });
});

describe('upsert-1h: batched equality→position conversion against Amoro, in one simulated run', () => {
  const preset = getPreset('upsert-1h');
  const names = ['amoro-trigger40-5m', 'floe-tiered', 'floe-tiered-ratio-1'];
  const report = simulate(
    preset.stream,
    preset.policies.filter((p) => names.includes(p.name)),
  );
  const amoro = byName(report.results, 'amoro-trigger40-5m');
  const floe = byName(report.results, 'floe-tiered');
  const eager = byName(report.results, 'floe-tiered-ratio-1');

  it('every plan is sound', () => {
    for (const r of report.results) expect(r.violations, r.policy).toEqual([]);
  });

  it('floe reads fewer bytes than Amoro, with and without the per-run and per-file charges', () => {
    expect(floe.compactionBytesRead).toBeLessThan(amoro.compactionBytesRead);
    expect(floe.compactionReadCost).toBeLessThan(amoro.compactionReadCost);
  });

  it('floe leaves readers fewer delete files per data file than Amoro', () => {
    expect(floe.queryPenalty.mean).toBeLessThan(amoro.queryPenalty.mean);
    expect(floe.queryPenalty.max).toBeLessThan(amoro.queryPenalty.max);
  });

  it("floe converts in batches packed by key-column bytes: a small fraction of Amoro's conversion tasks and file opens", () => {
    const conversions = (r: PolicyResult) => r.tasksByKind['eq-to-pos'] ?? 0;
    expect(conversions(floe)).toBeGreaterThan(0);
    expect(conversions(floe) * 10).toBeLessThan(conversions(amoro));
    expect(floe.filesOpened * 5).toBeLessThan(amoro.filesOpened);
  });

  it('a lower delete ratio converts more often: fewer delete files per data file, more bytes read', () => {
    expect(eager.queryPenalty.mean).toBeLessThan(0.9 * amoro.queryPenalty.mean);
    expect(eager.queryPenalty.mean).toBeLessThan(floe.queryPenalty.mean);
    expect(eager.compactionBytesRead).toBeGreaterThan(floe.compactionBytesRead);
  });
});
