/**
 * The scheduler's operational rules: a new cron schedule waits for its first fire time (13.5), pause,
 * wall-clock limits, byte budgets and per-table concurrency, failure/recovery webhooks, the JSON state
 * folder's one-time migration into the database, and discovery's pick-up / retire / opt-out.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseServiceConfig, type CatalogConfig } from '../../../src/shells/service/config.js';
import { MaintenanceService } from '../../../src/shells/service/service.js';
import { Discovery, type DiscoveredRef } from '../../../src/shells/service/discovery.js';
import { DbStateStore } from '../../../src/shells/service/state-db.js';
import { FakeClock, FakeRunner, LogCollector, waitFor } from './fakes.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'floe-service-ops-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const config = (raw: Record<string, unknown>) =>
  parseServiceConfig({ stateDir: 'state', ...raw }, 'test.yaml', dir, {});

describe('a new cron schedule (13.5)', () => {
  // Tuesday 2025-01-07 10:00 UTC; the next Sunday 04:00 is 2025-01-12
  const TUESDAY = Date.UTC(2025, 0, 7, 10, 0);
  const SUNDAY_4 = Date.UTC(2025, 0, 12, 4, 0);

  it('first runs at its next fire time after start, not at start; a restart keeps that first time', async () => {
    const clock = new FakeClock(TUESDAY);
    const runner = new FakeRunner();
    const raw = {
      tables: [{ name: 'a', location: '/t/a', jobs: { 'remove-orphans': '0 4 * * 0', compact: 'weekly' } }],
    };
    const svc = new MaintenanceService(await config(raw), { clock, runJob: runner.run, log: () => {} });
    await svc.init();
    svc.start();
    // the interval job runs now (an unmaintained table); the weekly cron does not
    expect(runner.started()).toEqual(['/t/a/compact']);
    runner.calls[0]!.succeed();
    await svc.idle();
    expect(runner.calls.length).toBe(1);
    expect(
      (svc.health().tables as { jobs: Record<string, { nextDueAt: string }> }[])[0]!.jobs['remove-orphans']!.nextDueAt,
    ).toBe(new Date(SUNDAY_4).toISOString());
    await svc.stop(1000);
    await svc.close();

    // restarted on Saturday: the schedule was first seen on Tuesday, so Sunday 04:00 is still the first run
    clock.set(Date.UTC(2025, 0, 11, 12, 0));
    const runner2 = new FakeRunner();
    const again = new MaintenanceService(await config(raw), { clock, runJob: runner2.run, log: () => {} });
    await again.init();
    again.start();
    expect(runner2.calls.length).toBe(0); // compact ran on Tuesday (weekly), orphans wait for Sunday
    clock.set(SUNDAY_4 - 1);
    again.tick();
    expect(runner2.calls.length).toBe(0);
    clock.set(SUNDAY_4);
    again.tick();
    expect(runner2.started()).toEqual(['/t/a/remove-orphans']);
    runner2.calls[0]!.succeed();
    await again.idle();
    await again.stop(1000);
    await again.close();
  });
});

describe('pause', () => {
  it('a paused table gets no scheduled runs; resume lets them run; the flag survives a restart', async () => {
    const clock = new FakeClock(Date.UTC(2025, 0, 1));
    const runner = new FakeRunner();
    const log = new LogCollector();
    const raw = {
      concurrency: 2,
      tables: [
        { name: 'a', location: '/t/a', jobs: { compact: 'hourly' } },
        { name: 'b', location: '/t/b', jobs: { compact: 'hourly' } },
      ],
    };
    const svc = new MaintenanceService(await config(raw), { clock, runJob: runner.run, log: log.sink });
    await svc.init();
    await svc.setPaused('b', true);
    svc.start();
    expect(runner.started()).toEqual(['/t/a/compact']);
    runner.calls[0]!.succeed();
    await svc.idle();
    clock.set(clock.now() + 3 * HOUR);
    svc.tick();
    expect(runner.started()).toEqual(['/t/a/compact', '/t/a/compact']);
    runner.calls[1]!.succeed();
    await svc.idle();
    // a manual dry run is still allowed on a paused table
    expect(svc.trigger('b', 'compact', { dryRun: true })).toMatchObject({
      status: 'accepted',
      started: true,
      dryRun: true,
    });
    runner.calls[2]!.succeed({ dryRun: true });
    await svc.idle();
    await svc.stop(1000);
    await svc.close();

    const runner2 = new FakeRunner();
    clock.set(clock.now() + 2 * HOUR);
    const again = new MaintenanceService(await config(raw), { clock, runJob: runner2.run, log: () => {} });
    await again.init();
    expect(again.isPaused('b')).toBe(true);
    again.start();
    expect(runner2.started()).toEqual(['/t/a/compact']);
    runner2.calls[0]!.succeed();
    await again.idle();
    await again.setPaused('b', false);
    await waitFor(() => runner2.calls.length === 2, 'b after resume');
    expect(runner2.started()[1]).toBe('/t/b/compact');
    runner2.calls[1]!.succeed();
    await again.idle();
    await again.stop(1000);
    await again.close();
  });
});

describe('limits', () => {
  it('a job over its wall-clock limit is cancelled: its signal aborts, the run is recorded as cancelled and backs off', async () => {
    const clock = new FakeClock(Date.UTC(2025, 0, 1));
    const runner = new FakeRunner();
    const log = new LogCollector();
    let fire: (() => void) | undefined;
    // the limit's timer is the only one set for 10 minutes
    const timed = {
      ...clock,
      now: () => clock.now(),
      setTimer: (fn: () => void, ms: number) => (ms === 10 * MIN ? ((fire = fn), 'limit') : clock.setTimer(fn, ms)),
      clearTimer: (h: unknown) => clock.clearTimer(h),
    };
    const svc = new MaintenanceService(
      await config({ tables: [{ name: 'a', location: '/t/a', jobTimeout: '10m', jobs: { compact: 'hourly' } }] }),
      { clock: timed, runJob: runner.run, log: log.sink },
    );
    await svc.init();
    svc.start();
    const job = runner.calls[0]!;
    expect(job.signal?.aborted).toBe(false);
    clock.set(clock.now() + 10 * MIN);
    fire!();
    expect(job.signal?.aborted).toBe(true);
    // the job notices the signal between phases and throws
    job.fail(new Error('compaction aborted'));
    await svc.idle();
    const runs = await svc.db!.runs('a');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      outcome: 'cancelled',
      error: expect.stringMatching(/exceeded the wall-clock limit of 600000 ms/),
    });
    expect(svc.stateOf('a')!.jobs.compact!.consecutiveFailures).toBe(1);
    expect(log.events('job-timeout')).toHaveLength(1);
    await svc.stop(1000);
    await svc.close();
  });

  it('the byte budget and per-table concurrency reach the compaction job', async () => {
    const clock = new FakeClock(Date.UTC(2025, 0, 1));
    const runner = new FakeRunner();
    const svc = new MaintenanceService(
      await config({
        defaults: { maxBytesPerRun: '1GiB' },
        tables: [
          { name: 'a', location: '/t/a', concurrency: 3, jobs: { compact: 'hourly' } },
          {
            name: 'b',
            location: '/t/b',
            maxBytesPerRun: 1000,
            jobs: { compact: { schedule: 'hourly', maxConcurrentGroups: 1 } },
          },
        ],
      }),
      { clock, runJob: runner.run, log: () => {} },
    );
    await svc.init();
    const a = svc.specFor('a', 'compact');
    expect(a.properties).toMatchObject({
      'self-optimizing.max-input-file-size-per-thread': String(1024 ** 3),
      'self-optimizing.available-cores': '1',
    });
    expect(a.compact?.maxConcurrentGroups).toBe(3);
    const b = svc.specFor('b', 'compact');
    expect(b.properties!['self-optimizing.max-input-file-size-per-thread']).toBe('1000');
    expect(b.compact?.maxConcurrentGroups).toBe(1);
    await svc.close();
  });
});

describe('webhook', () => {
  it('POSTs JSON on failure and on recovery, retrying a 503', async () => {
    const received: { body: Record<string, unknown>; status: number }[] = [];
    let answers = [503, 200, 200];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const status = answers.shift() ?? 200;
        received.push({ body: JSON.parse(body), status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const clock = new FakeClock(Date.UTC(2025, 0, 1));
      const runner = new FakeRunner();
      const svc = new MaintenanceService(
        await config({
          backoff: { initial: '1m' },
          webhook: { url, retries: 2 },
          tables: [{ name: 'a', location: '/t/a', jobs: { compact: 'hourly' } }],
        }),
        { clock, runJob: runner.run, log: () => {} },
      );
      await svc.init();
      svc.start();
      runner.calls[0]!.fail(new Error('disk full'));
      await svc.idle();
      clock.set(clock.now() + 2 * MIN);
      svc.tick();
      runner.calls[1]!.succeed();
      await svc.idle();
      await svc.stop(1000);
      await svc.close(); // waits for deliveries
      expect(received.map((r) => [r.body.event, r.status])).toEqual([
        ['job-failed', 503],
        ['job-failed', 200],
        ['job-recovered', 200],
      ]);
      expect(received[1]!.body).toMatchObject({
        source: 'floe',
        table: 'a',
        location: '/t/a',
        job: 'compact',
        consecutiveFailures: 1,
        error: 'disk full',
      });
      expect(received[2]!.body).toMatchObject({ table: 'a', failuresBefore: 1, consecutiveFailures: 0 });
    } finally {
      answers = [];
      server.close();
    }
  });
});

describe('state database', () => {
  it('migrates an existing JSON state folder on first start, once', async () => {
    const stateDir = path.join(dir, 'state');
    mkdirSync(stateDir, { recursive: true });
    const T = Date.UTC(2025, 0, 1);
    writeFileSync(
      path.join(stateDir, 'a.json'),
      JSON.stringify({
        version: 1,
        table: '/t/a',
        tiered: { lastOptimizedSnapshotId: '9007199254740993' },
        jobs: { compact: { consecutiveFailures: 2, lastSuccessStartMs: T - HOUR, retryAtMs: T + HOUR } },
      }),
    );
    const clock = new FakeClock(T);
    const runner = new FakeRunner();
    const log = new LogCollector();
    const svc = new MaintenanceService(
      await config({ tables: [{ name: 'a', location: '/t/a', jobs: { compact: 'hourly' } }] }),
      { clock, runJob: runner.run, log: log.sink },
    );
    await svc.init();
    expect(log.events('state-migrated')).toMatchObject([{ tables: ['a'] }]);
    expect(svc.stateOf('a')).toMatchObject({
      tiered: { lastOptimizedSnapshotId: '9007199254740993' },
      jobs: { compact: { consecutiveFailures: 2, lastSuccessStartMs: T - HOUR, retryAtMs: T + HOUR } },
    });
    svc.start();
    // in backoff until T+1h, as the JSON state said
    expect(runner.calls.length).toBe(0);
    await svc.stop(1000);
    await svc.close();

    // a second start does not import again (the database is now the truth)
    writeFileSync(
      path.join(stateDir, 'a.json'),
      JSON.stringify({ version: 1, table: '/t/a', jobs: { compact: { consecutiveFailures: 9 } } }),
    );
    const log2 = new LogCollector();
    const again = new MaintenanceService(
      await config({ tables: [{ name: 'a', location: '/t/a', jobs: { compact: 'hourly' } }] }),
      { clock, runJob: runner.run, log: log2.sink },
    );
    await again.init();
    expect(log2.events('state-migrated')).toHaveLength(0);
    expect(again.stateOf('a')!.jobs.compact!.consecutiveFailures).toBe(2);
    await again.close();
  });

  it('refuses a database written by a newer floe', async () => {
    const file = path.join(dir, 'x.db');
    const db = await DbStateStore.open(file);
    await db.sql.run('INSERT INTO floe_schema_version (version, description, applied_at_ms) VALUES (99, ?, 0)', [
      'from the future',
    ]);
    await db.close();
    await expect(DbStateStore.open(file)).rejects.toThrow(/schema version 99, written by a newer floe/);
  });
});

describe('discovery', () => {
  it('picks up new tables, retires dropped ones, keeps tables when a listing fails, and honours opt-out and overrides', async () => {
    const listings = new Map<string, DiscoveredRef[] | Error>();
    const props = new Map<string, Record<string, string>>();
    const cfg = await config({
      defaults: { jobs: { compact: 'hourly' } },
      catalogs: [
        { name: 'lake', catalog: 'sql:catalog.db', include: ['db.*'], exclude: ['db.tmp_*'] },
        { name: 'files', warehouse: 'warehouse', jobs: { expire: 'daily' } },
      ],
      overrides: [
        { match: 'lake.db.big', maxBytesPerRun: '10MiB', jobs: { compact: 'every 6h' } },
        { match: 'files.legacy.**', enabled: false },
      ],
    });
    const list = async (c: CatalogConfig) => {
      const l = listings.get(c.name);
      if (l instanceof Error) throw l;
      return l ?? [];
    };
    const ice = (rel: string): DiscoveredRef => ({ rel, ref: rel, format: 'iceberg' });
    listings.set('lake', [ice('db.orders'), ice('db.big'), ice('db.tmp_scratch'), ice('other.x')]);
    listings.set('files', [
      { rel: 'pm/events', ref: '/w/pm/events', format: 'paimon' },
      { rel: 'legacy/old', ref: '/w/legacy/old', format: 'iceberg' },
      { rel: 'ice/clicks', ref: '/w/ice/clicks', format: 'iceberg' },
    ]);
    props.set('/w/ice/clicks', { 'self-optimizing.enabled': 'false' });
    const clock = new FakeClock(Date.UTC(2025, 0, 1));
    const runner = new FakeRunner();
    const log = new LogCollector();
    const svc = new MaintenanceService(cfg, { clock, runJob: runner.run, log: log.sink });
    await svc.init();
    const d = new Discovery(svc, list, async (t, format) => ({
      format: format ?? 'iceberg',
      properties: props.get(t.table) ?? {},
    }));
    const first = await d.refresh();
    expect(first.tables.sort()).toEqual(['files.pm.events', 'lake.db.big', 'lake.db.orders']);
    expect(first.optedOut).toEqual(['files.ice.clicks']);
    const big = svc.tableConfig('lake.db.big')!;
    expect(big).toMatchObject({
      table: 'db.big',
      source: 'lake',
      maxBytesPerRun: 10 * 1024 * 1024,
      access: { catalog: `sql:${path.join(dir, 'catalog.db')}` },
    });
    expect(big.jobs.map((j) => [j.kind, j.schedule.text])).toEqual([['compact', 'every 6h']]);
    expect(svc.tableConfig('files.pm.events')!.jobs.map((j) => j.kind)).toEqual(['compact', 'expire']);
    expect(svc.tableConfig('files.pm.events')!.format).toBe('paimon');
    const rows = await svc.db!.tableRows();
    expect(rows.map((r) => [r.name, r.status])).toEqual([
      ['files.ice.clicks', 'opted-out'],
      ['files.pm.events', 'active'],
      ['lake.db.big', 'active'],
      ['lake.db.orders', 'active'],
    ]);

    // next pass: db.orders was dropped, db.new appeared; the warehouse cannot be listed (kept as it was)
    listings.set('lake', [ice('db.big'), ice('db.new')]);
    listings.set('files', new Error('s3 unavailable'));
    const second = await d.refresh();
    expect(second.tables.sort()).toEqual(['files.pm.events', 'lake.db.big', 'lake.db.new']);
    expect(second.errors).toEqual([{ catalog: 'files', error: 's3 unavailable' }]);
    expect(svc.tableNames().sort()).toEqual(['files.pm.events', 'lake.db.big', 'lake.db.new']);
    expect(log.events('table-retired').map((e) => e.table)).toEqual(['lake.db.orders']);
    expect(log.events('table-added').map((e) => e.table)).toEqual([
      'lake.db.orders',
      'lake.db.big',
      'files.pm.events',
      'lake.db.new',
    ]);
    expect((await svc.db!.tableRows()).find((r) => r.name === 'lake.db.orders')).toMatchObject({ status: 'retired' });
    await svc.close();
  });
});
