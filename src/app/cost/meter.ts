/**
 * Running a job with its requests counted and its CPU measured (request-counter.ts, process.cpuUsage), so
 * its result can carry the estimate and, for a real run, what was measured. Prices and the CPU calibration
 * are loaded before the meter starts: a calibration is not the job's CPU.
 *
 * CPU is the process's (user + system, every thread): a job sharing its process with others (`floe serve`
 * running several) is charged theirs too.
 */
import { RequestCounter, processCpuMicros, withRequestCounter } from '../../../connectors/storage/request-counter.js';
import type { MeasuredRun, RunEstimate } from '../../../model/index.js';
import { cpuCalibration, type CpuCalibration } from './calibration.js';
import { measuredRun, type PlanPhase } from './estimate.js';
import { loadPriceSheet, type PriceSheet } from './prices.js';

export interface CostOptions {
  /** Price sheet name or file (default aws-s3-standard). */
  prices?: string;
  /** false: no estimate or measured figures (the run is not metered). */
  meter?: boolean;
}

export interface Metered<T> {
  value: T;
  phase: PlanPhase;
  /** The whole run's figures, when it was not a dry run. */
  measured?: MeasuredRun;
  prices: PriceSheet;
  calibration: CpuCalibration;
}

/**
 * Runs `fn` metered. `fn` gets the run's counter to mark where planning ends (`mark()`, or
 * `armAtFirstWrite()`) and where the table was open (`markOpened()`); unmarked, the whole run is planning.
 */
export async function metered<T>(
  o: CostOptions & { dryRun?: boolean },
  fn: (counter: RequestCounter) => Promise<T>,
): Promise<Metered<T>> {
  const [prices, calibration] = await Promise.all([loadPriceSheet(o.prices), cpuCalibration()]);
  const counter = new RequestCounter();
  const cpu0 = processCpuMicros();
  const value = await withRequestCounter(counter, () => fn(counter));
  const cpu1 = processCpuMicros();
  const planned = counter.planned ?? { figures: counter.snapshot(), cpuMicros: cpu1 };
  const phase: PlanPhase = {
    figures: planned.figures,
    cpuSeconds: (planned.cpuMicros - cpu0) / 1e6,
    ...(counter.opened ? { opened: counter.opened.figures } : {}),
  };
  return {
    value,
    phase,
    ...(o.dryRun ? {} : { measured: measuredRun(counter.snapshot(), (cpu1 - cpu0) / 1e6, prices) }),
    prices,
    calibration,
  };
}

export type { RunEstimate, MeasuredRun };
