/**
 * Issue 14.3: `floe compact --deletes-only` (rewritePositionDeletes) maintains position deletes without
 * rewriting data. v2: small position delete files of a partition merge into one, entries of data files that
 * are gone are dropped. v3: the live DVs of a mostly dead Puffin file move into a new one (the old file is no
 * longer referenced), still one DV per data file. One `replace` snapshot; data files and live rows unchanged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TestTable } from './harness.js';
import { commitDeletionVectors, commitPositionDeletes } from './positional-deletes.js';
import { expectAtMostOneDvPerDataFile } from './run-history.js';
import type { Row } from './model.js';
import { loadTableModel, openIcebergTable } from '../../connectors/iceberg/table.js';
import { openIcebergForWrite } from '../../connectors/iceberg/open-for-write.js';
import {
  rewritePositionDeletes,
  type RewritePositionDeletesOptions,
} from '../../src/orchestration/rewrite-position-deletes.js';
import type { CompactReport } from '../../src/orchestration/compact-iceberg.js';
import type { DataFile, DeleteFile } from '../../model/index.js';
import { deleteFileId } from '../../src/core/planning/deletes.js';

let seq = 0n;
const row = (id: number, s = 'x'): Row => [BigInt(id), null, null, s, ++seq];

let open: TestTable[] = [];
afterEach(() => {
  for (const t of open) t.dispose();
  open = [];
});

async function live(t: TestTable): Promise<{ data: DataFile[]; deletes: DeleteFile[] }> {
  const m = await loadTableModel(await openIcebergTable(t.dir, { io: t.io }));
  return { data: m.dataFiles, deletes: m.deleteFiles };
}

/** `concurrent` runs once, after planning, before floe's commit reads the table (a racing writer). */
async function run(
  t: TestTable,
  opts: RewritePositionDeletesOptions = {},
  concurrent?: (t: TestTable) => Promise<unknown>,
): Promise<CompactReport> {
  const opened = await openIcebergForWrite(t.dir, {});
  try {
    let pending = concurrent;
    const ops = {
      ...opened.ops!,
      refresh: async () => {
        if (pending) {
          const go = pending;
          pending = undefined;
          await go(t);
        }
        return opened.ops!.refresh();
      },
      commit: opened.ops!.commit.bind(opened.ops!),
    };
    delete (ops as { preflight?: unknown }).preflight;
    const report = await rewritePositionDeletes(opened.table, opened.io, ops, opts);
    for (const s of report.snapshots) t.history.set(BigInt(s), t.model.expected());
    return report;
  } finally {
    opened.files.destroy();
  }
}

async function currentOperation(t: TestTable): Promise<string | undefined> {
  const md = (await openIcebergTable(t.dir, { io: t.io })).metadata;
  return md.snapshots.find((s) => s.snapshotId === md.currentSnapshotId)?.summary.operation;
}

