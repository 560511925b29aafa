/**
 * The budget: its config, the ledger's admission rule, the ranking by benefit per cost with aging, and
 * the scheduler's reasons (budget spent, cap reached, below trigger, paused, backing off, busy) as
 * `/health`, the metrics and the published API schema carry them. The scheduler runs with a fake clock and
 * a runner whose dry runs return a given plan (the real-table fairness test is fairness-iceberg.test.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseServiceConfig } from '../../../src/shells/service/config.js';
import { MaintenanceService } from '../../../src/shells/service/service.js';
import { SpendLedger, type BudgetConfig } from '../../../src/shells/service/budget.js';
import { dispatch, type DueJob } from '../../../src/shells/service/dispatch.js';
import { estimateFromPlan, priority } from '../../../src/shells/service/run-value.js';
import { WHY_CODES } from '../../../src/shells/service/why.js';
import type { MaintenanceJobResult, MaintenanceJobSpec, PlanSummary } from '../../../src/orchestration/job-types.js';
import { FakeClock, LogCollector, okResult, waitFor } from './fakes.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.UTC(2025, 0, 1, 0, 0, 0);
const MiB = 1024 * 1024;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'floe-budget-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const config = (raw: Record<string, unknown>) => parseServiceConfig({ stateDir: 'state', ...raw }, 'test.yaml', dir);

function plan(tasks: number, inputFiles: number, inputBytes: number): PlanSummary {
  return { planner: 'test', tasks, inputFiles, inputBytes, trail: [], taskList: [] };
}

/** Dry runs answer at once with the table's plan; real runs wait for the test, like FakeRunner. */
class PlanRunner {
  readonly plans = new Map<string, PlanSummary>();
  readonly real: {
    spec: MaintenanceJobSpec;
    succeed(x?: Partial<MaintenanceJobResult>): void;
    fail(e: Error): void;
  }[] = [];
  dryRuns = 0;
  readonly run = (spec: MaintenanceJobSpec): Promise<MaintenanceJobResult> => {
    if (spec.dryRun) {
      this.dryRuns++;
      return Promise.resolve(okResult(spec, { dryRun: true, plan: this.plans.get(spec.table) ?? plan(0, 0, 0) }));
    }
    return new Promise((resolve, reject) =>
      this.real.push({ spec, succeed: (x = {}) => resolve(okResult(spec, x)), fail: reject }),
    );
  };
  started(): string[] {
    return this.real.map((c) => c.spec.table);
  }
}

describe('budget config', () => {
  it('reads limits, window, prices, aging and per-table caps, layered like other knobs', async () => {
    const c = await config({
      budget: { per: 'day', bytes: '10GiB', cpuSeconds: 600, money: 2.5, prices: { perGB: 0.01 }, aging: '30m' },
      defaults: { cap: { bytes: '1GiB' } },
      tables: [
        { name: 'a', location: '/t/a', jobs: { compact: 'hourly' } },
        { name: 'b', location: '/t/b', jobs: { compact: 'hourly' }, cap: { money: 0.1 } },
      ],
    });
    expect(c.budget).toMatchObject({
      per: 'day',
      windowMs: 24 * HOUR,
      limits: { bytes: 10 * 1024 ** 3, cpuSeconds: 600, money: 2.5 },
      prices: { currency: 'USD', perGB: 0.01, perVcpuHour: 0.04 },
      agingMs: 30 * MIN,
    });
    expect(c.tables.map((t) => t.cap)).toEqual([{ bytes: 1024 ** 3 }, { money: 0.1 }]);
    const off = await config({
      budget: { bytes: '1GiB', aging: 0 },
      tables: [{ location: '/t/a', jobs: { compact: 'hourly' } }],
    });
    expect(off.budget).toMatchObject({ per: 'hour', windowMs: HOUR, agingMs: 0, limits: { bytes: 1024 ** 3 } });
  });

  it('names the offending key', async () => {
    const t = [{ location: '/t/a', jobs: { compact: 'hourly' } }];
    await expect(config({ budget: {}, tables: t })).rejects.toThrow(
      /budget: give at least one of bytes, cpuSeconds or money/,
    );
    await expect(config({ budget: { bytes: '1GiB', per: 'week' }, tables: t })).rejects.toThrow(
      /budget.per: must be hour or day/,
    );
    await expect(config({ budget: { money: -1 }, tables: t })).rejects.toThrow(
      /budget.money: must be a number more than 0/,
    );
    await expect(
      config({ tables: [{ location: '/t/a', jobs: { compact: 'hourly' }, cap: { files: 3 } }] }),
    ).rejects.toThrow(/tables\[0\].cap.files: unknown key/);
  });
});

