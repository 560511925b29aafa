/**
 * What `floe serve` may spend: a global budget per sliding window (an hour or a day) in bytes read and
 * written, CPU-seconds and money, and per-table caps in the same window. The ledger holds what each run
 * spent (its estimate while it runs, its measured figures once it ended); a job is admitted when its
 * estimate fits what is left — or when nothing has been spent in the window, so a run larger than the whole
 * budget still runs, alone, instead of never.
 *
 * Money comes from a pricing function. Until a price sheet is plugged in (`ServiceOptions.priceOf`), it is
 * the config's flat `budget.prices` (per GB read+written, per vCPU-hour).
 */
import { formatBytes } from '../../../util/units.js';

/** Amounts in the budget's three units. Any may be absent in a limit (that unit is not limited). */
export interface Spend {
  bytes: number;
  cpuSeconds: number;
  money: number;
}

export type Limits = Partial<Spend>;

export interface FlatPrices {
  currency: string;
  /** Per GB (10^9 bytes) read plus written. */
  perGB: number;
  perVcpuHour: number;
}

export interface BudgetConfig {
  windowMs: number;
  /** `hour` or `day`, for messages. */
  per: 'hour' | 'day';
  limits: Limits;
  prices: FlatPrices;
  /** Bytes one CPU-second reads and rewrites (the CPU estimate's throughput model). */
  bytesPerCpuSecond: number;
  /** A due job waiting this long has its priority doubled (grows linearly); 0 switches aging off. */
  agingMs: number;
}

/** What a run uses, before pricing: the shape a price sheet (src/app/cost) prices. */
export interface Usage {
  bytesRead: number;
  bytesWritten: number;
  cpuSeconds: number;
}

export type PriceOf = (usage: Usage) => { total: number; currency: string };

export const BUDGET_DEFAULTS = {
  // roughly what one core decodes, sorts and encodes in a Parquet rewrite
  bytesPerCpuSecond: 32 * 1024 * 1024,
  agingMs: 3_600_000,
  prices: { currency: 'USD', perGB: 0, perVcpuHour: 0.04 } satisfies FlatPrices,
};

export function flatPriceOf(p: FlatPrices): PriceOf {
  return (u) => ({
    total: ((u.bytesRead + u.bytesWritten) / 1e9) * p.perGB + (u.cpuSeconds / 3600) * p.perVcpuHour,
    currency: p.currency,
  });
}

export function spendOf(u: Usage, priceOf: PriceOf): Spend {
  return { bytes: u.bytesRead + u.bytesWritten, cpuSeconds: u.cpuSeconds, money: priceOf(u).total };
}

interface Entry {
  id: number;
  atMs: number;
  table: string;
  spend: Spend;
}

export type Admission =
  { ok: true } | { ok: false; code: 'budget-spent' | 'cap-reached'; reason: string; freesAtMs: number };

const UNITS = ['bytes', 'cpuSeconds', 'money'] as const;
const ZERO: Spend = { bytes: 0, cpuSeconds: 0, money: 0 };

export function plus(a: Spend, b: Spend): Spend {
  return { bytes: a.bytes + b.bytes, cpuSeconds: a.cpuSeconds + b.cpuSeconds, money: a.money + b.money };
}

export class SpendLedger {
  private entries: Entry[] = [];
  private nextId = 1;

  constructor(
    readonly cfg: BudgetConfig,
    private readonly currency: string,
  ) {}

  /** Adds spend at `atMs`; the id lets a running job's reservation be replaced by what it measured. */
  add(table: string, atMs: number, spend: Spend): number {
    const id = this.nextId++;
    this.entries.push({ id, atMs, table, spend });
    return id;
  }

  replace(id: number, atMs: number, spend: Spend): void {
    const e = this.entries.find((x) => x.id === id);
    if (e) {
      e.atMs = atMs;
      e.spend = spend;
    }
  }

  /** Spend in the window ending at `now` (all tables, or one). */
  spent(now: number, table?: string): Spend {
    this.prune(now);
    const s: Spend = { bytes: 0, cpuSeconds: 0, money: 0 };
    for (const e of this.entries) {
      if (table !== undefined && e.table !== table) continue;
      for (const u of UNITS) s[u] += e.spend[u];
    }
    return s;
  }

  /**
   * Whether a run estimated at `est` may start now, given the global limits and the table's cap.
   * `pending`: what was admitted earlier in the same pass and is not in the ledger yet.
   */
  admit(
    table: string,
    est: Spend,
    cap: Limits | undefined,
    now: number,
    pending: { total: Spend; table?: Spend } = { total: ZERO },
  ): Admission {
    const global = this.check(this.cfg.limits, plus(this.spent(now), pending.total), est, now, undefined);
    if (global)
      return { ok: false, code: 'budget-spent', reason: `budget spent: ${global.text}`, freesAtMs: global.at };
    if (cap) {
      const own = this.check(cap, plus(this.spent(now, table), pending.table ?? ZERO), est, now, table);
      if (own) return { ok: false, code: 'cap-reached', reason: `table cap reached: ${own.text}`, freesAtMs: own.at };
    }
    return { ok: true };
  }

  /** When the oldest spend in the window leaves it (the earliest moment an admission can change). */
  nextRelease(now: number): number | undefined {
    this.prune(now);
    const first = this.entries[0];
    return first ? first.atMs + this.cfg.windowMs : undefined;
  }

  private check(
    limits: Limits,
    spent: Spend,
    est: Spend,
    now: number,
    table: string | undefined,
  ): { text: string; at: number } | undefined {
    // nothing spent in the window: admit even a run larger than the whole limit (else it would never run)
    if (UNITS.every((u) => spent[u] === 0)) return undefined;
    for (const u of UNITS) {
      const limit = limits[u];
      if (limit === undefined || spent[u] + est[u] <= limit) continue;
      const mine = this.entries.filter((e) => table === undefined || e.table === table);
      const at = (mine[0]?.atMs ?? now) + this.cfg.windowMs;
      return {
        text:
          `${this.amount(u, spent[u])} of ${this.amount(u, limit)} per ${this.cfg.per} used, ` +
          `this run needs ~${this.amount(u, est[u])}; frees from ${new Date(at).toISOString()}`,
        at,
      };
    }
    return undefined;
  }

  amount(u: (typeof UNITS)[number], n: number): string {
    if (u === 'bytes') return formatBytes(n);
    if (u === 'cpuSeconds') return `${n.toFixed(n < 10 ? 2 : 0)} CPU-s`;
    return `${n.toFixed(n < 1 ? 4 : 2)} ${this.currency}`;
  }

  private prune(now: number): void {
    const from = now - this.cfg.windowMs;
    this.entries = this.entries.filter((e) => e.atMs > from).sort((a, b) => a.atMs - b.atMs);
  }
}
