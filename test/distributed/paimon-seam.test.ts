/**
 * Issue 12.1 for Paimon: the distributed seam on a Java-Paimon-written table (shared fixture: an append table, two partitions → two tasks) — plan → one
 * rewrite per bucket (in any order, a stalled attempt among them) → one COMPACT commit by the run's commit
 * user, idempotent by run id; only the run's own files are ever removed.
 */
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  abandonCompaction,
  commitCompaction,
  planCompaction,
  rewriteGroup,
  type GroupOutput,
} from '../../src/distributed/seam.js';
import { paimonRunUser } from '../../src/distributed/paimon-seam.js';
import type { MaintenanceJobSpec } from '../../src/orchestration/job-types.js';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import { cleanup, copyFixture, rowsOf } from '../connectors/paimon-compact/helpers.js';

afterEach(cleanup);

const runFiles = (dir: string, runId: string) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((p) => path.basename(p).includes(`floe-run-${runId}-`));

const spec = (t: string): MaintenanceJobSpec => ({ table: t, job: 'compact', compact: { full: true } });

describe('distributed seam (Paimon)', () => {
  it('plans buckets as tasks, rewrites each, commits once by the run’s commit user; rows unchanged', async () => {
    const t = copyFixture('append_table_with_alter_table');
    const rowsBefore = await rowsOf(t);
    const before = await openPaimonTable(t);
    const ref = await planCompaction(spec(t), { runId: 'p-1' });
    expect(ref.format).toBe('paimon');
    expect(ref.baseSnapshotId).toBe(String(before.snapshot!.id));
    expect(ref.taskIds.length).toBeGreaterThanOrEqual(2);
    expect(await planCompaction(spec(t), { runId: 'p-1' })).toEqual(ref);

    const stalled = await rewriteGroup(ref, ref.taskIds[0]!, { attemptId: 'stalled' });
    const outputs: GroupOutput[] = [];
    for (const id of [...ref.taskIds].reverse())
      outputs.push(await rewriteGroup(ref, id, { attemptId: `a-${id.length}` }));
    expect(runFiles(t, 'p-1').length).toBeGreaterThan(0);
    expect((await openPaimonTable(t)).snapshot!.id).toBe(before.snapshot!.id); // nothing referenced yet

    const res = await commitCompaction(ref, JSON.parse(JSON.stringify(outputs)) as GroupOutput[]);
    expect(res.alreadyCommitted).toBe(false);
    expect(res.committedTasks.sort()).toEqual([...ref.taskIds].sort());
    const after = await openPaimonTable(t);
    expect(after.snapshot!.id).toBe(before.snapshot!.id + 1n);
    expect(after.snapshot!.commitKind).toBe('COMPACT');
    expect(after.snapshot!.commitUser).toBe(paimonRunUser('p-1'));
    expect(String(after.snapshot!.id)).toBe(res.snapshotId);
    expect(await rowsOf(t)).toEqual(rowsBefore);
    // the stalled attempt's files are gone; every remaining run file is referenced
    const live = new Set(after.files.map((f) => f.meta.fileName));
    const left = runFiles(t, 'p-1').map((p) => path.basename(p));
    expect(left.every((n) => live.has(n))).toBe(true);
    expect(res.removedFiles.length).toBeGreaterThan(0);
    expect(left.some((n) => n.includes('floe-run-p-1-stalled-'))).toBe(false);
    expect(stalled.rowsOut).toBeGreaterThan(0);
    expect(existsSync(path.join(t, '.floe/runs/p-1/plan.json'))).toBe(false);

    // a retried commit (the worker died before the ack) commits nothing and reports the same snapshot
    const again = await commitCompaction(ref, outputs);
    expect(again).toMatchObject({ alreadyCommitted: true, snapshotId: res.snapshotId });
    expect((await openPaimonTable(t)).snapshot!.id).toBe(after.snapshot!.id);
    expect(await rowsOf(t)).toEqual(rowsBefore);
  });

  it('a missing group commits nothing; giving the run up removes only its own files', async () => {
    const t = copyFixture('append_table_with_alter_table');
    const rowsBefore = await rowsOf(t);
    const before = await openPaimonTable(t);
    const a = await planCompaction(spec(t), { runId: 'pa' });
    const b = await planCompaction(spec(t), { runId: 'pb' });
    const outA = await rewriteGroup(a, a.taskIds[0]!, { attemptId: 'x' });
    await rewriteGroup(b, b.taskIds[0]!, { attemptId: 'y' });
    await expect(commitCompaction(a, [outA])).rejects.toThrow(/no output for task\(s\) .*; nothing committed/);
    expect((await openPaimonTable(t)).snapshot!.id).toBe(before.snapshot!.id);
    await abandonCompaction(a);
    expect(runFiles(t, 'pa')).toEqual([]);
    expect(runFiles(t, 'pb').length).toBeGreaterThan(0);
    // partial progress commits the groups it has
    const res = await commitCompaction(b, [await rewriteGroup(b, b.taskIds[1]!, { attemptId: 'z' })], {
      partialProgress: true,
    });
    expect(res.committedTasks).toEqual([b.taskIds[1]]);
    expect(await rowsOf(t)).toEqual(rowsBefore);
  });
});