describe('v2: small position delete files merge per partition (issue 14.3)', () => {
  it('five small files become one; rows and data files unchanged; a dry run writes nothing', async () => {
    const t = await TestTable.create({ formatVersion: 2, partitioned: false });
    open.push(t);
    for (let k = 0; k < 3; k++) await t.append(Array.from({ length: 50 }, (_, i) => row(k * 100 + i)));
    for (let k = 0; k < 5; k++)
      await commitPositionDeletes(t, [
        { file: k % 3, positions: [k, k + 10] },
        { file: (k + 1) % 3, positions: [k + 20] },
      ]);
    const before = await live(t);
    expect(before.deletes.filter((d) => d.content === 'position-deletes').length).toBe(5);
    const expected = t.model.expected();
    expect(await t.scan()).toEqual(expected);

    const dry = await run(t, { dryRun: true });
    expect(dry.plan.tasks.map((x) => [x.kind, x.deletes.length])).toEqual([['position-deletes', 5]]);
    expect(dry.tasks.map((x) => x.outcome)).toEqual(['skipped']);
    expect((await live(t)).deletes.length, 'dry run wrote nothing').toBe(5);

    const report = await run(t);
    expect(report.failedTasks).toEqual([]);
    expect(report.tasks.map((x) => x.outcome)).toEqual(['committed']);
    const after = await live(t);
    expect(after.deletes.length, 'one merged file').toBe(1);
    expect(after.deletes[0]!.recordCount).toBe(15);
    expect(after.data.map((f) => f.path).sort()).toEqual(before.data.map((f) => f.path).sort());
    expect(await currentOperation(t)).toBe('replace');
    expect(await t.scan()).toEqual(expected);
    for (const [id, rows] of t.history) expect(await t.scan(id), `snapshot ${id}`).toEqual(rows);
  });

  it('fewer than min-input-files small files: nothing planned; rewrite-all rewrites them anyway', async () => {
    const t = await TestTable.create({ formatVersion: 2, partitioned: true });
    open.push(t);
    await t.append(Array.from({ length: 40 }, (_, i): Row => [BigInt(i), i % 2 === 0 ? 'a' : 'b', null, 'x', ++seq]));
    await commitPositionDeletes(t, [{ file: 0, positions: [1] }]);
    await commitPositionDeletes(t, [{ file: 0, positions: [2] }]);
    expect((await run(t, { dryRun: true })).plan.tasks).toEqual([]);
    const report = await run(t, { options: { 'rewrite-all': 'true' } });
    expect(report.failedTasks).toEqual([]);
    expect(report.committedTasks.length).toBeGreaterThan(0);
    expect(await t.scan()).toEqual(t.model.expected());
  });

  it('entries of data files that are gone are dropped', async () => {
    const t = await TestTable.create({ formatVersion: 2, partitioned: false });
    open.push(t);
    await t.append(Array.from({ length: 8000 }, (_, i) => row(i, `large-${i}`)));
    for (let k = 0; k < 4; k++) await t.append([row(10_000 + 2 * k), row(10_001 + 2 * k)]);
    const { data } = await live(t);
    const large = data.find((f) => f.recordCount === 8000)!.path;
    const small = data.filter((f) => f.path !== large).map((f) => f.path);
    for (let k = 0; k < 5; k++)
      await commitPositionDeletes(t, [
        { file: large, positions: [k] },
        { file: small[k % 4]!, positions: [0] },
      ]);
    // bin-pack rewrites the small files (and applies their deletes); the position delete files stay for the large one
    const c = await t.compact({
      strategy: 'binpack',
      options: { 'target-file-size-bytes': String(40 * 1024), 'min-input-files': '2' },
      partialProgress: false,
      maxConcurrentGroups: 1,
    });
    expect(c.failedTasks).toEqual([]);
    const mid = await live(t);
    expect(mid.deletes.length).toBe(5);
    const report = await run(t);
    expect(report.failedTasks).toEqual([]);
    const after = await live(t);
    expect(after.deletes.length).toBe(1);
    expect(after.deletes[0]!.recordCount, 'only the large file’s five positions stay').toBe(5);
    expect(after.deletes[0]!.content === 'position-deletes' && after.deletes[0]!.referencedDataFile).toBe(large);
    expect(await t.scan()).toEqual(t.model.expected());
  });
});