describe('ledger and ranking', () => {
  const cfg: BudgetConfig = {
    per: 'hour',
    windowMs: HOUR,
    limits: { bytes: 100 * MiB },
    prices: { currency: 'USD', perGB: 0, perVcpuHour: 0.04 },
    bytesPerCpuSecond: 32 * MiB,
    agingMs: HOUR,
  };
  const spend = (bytes: number) => ({ bytes, cpuSeconds: 0, money: 0 });

  it('admits what fits, refuses what does not until the spend leaves the window, and lets one oversize run into an empty window', () => {
    const l = new SpendLedger(cfg, 'USD');
    expect(l.admit('a', spend(500 * MiB), undefined, T0)).toEqual({ ok: true });
    l.add('a', T0, spend(60 * MiB));
    expect(l.admit('b', spend(30 * MiB), undefined, T0 + MIN).ok).toBe(true);
    const no = l.admit('b', spend(50 * MiB), undefined, T0 + MIN);
    expect(no).toMatchObject({ ok: false, code: 'budget-spent', freesAtMs: T0 + HOUR });
    expect(!no.ok && no.reason).toMatch(
      /^budget spent: 60\.0 MiB of 100\.0 MiB per hour used, this run needs ~50\.0 MiB/,
    );
    expect(l.admit('b', spend(50 * MiB), undefined, T0 + HOUR + 1).ok).toBe(true);
    // a table's own cap
    l.add('a', T0 + HOUR + 1, spend(10 * MiB));
    expect(l.admit('a', spend(10 * MiB), { bytes: 15 * MiB }, T0 + HOUR + 2)).toMatchObject({ code: 'cap-reached' });
    expect(l.admit('b', spend(10 * MiB), { bytes: 15 * MiB }, T0 + HOUR + 2).ok).toBe(true);
  });

  it('estimates cost and benefit from a plan', () => {
    const e = estimateFromPlan(plan(2, 40, 64 * MiB), 32 * MiB, T0);
    expect(e).toMatchObject({
      tasks: 2,
      fileOpensSaved: 38,
      usage: { bytesRead: 64 * MiB, bytesWritten: 64 * MiB, cpuSeconds: 2 },
    });
    expect(estimateFromPlan(plan(1, 10, 100 * MiB), 32 * MiB, T0, 25 * MiB).fileOpensSaved).toBe(6);
    expect(estimateFromPlan(undefined, 32 * MiB, T0)).toMatchObject({ tasks: 0, fileOpensSaved: 0 });
  });

  it('ranks by benefit per cost; aging lifts a long-waiting job past a better ratio, and without aging it would wait', () => {
    // the large table saves 10× more per byte; the small one has waited 10 hours
    const big = estimateFromPlan(plan(1, 101, 10 * MiB), cfg.bytesPerCpuSecond, T0);
    const small = estimateFromPlan(plan(1, 11, 10 * MiB), cfg.bytesPerCpuSecond, T0);
    const now = T0 + 10 * HOUR;
    const due: DueJob<string>[] = [
      { ref: 'big', table: 'big', kind: 'compact', dueAt: now - 5 * MIN, manual: false, estimate: big },
      { ref: 'small', table: 'small', kind: 'compact', dueAt: T0, manual: false, estimate: small },
    ];
    const run = (agingMs: number) => {
      const ledger = new SpendLedger({ ...cfg, agingMs }, 'USD');
      ledger.add('x', now - MIN, spend(1)); // something spent: only one more 20 MiB run fits in 30 MiB
      const b = {
        ledger,
        spendOf: (e: typeof big) => spend(e.usage.bytesRead + e.usage.bytesWritten),
        unit: 'bytes' as const,
        agingMs,
      };
      return dispatch(due, {
        now,
        freeSlots: 2,
        concurrency: 2,
        running: 0,
        budget: { ...b, ledger: withLimit(ledger, 30 * MiB) },
      });
    };
    const noAging = run(0);
    expect(noAging.filter((d) => d.start).map((d) => d.job.table)).toEqual(['big']);
    expect(noAging.find((d) => d.job.table === 'small')).toMatchObject({ start: false, code: 'budget-spent' });
    const aged = run(HOUR);
    expect(aged.filter((d) => d.start).map((d) => d.job.table)).toEqual(['small']);
    expect(priority(10, 1, 10 * HOUR, HOUR)).toBe(110);
    expect(priority(10, 1, 10 * HOUR, 0)).toBe(10);
  });
});

