/**
 * When a job is due. A schedule is either an interval ("30m", "every 6h", "hourly", "daily", "weekly"),
 * measured from the start of the last successful run, or a cron expression (5 or 6 fields, evaluated by
 * croner in the configured time zone, UTC by default), due once a fire time has passed since that run.
 * An interval job that never succeeded is due at once: an unmaintained table is the case the service exists
 * for. A cron job that never ran waits for its first fire time after the schedule was first seen (a weekly
 * `0 4 * * 0` started on a Tuesday first runs on Sunday, not at start-up).
 */
import { Cron } from 'croner';
import { FloeError } from '../../../util/errors.js';
import { tryParseDurationMs } from '../../../util/units.js';

export type Schedule =
  | { kind: 'interval'; everyMs: number; text: string }
  | { kind: 'cron'; expression: string; timezone: string; cron: Cron; text: string };

const NAMED_INTERVALS: Record<string, number> = {
  hourly: 3_600_000,
  daily: 86_400_000,
  weekly: 7 * 86_400_000,
};

/** Parses a schedule; `where` names the config key in error messages. */
export function parseSchedule(text: string, where: string, timezone = 'UTC'): Schedule {
  const t = text.trim();
  const named = NAMED_INTERVALS[t.toLowerCase()];
  if (named !== undefined) return { kind: 'interval', everyMs: named, text: t };
  const interval = tryParseDurationMs(t.replace(/^every\s+/i, ''));
  if (interval !== undefined) {
    if (interval < 1000)
      throw new FloeError('InvalidArgument', `${where}: interval "${text}" is shorter than one second`);
    return { kind: 'interval', everyMs: interval, text: t };
  }
  const fields = t.split(/\s+/);
  if (fields.length === 5 || fields.length === 6) {
    try {
      // paused: croner only computes fire times here; the service owns its timers
      const cron = new Cron(t, { paused: true, timezone });
      return { kind: 'cron', expression: t, timezone, cron, text: t };
    } catch (e) {
      throw new FloeError(
        'InvalidArgument',
        `${where}: "${text}" is not a valid cron expression (${e instanceof Error ? e.message : String(e)})`,
      );
    }
  }
  throw new FloeError(
    'InvalidArgument',
    `${where}: "${text}" is not a schedule; use an interval (30m, every 6h, hourly, daily, weekly) or a cron expression ("0 3 * * *")`,
  );
}

/**
 * The first instant the job is due, given the start of its last successful run. Interval: last + every
 * (never ran: now). Cron: the first fire time after the last run (never ran: the first one after
 * `firstSeenMs`, when the service first saw the schedule; without it, now).
 */
export function nextDueMs(
  schedule: Schedule,
  lastSuccessStartMs: number | undefined,
  nowMs: number,
  firstSeenMs?: number,
): number {
  if (lastSuccessStartMs === undefined) {
    if (schedule.kind !== 'cron' || firstSeenMs === undefined) return nowMs;
    lastSuccessStartMs = firstSeenMs;
  }
  if (schedule.kind === 'interval') return lastSuccessStartMs + schedule.everyMs;
  const next = schedule.cron.nextRun(new Date(lastSuccessStartMs));
  return next ? next.getTime() : Number.POSITIVE_INFINITY;
}

/** Delay before retrying after `failures` consecutive failures: initial · 2^(failures−1), capped. */
export function backoffMs(failures: number, initialMs: number, maxMs: number): number {
  if (failures <= 0) return 0;
  // the exponent is bounded so the power never overflows to Infinity before the cap applies
  return Math.min(maxMs, initialMs * 2 ** Math.min(failures - 1, 40));
}
