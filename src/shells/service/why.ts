/**
 * Why a job is or is not running now, as one code and one sentence: what `/api/tables`, the dashboard and
 * the `floe_job_waiting` metric show per table and job. The codes are part of the published API schema
 * (schema/floe-service-api.schema.json).
 */
import { iso } from './run-record.js';

export const WHY_CODES = [
  'running',
  'due',
  'not-due',
  'below-trigger',
  'budget-spent',
  'cap-reached',
  'paused',
  'backing-off',
  'busy',
  'waiting',
  'estimating',
] as const;

export type WhyCode = (typeof WHY_CODES)[number];

export interface Why {
  code: WhyCode;
  reason: string;
  /** When the scheduler decided it (ISO time). */
  at: string;
}

/** What the service knows about one job at one moment, in the order the reasons take precedence. */
export interface WhyInputs {
  now: number;
  runningThis?: { since: number; reason: string };
  runningOther?: string;
  paused: boolean;
  failures: number;
  retryAtMs?: number;
  leaseBlockedUntilMs?: number;
  /** Held back by the last scheduling pass (budget, cap, below trigger, slot, estimating). */
  held?: { code: WhyCode; reason: string; atMs: number; untilMs?: number };
  dueAt: number;
}

export function whyNow(i: WhyInputs): Why {
  const at = iso(i.now);
  if (i.runningThis)
    return { code: 'running', reason: `running since ${iso(i.runningThis.since)} (${i.runningThis.reason})`, at };
  if (i.paused) return { code: 'paused', reason: 'paused: no scheduled or retried runs until resumed', at };
  if (i.failures > 0 && i.retryAtMs !== undefined && i.retryAtMs > i.now)
    return {
      code: 'backing-off',
      reason: `backing off after ${i.failures} failure${i.failures === 1 ? '' : 's'} until ${iso(i.retryAtMs)}`,
      at,
    };
  if (i.runningOther)
    return { code: 'busy', reason: `busy: ${i.runningOther} is running (a table's jobs never overlap)`, at };
  if (i.leaseBlockedUntilMs !== undefined && i.leaseBlockedUntilMs > i.now)
    return {
      code: 'busy',
      reason: `busy: another job holds the table's lease; tried again at ${iso(i.leaseBlockedUntilMs)}`,
      at,
    };
  if (
    i.held &&
    (i.held.untilMs === undefined || i.held.untilMs > i.now) &&
    (i.held.code === 'below-trigger' || i.dueAt <= i.now)
  )
    return { code: i.held.code, reason: i.held.reason, at: iso(i.held.atMs) };
  if (i.dueAt > i.now) return { code: 'not-due', reason: `not due until ${iso(i.dueAt)}`, at };
  return { code: 'due', reason: 'due: starts at the next scheduling pass', at };
}
