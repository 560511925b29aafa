import { mkdtempSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseServiceConfig } from '../../../src/shells/service/config.js';
import { MaintenanceService } from '../../../src/shells/service/service.js';
import { backoffMs, nextDueMs, parseSchedule } from '../../../src/shells/service/schedule.js';
import { FakeClock, FakeRunner, LogCollector, waitFor } from './fakes.js';

const MIN = 60_000;
const T0 = Date.UTC(2025, 0, 1, 0, 0, 0);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'floe-service-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function config(raw: Record<string, unknown>) {
  return parseServiceConfig({ stateDir: 'state', ...raw }, 'test.yaml', dir);
}

async function service(raw: Record<string, unknown>, clock: FakeClock, runner: FakeRunner, log = new LogCollector()) {
  return new MaintenanceService(await config(raw), { clock, runJob: runner.run, log: log.sink });
}

describe('schedules', () => {
  it('interval schedules count from the last successful start; never-run jobs are due now', () => {
    const s = parseSchedule('every 30m', 'k');
    expect(nextDueMs(s, undefined, T0)).toBe(T0);
    expect(nextDueMs(s, T0, T0)).toBe(T0 + 30 * MIN);
    expect(nextDueMs(parseSchedule('daily', 'k'), T0, T0)).toBe(T0 + 24 * 60 * MIN);
    expect(nextDueMs(parseSchedule('weekly', 'k'), T0, T0)).toBe(T0 + 7 * 24 * 60 * MIN);
  });

  it('cron schedules fire at the next matching minute after the last run (UTC unless configured)', () => {
    const s = parseSchedule('0 3 * * *', 'k');
    // 05:00 on Jan 1 → next 03:00 is Jan 2
    expect(nextDueMs(s, Date.UTC(2025, 0, 1, 5, 0), 0)).toBe(Date.UTC(2025, 0, 2, 3, 0));
    const every15 = parseSchedule('*/15 * * * *', 'k');
    expect(nextDueMs(every15, Date.UTC(2025, 0, 1, 5, 7), 0)).toBe(Date.UTC(2025, 0, 1, 5, 15));
    // Berlin is UTC+1 in January: 03:00 there is 02:00 UTC
    const berlin = parseSchedule('0 3 * * *', 'k', 'Europe/Berlin');
    expect(nextDueMs(berlin, Date.UTC(2025, 0, 1, 5, 0), 0)).toBe(Date.UTC(2025, 0, 2, 2, 0));
  });

  it('backoff doubles from the initial delay and stops at the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 60].map((n) => backoffMs(n, 1000, 10_000))).toEqual([
      0, 1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
  });
});

