/** Summary statistics of a sampled series. */
import type { SeriesStats } from './types.js';

/**
 * p-th percentile by the nearest-rank method: the smallest sample such that at least p % of the samples
 * are ≤ it (sorted ascending, index ceil(p/100 · n) − 1). Always one of the samples.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = values.slice().sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** Mean, p95 (nearest rank), max and last value; all 0 for an empty series. */
export function summarize(values: readonly number[]): SeriesStats {
  if (values.length === 0) return { mean: 0, p95: 0, max: 0, final: 0 };
  let sum = 0;
  let max = -Infinity;
  for (const v of values) {
    sum += v;
    if (v > max) max = v;
  }
  return { mean: sum / values.length, p95: percentile(values, 95), max, final: values[values.length - 1]! };
}
