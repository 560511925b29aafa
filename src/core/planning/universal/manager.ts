/**
 * What Paimon's MergeTreeCompactManager does around the strategy: size the levels, run the strategy, drop
 * trivial units, and decide whether delete records may be dropped. `decide` is the full, pure decision;
 * `pick` is its result alone.
 */
import { FloeError } from '../../../../util/errors.js';
import type { DecisionStep } from '../plan.js';
import { type ResolvedUniversalOptions, type UniversalOptions, resolveOptions } from './options.js';
import {
  type Clock,
  type Run,
  type UniversalState,
  describeRuns,
  fileCount,
  resolveClock,
  totalSize,
  validateRuns,
} from './runs.js';
import { type PickContext, type PickReason, strategyPick } from './strategy.js';
import { formatBytes, PAIMON_BYTES } from '../../../../util/units.js';

export interface UniversalPick<F = unknown> {
  outputLevel: number;
  /** The picked runs: always the newest `runs.length` runs of the input. */
  runs: Run<F>[];
  /** Whether -U/-D records may be dropped from the output. */
  dropDelete: boolean;
  reason: PickReason;
  inputBytes: number;
  trail: DecisionStep[];
}

export interface UniversalDecision<F = unknown> {
  pick: UniversalPick<F> | null;
  /** The writer state after this call; pass it to the next call for the same bucket. */
  state: Required<UniversalState>;
  /** numLevels after raising it to cover every run's level (Paimon's Levels constructor). */
  numLevels: number;
  /** More sorted runs than num-sorted-run.stop-trigger: a Paimon writer would block on compaction. */
  writerStalled: boolean;
  /** Every gate asked, in order, with running sizes — present even when nothing was picked. */
  trail: DecisionStep[];
}

export function initialContext(
  o: ResolvedUniversalOptions,
  now: Clock | undefined,
  state: UniversalState | undefined,
): PickContext {
  const counter = state?.lookupCompactTriggerCount ?? 0;
  if (!Number.isInteger(counter) || counter < 0 || (o.forceUpMaxInterval !== null && counter >= o.forceUpMaxInterval)) {
    // Paimon's counter never reaches maxInterval outside a call (it resets to 0 there); a larger value could
    // only come from a changed option and would never fire again, so refuse it rather than stall silently.
    throw new FloeError(
      'InvalidArgument',
      `lookupCompactTriggerCount ${counter} must be an integer in 0..${(o.forceUpMaxInterval ?? Infinity) - 1}`,
      { context: { lookupCompactTriggerCount: counter } },
    );
  }
  return {
    o,
    clock: resolveClock(now),
    state: { lastFullCompactionMs: state?.lastFullCompactionMs ?? null, lookupCompactTriggerCount: counter },
    trail: [],
  };
}

/** Levels: numLevels is raised to cover the highest existing level, and must be at least 2. */
export function effectiveNumLevels(numLevels: number, runs: readonly Run[]): number {
  let highest = -1;
  for (const r of runs) highest = Math.max(highest, r.level);
  const n = Math.max(numLevels, highest + 1);
  if (!Number.isInteger(n) || n < 2) {
    throw new FloeError('InvalidArgument', `number of levels must be at least 2, got ${numLevels}`, {
      context: { numLevels },
    });
  }
  return n;
}

/** Levels.nonEmptyHighestLevel: the highest level holding a file, -1 when the bucket is empty. */
function nonEmptyHighestLevel(runs: readonly Run[]): number {
  let h = -1;
  for (const r of runs) if (fileCount(r) > 0) h = Math.max(h, r.level);
  return h;
}

/**
 * The complete decision for one bucket (MergeTreeCompactManager.triggerCompaction(false)):
 * strategy pick → drop units with no files or one file already at the output level → dropDelete.
 * Runs are newest first. `now` drives the optimization interval and the off-peak hour; `state` carries
 * the last full-compaction time and the GENTLE lookup counter across calls.
 */
