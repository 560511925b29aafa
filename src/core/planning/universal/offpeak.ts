/** Paimon OffPeakHours: a window of hours during which the size ratio is relaxed by an extra percentage. */
import type { OffPeakOptions } from './options.js';

/** Whether `hour` falls in [start, end), wrapping past midnight when start > end. */
export function isOffPeak(window: OffPeakOptions, hour: number): boolean {
  const { startHour, endHour } = window;
  return startHour <= endHour ? startHour <= hour && hour < endHour : hour < endHour || startHour <= hour;
}

/** The extra size-ratio percent at `hour` (0 outside the window or when off-peak is disabled). */
export function offPeakRatio(window: OffPeakOptions | null, hour: number): number {
  return window !== null && isOffPeak(window, hour) ? window.ratioPercent : 0;
}
