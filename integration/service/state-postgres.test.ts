/**
 * The service state database on a real PostgreSQL server (`state: postgresql://…`), as several
 * `floe serve` replicas share it: migrations run once even when two replicas start together, schedule
 * state / planner memory / run history / pause written by one are read by the other, and 64-bit snapshot
 * ids survive as text. The scheduler itself runs against it with a scripted job runner.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbStateStore } from '../../src/shells/service/state-db.js';
import { SCHEMA_VERSION } from '../../src/shells/service/state-sql.js';
import { parseServiceConfig } from '../../src/shells/service/config.js';
import { MaintenanceService } from '../../src/shells/service/service.js';
import { FakeClock, FakeRunner, LogCollector, waitFor } from '../../test/shells/service/fakes.js';
import { pgQuery, startPostgres, withDatabase, type PgServer } from './support.js';

let server: PgServer | undefined;
let url = '';
let work = '';
const startError: { message?: string } = {};

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'floe-state-pg-'));
  if (process.env.FLOE_SKIP_POSTGRES === '1') return;
  try {
    server = startPostgres();
  } catch (e) {
    startError.message = (e as Error).message;
    return;
  }
  const db = `floe_state_${process.pid}_${Date.now()}`;
  await pgQuery(server.adminUrl, `CREATE DATABASE ${db}`);
  url = withDatabase(server.adminUrl, db);
});

afterAll(() => {
  server?.stop();
  rmSync(work, { recursive: true, force: true });
});

function need(): void {
  if (process.env.FLOE_SKIP_POSTGRES === '1') {
    console.warn('\n!!! SKIPPED: FLOE_SKIP_POSTGRES=1: the PostgreSQL state tests did not run\n');
    return;
  }
  if (!server) throw new Error(startError.message ?? 'no PostgreSQL server');
}
const skipAll = process.env.FLOE_SKIP_POSTGRES === '1';

describe.skipIf(skipAll)('service state on PostgreSQL', () => {
  it('two replicas starting together migrate the schema once', async () => {
    need();
    const [a, b] = await Promise.all([DbStateStore.open(url), DbStateStore.open(url)]);
    try {
      const versions = await pgQuery<{ version: number }>(
        url,
        'SELECT version FROM floe_schema_version ORDER BY version',
      );
      expect(versions.map((v) => v.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
      const tables = await pgQuery<{ table_name: string }>(
        url,
        "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'floe_%' ORDER BY table_name",
      );
      expect(tables.map((t) => t.table_name)).toEqual([
        'floe_leases',
        'floe_meta',
        'floe_planner_state',
        'floe_runs',
        'floe_schedule_state',
        'floe_schema_version',
        'floe_tables',
      ]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('what one replica writes, the other reads: state, planner memory with 64-bit ids, runs, pause', async () => {
    need();
    const a = await DbStateStore.open(url);
    const b = await DbStateStore.open(url);
    try {
      await a.upsertTable({
        name: 'orders',
        location: 's3://w/orders',
        format: 'iceberg',
        source: 'config',
        status: 'active',
        lastSeenMs: 1000,
      });
      await a.save('orders', {
        version: 1,
        table: 's3://w/orders',
        tiered: {
          lastOptimizedSnapshotId: '9223372036854775807',
          partitions: { '0|[]': { lastMinorMs: 1_700_000_000_123 } },
        },
        jobs: {
          compact: {
            consecutiveFailures: 2,
            firstSeenMs: 5,
            lastStartMs: 1_700_000_000_000,
            lastSuccessStartMs: 1_699_999_000_000,
            retryAtMs: 1_700_000_600_000,
          },
        },
      });
      const id = await a.recordRun({
        table: 'orders',
        job: 'compact',
        reason: 'scheduled',
        dryRun: false,
        startedAtMs: 1_700_000_000_000,
        finishedAtMs: 1_700_000_004_500,
        durationMs: 4500,
        outcome: 'ok',
        format: 'iceberg',
        filesBefore: 120,
        filesAfter: 4,
        bytesBefore: 336_000,
        bytesAfter: 300_000,
        deleteFilesBefore: 30,
        deleteFilesAfter: 0,
        rowsIn: 5000,
        rowsOut: 4800,
        snapshotIds: ['9223372036854775807'],
        plan: {
          planner: 'tiered',
          tasks: 1,
          inputFiles: 120,
          inputBytes: 336_000,
          trail: [{ gate: 'budget', detail: 'x', outcome: 'info' }],
          taskList: [],
        },
      });
      expect(id).toBeGreaterThan(0);
      await a.setPaused('orders', true, 2000);
      await a.flush();

      expect(await b.load('orders')).toEqual({
        version: 1,
        table: 's3://w/orders',
        tiered: {
          lastOptimizedSnapshotId: '9223372036854775807',
          partitions: { '0|[]': { lastMinorMs: 1_700_000_000_123 } },
        },
        jobs: {
          compact: {
            consecutiveFailures: 2,
            firstSeenMs: 5,
            lastStartMs: 1_700_000_000_000,
            lastSuccessStartMs: 1_699_999_000_000,
            retryAtMs: 1_700_000_600_000,
          },
        },
      });
      const runs = await b.runs('orders');
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({
        id,
        outcome: 'ok',
        filesBefore: 120,
        filesAfter: 4,
        deleteFilesBefore: 30,
        deleteFilesAfter: 0,
        rowsIn: 5000,
        durationMs: 4500,
        snapshotIds: ['9223372036854775807'],
      });
      expect(runs[0]!.plan!.trail).toEqual([{ gate: 'budget', detail: 'x', outcome: 'info' }]);
      expect((await b.tableRows()).find((t) => t.name === 'orders')).toMatchObject({
        paused: true,
        pausedAtMs: 2000,
        status: 'active',
        format: 'iceberg',
      });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('the scheduler keeps its state there: a second replica sees the runs and the pause of the first', async () => {
    need();
    const raw = { state: url, tables: [{ name: 'events', location: '/w/events', jobs: { compact: 'hourly' } }] };
    const clock = new FakeClock(Date.UTC(2025, 0, 1));
    const runner = new FakeRunner();
    const first = new MaintenanceService(await parseServiceConfig(raw, 'floe.yaml', work, {}), {
      clock,
      runJob: runner.run,
      log: () => {},
    });
    await first.init();
    first.start();
    // with shared state the job starts once the table's lease is taken
    await waitFor(() => runner.calls.length === 1, 'the job to start');
    runner.calls[0]!.succeed({ filesBefore: 9, filesAfter: 1, snapshotIds: ['77'] });
    await first.idle();
    await first.setPaused('events', true);
    await first.stop(1000);
    await first.close();

    const second = new MaintenanceService(await parseServiceConfig(raw, 'floe.yaml', work, {}), {
      clock,
      runJob: runner.run,
      log: () => {},
    });
    await second.init();
    expect(second.isPaused('events')).toBe(true);
    expect(second.stateOf('events')!.jobs.compact!.lastSuccessStartMs).toBe(Date.UTC(2025, 0, 1));
    const runs = await second.db!.runs('events');
    expect(runs.map((r) => [r.outcome, r.filesBefore, r.filesAfter, r.reason])).toEqual([['ok', 9, 1, 'scheduled']]);
    const rows = await pgQuery<{ job: string; outcome: string }>(
      url,
      "SELECT job, outcome FROM floe_runs WHERE table_name = 'events'",
    );
    expect(rows).toEqual([{ job: 'compact', outcome: 'ok' }]);
    await second.close();
  });

  it('two replicas never run one table at once: the second defers, then sees the job done and does not repeat it', async () => {
    need();
    const T = Date.UTC(2025, 0, 1);
    const raw = { state: url, tables: [{ name: 'shared', location: '/w/shared', jobs: { compact: 'hourly' } }] };
    const clock = new FakeClock(T);
    const [ra, rb] = [new FakeRunner(), new FakeRunner()];
    const [la, lb] = [new LogCollector(), new LogCollector()];
    const a = new MaintenanceService(await parseServiceConfig(raw, 'floe.yaml', work, {}), {
      clock,
      runJob: ra.run,
      log: la.sink,
    });
    const b = new MaintenanceService(await parseServiceConfig(raw, 'floe.yaml', work, {}), {
      clock,
      runJob: rb.run,
      log: lb.sink,
    });
    await a.init();
    await b.init();
    a.start();
    await waitFor(() => ra.calls.length === 1, 'replica a to start the job');
    b.start();
    await waitFor(() => lb.events('job-deferred').length === 1, 'replica b to defer');
    expect(lb.events('job-deferred')[0]!.reason).toMatch(/^table is leased by .+ until /);
    expect(rb.calls.length).toBe(0);
    ra.calls[0]!.succeed();
    await a.idle();
    // after b's retry delay: it gets the lease, reads a's run from the shared state, and leaves it
    clock.set(T + 31_000);
    b.tick();
    await waitFor(() => lb.events('job-deferred').length === 2, 'replica b to look again');
    expect(lb.events('job-deferred')[1]!.reason).toBe('another replica already ran it');
    expect(rb.calls.length).toBe(0);
    // the next hour: exactly one replica runs it, the other defers
    clock.set(T + 3_600_000 + 31_000);
    a.tick();
    b.tick();
    // (the winner starts its job after re-reading the shared state, so wait for both)
    await waitFor(
      () =>
        la.events('job-deferred').length + lb.events('job-deferred').length === 3 &&
        ra.calls.length + rb.calls.length >= 2,
      'one replica to run it, the other to defer',
    );
    expect(ra.calls.length + rb.calls.length).toBe(2);
    [...ra.calls, ...rb.calls].slice(-1)[0]!.succeed();
    await a.idle();
    await b.idle();
    const runs = await pgQuery<{ n: string }>(url, "SELECT COUNT(*) AS n FROM floe_runs WHERE table_name = 'shared'");
    expect(Number(runs[0]!.n)).toBe(2);
    // a pause by one replica stops the other at its next start, before it learns of it any other way
    await a.setPaused('shared', true);
    expect(b.isPaused('shared')).toBe(false);
    clock.set(T + 2 * 3_600_000 + 62_000);
    const before = rb.calls.length;
    b.tick();
    await waitFor(
      () => lb.events('job-deferred').some((e) => e.reason === 'the table was paused (by another replica)'),
      'b to see the pause',
    );
    expect(rb.calls.length).toBe(before);
    expect(b.isPaused('shared')).toBe(true);
    for (const s of [a, b]) {
      await s.stop(1000);
      await s.close();
    }
  });
});

if (skipAll) {
  describe('service state on PostgreSQL', () => {
    it('is skipped', () => {
      console.warn('\n!!! SKIPPED: FLOE_SKIP_POSTGRES=1: the PostgreSQL state tests did not run\n');
    });
  });
}