/** The same ledger with a different bytes limit (the test's window state kept). */
function withLimit(l: SpendLedger, bytes: number): SpendLedger {
  (l.cfg as BudgetConfig).limits = { bytes };
  return l;
}

describe('scheduler with a budget', () => {
  async function budgeted(
    raw: Record<string, unknown>,
    clock: FakeClock,
    runner: PlanRunner,
    log = new LogCollector(),
  ) {
    const svc = new MaintenanceService(await config(raw), { clock, runJob: runner.run, log: log.sink });
    await svc.init();
    return svc;
  }
  const why = (svc: MaintenanceService, t: string, j: 'compact' | 'expire' = 'compact') => svc.whyOf(t, j)!;

  it('estimates with a dry run, runs the best ratio first, holds the rest for the budget and says why', async () => {
    const clock = new FakeClock(T0);
    const runner = new PlanRunner();
    runner.plans.set('/t/big', plan(1, 200, 40 * MiB));
    runner.plans.set('/t/small', plan(1, 3, 20 * MiB));
    runner.plans.set('/t/done', plan(0, 0, 0));
    const log = new LogCollector();
    const svc = await budgeted(
      {
        budget: { bytes: '100MiB', aging: '1h' },
        concurrency: 2,
        tables: ['big', 'small', 'done'].map((n) => ({ name: n, location: `/t/${n}`, jobs: { compact: 'every 10m' } })),
      },
      clock,
      runner,
      log,
    );
    svc.start();
    await waitFor(() => runner.real.length === 1, 'the first real run');
    expect(runner.dryRuns).toBe(3);
    expect(runner.started()).toEqual(['/t/big']);
    expect(why(svc, 'big').code).toBe('running');
    // 80 MiB of 100 reserved by big's estimate: small's 40 MiB does not fit
    expect(why(svc, 'small')).toMatchObject({ code: 'budget-spent' });
    expect(why(svc, 'small').reason).toMatch(
      /budget spent: 80\.0 MiB of 100\.0 MiB per hour used, this run needs ~40\.0 MiB/,
    );
    expect(why(svc, 'done')).toMatchObject({ code: 'below-trigger' });
    expect(svc.ranBecause('big', 'compact')).toMatch(/saves ~199 file opens for ~80\.0 MiB/);
    // the run measured less than estimated: 30 MiB; small now fits
    clock.set(T0 + 2 * MIN);
    runner.real[0]!.succeed({
      bytesRead: 20 * MiB,
      bytesWritten: 10 * MiB,
      filesBefore: 200,
      filesAfter: 1,
      durationMs: 4000,
    });
    await waitFor(() => runner.real.length === 2, 'small to start once the measured spend leaves room');
    expect(runner.started()[1]).toBe('/t/small');
    const metrics = svc.metricsText();
    expect(metrics).toContain(`floe_spend_bytes_total{table="big"} ${30 * MiB}`);
    expect(metrics).toContain('floe_savings_file_opens_total{table="big"} 199');
    expect(metrics).toContain(`floe_budget_limit{unit="bytes"} ${100 * MiB}`);
    expect(metrics).toContain(`floe_budget_spent{unit="bytes"} ${30 * MiB + 40 * MiB}`);
    expect(metrics).toContain('floe_job_waiting{table="done",job="compact",reason="below-trigger"} 1');
    expect(svc.budgetStatus()).toMatchObject({
      per: 'hour',
      spent: { bytes: 70 * MiB },
      remaining: { bytes: 30 * MiB },
    });
    expect(log.events('job-held').map((e) => `${String(e.table)}:${String(e.code)}`)).toEqual(
      expect.arrayContaining(['small:budget-spent', 'done:below-trigger']),
    );
    runner.real[1]!.succeed({ bytesRead: 20 * MiB, bytesWritten: 20 * MiB });
    await svc.idle();
    await svc.stop(0);
    await svc.close();
  });

  it('a table cap holds that table only; paused, backing off and busy are reported as such', async () => {
    const clock = new FakeClock(T0);
    const runner = new PlanRunner();
    runner.plans.set('/t/a', plan(1, 10, 10 * MiB));
    runner.plans.set('/t/b', plan(1, 10, 10 * MiB));
    const svc = await budgeted(
      {
        budget: { bytes: '1GiB' },
        concurrency: 2,
        backoff: { initial: '5m' },
        tables: [
          { name: 'a', location: '/t/a', jobs: { compact: 'every 10m', expire: 'daily' }, cap: { bytes: '30MiB' } },
          { name: 'b', location: '/t/b', jobs: { compact: 'every 10m' } },
          { name: 'p', location: '/t/p', jobs: { compact: 'every 10m' } },
        ],
      },
      clock,
      runner,
    );
    await svc.setPaused('p', true);
    svc.start();
    await waitFor(() => runner.real.length === 2, 'a and b to start');
    expect(why(svc, 'p')).toMatchObject({ code: 'paused' });
    expect(why(svc, 'a', 'expire')).toMatchObject({ code: 'busy' });
    expect(why(svc, 'a', 'expire').reason).toMatch(/busy: compact of a is running/);
    clock.set(T0 + MIN);
    runner.real.find((c) => c.spec.table === '/t/a')!.succeed({ bytesRead: 10 * MiB, bytesWritten: 10 * MiB });
    runner.real.find((c) => c.spec.table === '/t/b')!.fail(new Error('S3 said no'));
    await waitFor(() => runner.real.length === 3, 'a expire');
    expect(why(svc, 'b')).toMatchObject({ code: 'backing-off' });
    expect(why(svc, 'b').reason).toMatch(/^backing off after 1 failure until 2025-01-01T00:06:00/);
    runner.real[2]!.succeed();
    await svc.idle();
    // ten minutes on: a's next compaction (20 MiB) would pass its 30 MiB cap; b's would not
    clock.set(T0 + 12 * MIN);
    svc.tick();
    await waitFor(() => runner.real.length === 4, 'b retried');
    expect(runner.real[3]!.spec.table).toBe('/t/b');
    expect(why(svc, 'a')).toMatchObject({ code: 'cap-reached' });
    expect(why(svc, 'a').reason).toMatch(/^table cap reached: 20\.0 MiB of 30\.0 MiB per hour used/);
    runner.real[3]!.succeed();
    await svc.idle();
    await svc.stop(0);
    await svc.close();
  });

  it('without a budget nothing is estimated and reasons still show', async () => {
    const clock = new FakeClock(T0);
    const runner = new PlanRunner();
    const svc = await budgeted(
      { tables: [{ name: 'a', location: '/t/a', jobs: { compact: 'every 10m' } }] },
      clock,
      runner,
    );
    expect(why(svc, 'a')).toMatchObject({ code: 'due' });
    svc.start();
    await waitFor(() => runner.real.length === 1, 'a');
    expect(runner.dryRuns).toBe(0);
    runner.real[0]!.succeed();
    await svc.idle();
    expect(why(svc, 'a')).toMatchObject({ code: 'not-due', reason: 'not due until 2025-01-01T00:10:00.000Z' });
    await svc.stop(0);
    await svc.close();
  });
});

describe('the service API schema', () => {
  it('lists exactly the reason codes the scheduler gives', () => {
    const schema = JSON.parse(
      readFileSync(path.join(__dirname, '../../../schema/floe-service-api.schema.json'), 'utf8'),
    ) as {
      definitions: { why: { properties: { code: { enum: string[] } } } };
    };
    expect([...schema.definitions.why.properties.code.enum].sort()).toEqual([...WHY_CODES].sort());
  });
});