export function decide<F>(
  numLevels: number,
  runs: readonly Run<F>[],
  options: UniversalOptions = {},
  now?: Clock,
  state?: UniversalState,
): UniversalDecision<F> {
  validateRuns(runs, 'universal compaction');
  const o = resolveOptions(options);
  const ctx = initialContext(o, now, state);
  const trail = ctx.trail;
  const levels = effectiveNumLevels(numLevels, runs);
  const writerStalled = runs.length > o.numSortedRunStopTrigger;
  const done = (pick: UniversalPick<F> | null): UniversalDecision<F> => ({
    pick,
    state: { ...ctx.state },
    numLevels: levels,
    writerStalled,
    trail,
  });

  trail.push({
    gate: 'input',
    detail:
      `${runs.length} sorted runs ${describeRuns(runs)}, total ${formatBytes(totalSize(runs), PAIMON_BYTES)}; ` +
      `levels 0–${levels - 1}${levels !== numLevels ? ` (raised from ${numLevels} to cover L${levels - 1})` : ''}; ` +
      `strategy ${o.strategy}${o.forceUpMaxInterval !== null ? ` (GENTLE, max interval ${o.forceUpMaxInterval})` : ''}`,
    outcome: 'info',
    values: { runs: runs.length, totalBytes: totalSize(runs), numLevels: levels },
  });
  if (o.writeOnly) {
    trail.push({ gate: 'write-only', detail: 'write-only table: writers never compact', outcome: 'skip' });
    return done(null);
  }
  trail.push({
    gate: 'stop-trigger',
    detail: `${runs.length} sorted runs ${writerStalled ? '>' : '≤'} stop trigger ${o.numSortedRunStopTrigger}${writerStalled ? ': a Paimon writer would block until compaction finishes' : ''}`,
    outcome: 'info',
    values: { runs: runs.length, stopTrigger: o.numSortedRunStopTrigger, writerStalled },
  });

  const unit = strategyPick(ctx, levels, runs);
  if (!unit) {
    trail.push({ gate: 'result', detail: 'nothing to compact', outcome: 'skip' });
    return done(null);
  }

  // MergeTreeCompactManager drops units that would do nothing: no files, or one file already at the output level.
  const files = unit.runs.reduce((n, r) => n + fileCount(r), 0);
  const single = files === 1 ? unit.runs.find((r) => fileCount(r) === 1)! : undefined;
  if (files === 0 || (single && single.level === unit.outputLevel)) {
    trail.push({
      gate: 'trivial-unit',
      detail:
        files === 0
          ? 'picked unit has no files → dropped'
          : `picked unit is one file already at L${unit.outputLevel} → dropped (nothing to do)`,
      outcome: 'skip',
      values: { files, outputLevel: unit.outputLevel },
    });
    return done(null);
  }

  // As long as no older data exists outside the unit, deletes can go; deletion vectors make that always safe
  // above level 0; chain tables always keep them.
  const highest = nonEmptyHighestLevel(runs);
  const dropDelete =
    !o.forceKeepDelete && unit.outputLevel !== 0 && (unit.outputLevel >= highest || o.deletionVectorsEnabled);
  trail.push({
    gate: 'drop-delete',
    detail: o.forceKeepDelete
      ? 'chain table: deletes are always kept'
      : unit.outputLevel === 0
        ? 'output level 0: older data may exist outside the unit → keep deletes'
        : unit.outputLevel >= highest
          ? `output L${unit.outputLevel} ≥ highest non-empty level L${highest} → drop deletes`
          : o.deletionVectorsEnabled
            ? `output L${unit.outputLevel} < highest non-empty level L${highest}, but deletion vectors are enabled → drop deletes`
            : `output L${unit.outputLevel} < highest non-empty level L${highest} → keep deletes`,
    outcome: 'info',
    values: { outputLevel: unit.outputLevel, highestLevel: highest, dropDelete },
  });
  const inputBytes = totalSize(unit.runs);
  trail.push({
    gate: 'result',
    detail: `compact ${unit.runs.length} run${unit.runs.length > 1 ? 's' : ''} ${describeRuns(unit.runs)} (${formatBytes(inputBytes, PAIMON_BYTES)}) into L${unit.outputLevel}${dropDelete ? ', dropping deletes' : ''}`,
    outcome: 'pick',
    values: { runs: unit.runs.length, inputBytes, outputLevel: unit.outputLevel, dropDelete },
  });
  return done({ outputLevel: unit.outputLevel, runs: unit.runs, dropDelete, reason: ctx.reason!, inputBytes, trail });
}

/** The decision's pick alone (state changes are discarded; use `decide` to carry them). */
export function pick<F>(
  numLevels: number,
  runs: readonly Run<F>[],
  options?: UniversalOptions,
  now?: Clock,
  state?: UniversalState,
): UniversalPick<F> | null {
  return decide(numLevels, runs, options, now, state).pick;
}

export interface FullCompactionUnit<F = unknown> {
  outputLevel: number;
  runs: Run<F>[];
  /** Set when only some files of a single max-level run are rewritten (FileRewriteCompactTask). */
  rewriteFiles: F[] | null;
  dropDelete: boolean;
  trail: DecisionStep[];
}

/**
 * A user-requested full compaction (CompactStrategy.pickFullCompaction via triggerCompaction(true)).
 * A bucket that is already one max-level run is rewritten only for files that need it:
 * all of them with forceRewriteAllFiles, else those `fileNeedsRewrite` selects (record-level expiry,
 * files with a deletion vector). No trivial-unit filter applies to full compaction.
 */
export function pickFull<F>(
  numLevels: number,
  runs: readonly Run<F>[],
  options: UniversalOptions = {},
  fileNeedsRewrite: (file: F) => boolean = () => false,
): FullCompactionUnit<F> | null {
  validateRuns(runs, 'full compaction');
  const o = resolveOptions(options);
  const levels = effectiveNumLevels(numLevels, runs);
  const maxLevel = levels - 1;
  const trail: DecisionStep[] = [];
  if (runs.length === 0) {
    trail.push({ gate: 'full', detail: 'no sorted runs', outcome: 'skip' });
    return null;
  }
  let rewriteFiles: F[] | null = null;
  if (runs.length === 1 && runs[0]!.level === maxLevel) {
    const files = runs[0]!.files;
    // Without a file list only forceRewriteAllFiles can be judged; it selects the whole run.
    rewriteFiles = files ? files.filter((f) => o.forceRewriteAllFiles || fileNeedsRewrite(f)) : null;
    const any = files ? rewriteFiles!.length > 0 : o.forceRewriteAllFiles;
    if (!any) {
      trail.push({
        gate: 'full',
        detail: `single run already at max level L${maxLevel}, no file needs rewriting`,
        outcome: 'skip',
      });
      return null;
    }
    trail.push({
      gate: 'full',
      detail: `single run at max level L${maxLevel}: rewrite ${rewriteFiles ? rewriteFiles.length : 'all'} file(s) in place`,
      outcome: 'pick',
    });
  } else {
    trail.push({
      gate: 'full',
      detail: `full compaction of all ${runs.length} runs into L${maxLevel}`,
      outcome: 'pick',
    });
  }
  const dropDelete = !o.forceKeepDelete && maxLevel >= nonEmptyHighestLevel(runs);
  return { outputLevel: maxLevel, runs: runs.slice(), rewriteFiles, dropDelete, trail };
}
