/**
 * Paimon's universal compaction strategy (UniversalCompaction, EarlyFullCompaction, ForceUpLevel0Compaction
 * on master), as functions over an explicit context. Paimon mutates two pieces of writer state while picking
 * (the last full-compaction time and the GENTLE lookup counter); here they live in `ctx.state`, which the
 * public entry points copy in and hand back, so every call is a pure function of (runs, options, clock, state).
 */
import { FloeError } from '../../../../util/errors.js';
import type { DecisionStep } from '../plan.js';
import { isOffPeak, offPeakRatio } from './offpeak.js';
import type { ResolvedUniversalOptions } from './options.js';
import { formatBytes, PAIMON_BYTES } from '../../../../util/units.js';
import { type CompactUnit, type ResolvedClock, type Run, describeRuns, totalSize } from './runs.js';

/** Which gate produced a unit. */
export type PickReason =
  | 'early-full-interval'
  | 'early-full-total-size'
  | 'early-full-incremental-size'
  | 'size-amplification'
  | 'size-ratio'
  | 'file-number'
  | 'force-up-level-0';

export interface PickContext {
  o: ResolvedUniversalOptions;
  clock: ResolvedClock;
  state: { lastFullCompactionMs: number | null; lookupCompactTriggerCount: number };
  trail: DecisionStep[];
  reason?: PickReason;
}

function step(ctx: PickContext, s: DecisionStep): void {
  ctx.trail.push(s);
}

function unitOf<F>(ctx: PickContext, outputLevel: number, runs: readonly Run<F>[]): CompactUnit<F> {
  return { outputLevel, runs: runs.slice(), trail: ctx.trail };
}

/** EarlyFullCompaction.updateLastFullCompaction — only when EarlyFullCompaction exists at all. */
function markFullCompaction(ctx: PickContext): void {
  if (ctx.o.earlyFullCompaction) ctx.state.lastFullCompactionMs = ctx.clock.epochMs;
}

/** EarlyFullCompaction.tryFullCompact: interval, then total size, then incremental size. */
export function tryEarlyFullCompaction<F>(
  ctx: PickContext,
  numLevels: number,
  runs: readonly Run<F>[],
): CompactUnit<F> | null {
  const { o } = ctx;
  if (runs.length === 1) {
    step(ctx, { gate: 'early-full', detail: 'only one sorted run: nothing to fully compact', outcome: 'skip' });
    return null;
  }
  const maxLevel = numLevels - 1;
  const full = (reason: PickReason): CompactUnit<F> => {
    ctx.state.lastFullCompactionMs = ctx.clock.epochMs;
    ctx.reason = reason;
    return unitOf(ctx, maxLevel, runs);
  };

  if (o.optimizationIntervalMs !== null) {
    const last = ctx.state.lastFullCompactionMs;
    const now = ctx.clock.epochMs;
    if (last === null || now - last > o.optimizationIntervalMs) {
      step(ctx, {
        gate: 'early-full.interval',
        detail:
          last === null
            ? `no full compaction recorded yet → full compaction of all ${runs.length} runs into L${maxLevel}`
            : `${now - last} ms since the last full compaction > interval ${o.optimizationIntervalMs} ms → full compaction of all ${runs.length} runs into L${maxLevel}`,
        outcome: 'pick',
        values: { nowMs: now, lastFullCompactionMs: last, intervalMs: o.optimizationIntervalMs },
      });
      return full('early-full-interval');
    }
    step(ctx, {
      gate: 'early-full.interval',
      detail: `${now - last} ms since the last full compaction ≤ interval ${o.optimizationIntervalMs} ms`,
      outcome: 'fail',
      values: { nowMs: now, lastFullCompactionMs: last, intervalMs: o.optimizationIntervalMs },
    });
  }
  if (o.totalSizeThreshold !== null) {
    const total = totalSize(runs);
    const hit = total < o.totalSizeThreshold;
    step(ctx, {
      gate: 'early-full.total-size',
      detail: `total size ${formatBytes(total, PAIMON_BYTES)} ${hit ? '<' : '≥'} threshold ${formatBytes(o.totalSizeThreshold, PAIMON_BYTES)}${hit ? ` → full compaction into L${maxLevel}` : ''}`,
      outcome: hit ? 'pick' : 'fail',
      values: { totalBytes: total, thresholdBytes: o.totalSizeThreshold },
    });
    if (hit) return full('early-full-total-size');
  }
  if (o.incrementalSizeThreshold !== null) {
    let incremental = 0;
    for (const r of runs) if (r.level !== maxLevel) incremental += r.size;
    const hit = incremental > o.incrementalSizeThreshold;
    step(ctx, {
      gate: 'early-full.incremental-size',
      detail: `size outside L${maxLevel} ${formatBytes(incremental, PAIMON_BYTES)} ${hit ? '>' : '≤'} threshold ${formatBytes(o.incrementalSizeThreshold, PAIMON_BYTES)}${hit ? ` → full compaction into L${maxLevel}` : ''}`,
      outcome: hit ? 'pick' : 'fail',
      values: { incrementalBytes: incremental, thresholdBytes: o.incrementalSizeThreshold },
    });
    if (hit) return full('early-full-incremental-size');
  }
  return null;
}

