/**
 * The service's side of the budget: prices runs, keeps the ledger (seeded from the run history at start),
 * charges a starting run its estimate and settles it with what it measured, and answers `GET /api/budget`.
 * Without `budget:` it still prices (the run history's cost on the dashboard) but keeps no ledger.
 */
import type { ServiceConfig } from './config.js';
import type { DbStateStore, RunRecord } from './state-db.js';
import type { MetricsRegistry } from './metrics.js';
import type { DispatchContext } from './dispatch.js';
import type { MaintenanceJobResult } from '../../orchestration/job-types.js';
import { BUDGET_DEFAULTS, flatPriceOf, SpendLedger, spendOf, type Limits, type PriceOf, type Spend } from './budget.js';
import { measuredBenefit, measuredUsage, type RunEstimate } from './run-value.js';

const ZERO: Spend = { bytes: 0, cpuSeconds: 0, money: 0 };

export class BudgetKeeper {
  readonly ledger: SpendLedger | undefined;
  readonly priceOf: PriceOf;

  constructor(
    private readonly config: ServiceConfig,
    private readonly metrics: MetricsRegistry,
    priceOf?: PriceOf,
  ) {
    const prices = config.budget?.prices ?? BUDGET_DEFAULTS.prices;
    this.priceOf = priceOf ?? flatPriceOf(prices);
    this.ledger = config.budget ? new SpendLedger(config.budget, prices.currency) : undefined;
    metrics.setCurrency(prices.currency);
  }

  /** What a recorded or finished run spent, priced. */
  spendOfRun(r: Pick<RunRecord, 'bytesRead' | 'bytesWritten' | 'durationMs'>): Spend {
    return spendOf(
      measuredUsage({ bytesRead: r.bytesRead ?? 0, bytesWritten: r.bytesWritten ?? 0, durationMs: r.durationMs }),
      this.priceOf,
    );
  }

  /** A restart keeps counting what the runs of the current window spent (from the run history). */
  async seed(db: DbStateStore | undefined, tables: Iterable<string>, now: number): Promise<void> {
    const ledger = this.ledger;
    if (!ledger || !db) return;
    const from = now - ledger.cfg.windowMs;
    for (const name of tables) {
      const runs = await db.runs(name, 1000).catch(() => [] as RunRecord[]);
      for (const r of runs) {
        if (r.dryRun || r.finishedAtMs <= from || r.outcome === 'busy') continue;
        ledger.add(name, r.finishedAtMs, this.spendOfRun(r));
      }
    }
  }

  /** What `dispatch` needs to rank and admit (undefined: no budget, plain overdue order). */
  dispatchBudget(): DispatchContext['budget'] {
    const b = this.config.budget;
    if (!b || !this.ledger) return undefined;
    return {
      ledger: this.ledger,
      spendOf: (e: RunEstimate) => spendOf(e.usage, this.priceOf),
      unit: leadingUnit(b.limits),
      agingMs: b.agingMs,
    };
  }

  /** A starting run holds its estimate's place in the window (a dry run spends nothing worth budgeting). */
  charge(table: string, now: number, spend: Spend | undefined, dryRun: boolean): number | undefined {
    return this.ledger && spend && !dryRun ? this.ledger.add(table, now, spend) : undefined;
  }

  /**
   * A finished run's charge becomes what it measured (a failed run keeps its estimate: it may have read
   * most of it). Spend and savings go to the metrics.
   */
  settle(
    charge: number | undefined,
    table: string,
    job: string,
    result: MaintenanceJobResult | undefined,
    now: number,
  ): void {
    if (!this.ledger || charge === undefined || !result) return;
    const spend = this.spendOfRun(result);
    this.ledger.replace(charge, now, spend);
    this.metrics.recordSpend(table, spend, job === 'compact' ? measuredBenefit(result) : 0);
  }

  /** A run that did not happen after all gives its charge back. */
  refund(charge: number | undefined, startedAtMs: number): void {
    if (this.ledger && charge !== undefined) this.ledger.replace(charge, startedAtMs, ZERO);
  }

  nextRelease(now: number): number | undefined {
    return this.ledger?.nextRelease(now);
  }

  /** `GET /api/budget`: the window, its limits, what was spent and what is left (undefined without `budget:`). */
  status(now: number, tables: { name: string; cap?: Limits }[]): Record<string, unknown> | undefined {
    const b = this.config.budget;
    const ledger = this.ledger;
    if (!b || !ledger) return undefined;
    const spent = ledger.spent(now);
    const remaining = Object.fromEntries(
      (Object.entries(b.limits) as [keyof Spend, number][]).map(([k, l]) => [k, Math.max(0, l - spent[k])]),
    );
    return {
      per: b.per,
      windowMs: b.windowMs,
      currency: b.prices.currency,
      prices: b.prices,
      agingMs: b.agingMs,
      limits: b.limits,
      spent,
      remaining,
      perTable: Object.fromEntries(
        tables.map((t) => [t.name, { spent: ledger.spent(now, t.name), ...(t.cap ? { cap: t.cap } : {}) }]),
      ),
    };
  }

  /** The limits and the window's spend for the metrics (undefined without `budget:`). */
  metricsView(now: number): { limits: Limits; spent: Spend } | undefined {
    return this.config.budget && this.ledger
      ? { limits: this.config.budget.limits, spent: this.ledger.spent(now) }
      : undefined;
  }
}

/** The unit priorities divide by: money when money is limited, else bytes, else CPU-seconds. */
function leadingUnit(l: Limits): keyof Spend {
  return l.money !== undefined ? 'money' : l.bytes !== undefined || l.cpuSeconds === undefined ? 'bytes' : 'cpuSeconds';
}
