/**
 * One scheduling pass: every table offers its most overdue job (or the one an operator asked for), dispatch.ts
 * decides which start now within the free slots and the budget, and the others are held with the reason —
 * a compaction without a fresh estimate gets one planned (estimates.ts). Then the timer is armed for the
 * earliest moment anything can change.
 */
import type { JobConfig } from './config.js';
import { dispatch, type DueJob } from './dispatch.js';
import { estimate } from './estimates.js';
import { startJob } from './job-run.js';
import { dueAt, nextOccurrence, nextWakeMs, noteSkips, startReason } from './job-timing.js';
import type { ServiceCore, TableRuntime } from './service-core.js';

/** A plan that found nothing is looked at again after this long (or at the job's next occurrence, if later). */
const BELOW_TRIGGER_RECHECK_MS = 15 * 60_000;
/** An estimate older than this is planned again before it is trusted. */
const ESTIMATE_TTL_MS = 15 * 60_000;

export function pump(core: ServiceCore): void {
  if (core.mode !== 'serving' && core.mode !== 'once') return;
  const now = core.clock.now();
  noteSkips(core, now);
  const budget = core.budget.dispatchBudget();
  const decisions = dispatch(dueJobs(core, now), {
    now,
    freeSlots: core.config.concurrency - core.runningJobs().length,
    concurrency: core.config.concurrency,
    running: core.runningJobs().length,
    ...(budget ? { budget } : {}),
  });
  for (const d of decisions) {
    const t = d.job.ref;
    const kind = d.job.kind;
    const j = t.cfg.jobs.find((x) => x.kind === kind)!;
    if (d.start) {
      t.held.delete(kind);
      t.ranBecause.set(kind, d.why);
      startJob(core, t, j, d.job.manual ? 'manual' : startReason(t, kind), now, d.spend);
      continue;
    }
    const untilMs =
      d.code === 'below-trigger' ? Math.max(now + BELOW_TRIGGER_RECHECK_MS, nextOccurrence(j, now)) : d.freesAtMs;
    const before = t.held.get(kind);
    t.held.set(kind, {
      code: d.code,
      reason: d.why,
      atMs: before?.code === d.code ? before.atMs : now,
      ...(untilMs !== undefined ? { untilMs } : {}),
    });
    if (before?.code !== d.code && d.code !== 'estimating')
      core.emit('info', 'job-held', { table: t.cfg.name, job: kind, code: d.code, reason: d.why });
    if (d.code === 'below-trigger') delete t.estimate;
    if (d.needsEstimate) estimate(core, t, j);
  }
}

/** Sleeps until the earliest moment something can change (job-timing.ts `nextWakeMs`), at least 50 ms. */
export function arm(core: ServiceCore): void {
  if (core.mode !== 'serving') return;
  if (core.timer !== undefined) core.clock.clearTimer(core.timer);
  const now = core.clock.now();
  const delay = Math.min(core.maxSleepMs, Math.max(50, nextWakeMs(core, now) - now));
  core.timer = core.clock.setTimer(() => {
    core.timer = undefined;
    core.tick();
  }, delay);
}

/** Every job that may start now (due or asked for), at most one per table: the most overdue of its jobs. */
function dueJobs(core: ServiceCore, now: number): DueJob<TableRuntime>[] {
  const out: DueJob<TableRuntime>[] = [];
  for (const t of core.tables.values()) {
    if (t.running || t.retiring || (t.leaseBlockedUntilMs ?? 0) > now) continue;
    let best: DueJob<TableRuntime> | undefined;
    for (const j of t.cfg.jobs) {
      if (core.mode === 'once' && core.once.started.has(`${t.cfg.name}/${j.kind}`)) continue;
      const forced = t.forced.has(j.kind);
      // a paused table runs only what an operator asks for
      if (t.paused && !forced) continue;
      const due = forced ? -Infinity : dueAt(t, j, now);
      if (due > now) continue;
      // a plan that found nothing waits for its re-check
      const held = t.held.get(j.kind);
      if (!forced && held?.code === 'below-trigger' && (held.untilMs ?? 0) > now) continue;
      if (!best || due < best.dueAt) best = dueJob(core, t, j, due, forced, now);
    }
    if (best) out.push(best);
  }
  return out;
}

function dueJob(
  core: ServiceCore,
  t: TableRuntime,
  j: JobConfig,
  due: number,
  manual: boolean,
  now: number,
): DueJob<TableRuntime> {
  const fresh = t.estimate && now - t.estimate.atMs < ESTIMATE_TTL_MS ? t.estimate : undefined;
  const s = t.state.jobs[j.kind];
  const last = s?.lastResult;
  // a job that never succeeded is "due now" at every look: it has been waiting since it was first seen
  const waitingSinceMs =
    s?.lastSuccessStartMs === undefined && s?.firstSeenMs !== undefined ? Math.min(due, s.firstSeenMs) : due;
  return {
    ref: t,
    table: t.cfg.name,
    kind: j.kind,
    dueAt: due,
    waitingSinceMs,
    manual,
    ...(j.kind === 'compact' && fresh ? { estimate: fresh } : {}),
    ...(j.kind !== 'compact' && last && !('error' in last) ? { spend: core.budget.spendOfRun(last) } : {}),
    ...(t.cfg.cap ? { cap: t.cfg.cap } : {}),
  };
}
