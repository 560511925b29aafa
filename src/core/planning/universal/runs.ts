/** Sorted runs as the universal picker sees them, plus the clock/state it threads through. */
import { formatBytes, PAIMON_BYTES } from '../../../../util/units.js';
import { FloeError } from '../../../../util/errors.js';
import type { DecisionStep } from '../plan.js';

/**
 * One sorted run: every level-0 file is a run of its own, every non-empty level ≥ 1 is one run.
 * `size` is in bytes. `files` is optional; without it the run counts as a single file (what matters
 * for MergeTreeCompactManager's "one file already at the output level" filter).
 */
export interface Run<F = unknown> {
  level: number;
  size: number;
  files?: readonly F[];
}

/**
 * The clock the picker reads: epoch ms (EarlyFullCompaction) and the hour of day (OffPeakHours, which
 * Paimon takes from LocalDateTime.now(), i.e. the JVM's zone). A bare number uses this process's local zone.
 */
export type Clock = number | { epochMs: number; hourOfDay: number };

export interface ResolvedClock {
  epochMs: number;
  hourOfDay: number;
}

export function resolveClock(now: Clock | undefined): ResolvedClock {
  if (now === undefined) now = Date.now();
  if (typeof now === 'number') return { epochMs: now, hourOfDay: new Date(now).getHours() };
  if (!Number.isInteger(now.hourOfDay) || now.hourOfDay < 0 || now.hourOfDay > 23) {
    throw new FloeError('InvalidArgument', `clock hourOfDay must be 0–23, got ${now.hourOfDay}`);
  }
  return now;
}

/**
 * What Paimon keeps in memory between picks of one bucket's writer, made explicit:
 * - `lastFullCompactionMs`: EarlyFullCompaction.lastFullCompaction (null = never; undefined = unknown,
 *   planLsmBucket then seeds it from the newest max-level file like MergeTreeCompactManagerFactory does);
 * - `lookupCompactTriggerCount`: ForceUpLevel0Compaction's counter in GENTLE lookup mode.
 */
export interface UniversalState {
  lastFullCompactionMs?: number | null;
  lookupCompactTriggerCount?: number;
}

/** A compaction unit: the newest `runs.length` runs rewritten into `outputLevel`. */
export interface CompactUnit<F = unknown> {
  outputLevel: number;
  runs: Run<F>[];
  trail: DecisionStep[];
}

export function fileCount(run: Run): number {
  return run.files ? run.files.length : 1;
}

export function totalSize(runs: readonly Run[], from = 0, to = runs.length): number {
  let n = 0;
  for (let i = from; i < to; i++) n += runs[i]!.size;
  return n;
}

/**
 * Checks the shape Paimon's Levels guarantees: level-0 runs first, then levels strictly ascending,
 * sizes non-negative safe integers. Throws InvalidArgument naming `where`.
 */
export function validateRuns(runs: readonly Run[], where: string): void {
  let prev = 0;
  let sawHigher = false;
  runs.forEach((r, i) => {
    if (!Number.isInteger(r.level) || r.level < 0) {
      throw new FloeError('InvalidArgument', `${where}: run ${i} has invalid level ${r.level}`, {
        context: { where, run: i },
      });
    }
    if (!Number.isSafeInteger(r.size) || r.size < 0) {
      throw new FloeError(
        'InvalidArgument',
        `${where}: run ${i} has invalid size ${r.size} (bytes, a non-negative integer)`,
        {
          context: { where, run: i },
        },
      );
    }
    if (r.level === 0 ? sawHigher : r.level <= prev && sawHigher) {
      throw new FloeError(
        'InvalidArgument',
        `${where}: runs must be ordered newest first (all L0 runs, then levels ascending, one run per level); run ${i} is L${r.level} after L${prev}`,
        { context: { where, run: i } },
      );
    }
    if (r.level > 0) sawHigher = true;
    prev = r.level;
  });
}

export function describeRuns(runs: readonly Run[]): string {
  return `[${runs.map((r) => `L${r.level}:${formatBytes(r.size, PAIMON_BYTES)}`).join(', ')}]`;
}
