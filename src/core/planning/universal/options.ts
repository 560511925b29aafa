/**
 * Options of Paimon's universal compaction, in camelCase, with Paimon's defaults
 * (paimon-api CoreOptions on master) and the derived values Paimon computes from them.
 */
import { FloeError } from '../../../../util/errors.js';
import { parseDurationMs, parseMemorySize } from '../../../../util/units.js';

export interface OffPeakOptions {
  /** `compaction.offpeak.start.hour`, 0–23 inclusive; -1 disables off-peak. */
  startHour: number;
  /** `compaction.offpeak.end.hour`, 0–23 exclusive; -1 disables off-peak. */
  endHour: number;
  /** `compaction.offpeak-ratio`: extra size-ratio percent during off-peak hours. */
  ratioPercent: number;
}

export type LookupCompactMode = 'RADICAL' | 'GENTLE';

export interface UniversalOptions {
  /** `num-sorted-run.compaction-trigger` (default 5). */
  numRunCompactionTrigger?: number;
  /** `num-sorted-run.stop-trigger` (default trigger + 3, never below the trigger). */
  numSortedRunStopTrigger?: number | null;
  /** `num-levels` (default trigger + 1). Only used where no explicit numLevels argument is given. */
  numLevels?: number | null;
  /** `compaction.max-size-amplification-percent` (default 200). */
  maxSizeAmpPercent?: number;
  /** `compaction.size-ratio` in percent (default 1). */
  sizeRatioPercent?: number;
  /** `compaction.offpeak.*`; disabled unless both hours are set and differ. */
  offPeak?: Partial<OffPeakOptions> | null;
  /** `compaction.optimization-interval` in ms (EarlyFullCompaction; default unset). */
  optimizationIntervalMs?: number | null;
  /** `compaction.total-size-threshold` in bytes: full compaction while the bucket is smaller. */
  totalSizeThreshold?: number | null;
  /** `compaction.incremental-size-threshold` in bytes: full compaction once non-max-level runs exceed it. */
  incrementalSizeThreshold?: number | null;
  /** `compaction.force-up-level-0` (default false). */
  forceUpLevel0?: boolean;
  /** `changelog-producer` (none | input | lookup | full-compaction); `lookup` implies lookup compaction. */
  changelogProducer?: string;
  /** `merge-engine`; `first-row` implies lookup compaction. */
  mergeEngine?: string;
  /** `deletion-vectors.enabled`: implies lookup compaction and always allows dropping deletes. */
  deletionVectorsEnabled?: boolean;
  /** `force-lookup`. */
  forceLookup?: boolean;
  /** `lookup-compact` (default RADICAL). Only matters when lookup compaction is needed. */
  lookupCompact?: LookupCompactMode;
  /** `lookup-compact.max-interval` (default 2 × trigger, never below the trigger). GENTLE mode only. */
  lookupCompactMaxInterval?: number | null;
  /** `chain-table.enabled`: chain tables always keep delete records (forceKeepDelete). */
  chainTable?: boolean;
  /** `write-only`: the writer never compacts (NoopCompactManager). */
  writeOnly?: boolean;
  /** `compaction.force-rewrite-all-files` (full compaction of a single max-level run). */
  forceRewriteAllFiles?: boolean;
}

/** Every option with its default applied and Paimon's derived values computed. */
export interface ResolvedUniversalOptions {
  numRunCompactionTrigger: number;
  numSortedRunStopTrigger: number;
  numLevels: number;
  maxSizeAmpPercent: number;
  sizeRatioPercent: number;
  /** null when off-peak is disabled (OffPeakHours.create returned null). */
  offPeak: OffPeakOptions | null;
  optimizationIntervalMs: number | null;
  totalSizeThreshold: number | null;
  incrementalSizeThreshold: number | null;
  /** True when any EarlyFullCompaction threshold is set (EarlyFullCompaction.create is non-null). */
  earlyFullCompaction: boolean;
  forceUpLevel0: boolean;
  needLookup: boolean;
  lookupCompact: LookupCompactMode;
  /** The strategy MergeTreeCompactManagerFactory.createCompactStrategy would build. */
  strategy: 'universal' | 'force-up-level-0';
  /** ForceUpLevel0Compaction's maxCompactInterval: a number only for lookup + GENTLE. */
  forceUpMaxInterval: number | null;
  forceKeepDelete: boolean;
  deletionVectorsEnabled: boolean;
  writeOnly: boolean;
  forceRewriteAllFiles: boolean;
}

function int(name: string, v: number | undefined | null, dflt: number, min = -Infinity): number {
  if (v === undefined || v === null) return dflt;
  if (!Number.isInteger(v) || v < min) {
    throw new FloeError(
      'InvalidArgument',
      `universal compaction option ${name} must be an integer ≥ ${min}, got ${v}`,
      {
        context: { option: name, value: v },
      },
    );
  }
  return v;
}

