/** What a benchmark module provides to the runner (bench/run.ts). */

export interface BenchContext {
  /** Flags after the benchmark names, e.g. `--files 100000` → { files: '100000' }; bare flags are true. */
  flags: Record<string, string | boolean>;
  /** Progress lines go to stderr so `--json` output stays clean. */
  log(message: string): void;
}

export interface BenchResult {
  /** One row per measured case; rendered as a table (column order = key order of the first row). */
  rows: Record<string, string | number>[];
  /** Lines printed under the table (setup facts, ratios). */
  notes?: string[];
  /** Everything worth keeping, for `--json`. */
  data: unknown;
}

export interface Benchmark {
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<BenchResult>;
}

/** A numeric flag with a default; rejects garbage so a typo does not silently bench the default. */
export function numberFlag(flags: BenchContext['flags'], name: string, dflt: number): number {
  const v = flags[name];
  if (v === undefined) return dflt;
  const n = Number(v);
  if (typeof v !== 'string' || !Number.isFinite(n) || n <= 0)
    throw new Error(`--${name} needs a positive number, got ${String(v)}`);
  return n;
}
