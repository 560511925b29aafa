/**
 * The search behind `floe advise`: the table's current settings, doing nothing, and candidate policies
 * (tiered trigger × schedule, then target size, eq→pos batching and a periodic full pass around the best;
 * bin-pack on a cron for comparison) each replayed through the simulator over the table's own history and
 * priced. The recommendation is the cheapest tiered candidate per month (maintenance + readers), ties broken
 * by fewer scan file opens; only tiered settings are table properties floe's compaction reads, so bin-pack
 * and "none" are reported as alternatives, never recommended.
 */
import { FloeError } from '../../../util/errors.js';
import { TIERED_KEYS, tieredPolicyFromProperties } from '../../core/planning/policy.js';
import {
  normalizePolicy,
  simulatePolicy,
  type CommitStream,
  type Policy,
  type PolicyResult,
  type Schedule,
} from '../../core/simulate/index.js';
import { predict, type CostModel, type Predicted } from './predict.js';

const MiB = 1024 * 1024;

export interface AdviceSettings {
  strategy: 'tiered' | 'binpack' | 'none';
  /** How often compaction is evaluated (floe.yaml `jobs.compact`); not a table property. */
  schedule: Schedule;
  /** Table properties the strategy reads (tiered: Amoro's self-optimizing.* names). */
  properties: Record<string, string>;
}

export interface Evaluated {
  name: string;
  settings: AdviceSettings;
  predicted: Predicted;
}

export interface Comparison {
  /** Money saved per month (positive: the recommendation is cheaper). */
  monthlyCostSaved: number;
  monthlyCostSavedPercent: number;
  /** Scan file opens saved (positive: readers open fewer files). */
  scanFileOpensSaved: number;
  scanFileOpensSavedPercent: number;
}

export interface Advice {
  current: Evaluated;
  recommended: Evaluated;
  /** Doing nothing (no compaction). */
  nothing: Evaluated;
  alternatives: Evaluated[];
  versus: { current: Comparison; nothing: Comparison };
  /** Table properties --apply sets (those whose value differs from the table's). */
  propertyChanges: Record<string, string>;
  /** Every plan the simulator found unsound, by policy (empty when all were). */
  violations: string[];
  /** The simulated runs by name (for the chart; not part of the JSON result). */
  runs: Map<string, PolicyResult>;
}

/** The tiered knobs advise tunes, as the table's effective values (its properties over Amoro's defaults). */
export function currentTieredSettings(props: Record<string, string>, schedule: Schedule): AdviceSettings {
  const p = tieredPolicyFromProperties(props);
  return {
    strategy: 'tiered',
    schedule,
    properties: {
      [TIERED_KEYS.targetSize]: String(p.targetSizeBytes),
      [TIERED_KEYS.minorFileCount]: String(p.minorTriggerFileCount),
      [TIERED_KEYS.eqToPosDeleteRatio]: String(p.eqToPosDeleteRatio),
      [TIERED_KEYS.fullInterval]: String(p.fullTriggerIntervalMs),
    },
  };
}

function nameOf(s: AdviceSettings): string {
  if (s.strategy === 'none') return 'none';
  const every = `every-${s.schedule.everyMinutes}m`;
  if (s.strategy === 'binpack') return `binpack-${every}`;
  const k = TIERED_KEYS;
  const p = s.properties;
  const target = Number(p[k.targetSize]) / MiB;
  const full = Number(p[k.fullInterval]);
  return [
    `tiered-t${p[k.minorFileCount]}`,
    every,
    `${Number.isInteger(target) ? target : target.toFixed(1)}MiB`,
    `eq${p[k.eqToPosDeleteRatio]}`,
    ...(full > 0 ? [`full-${Math.round(full / 3_600_000)}h`] : []),
  ].join('-');
}

function withTiered(s: AdviceSettings, props: Record<string, string>, schedule?: Schedule): AdviceSettings {
  return { strategy: 'tiered', schedule: schedule ?? s.schedule, properties: { ...s.properties, ...props } };
}

export interface AdviseInput {
  stream: CommitStream;
  /** The table's properties (carried into every simulated policy). */
  tableProperties: Record<string, string>;
  /** How often compaction runs today. */
  currentSchedule: Schedule;
  cost: CostModel;
  /** How many alternatives to list (default 8). */
  alternatives?: number;
}