/**
 * UniversalCompaction.pickForSizeAmp: with at least `trigger` runs, compact everything into the max level
 * when (all runs but the oldest) × 100 > maxSizeAmp × (the oldest run), in integer arithmetic.
 */
export function pickForSizeAmp<F>(ctx: PickContext, maxLevel: number, runs: readonly Run<F>[]): CompactUnit<F> | null {
  const { o } = ctx;
  if (runs.length < o.numRunCompactionTrigger) {
    step(ctx, {
      gate: 'size-amplification',
      detail: `${runs.length} sorted runs < trigger ${o.numRunCompactionTrigger}: not checked`,
      outcome: 'skip',
      values: { runs: runs.length, trigger: o.numRunCompactionTrigger },
    });
    return null;
  }
  const candidate = totalSize(runs, 0, runs.length - 1);
  const earliest = runs[runs.length - 1]!.size;
  // Paimon compares longs; BigInt keeps that exact even where ×100 would pass 2^53.
  const amplified = BigInt(candidate) * 100n > BigInt(o.maxSizeAmpPercent) * BigInt(earliest);
  const pct = earliest === 0 ? (candidate === 0 ? '0%' : '∞') : `${round2((candidate * 100) / earliest)}%`;
  step(ctx, {
    gate: 'size-amplification',
    detail:
      `newer runs ${formatBytes(candidate, PAIMON_BYTES)} / oldest run ${formatBytes(earliest, PAIMON_BYTES)} = ${pct} ${amplified ? '>' : '≤'} ` +
      `max ${o.maxSizeAmpPercent}%${amplified ? ` → full compaction of all ${runs.length} runs into L${maxLevel}` : ''}`,
    outcome: amplified ? 'pick' : 'fail',
    values: { candidateBytes: candidate, earliestBytes: earliest, maxSizeAmpPercent: o.maxSizeAmpPercent },
  });
  if (!amplified) return null;
  markFullCompaction(ctx);
  ctx.reason = 'size-amplification';
  return unitOf(ctx, maxLevel, runs);
}

/** UniversalCompaction.pickForSizeRatio(maxLevel, runs): needs `trigger` runs, starts from the newest run alone. */
export function pickForSizeRatioGate<F>(
  ctx: PickContext,
  maxLevel: number,
  runs: readonly Run<F>[],
): CompactUnit<F> | null {
  const { o } = ctx;
  if (runs.length < o.numRunCompactionTrigger) {
    step(ctx, {
      gate: 'size-ratio',
      detail: `${runs.length} sorted runs < trigger ${o.numRunCompactionTrigger}: not checked`,
      outcome: 'skip',
      values: { runs: runs.length, trigger: o.numRunCompactionTrigger },
    });
    return null;
  }
  return pickForSizeRatio(ctx, maxLevel, runs, 1, false, 'size-ratio');
}

/**
 * UniversalCompaction.pickForSizeRatio(maxLevel, runs, candidateCount, forcePick) on master (#9185):
 * grow the candidate set from the newest `candidateCount` runs while candidate × (100 + ratio)% ≥ next run.
 * Once a compaction is triggered (forced, or more than one candidate), runs at level 0 or 1 are taken even
 * when the ratio test fails; only a run at level ≥ 2 stops the scan then.
 */