describe('scheduler', () => {
  it('runs due jobs, one per table at a time, and nothing before it is due', async () => {
    const clock = new FakeClock(T0);
    const runner = new FakeRunner();
    const svc = await service(
      { tables: [{ name: 'a', location: '/t/a', jobs: { compact: 'every 30m', expire: 'daily' } }] },
      clock,
      runner,
    );
    await svc.init();
    svc.start();
    // both never ran, so both are due, but a table's jobs are serialised
    expect(runner.started()).toEqual(['/t/a/compact']);
    clock.set(T0 + 2 * MIN);
    runner.calls[0]!.succeed();
    await waitFor(() => runner.calls.length === 2, 'expire to start after compact');
    expect(runner.started()[1]).toBe('/t/a/expire');
    runner.calls[1]!.succeed();
    await svc.idle();

    clock.set(T0 + 29 * MIN);
    svc.tick();
    expect(runner.calls.length).toBe(2); // compact started at T0: due at T0+30m
    clock.set(T0 + 30 * MIN);
    svc.tick();
    expect(runner.started().slice(2)).toEqual(['/t/a/compact']);
    runner.calls[2]!.succeed();
    await svc.idle();
    await svc.stop(1000);
  });

  it('runs at most `concurrency` tables at once', async () => {
    const clock = new FakeClock(T0);
    const runner = new FakeRunner();
    const tables = ['a', 'b', 'c'].map((n) => ({ name: n, location: `/t/${n}`, jobs: { compact: 'hourly' } }));
    const svc = await service({ concurrency: 2, tables }, clock, runner);
    await svc.init();
    svc.start();
    expect(runner.started()).toEqual(['/t/a/compact', '/t/b/compact']);
    runner.calls[1]!.succeed();
    await waitFor(() => runner.calls.length === 3, 'c to take the free slot');
    expect(runner.started()[2]).toBe('/t/c/compact');
    runner.calls[0]!.succeed();
    runner.calls[2]!.succeed();
    await svc.idle();
    await svc.stop(1000);
  });

  it('skips (and logs once) an occurrence that comes while the job still runs; the schedule resumes after it', async () => {
    const clock = new FakeClock(T0);
    const runner = new FakeRunner();
    const log = new LogCollector();
    const svc = await service(
      { tables: [{ name: 'a', location: '/t/a', jobs: { compact: 'every 10m' } }] },
      clock,
      runner,
      log,
    );
    await svc.init();
    svc.start();
    expect(runner.calls.length).toBe(1);
    clock.set(T0 + 10 * MIN);
    svc.tick();
    clock.set(T0 + 15 * MIN);
    svc.tick();
    expect(runner.calls.length).toBe(1);
    expect(log.events('job-skipped').map((e) => e.dueAt)).toEqual([new Date(T0 + 10 * MIN).toISOString()]);
    expect(String(log.events('job-skipped')[0]!.reason)).toMatch(/still running/);
    clock.set(T0 + 20 * MIN);
    svc.tick();
    expect(log.events('job-skipped').length).toBe(2);

    clock.set(T0 + 25 * MIN);
    runner.calls[0]!.succeed();
    await svc.idle();
    // the 10m and 20m occurrences were skipped: next is 30m, not "overdue since 10m"
    svc.tick();
    expect(runner.calls.length).toBe(1);
    clock.set(T0 + 30 * MIN);
    svc.tick();
    expect(runner.calls.length).toBe(2);
    runner.calls[1]!.succeed();
    await svc.idle();
    await svc.stop(1000);
  });

  it('backs off exponentially after failures, capped, and resets on success', async () => {
    const clock = new FakeClock(T0);
    const runner = new FakeRunner();
    const log = new LogCollector();
    const svc = await service(
      {
        backoff: { initial: '1m', max: '3m' },
        tables: [{ name: 'a', location: '/t/a', jobs: { compact: 'every 5m' } }],
      },
      clock,
      runner,
      log,
    );
    await svc.init();
    svc.start();
    // each failure at time f is retried at f + 1m, then + 2m, then + 3m (the cap), + 3m …
    const expectedDelays = [1, 2, 3, 3];
    let t = T0;
    for (const [i, d] of expectedDelays.entries()) {
      runner.calls[i]!.fail(new Error('boom'));
      await waitFor(() => log.events('job-failed').length === i + 1, 'failure logged');
      expect(svc.stateOf('a')!.jobs.compact!.consecutiveFailures).toBe(i + 1);
      clock.set(t + d * MIN - 1);
      svc.tick();
      expect(runner.calls.length).toBe(i + 1);
      t += d * MIN;
      clock.set(t);
      svc.tick();
      expect(runner.calls.length).toBe(i + 2);
    }
    expect(
      log
        .events('job-start')
        .slice(1)
        .every((e) => e.reason === 'retry'),
    ).toBe(true);
    runner.calls[4]!.succeed();
    await svc.idle();
    const s = svc.stateOf('a')!.jobs.compact!;
    expect(s.consecutiveFailures).toBe(0);
    expect(s.retryAtMs).toBeUndefined();
    expect(s.lastSuccessStartMs).toBe(t);
    clock.set(t + 5 * MIN - 1);
    svc.tick();
    expect(runner.calls.length).toBe(5);
    await svc.stop(1000);
  });

  it('a restarted service continues from the persisted state (schedule, tiered state, failures)', async () => {
    const clock = new FakeClock(T0);
    const runner = new FakeRunner();
    const raw = {
      backoff: { initial: '1h' },
      tables: [{ name: 'a', location: '/t/a', jobs: { compact: 'every 30m', expire: 'daily' } }],
    };
    const first = await service(raw, clock, runner);
    await first.init();
    first.start();
    const tiered = { partitions: { '0|[]': { lastMinorMs: T0 } }, lastOptimizedSnapshotId: '9007199254740993' };
    runner.calls[0]!.succeed({ snapshotIds: ['9007199254740993'], tieredState: tiered });
    await waitFor(() => runner.calls.length === 2, 'expire');
    runner.calls[1]!.fail(new Error('store unavailable'));
    await first.idle();
    await first.stop(1000);

    await first.close();
    // what the database holds (the SQLite file named by stateDir)
    const db = new Database(path.join(dir, 'state', 'floe-state.db'), { readonly: true });
    const planner = db.prepare('SELECT state_json FROM floe_planner_state WHERE table_name = ?').get('a') as {
      state_json: string;
    };
    expect(JSON.parse(planner.state_json)).toEqual(tiered);
    const compactRow = db
      .prepare("SELECT last_success_start_ms FROM floe_schedule_state WHERE table_name = 'a' AND job = 'compact'")
      .get() as { last_success_start_ms: number };
    expect(compactRow.last_success_start_ms).toBe(T0);
    expect(db.prepare("SELECT job, outcome, error FROM floe_runs WHERE table_name = 'a' ORDER BY id").all()).toEqual([
      { job: 'compact', outcome: 'ok', error: null },
      { job: 'expire', outcome: 'failed', error: 'store unavailable' },
    ]);
    db.close();

    // a new process 10 minutes later: compact is not due; expire is in backoff until failure + 1h
    const runner2 = new FakeRunner();
    clock.set(T0 + 10 * MIN);
    const second = await service(raw, clock, runner2);
    await second.init();
    expect(second.stateOf('a')!.jobs.expire!.consecutiveFailures).toBe(1);
    second.start();
    expect(runner2.calls.length).toBe(0);
    clock.set(T0 + 30 * MIN);
    second.tick();
    expect(runner2.started()).toEqual(['/t/a/compact']);
    // the planner memory from the first process is handed to the job
    expect(runner2.calls[0]!.spec.tieredState).toEqual(tiered);
    runner2.calls[0]!.succeed();
    await second.idle();
    expect(runner2.calls.length).toBe(1);
    clock.set(T0 + 60 * MIN - 1);
    second.tick();
    expect(runner2.calls.length).toBe(1);
    // at T0+60m compact is due again (30m after T0+30m) and expire's backoff ends: both run, one after the other
    clock.set(T0 + 60 * MIN);
    second.tick();
    runner2.calls[1]!.succeed();
    await waitFor(() => runner2.calls.length === 3, 'the second job of the table');
    expect(runner2.started().slice(1).sort()).toEqual(['/t/a/compact', '/t/a/expire']);
    runner2.calls[2]!.succeed();
    await second.idle();
    await second.stop(1000);
  });

  it('--once runs each due job once, reports failures, and leaves jobs that are not due', async () => {
    const clock = new FakeClock(T0);
    const runner = new FakeRunner();
    const svc = await service(
      {
        concurrency: 2,
        tables: [
          { name: 'a', location: '/t/a', jobs: { compact: 'hourly', expire: 'daily' } },
          { name: 'b', location: '/t/b', jobs: { compact: 'hourly' } },
        ],
      },
      clock,
      runner,
    );
    await svc.init();
    const done = svc.runOnce();
    await waitFor(() => runner.calls.length === 2, 'two tables in parallel');
    runner.calls[1]!.fail(new Error('b is broken'));
    runner.calls[0]!.succeed();
    await waitFor(() => runner.calls.length === 3, 'a/expire');
    runner.calls[2]!.succeed();
    const summary = await done;
    expect(runner.started().sort()).toEqual(['/t/a/compact', '/t/a/expire', '/t/b/compact']);
    expect(summary).toMatchObject({ ran: 3, failed: 1 });
    // a second pass at the same time: a/* are not due, b/compact is in backoff
    const again = await svc.runOnce();
    expect(again.ran).toBe(0);
    expect(runner.calls.length).toBe(3);
  });

  it('shutdown stops starting jobs, waits for running ones and flushes state', async () => {
    const clock = new FakeClock(T0);
    const runner = new FakeRunner();
    const log = new LogCollector();
    const svc = await service(
      { tables: [{ name: 'a', location: '/t/a', jobs: { compact: 'hourly', expire: 'daily' } }] },
      clock,
      runner,
      log,
    );
    await svc.init();
    svc.start();
    const stopping = svc.stop(60_000);
    runner.calls[0]!.succeed();
    const { unfinished } = await stopping;
    expect(unfinished).toEqual([]);
    expect(runner.calls.length).toBe(1); // expire was due but not started during shutdown
    await svc.close();
    const db = new Database(path.join(dir, 'state', 'floe-state.db'), { readonly: true });
    expect(
      db
        .prepare(
          "SELECT last_success_start_ms AS t FROM floe_schedule_state WHERE table_name = 'a' AND job = 'compact'",
        )
        .get(),
    ).toEqual({ t: T0 });
    db.close();
    expect(log.events('service-stop').length).toBe(1);
  });

  it('shutdown gives up after the timeout and signals the running job to stop', async () => {
    const clock = new FakeClock(T0);
    const runner = new FakeRunner();
    const svc = new MaintenanceService(
      await config({ tables: [{ name: 'a', location: '/t/a', jobs: { compact: 'hourly' } }] }),
      {
        // shutdown's timeout is a real timer here, the rest of the clock is fake
        clock: {
          now: () => clock.now(),
          setTimer: (fn, ms) => setTimeout(fn, ms),
          clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
        },
        runJob: runner.run,
        log: () => {},
      },
    );
    await svc.init();
    svc.start();
    const { unfinished } = await svc.stop(20);
    expect(unfinished).toEqual(['a/compact']);
    expect(runner.calls[0]!.signal?.aborted).toBe(true);
    runner.calls[0]!.succeed();
  });

  it('manual triggers run a job now, and refuse one that is running', async () => {
    const clock = new FakeClock(T0);
    const runner = new FakeRunner();
    const svc = await service(
      { tables: [{ name: 'a', location: '/t/a', jobs: { compact: 'hourly', 'remove-orphans': 'weekly' } }] },
      clock,
      runner,
    );
    await svc.init();
    svc.start();
    expect(svc.trigger('a', 'compact').status).toBe('running');
    expect(svc.trigger('zz', 'compact').status).toBe('unknown-table');
    expect(svc.trigger('a', 'expire').status).toBe('unknown-job');
    runner.calls[0]!.succeed();
    await waitFor(() => runner.calls.length === 2, 'remove-orphans');
    runner.calls[1]!.succeed();
    await svc.idle();
    // nothing is due for an hour, but a trigger starts it at once
    expect(svc.trigger('a', 'compact')).toEqual({ status: 'accepted', started: true, dryRun: false });
    const last = runner.calls[2]!;
    expect(`${last.spec.table}/${last.spec.job}`).toBe('/t/a/compact');
    last.succeed();
    await svc.idle();
    await svc.stop(1000);
  });
});
