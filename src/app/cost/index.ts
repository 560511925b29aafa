/**
 * What a run costs and buys (issue 25, docs/cost.md): price sheets (`loadPriceSheet`, `priceOf`), the CPU
 * calibration, the estimate model, and the meter that gives a real run its measured figures.
 */
export { DEFAULT_PRICE_SHEET, PRICE_SHEETS, loadPriceSheet, priceOf, type Cost, type PriceSheet } from './prices.js';
export { cpuCalibration, BUILT_IN_CALIBRATION, type CpuCalibration } from './calibration.js';
export { compactEstimate, maintenanceEstimate, guessOutput, type EstimateContext, type PlanPhase } from './estimate.js';
export { metered, type CostOptions, type Metered } from './meter.js';
export { estimateLines } from './text.js';
import { PRICE_SHEETS } from './prices.js';

/** The help text of `--prices`. */
export const PRICES_HELP = `price sheet for the estimate: ${Object.keys(PRICE_SHEETS).join(', ')} (default aws-s3-standard) or a .yaml/.json file`;
