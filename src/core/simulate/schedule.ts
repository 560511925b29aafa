/**
 * When a policy's planner runs. Both kinds fire on a fixed cadence (the first time `everyMinutes` after
 * the start); `on-change` additionally skips the evaluation when no writer committed since the last one
 * — Amoro's refresh loop evaluates a table only when its current snapshot moved. (Compaction's own
 * commits do not count: they only re-arrange what the planner just decided about.)
 */
import type { Schedule } from './types.js';

export class Scheduler {
  private nextDueMs: number;
  private lastSeenVersion = -1;
  private readonly periodMs: number;

  constructor(private readonly schedule: Schedule) {
    this.periodMs = Math.round(schedule.everyMinutes * 60_000);
    this.nextDueMs = this.periodMs;
  }

  /** Whether the planner runs at simulated time `tMs` (ms since start) given how many writer commits
   * have landed so far (`version`). */
  shouldRun(tMs: number, version: number): boolean {
    if (this.periodMs <= 0 || tMs < this.nextDueMs) return false;
    while (this.nextDueMs <= tMs) this.nextDueMs += this.periodMs;
    if (this.schedule.kind === 'on-change') {
      if (version === this.lastSeenVersion) return false;
      this.lastSeenVersion = version;
    }
    return true;
  }
}

export function describeSchedule(s: Schedule): string {
  const every = s.everyMinutes === 1 ? 'every minute' : `every ${s.everyMinutes} min`;
  return s.kind === 'periodic' ? every : `${every} if changed`;
}