export function pickForSizeRatio<F>(
  ctx: PickContext,
  maxLevel: number,
  runs: readonly Run<F>[],
  candidateCount: number,
  forcePick: boolean,
  reason: PickReason,
): CompactUnit<F> | null {
  const { o } = ctx;
  if (!Number.isInteger(candidateCount) || candidateCount < 1 || candidateCount > runs.length) {
    throw new FloeError(
      'InvalidArgument',
      `pickForSizeRatio: candidateCount ${candidateCount} is outside 1..${runs.length}`,
    );
  }
  const gate = reason === 'size-ratio' ? 'size-ratio' : `${reason}.size-ratio`;
  const extra = offPeakRatio(o.offPeak, ctx.clock.hourOfDay);
  const ratio = o.sizeRatioPercent + extra;
  if (o.offPeak !== null) {
    step(ctx, {
      gate: 'off-peak',
      detail: isOffPeak(o.offPeak, ctx.clock.hourOfDay)
        ? `hour ${ctx.clock.hourOfDay} is off-peak [${o.offPeak.startHour}, ${o.offPeak.endHour}) → size ratio ${o.sizeRatioPercent}% + ${extra}% = ${ratio}%`
        : `hour ${ctx.clock.hourOfDay} is outside off-peak [${o.offPeak.startHour}, ${o.offPeak.endHour}) → size ratio ${ratio}%`,
      outcome: 'info',
      values: { hourOfDay: ctx.clock.hourOfDay, sizeRatioPercent: o.sizeRatioPercent, offPeakRatioPercent: extra },
    });
  }
  let candidate = totalSize(runs, 0, candidateCount);
  let count = candidateCount;
  let triggered = forcePick || count > 1;
  step(ctx, {
    gate,
    detail:
      `start with the newest ${count} run${count > 1 ? 's' : ''} ${describeRuns(runs.slice(0, count))} = ${formatBytes(candidate, PAIMON_BYTES)}` +
      (triggered ? ` (compaction already triggered${forcePick ? ': forced' : ''})` : ''),
    outcome: 'info',
    values: { candidateRuns: count, candidateBytes: candidate, triggered },
  });
  for (let i = count; i < runs.length; i++) {
    const next = runs[i]!;
    const limit = (candidate * (100.0 + ratio)) / 100.0; // double arithmetic, as in Java
    const values = {
      candidateBytes: candidate,
      limitBytes: limit,
      nextBytes: next.size,
      nextLevel: next.level,
      ratioPercent: ratio,
    };
    const comparison = `${formatBytes(candidate, PAIMON_BYTES)} × ${100 + ratio}% = ${formatBytes(limit, PAIMON_BYTES)}`;
    if (limit < next.size) {
      if (!triggered || next.level > 1) {
        step(ctx, {
          gate,
          detail: `${comparison} < next run L${next.level}:${formatBytes(next.size, PAIMON_BYTES)} → stop${triggered ? ' (level ≥ 2)' : ''}`,
          outcome: 'fail',
          values,
        });
        break;
      }
      step(ctx, {
        gate,
        detail: `${comparison} < next run L${next.level}:${formatBytes(next.size, PAIMON_BYTES)}, but compaction is triggered and the run is at L${next.level} ≤ 1 → take it`,
        outcome: 'pass',
        values,
      });
    } else {
      step(ctx, {
        gate,
        detail: `${comparison} ≥ next run L${next.level}:${formatBytes(next.size, PAIMON_BYTES)} → take it (candidate ${formatBytes(candidate + next.size, PAIMON_BYTES)})`,
        outcome: 'pass',
        values,
      });
    }
    candidate += next.size;
    count++;
    triggered = true;
  }
  if (!triggered) {
    step(ctx, { gate, detail: 'no run joined the newest run: no compaction by size ratio', outcome: 'fail' });
    return null;
  }
  ctx.reason = reason;
  return createUnit(ctx, runs, maxLevel, count);
}

/**
 * UniversalCompaction.createUnit: output into (level of the first run left out) − 1; never output level 0 —
 * keep absorbing the following runs until a non-L0 run has joined and use its level; a unit holding every
 * run goes to the max level (and counts as a full compaction).
 */
export function createUnit<F>(
  ctx: PickContext,
  runs: readonly Run<F>[],
  maxLevel: number,
  runCount: number,
): CompactUnit<F> {
  if (!Number.isInteger(runCount) || runCount < 1 || runCount > runs.length) {
    throw new FloeError('InvalidArgument', `createUnit: runCount ${runCount} is outside 1..${runs.length}`);
  }
  let count = runCount;
  let outputLevel = count === runs.length ? maxLevel : Math.max(0, runs[count]!.level - 1);
  if (count < runs.length) {
    step(ctx, {
      gate: 'output-level',
      detail: `first run left out is L${runs[count]!.level} → output level max(0, ${runs[count]!.level} − 1) = ${outputLevel}`,
      outcome: 'info',
      values: { runCount: count, outputLevel },
    });
  }
  if (outputLevel === 0) {
    const before = count;
    for (let i = count; i < runs.length; i++) {
      const next = runs[i]!;
      count++;
      if (next.level !== 0) {
        outputLevel = next.level;
        break;
      }
    }
    if (count > before)
      step(ctx, {
        gate: 'output-level',
        detail:
          `never output to L0 → absorb ${count - before} following run${count - before > 1 ? 's' : ''} ` +
          `${describeRuns(runs.slice(before, count))}` +
          (count < runs.length || outputLevel !== 0 ? ` → output L${outputLevel}` : ''),
        outcome: 'info',
        values: { runCount: count, outputLevel },
      });
  }
  if (count === runs.length) {
    markFullCompaction(ctx);
    outputLevel = maxLevel;
    step(ctx, {
      gate: 'output-level',
      detail: `unit takes all ${count} runs → output max level L${maxLevel}`,
      outcome: 'info',
      values: { runCount: count, outputLevel },
    });
  }
  return unitOf(ctx, outputLevel, runs.slice(0, count));
}

