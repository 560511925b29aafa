/**
 * The `budget:` section of floe.yaml and the per-table `cap:` knob:
 *
 *   budget:
 *     per: hour | day              # the sliding window the limits apply to
 *     bytes: 200GiB                # read + written
 *     cpuSeconds: 7200
 *     money: 1.50                  # priced by `prices` (or a price sheet plugged in)
 *     prices: { currency: USD, perGB: 0.0004, perVcpuHour: 0.04 }
 *     throughput: 32MiB            # bytes one CPU-second rewrites (the CPU estimate)
 *     aging: 1h                    # a due job waiting this long has its priority doubled; 0 switches aging off
 *   defaults|tables[]|overrides[]|catalogs[]:
 *     cap: { bytes: 20GiB, cpuSeconds: 600, money: 0.25 }
 */
import { parseSizeBytes } from '../../../util/units.js';
import { BUDGET_DEFAULTS, type BudgetConfig, type FlatPrices, type Limits } from './budget.js';
import type { Validator } from './config.js';

const WINDOWS = { hour: 3_600_000, day: 86_400_000 } as const;

export function parseBudget(v: Validator, raw: unknown): BudgetConfig {
  const o = v.object(raw, 'budget');
  v.keys(o, 'budget', ['per', 'bytes', 'cpuSeconds', 'money', 'prices', 'throughput', 'aging']);
  const per = v.optString(o.per, 'budget.per') ?? 'hour';
  if (per !== 'hour' && per !== 'day') v.fail('budget.per', `must be hour or day, got "${per}"`);
  const limits = parseLimits(v, { bytes: o.bytes, cpuSeconds: o.cpuSeconds, money: o.money }, 'budget');
  if (Object.keys(limits).length === 0) v.fail('budget', 'give at least one of bytes, cpuSeconds or money');
  const prices = parsePrices(v, o.prices);
  const throughputText = v.optString(o.throughput, 'budget.throughput', true);
  const bytesPerCpuSecond =
    throughputText === undefined ? BUDGET_DEFAULTS.bytesPerCpuSecond : size(v, throughputText, 'budget.throughput');
  const agingMs =
    o.aging === 0 || o.aging === '0' ? 0 : (v.optDuration(o.aging, 'budget.aging') ?? BUDGET_DEFAULTS.agingMs);
  return { per, windowMs: WINDOWS[per], limits, prices, bytesPerCpuSecond, agingMs };
}

/** `{ bytes, cpuSeconds, money }`, each optional and more than 0. */
export function parseLimits(v: Validator, raw: unknown, where: string): Limits {
  const o = v.object(raw, where);
  if (where.endsWith('cap')) v.keys(o, where, ['bytes', 'cpuSeconds', 'money']);
  const out: Limits = {};
  const bytes = v.optString(o.bytes, `${where}.bytes`, true);
  if (bytes !== undefined) out.bytes = size(v, bytes, `${where}.bytes`);
  for (const k of ['cpuSeconds', 'money'] as const) {
    const x = o[k];
    if (x === undefined) continue;
    if (typeof x !== 'number' || !(x > 0))
      v.fail(`${where}.${k}`, `must be a number more than 0, got ${JSON.stringify(x)}`);
    out[k] = x;
  }
  return out;
}

function parsePrices(v: Validator, raw: unknown): FlatPrices {
  if (raw === undefined) return { ...BUDGET_DEFAULTS.prices };
  const o = v.object(raw, 'budget.prices');
  v.keys(o, 'budget.prices', ['currency', 'perGB', 'perVcpuHour']);
  const num = (k: 'perGB' | 'perVcpuHour') => {
    const x = o[k];
    if (x === undefined) return BUDGET_DEFAULTS.prices[k];
    if (typeof x !== 'number' || !(x >= 0))
      v.fail(`budget.prices.${k}`, `must be a number ≥ 0, got ${JSON.stringify(x)}`);
    return x;
  };
  return {
    currency: v.optString(o.currency, 'budget.prices.currency') ?? BUDGET_DEFAULTS.prices.currency,
    perGB: num('perGB'),
    perVcpuHour: num('perVcpuHour'),
  };
}

function size(v: Validator, text: string, at: string): number {
  let n: number;
  try {
    n = parseSizeBytes(text, { bare: 'b' });
  } catch (e) {
    v.fail(at, e instanceof Error ? e.message : String(e));
  }
  if (!(n > 0)) v.fail(at, 'must be more than 0 bytes');
  return n;
}
