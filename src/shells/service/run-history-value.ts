/**
 * The cost and benefit of a table's runs over time, read from its run history: per run the bytes read and
 * written, CPU-seconds and money (priced like the budget), and the full-scan file opens it saved; and the
 * totals per UTC day. Dry runs and busy skips spent nothing worth counting and are left out.
 */
import type { Spend } from './budget.js';
import type { RunRecord } from './state-db.js';
import { measuredBenefit } from './run-value.js';

export interface RunValue extends Spend {
  at: string;
  job: string;
  outcome: string;
  fileOpensSaved: number;
}

export interface DayValue extends Spend {
  day: string;
  runs: number;
  fileOpensSaved: number;
}

export interface RunValues {
  currency: string;
  /** Oldest first. */
  runs: RunValue[];
  perDay: DayValue[];
}

export function runValues(history: RunRecord[], spendOf: (r: RunRecord) => Spend, currency: string): RunValues {
  const runs = history
    .filter((r) => !r.dryRun && r.outcome !== 'busy')
    .sort((a, b) => a.startedAtMs - b.startedAtMs)
    .map((r) => ({
      at: new Date(r.startedAtMs).toISOString(),
      job: r.job,
      outcome: r.outcome,
      ...spendOf(r),
      fileOpensSaved: r.job === 'compact' ? measuredBenefit(r) : 0,
    }));
  const days = new Map<string, DayValue>();
  for (const r of runs) {
    const day = r.at.slice(0, 10);
    const d = days.get(day) ?? { day, runs: 0, bytes: 0, cpuSeconds: 0, money: 0, fileOpensSaved: 0 };
    d.runs++;
    d.bytes += r.bytes;
    d.cpuSeconds += r.cpuSeconds;
    d.money += r.money;
    d.fileOpensSaved += r.fileOpensSaved;
    days.set(day, d);
  }
  return { currency, runs, perDay: [...days.values()] };
}
