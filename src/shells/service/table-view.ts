/**
 * What `GET /health` and `/api/tables` say of a table's jobs: each one's schedule, next due and next run
 * time, last run and result, failure streak, and why it is or is not running now (why.ts).
 */
import type { JobConfig } from './config.js';
import { dueAt, nextRunAt } from './job-timing.js';
import { iso } from './run-record.js';
import type { ServiceCore, TableRuntime } from './service-core.js';
import { whyNow, type Why } from './why.js';
import type { JobKind } from '../../orchestration/job-types.js';

/** Why a job of a table is or is not running now (`/api/tables`, the dashboard, `floe_job_waiting`). */
export function whyOf(t: TableRuntime, j: JobConfig, now: number): Why {
  const kind = j.kind;
  const s = t.state.jobs[kind];
  return whyNow({
    now,
    ...(t.running?.job === kind ? { runningThis: { since: t.running.startedAtMs, reason: t.running.reason } } : {}),
    ...(t.running && t.running.job !== kind ? { runningOther: `${t.running.job} of ${t.cfg.name}` } : {}),
    paused: t.paused,
    failures: s?.consecutiveFailures ?? 0,
    ...(s?.retryAtMs !== undefined ? { retryAtMs: s.retryAtMs } : {}),
    ...(t.leaseBlockedUntilMs !== undefined ? { leaseBlockedUntilMs: t.leaseBlockedUntilMs } : {}),
    ...(t.held.get(kind) ? { held: t.held.get(kind)! } : {}),
    dueAt: dueAt(t, j, now),
  });
}

/** `GET /health`: the service's mode and every table with its jobs. */
export function healthOf(core: ServiceCore, startedAtMs: number): Record<string, unknown> {
  const now = core.clock.now();
  return {
    ok: core.mode !== 'stopping' && core.mode !== 'stopped',
    status: core.mode,
    startedAt: iso(startedAtMs),
    now: iso(now),
    tables: [...core.tables.values()].map((t) => ({
      name: t.cfg.name,
      table: t.cfg.table,
      source: t.cfg.source,
      paused: t.paused,
      running: t.running ? { job: t.running.job, since: iso(t.running.startedAtMs), reason: t.running.reason } : null,
      jobs: Object.fromEntries(t.cfg.jobs.map((j) => [j.kind, jobHealth(t, j, now)])),
    })),
  };
}

function jobHealth(t: TableRuntime, j: JobConfig, now: number): Record<string, unknown> {
  const s = t.state.jobs[j.kind];
  const runningThis = t.running?.job === j.kind;
  return {
    schedule: j.schedule.text,
    nextDueAt: runningThis ? null : iso(dueAt(t, j, now)),
    lastRunAt: s?.lastStartMs !== undefined ? iso(s.lastStartMs) : null,
    nextRunAt: runningThis ? null : iso(nextRunAt(t, j, now)),
    why: whyOf(t, j, now),
    ...(t.ranBecause.has(j.kind) ? { ranBecause: t.ranBecause.get(j.kind) } : {}),
    consecutiveFailures: s?.consecutiveFailures ?? 0,
    lastSuccessAt: s?.lastSuccessStartMs !== undefined ? iso(s.lastSuccessStartMs) : null,
    lastResult: s?.lastResult ?? null,
  };
}

/** Every configured job with its waiting code (`floe_job_waiting`). */
export function waitingCodes(core: ServiceCore): { table: string; job: JobKind; code: Why['code'] }[] {
  const now = core.clock.now();
  return [...core.tables.values()].flatMap((t) =>
    t.cfg.jobs.map((j) => ({ table: t.cfg.name, job: j.kind, code: whyOf(t, j, now).code })),
  );
}