describe('v3: DVs of mostly dead Puffin files move to a new one (issue 14.3)', () => {
  it('after a partial rewrite the surviving DV leaves the old Puffin file; still one DV per data file', async () => {
    const t = await TestTable.create({ formatVersion: 3, partitioned: false });
    open.push(t);
    await t.append(Array.from({ length: 8000 }, (_, i) => row(i, `large-${i}`)));
    for (let k = 0; k < 4; k++) await t.append([row(10_000 + 2 * k), row(10_001 + 2 * k)]);
    const { data } = await live(t);
    const large = data.find((f) => f.recordCount === 8000)!.path;
    const small = data.filter((f) => f.path !== large).map((f) => f.path);
    // the small files' DVs hold many positions… of two-row files: make the large one's DV the small blob
    await commitDeletionVectors(t, [
      { file: large, positions: [5] },
      ...small.map((f) => ({ file: f, positions: [0, 1] })),
    ]);
    const puffin = (await live(t)).deletes.find((d) => d.content === 'deletion-vector')!.path;
    const c = await t.compact({
      strategy: 'binpack',
      options: { 'target-file-size-bytes': String(40 * 1024), 'min-input-files': '2' },
      partialProgress: false,
      maxConcurrentGroups: 1,
    });
    expect(c.failedTasks).toEqual([]);
    const mid = await live(t);
    expect(
      mid.deletes.map((d) => d.path),
      'the old Puffin file is still referenced by the large file’s DV',
    ).toEqual([puffin]);
    const report = await run(t);
    expect(report.failedTasks).toEqual([]);
    expect(report.committedTasks.length).toBe(1);
    const after = await live(t);
    const dvs = after.deletes.filter((d) => d.content === 'deletion-vector');
    expect(dvs.length).toBe(1);
    expect(dvs[0]!.path).not.toBe(puffin);
    expect(dvs[0]!.content === 'deletion-vector' && dvs[0]!.referencedDataFile).toBe(large);
    expect(deleteFileId(dvs[0]!)).not.toBe(deleteFileId(mid.deletes[0]!));
    await expectAtMostOneDvPerDataFile(t, 'rewrite-position-deletes');
    expect(await currentOperation(t)).toBe('replace');
    expect(await t.scan()).toEqual(t.model.expected());
    // nothing more to do: a second run plans nothing
    expect((await run(t, { dryRun: true })).plan.tasks).toEqual([]);
  });

  it('a concurrent writer that replaced the DV being moved fails the task; its deletes stay', async () => {
    const t = await TestTable.create({ formatVersion: 3, partitioned: false });
    open.push(t);
    for (let k = 0; k < 2; k++) await t.append(Array.from({ length: 30 }, (_, i) => row(k * 100 + i)));
    await commitDeletionVectors(t, [
      { file: 0, positions: [1] },
      { file: 1, positions: [2] },
    ]);
    const report = await run(t, { options: { 'rewrite-all': 'true' } }, (x) =>
      commitDeletionVectors(x, [{ file: 0, positions: [7] }]),
    );
    expect(report.failedTasks.map((f) => f.reason).join(' ')).toMatch(/replaced by a concurrent commit/);
    expect(await t.scan(), 'the concurrent delete stays').toEqual(t.model.expected());
    await expectAtMostOneDvPerDataFile(t, 'a conflicting rewrite-position-deletes');
  });

  it('position delete files on a v3 table become DVs', async () => {
    const t = await TestTable.create({ formatVersion: 3, partitioned: false });
    open.push(t);
    for (let k = 0; k < 2; k++) await t.append(Array.from({ length: 30 }, (_, i) => row(k * 100 + i)));
    // legacy v2-style position delete files on a v3 table (as an upgraded table may hold)
    await commitPositionDeletes(t, [
      { file: 0, positions: [1, 2] },
      { file: 1, positions: [3] },
    ]);
    const before = await live(t);
    expect(
      before.deletes.map((d) => d.content),
      'a position delete file on the v3 table',
    ).toEqual(['position-deletes']);
    const report = await run(t);
    expect(report.failedTasks).toEqual([]);
    const after = await live(t);
    expect(
      after.deletes.map((d) => d.content),
      'one DV per data file instead',
    ).toEqual(['deletion-vector', 'deletion-vector']);
    expect(await currentOperation(t)).toBe('replace');
    await expectAtMostOneDvPerDataFile(t, 'rewrite-position-deletes');
    expect(await t.scan()).toEqual(t.model.expected());
  });
});
