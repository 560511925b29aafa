/**
 * Issue 12.1: the distributed seam — plan → rewrite groups (in any order, retried) → one idempotent commit.
 */
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  commitCompaction,
  planCompaction,
  rewriteGroup,
  RUN_ID_PROPERTY,
  type GroupOutput,
} from '../../src/distributed/seam.js';
import type { MaintenanceJobSpec } from '../../src/orchestration/job-types.js';
import { smallTable, type SmallTable } from './small-table.js';

let t: SmallTable | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

const fsPath = (p: string) => (p.startsWith('file:') ? new URL(p).pathname : p);
const dataFilesOnDisk = (dir: string) =>
  readdirSync(path.join(dir, 'data'), { recursive: true })
    .map(String)
    .filter((p) => p.endsWith('.parquet'));

describe('distributed seam (Iceberg)', () => {
  it('plans to a small reference, rewrites each group, commits once with the run id; rows unchanged', async () => {
    t = await smallTable();
    const rowsBefore = await t.rows();
    const before = await t.shape();
    const spec: MaintenanceJobSpec = {
      table: t.dir,
      job: 'compact',
      compact: { strategy: 'binpack' },
      properties: { 'min-input-files': '2' },
    };
    const ref = await planCompaction(spec, { runId: 'run-1' });
    expect(ref.taskIds.length).toBe(2);
    expect(JSON.stringify(ref).length).toBeLessThan(4000);
    const planFile = path.join(t.dir, '.floe/runs/run-1/plan.json');
    expect(existsSync(planFile)).toBe(true);
    // planning again with the same run id returns the same plan
    expect(await planCompaction(spec, { runId: 'run-1' })).toEqual(ref);

    const outputs: GroupOutput[] = [];
    // a first attempt of one task whose worker "stalled": its files must not be committed, and are removed
    const stalled = await rewriteGroup(ref, ref.taskIds[0]!, { attemptId: 'a-stalled' });
    for (const id of [...ref.taskIds].reverse()) outputs.push(await rewriteGroup(ref, id, { attemptId: `a-${id}` }));
    const names = outputs.flatMap((o) => o.files.map((f) => String(f.path)));
    for (const n of names) expect(path.basename(n)).toMatch(/^floe-run-run-1-a-/);
    JSON.parse(JSON.stringify(outputs)); // plain JSON
    expect((await t.shape()).snapshots.length).toBe(before.snapshots.length); // nothing referenced yet

    const res = await commitCompaction(ref, JSON.parse(JSON.stringify(outputs)) as GroupOutput[]);
    expect(res.alreadyCommitted).toBe(false);
    expect(res.committedTasks.sort()).toEqual([...ref.taskIds].sort());
    const after = await t.shape();
    expect(after.snapshots.length).toBe(before.snapshots.length + 1);
    const snap = after.snapshots.at(-1)!;
    expect(snap.id).toBe(res.snapshotId);
    expect(snap.operation).toBe('replace');
    expect(snap.summary[RUN_ID_PROPERTY]).toBe('run-1');
    expect(after.dataFiles).toBe(2);
    expect(await t.rows()).toEqual(rowsBefore);
    // the stalled attempt's files are gone, the committed ones stay; the run directory is removed
    for (const f of stalled.files) expect(existsSync(fsPath(String(f.path)))).toBe(false);
    expect(res.removedFiles.length).toBe(stalled.files.length);
    expect(dataFilesOnDisk(t.dir).filter((p) => path.basename(p).startsWith('floe-run-')).length).toBe(names.length);
    expect(existsSync(planFile)).toBe(false);

    // a retried commit (worker killed before the ack) commits nothing and reports the same snapshot
    const again = await commitCompaction(ref, outputs);
    expect(again).toMatchObject({ alreadyCommitted: true, snapshotId: res.snapshotId });
    expect((await t.shape()).snapshots.length).toBe(after.snapshots.length);
    expect(await t.rows()).toEqual(rowsBefore);
  });

  it("without partial progress a missing group commits nothing; another run's files are never touched", async () => {
    t = await smallTable();
    const rowsBefore = await t.rows();
    const spec: MaintenanceJobSpec = {
      table: t.dir,
      job: 'compact',
      compact: { strategy: 'binpack' },
      properties: { 'min-input-files': '2' },
    };
    const a = await planCompaction(spec, { runId: 'run-a' });
    const b = await planCompaction(spec, { runId: 'run-b' });
    const outA = await rewriteGroup(a, a.taskIds[0]!, { attemptId: 'x' });
    const outB = await rewriteGroup(b, b.taskIds[0]!, { attemptId: 'y' });
    await expect(commitCompaction(a, [outA])).rejects.toThrow(/no output for task\(s\) .*; nothing committed/);
    const shape = await t.shape();
    expect(shape.snapshots.every((s) => s.summary[RUN_ID_PROPERTY] === undefined)).toBe(true);
    // partial progress commits the one group; run b's file stays where it is
    const res = await commitCompaction(a, [outA], { partialProgress: true });
    expect(res.committedTasks).toEqual([a.taskIds[0]]);
    expect(await t.rows()).toEqual(rowsBefore);
    for (const f of outB.files) expect(existsSync(fsPath(String(f.path)))).toBe(true);
  });

  it('a cancelled rewrite removes what it wrote and throws the cancelled error', async () => {
    t = await smallTable();
    const ref = await planCompaction(
      { table: t.dir, job: 'compact', compact: { strategy: 'binpack' }, properties: { 'min-input-files': '2' } },
      { runId: 'run-c' },
    );
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(rewriteGroup(ref, ref.taskIds[0]!, { attemptId: 'z', signal: ac.signal })).rejects.toMatchObject({
      context: { cancelled: true },
    });
    expect(dataFilesOnDisk(t.dir).filter((p) => path.basename(p).startsWith('floe-run-'))).toEqual([]);
  });
});
