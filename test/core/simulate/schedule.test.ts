import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../../src/core/simulate/index.js';

const M = 60_000;

function firings(s: Scheduler, minutes: number, tickMs: number, versionAt: (t: number) => number = () => 0): number[] {
  const out: number[] = [];
  for (let t = 0; t <= minutes * M; t += tickMs) if (s.shouldRun(t, versionAt(t))) out.push(t / M);
  return out;
}

describe('scheduler', () => {
  it('periodic fires every N minutes, never at the start', () => {
    expect(firings(new Scheduler({ kind: 'periodic', everyMinutes: 2 }), 7, M)).toEqual([2, 4, 6]);
    // 7.5 s ticks: still on the minute marks.
    expect(firings(new Scheduler({ kind: 'periodic', everyMinutes: 1 }), 3, 7500)).toEqual([1, 2, 3]);
  });

  it('a period that the tick does not divide fires on the first tick at or after each due time', () => {
    // Due at 1.5, 3, 4.5 min; ticks every minute.
    expect(firings(new Scheduler({ kind: 'periodic', everyMinutes: 1.5 }), 5, M)).toEqual([2, 3, 5]);
  });

  it('on-change skips evaluations when no writer committed since the last one', () => {
    // Writers commit until minute 4, then stop.
    const versionAt = (t: number) => Math.min(t / M, 4);
    expect(firings(new Scheduler({ kind: 'on-change', everyMinutes: 1 }), 8, M, versionAt)).toEqual([1, 2, 3, 4]);
    expect(firings(new Scheduler({ kind: 'periodic', everyMinutes: 1 }), 8, M, versionAt)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
  });
});