function optionalNonNegative(name: string, v: number | undefined | null): number | null {
  if (v === undefined || v === null) return null;
  if (!Number.isFinite(v) || v < 0) {
    throw new FloeError(
      'InvalidArgument',
      `universal compaction option ${name} must be a non-negative number, got ${v}`,
      {
        context: { option: name, value: v },
      },
    );
  }
  return v;
}

/** Applies Paimon's defaults and derivations (CoreOptions getters, OffPeakHours.create, the factory's strategy choice). */
export function resolveOptions(o: UniversalOptions = {}): ResolvedUniversalOptions {
  // A trigger below 1 would make the file-number fallback read past the end of the runs (Java would throw).
  const trigger = int('numRunCompactionTrigger', o.numRunCompactionTrigger, 5, 1);
  // CoreOptions.numSortedRunStopTrigger: default trigger+3, and never below the trigger.
  const stop = Math.max(trigger, int('numSortedRunStopTrigger', o.numSortedRunStopTrigger, trigger + 3));
  const numLevels = int('numLevels', o.numLevels, trigger + 1, 2);
  const startHour = int('offPeak.startHour', o.offPeak?.startHour, -1, -1);
  const endHour = int('offPeak.endHour', o.offPeak?.endHour, -1, -1);
  const ratioPercent = int('offPeak.ratioPercent', o.offPeak?.ratioPercent, 0);
  // OffPeakHours.create: either hour at -1, or both equal, means "no off-peak window".
  const offPeak =
    startHour === -1 || endHour === -1 || startHour === endHour ? null : { startHour, endHour, ratioPercent };
  const optimizationIntervalMs = optionalNonNegative('optimizationIntervalMs', o.optimizationIntervalMs);
  const totalSizeThreshold = optionalNonNegative('totalSizeThreshold', o.totalSizeThreshold);
  const incrementalSizeThreshold = optionalNonNegative('incrementalSizeThreshold', o.incrementalSizeThreshold);
  const dv = o.deletionVectorsEnabled ?? false;
  // CoreOptions.lookupStrategy(): lookup changelog, first-row, deletion vectors or force-lookup.
  const needLookup =
    (o.changelogProducer ?? 'none').toLowerCase() === 'lookup' ||
    (o.mergeEngine ?? 'deduplicate').toLowerCase() === 'first-row' ||
    dv ||
    (o.forceLookup ?? false);
  const lookupCompact = (o.lookupCompact ?? 'RADICAL').toUpperCase() as LookupCompactMode;
  if (lookupCompact !== 'RADICAL' && lookupCompact !== 'GENTLE') {
    throw new FloeError(
      'InvalidArgument',
      `universal compaction option lookupCompact must be RADICAL or GENTLE, got ${o.lookupCompact}`,
    );
  }
  const forceUpLevel0 = o.forceUpLevel0 ?? false;
  // MergeTreeCompactManagerFactory.createCompactStrategy: lookup always wraps universal in
  // ForceUpLevel0Compaction (with a max interval only in GENTLE mode); otherwise only force-up-level-0 does.
  const strategy = needLookup || forceUpLevel0 ? 'force-up-level-0' : 'universal';
  const forceUpMaxInterval =
    needLookup && lookupCompact === 'GENTLE'
      ? Math.max(trigger, int('lookupCompactMaxInterval', o.lookupCompactMaxInterval, trigger * 2, 1))
      : null;
  return {
    numRunCompactionTrigger: trigger,
    numSortedRunStopTrigger: stop,
    numLevels,
    maxSizeAmpPercent: int('maxSizeAmpPercent', o.maxSizeAmpPercent, 200),
    sizeRatioPercent: int('sizeRatioPercent', o.sizeRatioPercent, 1),
    offPeak,
    optimizationIntervalMs,
    totalSizeThreshold,
    incrementalSizeThreshold,
    earlyFullCompaction:
      optimizationIntervalMs !== null || totalSizeThreshold !== null || incrementalSizeThreshold !== null,
    forceUpLevel0,
    needLookup,
    lookupCompact,
    strategy,
    forceUpMaxInterval,
    forceKeepDelete: o.chainTable ?? false,
    deletionVectorsEnabled: dv,
    writeOnly: o.writeOnly ?? false,
    forceRewriteAllFiles: o.forceRewriteAllFiles ?? false,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Parsing "key=value" pairs with Paimon's dotted names (or our camelCase names), for the CLI and configs.

type Kind = 'int' | 'bool' | 'duration' | 'memory' | 'string';
interface Key {
  path: [keyof UniversalOptions] | ['offPeak', keyof OffPeakOptions];
  kind: Kind;
}

const KEYS: Record<string, Key> = {
  'num-sorted-run.compaction-trigger': { path: ['numRunCompactionTrigger'], kind: 'int' },
  'num-sorted-run.stop-trigger': { path: ['numSortedRunStopTrigger'], kind: 'int' },
  'num-levels': { path: ['numLevels'], kind: 'int' },
  'compaction.max-size-amplification-percent': { path: ['maxSizeAmpPercent'], kind: 'int' },
  'compaction.size-ratio': { path: ['sizeRatioPercent'], kind: 'int' },
  'compaction.offpeak.start.hour': { path: ['offPeak', 'startHour'], kind: 'int' },
  'compaction.offpeak.end.hour': { path: ['offPeak', 'endHour'], kind: 'int' },
  'compaction.offpeak-ratio': { path: ['offPeak', 'ratioPercent'], kind: 'int' },
  'compaction.optimization-interval': { path: ['optimizationIntervalMs'], kind: 'duration' },
  'compaction.total-size-threshold': { path: ['totalSizeThreshold'], kind: 'memory' },
  'compaction.incremental-size-threshold': { path: ['incrementalSizeThreshold'], kind: 'memory' },
  'compaction.force-up-level-0': { path: ['forceUpLevel0'], kind: 'bool' },
  'changelog-producer': { path: ['changelogProducer'], kind: 'string' },
  'merge-engine': { path: ['mergeEngine'], kind: 'string' },
  'deletion-vectors.enabled': { path: ['deletionVectorsEnabled'], kind: 'bool' },
  'force-lookup': { path: ['forceLookup'], kind: 'bool' },
  'lookup-compact': { path: ['lookupCompact'], kind: 'string' },
  'lookup-compact.max-interval': { path: ['lookupCompactMaxInterval'], kind: 'int' },
  'chain-table.enabled': { path: ['chainTable'], kind: 'bool' },
  'write-only': { path: ['writeOnly'], kind: 'bool' },
  'compaction.force-rewrite-all-files': { path: ['forceRewriteAllFiles'], kind: 'bool' },
};

/** Every Paimon option the universal picker reads (dotted names), for option validation. */
export const UNIVERSAL_OPTION_KEYS: readonly string[] = Object.freeze(Object.keys(KEYS));

/** camelCase aliases: the field names themselves, plus flat names for the off-peak fields. */
const ALIASES: Record<string, string> = {};
for (const [dotted, key] of Object.entries(KEYS)) {
  const camel = key.path.length === 1 ? key.path[0] : `offPeak.${key.path[1]}`;
  ALIASES[camel.toLowerCase()] = dotted;
  if (key.path.length === 2) {
    ALIASES[`offpeak${key.path[1]}`.toLowerCase()] = dotted;
  }
}
ALIASES['maxsizeamplificationpercent'] = 'compaction.max-size-amplification-percent';
ALIASES['sizeratio'] = 'compaction.size-ratio';
ALIASES['optimizationinterval'] = 'compaction.optimization-interval';

function parseValue(key: string, kind: Kind, raw: string): number | boolean | string {
  const v = raw.trim();
  switch (kind) {
    case 'int': {
      if (!/^-?\d+$/.test(v)) throw new FloeError('InvalidArgument', `option ${key}: "${raw}" is not an integer`);
      return Number(v);
    }
    case 'bool': {
      if (/^true$/i.test(v)) return true;
      if (/^false$/i.test(v)) return false;
      throw new FloeError('InvalidArgument', `option ${key}: "${raw}" is not true/false`);
    }
    case 'duration':
      // Paimon's TimeUtils: a bare number is milliseconds
      return parseDurationMs(v, { bare: 'ms' });
    case 'memory':
      return parseMemorySize(v, 'b');
    case 'string':
      return v;
  }
}

/** The Paimon (dotted) name for a dotted or camelCase option key, or undefined if it is not a universal-compaction option. */
export function canonicalOptionKey(key: string): string | undefined {
  const k = key.trim();
  if (k in KEYS) return k;
  return ALIASES[k.toLowerCase()];
}

/** Turns `key=value` assignments (Paimon dotted names or camelCase) into options, later ones overriding. */
export function parseOptionAssignments(assignments: readonly string[], base: UniversalOptions = {}): UniversalOptions {
  const out: UniversalOptions = { ...base, offPeak: base.offPeak ? { ...base.offPeak } : base.offPeak };
  for (const a of assignments) {
    const eq = a.indexOf('=');
    if (eq <= 0) throw new FloeError('InvalidArgument', `option "${a}" must look like key=value`);
    const rawKey = a.slice(0, eq);
    const dotted = canonicalOptionKey(rawKey);
    if (!dotted) {
      throw new FloeError(
        'InvalidArgument',
        `unknown universal compaction option "${rawKey}"; known: ${Object.keys(KEYS).join(', ')}`,
        {
          context: { option: rawKey },
        },
      );
    }
    const key = KEYS[dotted]!;
    const value = parseValue(dotted, key.kind, a.slice(eq + 1));
    if (key.path.length === 2) {
      out.offPeak = { ...(out.offPeak ?? {}), [key.path[1]]: value as number };
    } else {
      (out as Record<string, unknown>)[key.path[0]] = value;
    }
  }
  return out;
}

/** Options from a table's properties map (only the keys this planner knows; others are ignored). */
export function optionsFromProperties(props: Record<string, string>): UniversalOptions {
  const known = Object.entries(props)
    .filter(([k]) => k in KEYS)
    .map(([k, v]) => `${k}=${v}`);
  return parseOptionAssignments(known);
}
