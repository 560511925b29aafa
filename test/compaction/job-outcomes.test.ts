/**
 * Issue 13 items 19, 15 and 16 (orchestration side):
 * - every planned task ends as committed (with its snapshot), failed (with the reason) or skipped (with
 *   the reason) in the job result — e.g. eq→pos on a v3 table;
 * - committability is checked before anything is written (a catalog-named metadata file opened by path, a
 *   directory that refuses writes), so no input is read and no output is written;
 * - an AbortSignal stops the job between tasks, removes its uncommitted outputs and throws a cancelled
 *   error; a cancel that comes once a commit started lets that commit finish and says so.
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TestTable } from './harness.js';
import { commitDeletionVectors } from './positional-deletes.js';
import type { Row } from './model.js';
import { openIcebergForWrite } from '../../connectors/iceberg/open-for-write.js';
import { compactIceberg, type CompactOptions, type CompactReport } from '../../src/orchestration/compact-iceberg.js';
import { compactPaimon } from '../../src/orchestration/compact-paimon.js';
import { isFloeError } from '../../util/errors.js';
import { FloeError } from '../../util/errors.js';
import type { CommitIO, TableOperations } from '../../connectors/iceberg/commit-rewrite.js';
import { loadTableModel, openIcebergTable } from '../../connectors/iceberg/table.js';
import {
  cleanup as cleanupPaimon,
  copyFixture,
  fixtures as paimonFixtures,
  hasFixtures as hasPaimonFixtures,
} from '../connectors/paimon-compact/helpers.js';
import { openPaimonTable } from '../../connectors/paimon/index.js';

let seq = 0n;
const row = (id: number, part: string | null = null, s = 'x'): Row => [BigInt(id), part, null, s, ++seq];

let open: TestTable[] = [];
afterEach(() => {
  for (const t of open) t.dispose();
  open = [];
  cleanupPaimon();
});

async function make(formatVersion: 2 | 3, partitioned: boolean): Promise<TestTable> {
  const t = await TestTable.create({ formatVersion, partitioned });
  open.push(t);
  return t;
}

/** Three partitions of four small files each, an equality delete in each: three minor tasks. */
async function threePartitions(formatVersion: 2 | 3 = 2): Promise<TestTable> {
  const t = await make(formatVersion, true);
  for (const part of ['a', 'b', 'c'])
    for (let k = 0; k < 4; k++) await t.append([row(k * 10, part), row(k * 10 + 1, part)]);
  await t.deleteEq(
    ['part', 'id'],
    [
      ['a', 10n],
      ['b', 21n],
      ['c', 0n],
    ],
  );
  return t;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = path.join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

interface Run {
  report?: CompactReport;
  error?: unknown;
  writes: string[];
  dataReads: string[];
}

/** Compacts `t` as `floe compact` does, with optional wrappers around the output IO and the table operations. */
async function run(
  t: TestTable,
  opts: CompactOptions,
  wrap: { out?: (io: CommitIO) => CommitIO; ops?: (ops: TableOperations) => TableOperations; ref?: string } = {},
): Promise<Run> {
  const opened = await openIcebergForWrite(wrap.ref ?? t.dir, {});
  const writes: string[] = [];
  const dataReads: string[] = [];
  const base = opened.io;
  const counted: CommitIO = {
    read: (l) => base.read(l),
    createNew: (l, b) => (writes.push(l), base.createNew(l, b)),
    overwrite: (l, b) => (writes.push(l), base.overwrite(l, b)),
    remove: (l) => base.remove(l),
  };
  const io = opened.table.io;
  const readFile = io.read.bind(io);
  const readRange = io.readRange.bind(io);
  const isData = (l: string) => /\/data\/.*\.parquet$/.test(l) && !l.includes('delete');
  io.read = (l: string) => (isData(l) && dataReads.push(l), readFile(l));
  io.readRange = (l: string, o: number, n: number) => (isData(l) && dataReads.push(l), readRange(l, o, n));
  try {
    const report = await compactIceberg(
      opened.table,
      wrap.out ? wrap.out(counted) : counted,
      wrap.ops ? wrap.ops(opened.ops!) : opened.ops!,
      opts,
    );
    return { report, writes, dataReads };
  } catch (error) {
    return { error, writes, dataReads };
  } finally {
    opened.files.destroy();
  }
}

describe('every planned task ends committed, failed or skipped (issue 13.19)', () => {
  it('v3: the eq→pos task writes deletion vectors and commits with the merge (issue 14.2; it used to be skipped)', async () => {
    const t = await make(3, false);
    await t.append(Array.from({ length: 8000 }, (_, i) => row(i, null, `large-${i}`)));
    for (let k = 0; k < 4; k++) await t.append([row(10_000 + 2 * k), row(10_001 + 2 * k)]);
    await t.deleteEq(['id'], [[10_000n], [7n]]);
    const { data } = { data: (await loadTableModel(await openIcebergTable(t.dir, { io: t.io }))).dataFiles };
    await commitDeletionVectors(t, [{ file: data.find((f) => f.recordCount === 8000)!.path, positions: [3] }]);
    const { report } = await run(t, { options: { 'self-optimizing.target-size': String(256 * 1024) } });
    expect(report).toBeDefined();
    const kinds = report!.plan.tasks.map((x) => x.kind).sort();
    expect(kinds).toEqual(['eq-to-pos', 'minor']);
    expect(report!.tasks.map((x) => x.id)).toEqual(report!.plan.tasks.map((x) => x.id));
    const eq = report!.tasks.find((x) => x.kind === 'eq-to-pos')!;
    expect(eq).toMatchObject({ outcome: 'committed', snapshotId: report!.snapshots[0] });
    const minor = report!.tasks.find((x) => x.kind === 'minor')!;
    expect(minor).toMatchObject({ outcome: 'committed', snapshotId: report!.snapshots[0] });
    expect(report!.skippedTasks).toEqual([]);
    expect(report!.baseSnapshotId).toMatch(/^\d+$/);
    expect(await t.scan()).toEqual(t.model.expected());
  });

  it('v2: every task committed; a dry run reports every task skipped as a dry run', async () => {
    const t = await threePartitions();
    const dry = (await run(t, { dryRun: true })).report!;
    expect(dry.tasks.length).toBe(3);
    expect(dry.tasks.every((x) => x.outcome === 'skipped' && /dry run/.test(x.reason!))).toBe(true);
    const { report } = await run(t, {});
    expect(report!.tasks.map((x) => x.outcome)).toEqual(['committed', 'committed', 'committed']);
    expect(report!.tasks.every((x) => x.snapshotId === report!.snapshots[0])).toBe(true);
    expect(report!.skippedTasks).toEqual([]);
    expect(await t.scan()).toEqual(t.model.expected());
  });

  it('a task whose input cannot be read is failed with the reason naming the file; with partial progress the others commit', async () => {
    const t = await threePartitions();
    const m = await loadTableModel(await openIcebergTable(t.dir, { io: t.io }));
    const victim = m.dataFiles.find((f) => f.partition[0] === 'b')!.path;
    rmSync(victim);
    const { report } = await run(t, { maxConcurrentGroups: 1, partialProgress: true });
    const failed = report!.tasks.filter((x) => x.outcome === 'failed');
    expect(failed.length).toBe(1);
    expect(failed[0]!.reason).toContain(path.basename(victim));
    expect(report!.tasks.filter((x) => x.outcome === 'committed').length).toBe(2);
  });

  it('issue 29.8: without partial progress (the default) one failed task means nothing is committed and nothing stays', async () => {
    const t = await threePartitions();
    const m = await loadTableModel(await openIcebergTable(t.dir, { io: t.io }));
    const victim = m.dataFiles.find((f) => f.partition[0] === 'b')!.path;
    rmSync(victim);
    const before = filesUnder(t.dir);
    const { report } = await run(t, { maxConcurrentGroups: 1 });
    expect(report!.snapshots).toEqual([]);
    expect(report!.tasks.filter((x) => x.outcome === 'failed').length).toBe(1);
    const skipped = report!.tasks.filter((x) => x.outcome === 'skipped');
    expect(skipped.length).toBe(2);
    for (const s of skipped) expect(s.reason).toMatch(/not committed: 1 task\(s\) failed .*all or nothing.*removed/);
    expect(filesUnder(t.dir)).toEqual(before);
  });
});

describe('committability is checked before anything is written (issue 13.15)', () => {
  it('a metadata file that is not v<N>.metadata.json, opened by path: refused before any read or write', async () => {
    const t = await threePartitions();
    // what a catalog-managed table looks like on disk: <n>-<uuid>.metadata.json and no version hint
    const md = path.join(t.dir, 'metadata');
    rmSync(path.join(md, 'version-hint.text'));
    for (const f of readdirSync(md)) {
      const m = /^v(\d+)\.metadata\.json$/.exec(f);
      if (m)
        renameSync(
          path.join(md, f),
          path.join(
            md,
            `${m[1]!.padStart(5, '0')}-0b4c8a6e-4a55-4d3e-9f1e-5c0ffee0000${m[1]!.slice(-1)}.metadata.json`,
          ),
        );
    }
    const before = filesUnder(t.dir);
    const r = await run(t, {});
    expect(isFloeError(r.error, 'Unsupported'), String(r.error)).toBe(true);
    expect((r.error as Error).message).toMatch(/not a filesystem-table metadata file.*--catalog/);
    expect(r.writes, 'nothing written').toEqual([]);
    expect(r.dataReads, 'no input read').toEqual([]);
    expect(filesUnder(t.dir)).toEqual(before);
  });

  it('a directory that refuses writes fails at the first write, before any input is read', async () => {
    const t = await threePartitions();
    const before = filesUnder(t.dir);
    const denied: string[] = [];
    const readOnly = (io: CommitIO): CommitIO => ({
      ...io,
      createNew: async (l) => {
        denied.push(l);
        throw new FloeError('AccessDenied', `EACCES: permission denied, open '${l}'`, { context: { file: l } });
      },
    });
    const r = await run(t, {}, { out: readOnly });
    expect(isFloeError(r.error, 'AccessDenied'), String(r.error)).toBe(true);
    expect((r.error as Error).message).toMatch(/cannot write to .*\/data.*nothing was written/);
    expect(denied.length, 'one write tried').toBe(1);
    expect(r.dataReads, 'no input read').toEqual([]);
    expect(filesUnder(t.dir)).toEqual(before);
  });
});

describe('cancelling a compaction (issue 13.16)', () => {
  it('cancelled before it starts: throws cancelled, nothing read or written', async () => {
    const t = await threePartitions();
    const before = filesUnder(t.dir);
    const ac = new AbortController();
    ac.abort(new Error('SIGINT'));
    const r = await run(t, { signal: ac.signal });
    expect(isFloeError(r.error)).toBe(true);
    expect((r.error as FloeError).context).toMatchObject({ cancelled: true, committed: false });
    expect((r.error as Error).name).toBe('AbortError');
    expect(r.writes).toEqual([]);
    expect(filesUnder(t.dir)).toEqual(before);
  });

  for (const partialProgress of [false, true]) {
    it(`cancelled while rewriting${partialProgress ? ' (partial progress)' : ''}: stops between tasks, removes its outputs, commits nothing`, async () => {
      const t = await threePartitions();
      const before = filesUnder(t.dir);
      const snapshot = await t.currentSnapshotId();
      const ac = new AbortController();
      const r = await run(t, {
        signal: ac.signal,
        partialProgress,
        maxConcurrentGroups: 1,
        onProgress: (e) => {
          if (e.type === 'task-done') ac.abort(new Error('SIGINT'));
        },
      });
      expect((r.error as FloeError | undefined)?.context, String(r.error)).toMatchObject({
        cancelled: true,
        committed: false,
      });
      expect((r.error as Error).message).toMatch(/nothing committed, the 1 file\(s\) it wrote were removed/);
      expect(
        r.writes.some((w) => w.endsWith('.parquet')),
        'an output was written before the cancel',
      ).toBe(true);
      expect(await t.currentSnapshotId()).toBe(snapshot);
      expect(filesUnder(t.dir), 'no file of the run is left').toEqual(before);
      expect(await t.scan()).toEqual(t.model.expected());
    });
  }

  it('cancelled while the commit is being published: the commit finishes and the result says so', async () => {
    const t = await threePartitions();
    const ac = new AbortController();
    const r = await run(
      t,
      { signal: ac.signal },
      {
        ops: (ops) => ({
          refresh: () => ops.refresh(),
          commit: async (b, n) => {
            ac.abort(new Error('SIGINT'));
            return ops.commit(b, n);
          },
        }),
      },
    );
    expect(r.error).toBeUndefined();
    const report = r.report!;
    expect(report.snapshots.length).toBe(1);
    expect(report.cancelled).toMatchObject({ afterCommitStarted: true, committedSnapshots: report.snapshots });
    expect(report.cancelled!.message).toMatch(/the commit finished/);
    expect(report.tasks.every((x) => x.outcome === 'committed')).toBe(true);
    expect(report.deleteCleanup, 'no further commit after the cancel').toBeUndefined();
    expect(await t.currentSnapshotId()).toBe(BigInt(report.snapshots[0]!));
    expect(await t.scan()).toEqual(t.model.expected());
  });

  it('partial progress, cancelled after the first group committed: that one stays, the rest is skipped and removed', async () => {
    const t = await threePartitions();
    const ac = new AbortController();
    const r = await run(t, {
      signal: ac.signal,
      partialProgress: true,
      maxConcurrentGroups: 1,
      onProgress: (e) => e.type === 'commit' && ac.abort(new Error('SIGINT')),
    });
    expect(r.error).toBeUndefined();
    const report = r.report!;
    expect(report.snapshots.length).toBe(1);
    expect(report.tasks.map((x) => x.outcome)).toEqual(['committed', 'skipped', 'skipped']);
    expect(report.tasks.slice(1).every((x) => /cancelled/.test(x.reason!))).toBe(true);
    expect(report.cancelled).toMatchObject({ committedSnapshots: report.snapshots });
    // every Parquet file under data/ is referenced by the current snapshot (or was there before)
    const m = await loadTableModel(await openIcebergTable(t.dir, { io: t.io }));
    const live = new Set([...m.dataFiles, ...m.deleteFiles].map((f) => f.path));
    const written = r.writes.filter((w) => w.endsWith('.parquet'));
    for (const w of written) if (existsSync(w)) expect(live.has(w), `${w} is left behind unreferenced`).toBe(true);
    expect(await t.scan()).toEqual(t.model.expected());
  });

  it('Paimon: cancelled before the first bucket: throws cancelled, nothing written', async () => {
    expect(hasPaimonFixtures, `the shared Paimon fixtures are missing at ${paimonFixtures}`).toBe(true);
    const dir = copyFixture('pk_table_scan_and_read_mor');
    const before = filesUnder(dir);
    const snapshot = (await openPaimonTable(dir)).snapshot!.id;
    const ac = new AbortController();
    ac.abort(new Error('SIGINT'));
    const e = await compactPaimon(dir, { full: true, signal: ac.signal }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect((e as FloeError | undefined)?.context).toMatchObject({ cancelled: true, committed: false });
    expect((await openPaimonTable(dir)).snapshot!.id).toBe(snapshot);
    expect(filesUnder(dir)).toEqual(before);
  });

  it('Paimon: a finished compaction reports its buckets as committed tasks', async () => {
    expect(hasPaimonFixtures, `the shared Paimon fixtures are missing at ${paimonFixtures}`).toBe(true);
    const dir = copyFixture('pk_table_scan_and_read_mor');
    const report = await compactPaimon(dir, { full: true });
    expect(report.tasks!.length).toBe(report.buckets.filter((b) => b.compact).length);
    expect(report.tasks!.every((x) => x.outcome === 'committed' && x.snapshotId === report.snapshotId)).toBe(true);
  });
});
