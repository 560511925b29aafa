/**
 * Issue 12.1 / 11: a single-process compaction runs its rewrite step on worker threads when `parallelism`
 * is above 1 (src/orchestration/group-runner.ts → group-worker.ts), with the same plan, commit and rows as an
 * in-process run; a cancel reaches the workers and leaves no file of the run behind. Issue 27: when every task
 * is rewritten inside the native codec the tasks stay in this process instead, the codec decoding and encoding
 * them on libuv's threads (FLOE_REWRITE_WORKERS=1 keeps the workers, as the worker tests here do).
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compactIceberg, type CompactOptions } from '../../src/orchestration/compact-iceberg.js';
import { RUN_ID_PROPERTY } from '../../src/distributed/seam.js';
import { openIcebergForWrite, requireCommitOps } from '../../connectors/iceberg/open-for-write.js';
import type { ProgressEvent } from '../../src/core/execution/events.js';
import { smallTable, type SmallTable } from '../distributed/small-table.js';
import { floe, resultOf } from '../shells/cli/support.js';
import { cleanup, copyFixture } from '../connectors/paimon-compact/helpers.js';
import { nativeCodecStatus } from '../../connectors/formats/parquet/native-codec.js';
import { deleteByEquality } from '../../connectors/iceberg/write-table.js';
import { FileIO } from '../../connectors/storage/file-io.js';

const tables: SmallTable[] = [];
afterEach(() => {
  for (const t of tables.splice(0)) t.cleanup();
  cleanup();
});

const runFiles = (dir: string) =>
  readdirSync(path.join(dir, 'data'), { recursive: true })
    .map(String)
    .filter((p) => path.basename(p).startsWith('floe-run-'));

async function compact(dir: string, opts: CompactOptions) {
  const opened = await openIcebergForWrite(dir, {});
  try {
    return await compactIceberg(opened.table, opened.io, requireCommitOps(opened), {
      strategy: 'binpack',
      options: { 'min-input-files': '2' },
      ...opts,
    });
  } finally {
    opened.files.destroy();
  }
}

describe('compaction on worker threads (--parallelism)', () => {
  beforeAll(() => {
    process.env.FLOE_REWRITE_WORKERS = '1';
  });
  afterAll(() => {
    delete process.env.FLOE_REWRITE_WORKERS;
  });
  it('commits what an in-process run commits, with the same rows', async () => {
    const a = await smallTable();
    const b = await smallTable();
    tables.push(a, b);
    const rowsBefore = await a.rows();
    expect(await b.rows()).toEqual(rowsBefore);
    const events: ProgressEvent[] = [];
    const inProcess = await compact(a.dir, { parallelism: 1 });
    const onWorkers = await compact(b.dir, {
      parallelism: 2,
      source: { table: b.dir, access: {} },
      onProgress: (e) => events.push(e),
    });
    expect(onWorkers.failedTasks).toEqual([]);
    expect(onWorkers.committedTasks.sort()).toEqual(inProcess.committedTasks.sort());
    expect(onWorkers.committedTasks.length).toBe(2);
    expect(onWorkers.snapshots.length).toBe(1);
    expect({ ...onWorkers.after, dataBytes: 0 }).toEqual({ ...inProcess.after, dataBytes: 0 });
    expect(onWorkers.rowsOut).toBe(inProcess.rowsOut);
    expect(await b.rows()).toEqual(rowsBefore);
    expect(await a.rows()).toEqual(rowsBefore);
    // progress crossed from the workers: every task started, wrote and finished
    expect(events.filter((e) => e.type === 'task-done').length).toBe(2);
    expect(events.filter((e) => e.type === 'file-written').length).toBeGreaterThanOrEqual(2);
    const snap = (await b.shape()).snapshots.at(-1)!;
    expect(snap.summary[RUN_ID_PROPERTY]).toMatch(/^[0-9a-f-]{36}$/);
    // the committed files are the run's, named by run and attempt
    expect(runFiles(b.dir).length).toBe(2);
  });

  it('the tasks really run in the workers: a worker that cannot open the table fails them, nothing is committed', async () => {
    const t = await smallTable();
    tables.push(t);
    const before = await t.shape();
    const r = await compact(t.dir, { parallelism: 2, source: { table: `${t.dir}-not-there`, access: {} } });
    expect(r.snapshots).toEqual([]);
    expect(r.failedTasks.length).toBe(2);
    expect((await t.shape()).snapshots.length).toBe(before.snapshots.length);
    expect(runFiles(t.dir)).toEqual([]);
  });

  it('a cancel reaches the workers: nothing committed, none of the run’s files left', async () => {
    const t = await smallTable(12, 400);
    tables.push(t);
    const rowsBefore = await t.rows();
    const before = await t.shape();
    const ac = new AbortController();
    const run = compact(t.dir, {
      parallelism: 2,
      source: { table: t.dir, access: {} },
      onProgress: (e) => {
        if (e.type === 'file-read') ac.abort(new Error('stop'));
      },
      signal: ac.signal,
    });
    await expect(run).rejects.toMatchObject({ name: 'AbortError', context: { cancelled: true } });
    expect((await t.shape()).snapshots.length).toBe(before.snapshots.length);
    expect(await t.rows()).toEqual(rowsBefore);
    expect(runFiles(t.dir)).toEqual([]);
  });

  it('floe compact --parallelism 2 runs the tasks on two threads; Paimon tables refuse the flag (exit 2)', async () => {
    const t = await smallTable();
    tables.push(t);
    const rowsBefore = await t.rows();
    const r = await floe(
      'compact',
      t.dir,
      '--strategy',
      'binpack',
      '-o',
      'min-input-files=2',
      '--parallelism',
      '2',
      '--progress',
      'json',
      '--json',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('rewriting 2 task(s) on 2 worker threads');
    const doc = resultOf(r.stdout) as { snapshots: string[] };
    expect(doc.snapshots).toHaveLength(1);
    expect(await t.rows()).toEqual(rowsBefore);
    // without the flag a small run stays in this process (auto: below 64 MiB of input)
    const small = await smallTable();
    tables.push(small);
    const r2 = await floe(
      'compact',
      small.dir,
      '--strategy',
      'binpack',
      '-o',
      'min-input-files=2',
      '--progress',
      'json',
    );
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stderr).not.toContain('worker threads');
    await expect(floe('compact', t.dir, '--parallelism', '0')).resolves.toMatchObject({ code: 2 });
    const paimon = copyFixture('append_table_with_alter_table');
    const p = await floe('compact', paimon, '--parallelism', '2');
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(/--parallelism/);
  });
  it('splits a task far bigger than its target by input files, so every thread has work; same rows', async () => {
    // two partitions of 16 small files, one bin-pack task each; a target of ~2 files' bytes makes each > 4 × target
    const a = await smallTable(16, 10);
    const b = await smallTable(16, 10);
    tables.push(a, b);
    const rowsBefore = await a.rows();
    expect((await a.shape()).dataFiles).toBe(32);
    const opened = await openIcebergForWrite(a.dir, {});
    const { loadTableModel } = await import('../../connectors/iceberg/table.js');
    const model = await loadTableModel(opened.table);
    opened.files.destroy();
    const avg = Math.ceil(model.dataFiles.reduce((n, f) => n + f.sizeBytes, 0) / model.dataFiles.length);
    const options = {
      'min-input-files': '2',
      'target-file-size-bytes': String(avg * 2),
      'rewrite-all': 'true',
    };
    const inProcess = await compact(a.dir, { parallelism: 1, options });
    const onWorkers = await compact(b.dir, { parallelism: 2, source: { table: b.dir, access: {} }, options });
    // in process: one task per partition, not split
    expect(inProcess.plan.tasks.length).toBe(2);
    expect(inProcess.plan.tasks.every((t) => !t.id.includes('.'))).toBe(true);
    // on threads: the same inputs, split into parts of at most the target each
    expect(onWorkers.plan.tasks.length).toBeGreaterThan(2);
    expect(onWorkers.plan.tasks.every((t) => /\.\d+$/.test(t.id))).toBe(true);
    // every input file is in exactly one part (file names are random per table: compare partitions)
    const partitionsOf = (tasks: typeof inProcess.plan.tasks) =>
      tasks.flatMap((t) => t.inputs.map((f) => path.basename(path.dirname(f.path)))).sort();
    expect(new Set(onWorkers.plan.tasks.flatMap((t) => t.inputs.map((f) => f.path))).size).toBe(32);
    expect(partitionsOf(onWorkers.plan.tasks)).toEqual(partitionsOf(inProcess.plan.tasks));
    expect(onWorkers.failedTasks).toEqual([]);
    expect(onWorkers.committedTasks.length).toBe(onWorkers.plan.tasks.length);
    expect(await b.rows()).toEqual(rowsBefore);
    expect(await a.rows()).toEqual(rowsBefore);
  });
});

describe('--parallelism with the native codec: the tasks in this process, decoded and encoded on libuv threads', () => {
  it('commits the same files as a one-at-a-time run, deletes applied, without workers (they could not open the table)', async () => {
    expect(nativeCodecStatus().available, 'the native codec must be built (npm run build:native)').toBe(true);
    const a = await smallTable();
    const b = await smallTable();
    tables.push(a, b);
    // equality deletes: the tasks' deletion masks are made in JS, between the codec's calls
    const keys = Array.from({ length: 8 }, (_, i) => [BigInt(i * 1000) * 3_000_000_000_000n, 'us']);
    for (const t of [a, b]) await deleteByEquality(new FileIO(), t.dir, ['id', 'region'], keys);
    const rowsBefore = await a.rows();
    expect(rowsBefore.length).toBe(8 * 20 - 8);
    const oneAtATime = await compact(a.dir, { parallelism: 1, maxConcurrentGroups: 1 });
    const events: ProgressEvent[] = [];
    // a worker would fail both tasks: it opens the table from `source`, which does not exist
    const both = await compact(b.dir, {
      parallelism: 2,
      source: { table: `${b.dir}-not-there`, access: {} },
      onProgress: (e) => events.push(e),
    });
    const said = events.flatMap((e) => (e.type === 'message' ? [e.text] : []));
    expect(said).toContain('rewriting 2 task(s), 2 at a time, inside the native codec');
    expect(said.some((t) => t.includes('worker threads'))).toBe(false);
    expect(both.failedTasks).toEqual([]);
    expect(both.committedTasks.sort()).toEqual(oneAtATime.committedTasks.sort());
    expect(both.committedTasks.length).toBe(2);
    // the same encoder over the same rows: the same bytes, whichever thread encoded them
    expect(both.after).toEqual(oneAtATime.after);
    expect(both.rowsOut).toBe(oneAtATime.rowsOut);
    expect(await b.rows()).toEqual(rowsBefore);
    expect(await a.rows()).toEqual(rowsBefore);
  });
});
