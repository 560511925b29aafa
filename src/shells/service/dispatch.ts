/**
 * Which due jobs start now, and why the others wait. Without a budget: the most overdue first (manual
 * triggers before all), as many as there are free slots. With a budget: manual triggers first, then the
 * cheap metadata jobs (expire, remove-orphans) by how overdue they are, then compactions by priority
 * (benefit per cost, aged: run-value.ts); each must fit the budget and its table's cap. When the best
 * remaining compaction does not fit the global budget, nothing ranked after it starts either — cheaper
 * work slipping past would otherwise keep the budget from ever freeing enough for it.
 */
import type { JobKind } from '../../orchestration/job-types.js';
import { plus, type Limits, type SpendLedger, type Spend } from './budget.js';
import { costFor, priority, type RunEstimate } from './run-value.js';
import type { WhyCode } from './why.js';

export interface DueJob<T = unknown> {
  /** The caller's handle (the service's table runtime). */
  ref: T;
  table: string;
  kind: JobKind;
  dueAt: number;
  /** Since when it has been waiting to run (aging counts from here; a never-run job: since first seen). */
  waitingSinceMs?: number;
  manual: boolean;
  /** A compaction's estimate from a dry-run plan; undefined: not estimated yet. */
  estimate?: RunEstimate;
  /** Other jobs: what they cost (their last measured run). */
  spend?: Spend;
  cap?: Limits;
}

export type Decision<T> =
  | { job: DueJob<T>; start: true; spend: Spend; why: string; priority?: number }
  | { job: DueJob<T>; start: false; code: WhyCode; why: string; freesAtMs?: number; needsEstimate?: boolean };

export interface DispatchContext {
  now: number;
  freeSlots: number;
  concurrency: number;
  running: number;
  budget?: { ledger: SpendLedger; spendOf(e: RunEstimate): Spend; unit: keyof Spend; agingMs: number };
}

const ZERO: Spend = { bytes: 0, cpuSeconds: 0, money: 0 };

export function dispatch<T>(due: readonly DueJob<T>[], ctx: DispatchContext): Decision<T>[] {
  const out: Decision<T>[] = [];
  let free = ctx.freeSlots;
  const b = ctx.budget;
  const slotWhy = `waiting for a concurrency slot (${ctx.running} of ${ctx.concurrency} running)`;
  if (!b) {
    // most overdue first (manual triggers before all); ties keep config order
    for (const job of [...due].sort((x, y) => x.dueAt - y.dueAt)) {
      if (free > 0) {
        free--;
        out.push({ job, start: true, spend: ZERO, why: job.manual ? 'started by an operator' : dueText(job, ctx.now) });
      } else out.push({ job, start: false, code: 'waiting', why: slotWhy });
    }
    return out;
  }
  const ranked = rank(due, b, ctx.now);
  // ranking needs every due compaction's estimate: none starts while one is still being planned
  const estimating = due.some((j) => !j.manual && j.kind === 'compact' && !j.estimate);
  let heldBy: string | undefined;
  // admitted in this pass, not in the ledger until the service starts them
  let pending: Spend = ZERO;
  const pendingByTable = new Map<string, Spend>();
  for (const { job, score } of ranked) {
    if (!job.manual && job.kind === 'compact' && !job.estimate) {
      out.push({
        job,
        start: false,
        code: 'estimating',
        why: 'planning a dry run to estimate its cost',
        needsEstimate: true,
      });
      continue;
    }
    if (!job.manual && job.kind === 'compact' && job.estimate!.tasks === 0) {
      out.push({
        job,
        start: false,
        code: 'below-trigger',
        why: 'below trigger: the plan found nothing worth compacting',
      });
      continue;
    }
    const spend = job.kind === 'compact' && job.estimate ? b.spendOf(job.estimate) : (job.spend ?? ZERO);
    if (free <= 0) {
      out.push({ job, start: false, code: 'waiting', why: slotWhy });
      continue;
    }
    if (estimating && !job.manual && job.kind === 'compact') {
      out.push({ job, start: false, code: 'estimating', why: 'waiting for the other due compactions to be estimated' });
      continue;
    }
    if (job.manual) {
      // an operator's run is not held back by the budget; it is still charged to it
      free--;
      pending = plus(pending, spend);
      out.push({ job, start: true, spend, why: 'started by an operator' });
      continue;
    }
    if (heldBy) {
      out.push({ job, start: false, code: 'budget-spent', why: `budget spent: kept for ${heldBy}, ranked higher` });
      continue;
    }
    const adm = b.ledger.admit(job.table, spend, job.cap, ctx.now, {
      total: pending,
      table: pendingByTable.get(job.table) ?? ZERO,
    });
    if (!adm.ok) {
      if (adm.code === 'budget-spent') heldBy = `${job.kind} of ${job.table}`;
      out.push({ job, start: false, code: adm.code, why: adm.reason, freesAtMs: adm.freesAtMs });
      continue;
    }
    free--;
    pending = plus(pending, spend);
    pendingByTable.set(job.table, plus(pendingByTable.get(job.table) ?? ZERO, spend));
    const est = job.estimate;
    out.push({
      job,
      start: true,
      spend,
      ...(score !== undefined ? { priority: score } : {}),
      why:
        dueText(job, ctx.now) +
        (est
          ? `; saves ~${est.fileOpensSaved} file opens for ~${b.ledger.amount(b.unit, spend[b.unit])}` +
            ` (priority ${score!.toPrecision(3)})`
          : ''),
    });
  }
  return out;
}

function rank<T>(
  due: readonly DueJob<T>[],
  b: NonNullable<DispatchContext['budget']>,
  now: number,
): { job: DueJob<T>; score?: number }[] {
  const tier = (j: DueJob<T>) => (j.manual ? 0 : j.kind === 'compact' ? 2 : 1);
  return due
    .map((job) => {
      if (job.manual || job.kind !== 'compact' || !job.estimate) return { job };
      const e = job.estimate;
      // a planned rewrite of equal file count still merges or sorts something: never rank it at zero
      const benefit = e.tasks > 0 ? Math.max(1, e.fileOpensSaved) : 0;
      return {
        job,
        score: priority(benefit, costFor(b.spendOf(e), b.unit), now - (job.waitingSinceMs ?? job.dueAt), b.agingMs),
      };
    })
    .sort(
      (x, y) =>
        tier(x.job) - tier(y.job) ||
        (tier(x.job) === 2 ? (y.score ?? Infinity) - (x.score ?? Infinity) : 0) ||
        x.job.dueAt - y.job.dueAt,
    );
}

function dueText(job: DueJob, now: number): string {
  if (!Number.isFinite(job.dueAt) || job.dueAt >= now) return 'due';
  return `due since ${new Date(job.dueAt).toISOString()}`;
}
