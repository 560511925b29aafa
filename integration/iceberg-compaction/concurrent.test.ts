/**
 * floe compaction racing a reference writer (Java Iceberg) on the same filesystem table.
 *
 * 1. Deterministic races: the Java writer commits at a chosen point inside floe's compaction —
 *    after floe read its inputs (equality deletes / upserts, then a position delete on a file being
 *    rewritten: with the carry-over turned off it fails that group, as Java's RewriteFiles does; with it
 *    on — the default — the deleted rows are carried over to the rewritten files, v2 and v3 alike) and
 *    right before floe publishes (an append, forcing a lost race and a retried commit).
 * 2. Random races: for a few seeds, Java applies a stream of appends, upserts and equality deletes
 *    while floe compacts in a loop with varying strategies.
 *
 * After each race the live rows must equal the rows tracked by hand from Java's ops (nothing lost,
 * nothing resurrected); a conflict may only show up as a failed group or a retried commit.
 *
 * Random position deletes are not raced: the Java oracle's delete-pos does not call
 * RowDelta.validateDataFilesExist, so a position delete planned before floe's commit and committed after
 * it would dangle — a writer-side bug (Spark/Flink writers validate), not something floe can prevent.
 * The floe-side direction (a position delete committed while floe rewrites the file) is race 1b.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { compactIceberg, type CompactOptions, type CompactReport } from '../../src/orchestration/compact-iceberg.js';
import type { ProgressEvent } from '../../src/core/execution/events.js';
import { openIcebergForWrite } from '../../connectors/iceberg/open-for-write.js';
import type { CommitIO, TableOperations } from '../../connectors/iceberg/commit-rewrite.js';
import { type Availability, type IcebergOp, type InputRow, diffRows, duckdb, javaIceberg } from '../oracles/index.js';
import { RowModel, floeRows, skipLoudly } from './helpers.js';

const java: Availability = await javaIceberg.available();
const duck: Availability = await duckdb.available();
if (!java.ok) console.warn(`\n!!! SKIPPED: java oracle unavailable, concurrent-writer tests skip: ${java.reason}\n`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-compact-race-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const TYPES = { id: 'long', p: 'string', v: 'int', note: 'string' };
const KEY = ['id', 'p'];
const partOf = (id: number) => `p${id % 3}`;
const mk = (id: number, v: number): InputRow => ({
  id: String(id),
  p: partOf(id),
  v,
  note: v % 4 === 0 ? null : `n${id}-${v}`,
});
const keyOf = (id: number): InputRow => ({ id: String(id), p: partOf(id) });

function expectRows(model: RowModel, actual: Awaited<ReturnType<typeof floeRows>>, who: string): void {
  const d = diffRows(model.live(), actual, { expected: 'hand-tracked rows', actual: who });
  expect(d.text, d.text).toBe('');
}

/** Applies ops to the hand model (Java applies them in this order, one commit each). */
function track(model: RowModel, ops: IcebergOp[]): void {
  for (const op of ops) {
    if (op.op === 'append') model.append(op.rows);
    else if (op.op === 'upsert') model.upsert(op.rows, KEY);
    else if (op.op === 'delete-eq') model.deleteKeys(op.rows, KEY);
    else if (op.op === 'delete-pos') model.deleteWhere(Array.isArray(op.where) ? op.where : [op.where]);
  }
}

