/**
 * What a maintenance run costs and buys, as plain data (schema/floe-result.schema.json `estimate` and
 * `measured`): object-store requests by the kind stores bill, bytes moved, CPU seconds, money at a price
 * sheet, and what a full scan of the table saves afterwards. src/app/cost computes them; every result
 * (compact, expire, remove-orphans; dry run or not) carries an estimate, a real run also what was measured.
 */
export interface RequestFigures {
  get: number;
  put: number;
  list: number;
  delete: number;
  head: number;
}

export interface RunFigures {
  requests: RequestFigures;
  bytesRead: number;
  bytesWritten: number;
  cpuSeconds: number;
}

export interface MoneyFigure {
  total: number;
  currency: string;
  /** The price sheet's name. */
  sheet: string;
}

export interface RunBenefit {
  /** File opens a full scan pays less after the run (data files merged, delete files dropped). */
  scanFileOpensSaved: number;
  /** Bytes a full scan reads less (smaller output, delete files no longer read). */
  scanBytesSaved: number;
  /** Delete-file merges (data file × delete file applied to it) a full scan no longer does. */
  deleteMergesSaved: number;
  /** Manifests a planner no longer reads (net). */
  manifestsSaved: number;
  /** Storage freed (expire, remove-orphans) in bytes. */
  storageBytesFreed: number;
  /** The table's health score (src/health.ts, 0–100) before and after the run, when computed. */
  healthBefore?: number;
  healthAfter?: number;
}

export interface RunEstimate extends RunFigures {
  cost: MoneyFigure;
  benefit: RunBenefit;
  /** How the estimate was made (which parts were counted, which predicted). */
  basis: string;
}

export type MeasuredRun = RunFigures & { cost: MoneyFigure };
