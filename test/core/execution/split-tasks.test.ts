import { describe, expect, it } from 'vitest';
import type { DataFile, DeleteFile } from '../../../model/index.js';
import type { Plan, RewriteTask } from '../../../src/core/planning/plan.js';
import { splitOversizedTasks, splitTask } from '../../../src/core/execution/split-tasks.js';

const MB = 1024 * 1024;
const file = (i: number, sizeBytes: number): DataFile => ({
  content: 'data',
  path: `s3://b/t/data/f${i}.parquet`,
  format: 'parquet',
  sizeBytes,
  recordCount: 10,
  specId: 0,
  partition: [],
  dataSequenceNumber: 1n,
  fileSequenceNumber: 1n,
});
const posDelete = { content: 'position', path: 's3://b/t/data/d1.parquet' } as unknown as DeleteFile;

function task(sizes: number[], extra: Partial<RewriteTask> = {}): RewriteTask {
  const inputs = sizes.map((s, i) => file(i, s));
  return {
    id: 't1',
    kind: 'major',
    specId: 0,
    partition: [],
    inputs,
    deletes: [posDelete],
    removableDeletes: [posDelete],
    targetFileSizeBytes: 100 * MB,
    inputBytes: inputs.reduce((n, f) => n + f.sizeBytes, 0),
    expectedOutputFiles: 5,
    trail: [],
    ...extra,
  };
}

describe('splitTask', () => {
  it('leaves tasks up to factor × target alone', () => {
    const t = task(Array(40).fill(10 * MB)); // 400 MB = 4 × target
    expect(splitTask(t, 4)).toEqual([t]);
  });

  it('splits a big task into runs of inputs of at most the target, in input order, every input exactly once', () => {
    const sizes = [...Array(120).fill(4 * MB), 250 * MB, ...Array(30).fill(7 * MB)];
    const t = task(sizes);
    const parts = splitTask(t, 4);
    expect(parts.map((p) => p.inputs.length)).toEqual([25, 25, 25, 25, 20, 1, 14, 14, 2]);
    expect(parts.flatMap((p) => p.inputs)).toEqual(t.inputs);
    for (const p of parts) {
      expect(p.inputBytes).toBe(p.inputs.reduce((n, f) => n + f.sizeBytes, 0));
      if (p.inputs.length > 1) expect(p.inputBytes).toBeLessThanOrEqual(100 * MB);
      expect(p.deletes).toEqual([posDelete]);
      expect(p.removableDeletes).toEqual([]);
      expect(p.expectedOutputFiles).toBeUndefined();
      expect(p.trail.at(-1)).toMatchObject({ gate: 'split', outcome: 'info' });
    }
    expect(new Set(parts.map((p) => p.id)).size).toBe(parts.length);
    expect(parts[0]!.id).toBe('t1.1');
  });

  it('never splits sorted tasks, eq-to-pos conversions or Paimon LSM tasks', () => {
    const big = Array(100).fill(10 * MB);
    for (const extra of [
      { order: { kind: 'zorder', columns: [] } } as unknown as Partial<RewriteTask>,
      { kind: 'eq-to-pos' } as Partial<RewriteTask>,
      { bucket: 0, outputLevel: 5 },
    ]) {
      const t = task(big, extra);
      expect(splitTask(t)).toEqual([t]);
    }
  });
});

describe('splitOversizedTasks', () => {
  it('moves a split task’s removable deletes to the plan’s table-wide list (settled after every part commits)', () => {
    const small = { ...task([10 * MB, 10 * MB]), id: 'small' };
    const big = task(Array(100).fill(10 * MB));
    const plan: Plan = { planner: 'binpack', plannedAtMs: 0, tasks: [small, big], removableDeletes: [], trail: [] };
    const out = splitOversizedTasks(plan);
    expect(out.tasks[0]).toBe(small);
    expect(out.tasks.length).toBe(1 + 10);
    expect(out.removableDeletes).toEqual([posDelete]);
    expect(small.removableDeletes).toEqual([posDelete]); // the small task still drops its own
    expect(splitOversizedTasks({ ...plan, tasks: [small] }).tasks).toEqual([small]);
  });
});