/** UniversalCompaction.pick: early full compaction, size amplification, size ratio, then file number. */
export function universalPick<F>(ctx: PickContext, numLevels: number, runs: readonly Run<F>[]): CompactUnit<F> | null {
  const { o } = ctx;
  const maxLevel = numLevels - 1;
  if (o.earlyFullCompaction) {
    const unit = tryEarlyFullCompaction(ctx, numLevels, runs);
    if (unit) return unit;
  }
  const amp = pickForSizeAmp(ctx, maxLevel, runs);
  if (amp) return amp;
  const ratio = pickForSizeRatioGate(ctx, maxLevel, runs);
  if (ratio) return ratio;
  if (runs.length > o.numRunCompactionTrigger) {
    const cc = runs.length - o.numRunCompactionTrigger + 1;
    step(ctx, {
      gate: 'file-number',
      detail: `${runs.length} sorted runs > trigger ${o.numRunCompactionTrigger} → compact at least the newest ${runs.length} − ${o.numRunCompactionTrigger} + 1 = ${cc} runs`,
      outcome: 'pick',
      values: { runs: runs.length, trigger: o.numRunCompactionTrigger, candidateRuns: cc },
    });
    return pickForSizeRatio(ctx, maxLevel, runs, cc, false, 'file-number');
  }
  step(ctx, {
    gate: 'file-number',
    detail: `${runs.length} sorted runs ≤ trigger ${o.numRunCompactionTrigger}`,
    outcome: 'fail',
    values: { runs: runs.length, trigger: o.numRunCompactionTrigger },
  });
  return null;
}

/** UniversalCompaction.forcePickL0: all leading L0 runs, grown by the size-ratio rule with forcePick. */
export function forcePickL0<F>(ctx: PickContext, numLevels: number, runs: readonly Run<F>[]): CompactUnit<F> | null {
  let cc = 0;
  while (cc < runs.length && runs[cc]!.level === 0) cc++;
  if (cc === 0) {
    step(ctx, { gate: 'force-up-level-0', detail: 'no level-0 runs to force up', outcome: 'skip' });
    return null;
  }
  return pickForSizeRatio(ctx, numLevels - 1, runs, cc, true, 'force-up-level-0');
}

/**
 * The strategy MergeTreeCompactManagerFactory builds: plain universal, or ForceUpLevel0Compaction around it
 * (lookup or force-up-level-0). In GENTLE lookup mode, L0 is forced up only every `maxInterval`-th empty pick.
 */
export function strategyPick<F>(ctx: PickContext, numLevels: number, runs: readonly Run<F>[]): CompactUnit<F> | null {
  const unit = universalPick(ctx, numLevels, runs);
  if (unit || ctx.o.strategy === 'universal') return unit;
  const why = ctx.o.needLookup ? 'lookup compaction' : 'compaction.force-up-level-0';
  const max = ctx.o.forceUpMaxInterval;
  if (max === null) {
    step(ctx, {
      gate: 'force-up-level-0',
      detail: `universal picked nothing; ${why}${ctx.o.needLookup ? ' (RADICAL)' : ''} → force the level-0 runs up`,
      outcome: 'info',
    });
    return forcePickL0(ctx, numLevels, runs);
  }
  const count = ctx.state.lookupCompactTriggerCount + 1;
  if (count === max) {
    ctx.state.lookupCompactTriggerCount = 0;
    step(ctx, {
      gate: 'force-up-level-0',
      detail: `universal picked nothing; GENTLE lookup compaction: empty pick ${count} of ${max} → force the level-0 runs up (counter reset)`,
      outcome: 'info',
      values: { triggerCount: count, maxInterval: max },
    });
    return forcePickL0(ctx, numLevels, runs);
  }
  ctx.state.lookupCompactTriggerCount = count;
  step(ctx, {
    gate: 'force-up-level-0',
    detail: `universal picked nothing; GENTLE lookup compaction: empty pick ${count} of ${max} → wait`,
    outcome: 'skip',
    values: { triggerCount: count, maxInterval: max },
  });
  return null;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