export function advise(input: AdviseInput): Advice {
  const { stream, tableProperties, cost } = input;
  const seen = new Map<string, Evaluated>();
  const runs = new Map<string, PolicyResult>();
  const violations: string[] = [];
  const evaluate = (settings: AdviceSettings, name = nameOf(settings)): Evaluated => {
    const hit = seen.get(name);
    if (hit) return hit;
    const policy: Policy = normalizePolicy({
      name,
      planner: settings.strategy,
      properties: { ...tableProperties, ...settings.properties },
      schedule: settings.schedule,
    });
    const result: PolicyResult = simulatePolicy(stream, policy);
    runs.set(name, result);
    for (const v of result.violations) violations.push(`${name}: ${v}`);
    const e = { name, settings, predicted: predict(result, stream, cost) };
    seen.set(name, e);
    return e;
  };
  const current = evaluate(currentTieredSettings(tableProperties, input.currentSchedule));
  const nothing = evaluate({ strategy: 'none', schedule: input.currentSchedule, properties: {} });
  // Cheaper wins; at the same cost fewer scan opens; at the same both, fewer changes from today's settings.
  const changes = (e: Evaluated) =>
    Object.entries(e.settings.properties).filter(([key, v]) => current.settings.properties[key] !== v).length +
    (e.settings.schedule.everyMinutes === current.settings.schedule.everyMinutes ? 0 : 1);
  const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  const better = (a: Evaluated, b: Evaluated) => {
    const [x, y] = [a.predicted, b.predicted];
    if (!same(x.monthlyCost, y.monthlyCost)) return x.monthlyCost < y.monthlyCost;
    if (!same(x.scanFileOpens, y.scanFileOpens)) return x.scanFileOpens < y.scanFileOpens;
    return changes(a) < changes(b);
  };

  // Stage 1: when and how eagerly (trigger file count × evaluation cadence).
  let best = current;
  const k = TIERED_KEYS;
  // today's trigger is in the grid, so a schedule-only change is found when it is as good
  const todays = Number(current.settings.properties[k.minorFileCount]);
  for (const trigger of [...new Set([todays, 6, 12, 24, 48])])
    for (const everyMinutes of [5, 15, 60, 240]) {
      const e = evaluate(
        withTiered(current.settings, { [k.minorFileCount]: String(trigger) }, { kind: 'periodic', everyMinutes }),
      );
      if (better(e, best)) best = e;
    }
  // Stage 2: around the best — output size, eq→pos batching (when the history has deletes), a daily full pass.
  const hasDeletes = stream.commits.some((c) => c.equalityDeletes.length + c.positionDeletes.length > 0);
  const refinements: Record<string, string>[] = [
    ...[64, 128, 256].map((m) => ({ [k.targetSize]: String(m * MiB) })),
    ...(hasDeletes ? ['0.5', '1.25', '3'].map((r) => ({ [k.eqToPosDeleteRatio]: r })) : []),
    { [k.fullInterval]: String(24 * 3_600_000) },
  ];
  for (const props of refinements) {
    const e = evaluate(withTiered(best.settings, props));
    if (better(e, best)) best = e;
  }
  for (const everyMinutes of [15, 60, 240])
    evaluate({ strategy: 'binpack', schedule: { kind: 'periodic', everyMinutes }, properties: binpackProps(current) });

  const recommended = best;
  const alternatives = [...seen.values()]
    .filter((e) => e !== recommended)
    .sort((a, b) => a.predicted.monthlyCost - b.predicted.monthlyCost)
    .slice(0, input.alternatives ?? 8);
  const propertyChanges: Record<string, string> = {};
  for (const [key, v] of Object.entries(recommended.settings.properties))
    if (current.settings.properties[key] !== v) propertyChanges[key] = v;
  if (!(recommended.predicted.monthlyCost <= current.predicted.monthlyCost))
    throw new FloeError('Internal', 'advise: the recommendation is dearer than the current settings'); // search starts at current
  return {
    current,
    recommended,
    nothing,
    alternatives,
    versus: { current: compare(recommended, current), nothing: compare(recommended, nothing) },
    propertyChanges,
    violations: violations.slice(0, 20),
    runs,
  };
}

/** Spark rewrite_data_files options at the table's target size (min-input-files 5, Spark's default). */
function binpackProps(current: Evaluated): Record<string, string> {
  return { 'target-file-size-bytes': current.settings.properties[TIERED_KEYS.targetSize]!, 'min-input-files': '5' };
}

function compare(a: Evaluated, b: Evaluated): Comparison {
  const pct = (saved: number, of: number) => (of > 0 ? (100 * saved) / of : 0);
  const cost = b.predicted.monthlyCost - a.predicted.monthlyCost;
  const opens = b.predicted.scanFileOpens - a.predicted.scanFileOpens;
  return {
    monthlyCostSaved: cost,
    monthlyCostSavedPercent: pct(cost, b.predicted.monthlyCost),
    scanFileOpensSaved: opens,
    scanFileOpensSavedPercent: pct(opens, b.predicted.scanFileOpens),
  };
}