/** Opens the table the way `floe compact` does and runs compactIceberg with hooks around its IO. */
async function compactWith(
  dir: string,
  opts: CompactOptions,
  hooks: { beforeFirstWrite?: () => Promise<void>; beforeFirstPublish?: () => Promise<void> } = {},
): Promise<{ report: CompactReport; events: ProgressEvent[] }> {
  const opened = await openIcebergForWrite(dir, {});
  const events: ProgressEvent[] = [];
  let wrote = false;
  let published = false;
  const out: CommitIO = {
    read: (l) => opened.io.read(l),
    createNew: async (l, b) => {
      if (!wrote && hooks.beforeFirstWrite) {
        wrote = true;
        await hooks.beforeFirstWrite();
      }
      return opened.io.createNew(l, b);
    },
    overwrite: (l, b) => opened.io.overwrite(l, b),
    remove: (l) => opened.io.remove(l),
  };
  const ops: TableOperations = {
    refresh: () => opened.ops!.refresh(),
    commit: async (base, next) => {
      if (!published && hooks.beforeFirstPublish) {
        published = true;
        await hooks.beforeFirstPublish();
      }
      return opened.ops!.commit(base, next);
    },
  };
  try {
    const report = await compactIceberg(opened.table, out, ops, { ...opts, onProgress: (e) => events.push(e) });
    return { report, events };
  } finally {
    opened.files.destroy();
  }
}

