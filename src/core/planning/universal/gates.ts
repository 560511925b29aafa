/**
 * The individual gates of UniversalCompaction as standalone pure functions (the methods Paimon's own tests
 * call). Each returns a unit with the trail of its decision, or null. State changes they would make in
 * Paimon (the last full-compaction time) are not returned; use `decide` for stateful sequences.
 */
import { type UniversalOptions, resolveOptions } from './options.js';
import { initialContext } from './manager.js';
import { type Clock, type CompactUnit, type Run, type UniversalState, validateRuns } from './runs.js';
import * as s from './strategy.js';

/** UniversalCompaction.pickForSizeAmp(maxLevel, runs). */
export function pickForSizeAmp<F>(
  maxLevel: number,
  runs: readonly Run<F>[],
  options?: UniversalOptions,
): CompactUnit<F> | null {
  validateRuns(runs, 'pickForSizeAmp');
  return s.pickForSizeAmp(initialContext(resolveOptions(options), 0, undefined), maxLevel, runs);
}

/**
 * UniversalCompaction.pickForSizeRatio. Without `candidateCount` this is the two-argument gate (needs
 * `trigger` runs, starts from one run); with it, the four-argument form Paimon uses for the file-number
 * fallback and forcePickL0. `now` only matters for off-peak hours.
 */
export function pickForSizeRatio<F>(
  maxLevel: number,
  runs: readonly Run<F>[],
  options?: UniversalOptions,
  candidateCount?: number,
  forcePick = false,
  now?: Clock,
): CompactUnit<F> | null {
  validateRuns(runs, 'pickForSizeRatio');
  const ctx = initialContext(resolveOptions(options), now, undefined);
  return candidateCount === undefined
    ? s.pickForSizeRatioGate(ctx, maxLevel, runs)
    : s.pickForSizeRatio(
        ctx,
        maxLevel,
        runs,
        candidateCount,
        forcePick,
        forcePick ? 'force-up-level-0' : 'file-number',
      );
}

/** UniversalCompaction.createUnit(runs, maxLevel, runCount): the output-level rules alone. */
export function createUnit<F>(runs: readonly Run<F>[], maxLevel: number, runCount: number): CompactUnit<F> {
  validateRuns(runs, 'createUnit');
  return s.createUnit(initialContext(resolveOptions(), 0, undefined), runs, maxLevel, runCount);
}

/** EarlyFullCompaction.tryFullCompact, with the state it reads (last full compaction) and returns. */
export function tryEarlyFullCompaction<F>(
  numLevels: number,
  runs: readonly Run<F>[],
  options: UniversalOptions,
  now: Clock,
  state?: UniversalState,
): { unit: CompactUnit<F> | null; lastFullCompactionMs: number | null } {
  validateRuns(runs, 'tryEarlyFullCompaction');
  const ctx = initialContext(resolveOptions(options), now, state);
  const unit = s.tryEarlyFullCompaction(ctx, numLevels, runs);
  return { unit, lastFullCompactionMs: ctx.state.lastFullCompactionMs };
}

/** UniversalCompaction.forcePickL0(numLevels, runs). */
export function forcePickL0<F>(
  numLevels: number,
  runs: readonly Run<F>[],
  options?: UniversalOptions,
  now?: Clock,
): CompactUnit<F> | null {
  validateRuns(runs, 'forcePickL0');
  return s.forcePickL0(initialContext(resolveOptions(options), now, undefined), numLevels, runs);
}
