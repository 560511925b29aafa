import { describe, expect, it } from 'vitest';
import { percentile, summarize } from '../../../src/core/simulate/stats.js';

describe('sampling statistics', () => {
  it('mean, nearest-rank p95 and max of 1..20', () => {
    const series = Array.from({ length: 20 }, (_, i) => i + 1);
    // mean = 210 / 20; p95 rank = ceil(0.95 · 20) = 19 → 19.
    expect(summarize(series)).toEqual({ mean: 10.5, p95: 19, max: 20, final: 20 });
  });

  it('p95 of a short unsorted series is its maximum', () => {
    // rank ceil(0.95 · 3) = 3 → the largest.
    expect(percentile([5, 1, 3], 95)).toBe(5);
    expect(summarize([5, 1, 3])).toEqual({ mean: 3, p95: 5, max: 5, final: 3 });
  });

  it('p95 of 100 samples skips the top 5', () => {
    const series = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1
    expect(percentile(series, 95)).toBe(95);
    expect(percentile(series, 50)).toBe(50);
  });

  it('an empty series is all zeros', () => {
    expect(summarize([])).toEqual({ mean: 0, p95: 0, max: 0, final: 0 });
  });
});