const localPath = (location: string) => location.replace(/^file:\/\//, '');

describe('floe compaction racing a Java Iceberg writer', () => {
  const dir = path.join(work, 'race');
  const model = new RowModel(TYPES);
  let nextId = 1;
  const fresh = (n: number, v = 0) => Array.from({ length: n }, () => mk(nextId++, v));
  const stats = { floeRuns: 0, commits: 0, retries: 0, failedGroups: 0, javaCommits: 0 };

  const requireJava = (ctx: TestContext) => {
    if (!java.ok) skipLoudly(ctx, `java unavailable: ${java.reason}`);
  };

  beforeAll(async () => {
    if (!java.ok) return;
    const ops: IcebergOp[] = Array.from({ length: 8 }, () => ({ op: 'append' as const, rows: fresh(6) }));
    await javaIceberg.write(dir, {
      formatVersion: 2,
      schema: Object.entries(TYPES).map(([name, type]) => ({ name, type, required: KEY.includes(name) })),
      partitionSpec: [{ source: 'p' }],
      identifierFields: KEY,
      ops,
    });
    track(model, ops);
  }, 300_000);

  it('1a: upserts and equality deletes committed while floe rewrites: commit succeeds, rows intact', async (ctx) => {
    requireJava(ctx);
    const injected: IcebergOp[] = [
      { op: 'upsert', rows: [mk(1, 100), mk(2, 100), mk(5, 100)] },
      { op: 'delete-eq', rows: [keyOf(3), keyOf(8)] },
    ];
    const { report } = await compactWith(
      dir,
      { strategy: 'binpack', options: { 'min-input-files': '2' } },
      {
        beforeFirstWrite: async () => {
          await javaIceberg.ops(dir, injected);
        },
      },
    );
    track(model, injected);
    expect(report.failedTasks).toEqual([]);
    expect(report.snapshots).toHaveLength(1);
    // the rewritten files carry the starting sequence number, so the later equality deletes still apply
    expectRows(model, await floeRows(dir), 'floe scan after race 1a');
  });

  it('1b: without the carry-over, a position delete on a file being rewritten fails that group only; its outputs are removed', async (ctx) => {
    requireJava(ctx);
    const extra: IcebergOp[] = [
      { op: 'append', rows: fresh(3) },
      { op: 'append', rows: fresh(3) },
    ];
    await javaIceberg.ops(dir, extra);
    track(model, extra);
    const victim = 10; // partition p1
    const injected: IcebergOp[] = [{ op: 'delete-pos', where: { id: String(victim) } }];
    const { report, events } = await compactWith(
      dir,
      { strategy: 'binpack', options: { 'min-input-files': '2' }, rebaseConcurrentDeletes: false },
      {
        beforeFirstWrite: async () => {
          await javaIceberg.ops(dir, injected);
        },
      },
    );
    track(model, injected);
    const victimTask = report.plan.tasks.find((t) => JSON.stringify(t.partition) === JSON.stringify([partOf(victim)]));
    expect(victimTask, 'the plan rewrites the victim partition').toBeDefined();
    expect(report.failedTasks.map((f) => f.id)).toContain(victimTask!.id);
    expect(report.failedTasks.find((f) => f.id === victimTask!.id)!.reason).toMatch(/position delete/);
    expect(report.committedTasks.length).toBeGreaterThan(0); // other partitions still committed
    for (const e of events) {
      if (e.type === 'file-written' && e.taskId === victimTask!.id)
        expect(existsSync(localPath(e.path)), `${e.path} of a failed group`).toBe(false);
    }
    expectRows(model, await floeRows(dir), 'floe scan after race 1b');
  });

  it('1c: a Java commit right before floe publishes: floe loses the race, retries, and keeps both', async (ctx) => {
    requireJava(ctx);
    const appended = fresh(4);
    // partition p1 still holds several files: race 1b's group there failed
    const { report, events } = await compactWith(
      dir,
      { strategy: 'binpack', options: { 'min-input-files': '2' } },
      {
        beforeFirstPublish: async () => {
          await javaIceberg.append(dir, appended);
          model.append(appended);
        },
      },
    );
    expect(report.plan.tasks.length).toBeGreaterThan(0);
    expect(report.failedTasks).toEqual([]);
    expect(events.some((e) => e.type === 'commit-retry')).toBe(true);
    expect(events.find((e) => e.type === 'commit')).toMatchObject({ attempt: 2 });
    expectRows(model, await floeRows(dir), 'floe scan after race 1c');
  });

  it('1d: the same race with the carry-over (default): the group commits, the deleted rows stay deleted', async (ctx) => {
    requireJava(ctx);
    const extra: IcebergOp[] = [
      { op: 'append', rows: fresh(3) },
      { op: 'append', rows: fresh(3) },
    ];
    await javaIceberg.ops(dir, extra);
    track(model, extra);
    // two rows of one partition, in two different files being rewritten
    const victims = model
      .live()
      .filter((r) => r.p === 'p2')
      .slice(0, 2)
      .map((r) => ({ id: String(r.id) }));
    expect(victims).toHaveLength(2);
    const injected: IcebergOp[] = [{ op: 'delete-pos', where: victims }];
    const { report } = await compactWith(
      dir,
      { strategy: 'binpack', options: { 'min-input-files': '2' } },
      { beforeFirstWrite: () => javaIceberg.ops(dir, injected).then(() => undefined) },
    );
    track(model, injected);
    expect(report.failedTasks).toEqual([]);
    expect(report.committedTasks.length).toBeGreaterThan(0);
    expect(report.carriedDeletes).toBe(2);
    expectRows(model, await floeRows(dir), 'floe scan after race 1d');
    expectRows(model, await javaIceberg.read(dir), 'java after race 1d');
  });

  const seeds = (process.env.FLOE_RACE_SEEDS ?? '11,23,42').split(',').map(Number);
  for (const seed of seeds) {
    it(`2: random Java appends/upserts/equality deletes while floe compacts (seed ${seed})`, async (ctx) => {
      requireJava(ctx);
      const rnd = mulberry32(seed);
      const ops: IcebergOp[] = [];
      const shadow = new RowModel(TYPES);
      shadow.append(model.live().map((r) => ({ ...r })));
      for (let i = 0; i < 14; i++) {
        const live = shadow.live();
        const pick = () => Number(live[Math.floor(rnd() * live.length)]!.id);
        const r = rnd();
        let op: IcebergOp;
        if (r < 0.35 || live.length < 4) op = { op: 'append', rows: fresh(1 + Math.floor(rnd() * 4)) };
        else if (r < 0.75)
          op = { op: 'upsert', rows: [...new Set([pick(), pick()])].map((id) => mk(id, seed * 100 + i)) };
        else op = { op: 'delete-eq', rows: [keyOf(pick())] };
        track(shadow, [op]);
        ops.push(op);
      }
      const before = (await listVersions(dir)).length;
      let javaDone = false;
      const javaRun = javaIceberg.ops(dir, ops).finally(() => (javaDone = true));
      // start compacting once Java's first commit is in, so the two actually overlap
      while (!javaDone && (await listVersions(dir)).length === before) await sleep(100);
      let run = 0;
      while (!javaDone && run < 12) {
        const strategy = (seed + run) % 2 === 0 ? 'tiered' : 'binpack';
        const options: Record<string, string> =
          strategy === 'tiered' ? { 'self-optimizing.minor.trigger.file-count': '2' } : { 'min-input-files': '2' };
        const { report, events } = await compactWith(dir, { strategy, options, partialProgress: rnd() < 0.5 });
        stats.floeRuns++;
        stats.commits += report.snapshots.length;
        stats.failedGroups += report.failedTasks.length;
        stats.retries += events.filter((e) => e.type === 'commit-retry').length;
        run++;
      }
      const result = await javaRun;
      stats.javaCommits += result.ops.length;
      track(model, ops);
      expectRows(model, await floeRows(dir), `floe scan after seed ${seed}`);
      // and one more compaction over the settled table keeps it that way
      await compactWith(dir, { strategy: 'binpack', options: { 'min-input-files': '2' } });
      expectRows(model, await floeRows(dir), `floe scan after settling seed ${seed}`);
    }, 240_000);
  }

  it('java and duckdb read the raced table as tracked by hand', async (ctx) => {
    requireJava(ctx);
    console.log(`[race] ${JSON.stringify(stats)}`);
    expectRows(model, await javaIceberg.read(dir), 'java');
    if (!duck.ok) skipLoudly(ctx, `duckdb unavailable: ${duck.reason}`);
    expectRows(model, await duckdb.read(dir), 'duckdb');
  });
});

describe('v3: a deletion vector committed while floe rewrites its data file', () => {
  const dir = path.join(work, 'race-v3');
  const model = new RowModel(TYPES);
  const rows = (from: number, n: number) => Array.from({ length: n }, (_v, i) => mk(from + i, 1));

  it('is carried over as a DV of the rewritten file; without the carry-over the group fails', async (ctx) => {
    if (!java.ok) skipLoudly(ctx, `java unavailable: ${java.reason}`);
    const ops: IcebergOp[] = [0, 1, 2, 3].map((b) => ({ op: 'append' as const, rows: rows(1 + b * 9, 9) }));
    // an older DV on one input: the concurrent DV replaces it (old ∪ new positions)
    ops.push({ op: 'delete-pos', where: { id: '1' } });
    await javaIceberg.write(dir, {
      formatVersion: 3,
      schema: Object.entries(TYPES).map(([name, type]) => ({ name, type, required: KEY.includes(name) })),
      partitionSpec: [{ source: 'p' }],
      identifierFields: KEY,
      ops,
    });
    track(model, ops);
    const race = (victim: string): IcebergOp[] => [{ op: 'delete-pos', where: [{ id: '4' }, { id: victim }] }];

    const off = race('13');
    const refused = await compactWith(
      dir,
      { strategy: 'binpack', options: { 'min-input-files': '2' }, rebaseConcurrentDeletes: false },
      { beforeFirstWrite: () => javaIceberg.ops(dir, off).then(() => undefined) },
    );
    track(model, off);
    expect(refused.report.failedTasks.map((f) => f.reason).join('\n')).toMatch(/position delete/);
    expect(refused.report.carriedDeletes).toBeUndefined();
    expectRows(model, await floeRows(dir), 'floe scan after the refused v3 race');

    const on = race('22');
    const carried = await compactWith(
      dir,
      { strategy: 'binpack', options: { 'min-input-files': '2' } },
      { beforeFirstWrite: () => javaIceberg.ops(dir, on).then(() => undefined) },
    );
    track(model, on);
    expect(carried.report.failedTasks).toEqual([]);
    expect(carried.report.carriedDeletes).toBeGreaterThan(0);
    expectRows(model, await floeRows(dir), 'floe scan after the carried v3 race');
    expectRows(model, await javaIceberg.read(dir), 'java after the carried v3 race');
  }, 240_000);
});

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function listVersions(dir: string): Promise<string[]> {
  try {
    return readdirSync(path.join(dir, 'metadata')).filter((n) => /^v\d+\.metadata\.json$/.test(n));
  } catch {
    return [];
  }
}
