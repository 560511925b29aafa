/**
 * When a table's jobs are due: the schedule counted from the last success (or the last occurrence skipped
 * because the table was busy), gated by the failure backoff and a below-trigger hold; the occurrences a
 * running job lets pass (skipped, not run right after it); and when the scheduler must next wake.
 */
import type { JobConfig } from './config.js';
import { iso } from './run-record.js';
import { nextDueMs } from './schedule.js';
import type { ServiceCore, StartReason, TableRuntime } from './service-core.js';
import type { JobKind } from '../../orchestration/job-types.js';

/** When job `j` of `t` is next due: its schedule from the last success (or the last skipped occurrence), gated by backoff. */
export function dueAt(t: TableRuntime, j: JobConfig, now: number): number {
  const s = t.state.jobs[j.kind];
  const base =
    s?.lastSuccessStartMs === undefined ? undefined : Math.max(s.lastSuccessStartMs, s.skippedThroughMs ?? -Infinity);
  let due = nextDueMs(j.schedule, base, now, s?.firstSeenMs);
  if (s && s.consecutiveFailures > 0 && s.retryAtMs !== undefined) due = Math.max(due, s.retryAtMs);
  return due;
}

/** When the job can next start: its due time, or a below-trigger hold's re-check if that is later. */
export function nextRunAt(t: TableRuntime, j: JobConfig, now: number): number {
  const held = t.held.get(j.kind);
  const due = dueAt(t, j, now);
  return held?.code === 'below-trigger' && held.untilMs !== undefined ? Math.max(due, held.untilMs) : due;
}

/** The job's next schedule occurrence after now (a below-trigger re-check waits at least for it). */
export function nextOccurrence(j: JobConfig, now: number): number {
  return nextDueMs(j.schedule, now, now);
}

export function startReason(t: TableRuntime, kind: JobKind): StartReason {
  return (t.state.jobs[kind]?.consecutiveFailures ?? 0) > 0 ? 'retry' : 'scheduled';
}

/** A running job whose next occurrence has come: that occurrence is skipped, and logged once. */
export function noteSkips(core: ServiceCore, now: number): void {
  for (const t of core.tables.values()) {
    const r = t.running;
    if (!r) continue;
    const j = t.cfg.jobs.find((x) => x.kind === r.job)!;
    let passed: number | undefined;
    let count = 0;
    for (
      let next = nextDueMs(j.schedule, r.skippedThroughMs ?? r.startedAtMs, now);
      next <= now && count < 10_000;
      next = nextDueMs(j.schedule, next, now)
    ) {
      passed = next;
      count++;
    }
    if (passed === undefined) continue;
    r.skippedThroughMs = passed;
    core.emit('warn', 'job-skipped', {
      table: t.cfg.name,
      job: r.job,
      dueAt: iso(passed),
      occurrences: count,
      reason: `still running since ${iso(r.startedAtMs)}; the table's jobs never overlap`,
    });
  }
}

/** The earliest moment something can change (a due time, a skip occurrence, budget freed), at most maxSleepMs away. */
export function nextWakeMs(core: ServiceCore, now: number): number {
  let earliest = now + core.maxSleepMs;
  const slotsFree = core.runningJobs().length < core.config.concurrency;
  for (const t of core.tables.values()) {
    if (t.running) {
      const j = t.cfg.jobs.find((x) => x.kind === t.running!.job)!;
      earliest = Math.min(earliest, nextDueMs(j.schedule, t.running.skippedThroughMs ?? t.running.startedAtMs, now));
    } else if (slotsFree && !t.paused) {
      // with every slot busy, only a finishing job can start another: it ticks itself
      for (const j of t.cfg.jobs) {
        const heldUntil = t.held.get(j.kind)?.untilMs ?? 0;
        earliest = Math.min(earliest, Math.max(dueAt(t, j, now), t.leaseBlockedUntilMs ?? 0, heldUntil));
      }
    }
  }
  // spend leaving the budget's window can admit a held job
  const release = core.budget.nextRelease(now);
  if (release !== undefined && slotsFree) earliest = Math.min(earliest, release);
  return earliest;
}
