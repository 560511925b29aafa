/**
 * Options of the two Iceberg planners and their parsing from string properties.
 *
 * Tiered: Amoro's `self-optimizing.*` table properties, same names and defaults
 * (apache/amoro `TableProperties.java`, parsed by `TableConfigurations.parseOptimizingConfig`).
 * Bin-pack: Spark `rewrite_data_files` options (apache/iceberg `SizeBasedFileRewritePlanner.java`,
 * `BinPackRewriteFilePlanner.java`), with the same validation.
 */
import { FloeError } from '../../../util/errors.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const INT_MAX = 2147483647;

export interface TieredPolicy {
  /** `self-optimizing.enabled` (true). */
  enabled: boolean;
  /** `self-optimizing.target-size` (128 MiB): output file size. */
  targetSizeBytes: number;
  /** `self-optimizing.max-task-size-bytes` (128 MiB): a task bin holds max(target, this). */
  maxTaskSizeBytes: number;
  /** `self-optimizing.fragment-ratio` (8): fragment = size ≤ target / ratio (integer division). */
  fragmentRatio: number;
  /** `self-optimizing.min-target-size-ratio` (0.75): undersized = size ≤ target × ratio. */
  minTargetSizeRatio: number;
  /** `self-optimizing.minor.trigger.file-count` (12). */
  minorTriggerFileCount: number;
  /** `self-optimizing.minor.trigger.interval` in ms (3 600 000); < 0 disables. */
  minorTriggerIntervalMs: number;
  /** `self-optimizing.major.trigger.duplicate-ratio` (0.1): position-deleted share that forces a rewrite. */
  majorDuplicateRatio: number;
  /** `self-optimizing.full.trigger.interval` in ms (-1 = off). */
  fullTriggerIntervalMs: number;
  /** `self-optimizing.full.rewrite-all-files` (true). */
  fullRewriteAllFiles: boolean;
  /** `self-optimizing.filter`: SQL-like predicate limiting which data files are optimized. */
  filter?: string;
  /**
   * `self-optimizing.max-file-count` (10000): most data files one plan reads. Amoro documents it but
   * never reads it; floe enforces it (and caps each task at it).
   */
  maxFileCount: number;
  /** `read.split.open-file-cost` (4 MiB): per-file term of the partition cost. */
  openFileCostBytes: number;
  /** Optimizer-group `max-input-file-size-per-thread` (512 MiB); table override of the same name. */
  maxInputBytesPerThread: number;
  /** Optimizer threads the plan may use (Amoro: the group's thread count, ≥ 1). */
  availableCores: number;
  /**
   * `self-optimizing.minor.fragment-size-ratio` (floe; percent, default 1; -1 = Amoro's merge-everything): in a minor optimize,
   * fragments without deletes are merged smallest first, and a larger fragment joins only while its size is
   * ≤ the sum taken so far × (100 + ratio) / 100 — Paimon's size-ratio rule. Amoro re-merges the growing
   * output with every new batch of fragments (quadratic write amplification); size tiers make it logarithmic.
   */
  fragmentSizeRatioPercent: number;
  /**
   * `self-optimizing.minor.eq-to-pos.delete-ratio` (floe; default 1.25; < 0 = Amoro's convert-at-every-minor):
   * target-size segments whose only reason for an equality→position conversion is equality deletes are
   * converted in batches — once the bytes a reader pays for those deletes (each attached file's size plus
   * `read.split.open-file-cost`, per segment) reach this ratio of the segments' bytes, or once the oldest
   * pending equality delete is older than `minor.trigger.interval`. Batched conversions are packed by the
   * bytes they read (the key columns), not by data-file size, so one task serves many files.
   * With the 4 MiB open cost a 128 MiB segment waits for ~40 equality-delete files at 1.25. Lower values
   * convert more often: fewer delete files per data file for readers, more key-column reads.
   */
  eqToPosDeleteRatio: number;
}

export const TIERED_DEFAULTS: Readonly<TieredPolicy> = Object.freeze({
  enabled: true,
  targetSizeBytes: 128 * MiB,
  maxTaskSizeBytes: 128 * MiB,
  fragmentRatio: 8,
  minTargetSizeRatio: 0.75,
  minorTriggerFileCount: 12,
  minorTriggerIntervalMs: 3_600_000,
  majorDuplicateRatio: 0.1,
  fullTriggerIntervalMs: -1,
  fullRewriteAllFiles: true,
  maxFileCount: 10_000,
  openFileCostBytes: 4 * MiB,
  maxInputBytesPerThread: 512 * MiB,
  availableCores: 1,
  fragmentSizeRatioPercent: 1,
  eqToPosDeleteRatio: 1.25,
});

export const TIERED_KEYS = Object.freeze({
  enabled: 'self-optimizing.enabled',
  targetSize: 'self-optimizing.target-size',
  maxTaskSize: 'self-optimizing.max-task-size-bytes',
  fragmentRatio: 'self-optimizing.fragment-ratio',
  minTargetSizeRatio: 'self-optimizing.min-target-size-ratio',
  minorFileCount: 'self-optimizing.minor.trigger.file-count',
  minorInterval: 'self-optimizing.minor.trigger.interval',
  majorDuplicateRatio: 'self-optimizing.major.trigger.duplicate-ratio',
  fullInterval: 'self-optimizing.full.trigger.interval',
  fullRewriteAll: 'self-optimizing.full.rewrite-all-files',
  filter: 'self-optimizing.filter',
  maxFileCount: 'self-optimizing.max-file-count',
  openFileCost: 'read.split.open-file-cost',
  maxInputPerThread: 'self-optimizing.max-input-file-size-per-thread',
  availableCores: 'self-optimizing.available-cores',
  fragmentSizeRatio: 'self-optimizing.minor.fragment-size-ratio',
  eqToPosDeleteRatio: 'self-optimizing.minor.eq-to-pos.delete-ratio',
});

function raw(props: Record<string, string>, key: string): string | undefined {
  const v = props[key];
  if (v === undefined || v === null) return undefined;
  return String(v).trim();
}

function invalid(key: string, value: string, want: string): FloeError {
  return new FloeError('InvalidArgument', `property ${key}=${JSON.stringify(value)} is not ${want}`, {
    context: { property: key, value },
  });
}

export function intProp(props: Record<string, string>, key: string, dflt: number): number {
  const v = raw(props, key);
  if (v === undefined || v === '') return dflt;
  if (!/^[+-]?\d+$/.test(v)) throw invalid(key, v, 'an integer');
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw invalid(key, v, 'an integer within ±2^53');
  return n;
}

export function numberProp(props: Record<string, string>, key: string, dflt: number): number {
  const v = raw(props, key);
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isFinite(n)) throw invalid(key, v, 'a number');
  return n;
}

export function boolProp(props: Record<string, string>, key: string, dflt: boolean): boolean {
  const v = raw(props, key);
  if (v === undefined || v === '') return dflt;
  // Java's Boolean.parseBoolean: "true" (any case) is true, everything else false. Be stricter.
  const l = v.toLowerCase();
  if (l === 'true') return true;
  if (l === 'false') return false;
  throw invalid(key, v, 'true or false');
}

function check(ok: boolean, key: string, value: number, want: string): void {
  if (!ok) throw invalid(key, String(value), want);
}

export function tieredPolicyFromProperties(props: Record<string, string>): TieredPolicy {
  const k = TIERED_KEYS;
  const d = TIERED_DEFAULTS;
  const p: TieredPolicy = {
    enabled: boolProp(props, k.enabled, d.enabled),
    targetSizeBytes: intProp(props, k.targetSize, d.targetSizeBytes),
    maxTaskSizeBytes: intProp(props, k.maxTaskSize, d.maxTaskSizeBytes),
    fragmentRatio: intProp(props, k.fragmentRatio, d.fragmentRatio),
    minTargetSizeRatio: numberProp(props, k.minTargetSizeRatio, d.minTargetSizeRatio),
    minorTriggerFileCount: intProp(props, k.minorFileCount, d.minorTriggerFileCount),
    minorTriggerIntervalMs: intProp(props, k.minorInterval, d.minorTriggerIntervalMs),
    majorDuplicateRatio: numberProp(props, k.majorDuplicateRatio, d.majorDuplicateRatio),
    fullTriggerIntervalMs: intProp(props, k.fullInterval, d.fullTriggerIntervalMs),
    fullRewriteAllFiles: boolProp(props, k.fullRewriteAll, d.fullRewriteAllFiles),
    maxFileCount: intProp(props, k.maxFileCount, d.maxFileCount),
    openFileCostBytes: intProp(props, k.openFileCost, d.openFileCostBytes),
    maxInputBytesPerThread: intProp(props, k.maxInputPerThread, d.maxInputBytesPerThread),
    availableCores: numberProp(props, k.availableCores, d.availableCores),
    fragmentSizeRatioPercent: numberProp(props, k.fragmentSizeRatio, d.fragmentSizeRatioPercent),
    eqToPosDeleteRatio: numberProp(props, k.eqToPosDeleteRatio, d.eqToPosDeleteRatio),
  };
  const filter = raw(props, k.filter);
  if (filter) p.filter = filter;
  validateTieredPolicy(p);
  return p;
}

export function validateTieredPolicy(p: TieredPolicy): void {
  const k = TIERED_KEYS;
  check(p.targetSizeBytes > 0, k.targetSize, p.targetSizeBytes, '> 0');
  check(p.maxTaskSizeBytes > 0, k.maxTaskSize, p.maxTaskSizeBytes, '> 0');
  check(Number.isInteger(p.fragmentRatio) && p.fragmentRatio >= 1, k.fragmentRatio, p.fragmentRatio, 'an integer ≥ 1');
  check(
    p.minTargetSizeRatio >= 0 && p.minTargetSizeRatio <= 1,
    k.minTargetSizeRatio,
    p.minTargetSizeRatio,
    'in [0, 1]',
  );
  check(p.minorTriggerFileCount >= 1, k.minorFileCount, p.minorTriggerFileCount, '≥ 1');
  check(p.majorDuplicateRatio >= 0, k.majorDuplicateRatio, p.majorDuplicateRatio, '≥ 0');
  check(p.maxFileCount >= 1, k.maxFileCount, p.maxFileCount, '≥ 1');
  check(p.openFileCostBytes >= 0, k.openFileCost, p.openFileCostBytes, '≥ 0');
  check(p.maxInputBytesPerThread > 0, k.maxInputPerThread, p.maxInputBytesPerThread, '> 0');
  check(p.availableCores > 0, k.availableCores, p.availableCores, '> 0');
}

/** Fragment bound F = target / ratio, integer division as in Amoro. */
export function fragmentSize(p: TieredPolicy): number {
  return Math.floor(p.targetSizeBytes / p.fragmentRatio);
}

/** Undersized bound M = (long)(target × ratio). */
export function minTargetSize(p: TieredPolicy): number {
  return Math.floor(p.targetSizeBytes * p.minTargetSizeRatio);
}

// ---------------------------------------------------------------------------------------------------

export type RewriteJobOrder = 'none' | 'bytes-asc' | 'bytes-desc' | 'files-asc' | 'files-desc';

export interface BinpackOptions {
  /** `target-file-size-bytes`; default table `write.target-file-size-bytes` (512 MiB). */
  targetFileSizeBytes: number;
  /** `min-file-size-bytes` (75 % of target): smaller files are candidates. */
  minFileSizeBytes: number;
  /** `max-file-size-bytes` (180 % of target): larger files are candidates. */
  maxFileSizeBytes: number;
  /** `min-input-files` (5). */
  minInputFiles: number;
  /** `rewrite-all` (false): every file is a candidate and every group is kept. */
  rewriteAll: boolean;
  /** `max-file-group-size-bytes` (100 GiB). */
  maxFileGroupSizeBytes: number;
  /** `max-file-group-input-files` (Long.MAX). */
  maxFileGroupInputFiles: number;
  /** `delete-file-threshold` (Integer.MAX = off). */
  deleteFileThreshold: number;
  /** `delete-ratio-threshold` (0.3), in (0, 1]. */
  deleteRatioThreshold: number;
  /** `max-files-to-rewrite` (unset = all). */
  maxFilesToRewrite?: number;
  /** `rewrite-job-order` (none). */
  rewriteJobOrder: RewriteJobOrder;
  /** `output-spec-id` (table default spec). */
  outputSpecId?: number;
}

export const BINPACK_KEYS = Object.freeze({
  target: 'target-file-size-bytes',
  min: 'min-file-size-bytes',
  max: 'max-file-size-bytes',
  minInputFiles: 'min-input-files',
  rewriteAll: 'rewrite-all',
  maxGroupSize: 'max-file-group-size-bytes',
  maxGroupFiles: 'max-file-group-input-files',
  deleteFileThreshold: 'delete-file-threshold',
  deleteRatioThreshold: 'delete-ratio-threshold',
  maxFilesToRewrite: 'max-files-to-rewrite',
  jobOrder: 'rewrite-job-order',
  outputSpecId: 'output-spec-id',
  tableTarget: 'write.target-file-size-bytes',
});

export const BINPACK_DEFAULTS = Object.freeze({
  tableTargetFileSizeBytes: 512 * MiB,
  minFileSizeRatio: 0.75,
  maxFileSizeRatio: 1.8,
  minInputFiles: 5,
  rewriteAll: false,
  maxFileGroupSizeBytes: 100 * GiB,
  maxFileGroupInputFiles: Number.MAX_SAFE_INTEGER,
  deleteFileThreshold: INT_MAX,
  deleteRatioThreshold: 0.3,
  rewriteJobOrder: 'none' as RewriteJobOrder,
});

const JOB_ORDERS: readonly RewriteJobOrder[] = ['none', 'bytes-asc', 'bytes-desc', 'files-asc', 'files-desc'];

/**
 * Spark `rewrite_data_files` options from `options`, with the target size defaulting to the table's
 * `write.target-file-size-bytes` (pass the table properties as `tableProperties`).
 */
export function binpackOptionsFrom(
  options: Record<string, string>,
  tableProperties: Record<string, string> = {},
): BinpackOptions {
  const k = BINPACK_KEYS;
  const d = BINPACK_DEFAULTS;
  const target = intProp(options, k.target, intProp(tableProperties, k.tableTarget, d.tableTargetFileSizeBytes));
  // Java: (long) (target * ratio)
  const min = intProp(options, k.min, Math.floor(target * d.minFileSizeRatio));
  const max = intProp(options, k.max, Math.floor(target * d.maxFileSizeRatio));
  const orderRaw = (raw(options, k.jobOrder) ?? d.rewriteJobOrder).toLowerCase();
  if (!JOB_ORDERS.includes(orderRaw as RewriteJobOrder))
    throw invalid(k.jobOrder, orderRaw, `one of ${JOB_ORDERS.join(', ')}`);
  const o: BinpackOptions = {
    targetFileSizeBytes: target,
    minFileSizeBytes: min,
    maxFileSizeBytes: max,
    minInputFiles: intProp(options, k.minInputFiles, d.minInputFiles),
    rewriteAll: boolProp(options, k.rewriteAll, d.rewriteAll),
    maxFileGroupSizeBytes: intProp(options, k.maxGroupSize, d.maxFileGroupSizeBytes),
    maxFileGroupInputFiles: intProp(options, k.maxGroupFiles, d.maxFileGroupInputFiles),
    deleteFileThreshold: intProp(options, k.deleteFileThreshold, d.deleteFileThreshold),
    deleteRatioThreshold: numberProp(options, k.deleteRatioThreshold, d.deleteRatioThreshold),
    rewriteJobOrder: orderRaw as RewriteJobOrder,
  };
  if (raw(options, k.maxFilesToRewrite)) o.maxFilesToRewrite = intProp(options, k.maxFilesToRewrite, 0);
  if (raw(options, k.outputSpecId)) o.outputSpecId = intProp(options, k.outputSpecId, 0);
  validateBinpackOptions(o);
  return o;
}

/** The Preconditions of Iceberg's planners. */
export function validateBinpackOptions(o: BinpackOptions): void {
  const k = BINPACK_KEYS;
  check(o.targetFileSizeBytes > 0, k.target, o.targetFileSizeBytes, '> 0');
  check(o.minFileSizeBytes >= 0, k.min, o.minFileSizeBytes, '≥ 0');
  check(
    o.targetFileSizeBytes > o.minFileSizeBytes,
    k.min,
    o.minFileSizeBytes,
    `< ${k.target} (${o.targetFileSizeBytes})`,
  );
  check(
    o.targetFileSizeBytes < o.maxFileSizeBytes,
    k.max,
    o.maxFileSizeBytes,
    `> ${k.target} (${o.targetFileSizeBytes})`,
  );
  check(o.minInputFiles > 0, k.minInputFiles, o.minInputFiles, '> 0');
  check(o.maxFileGroupSizeBytes > 0, k.maxGroupSize, o.maxFileGroupSizeBytes, '> 0');
  check(o.maxFileGroupInputFiles > 0, k.maxGroupFiles, o.maxFileGroupInputFiles, '> 0');
  check(o.deleteFileThreshold >= 0, k.deleteFileThreshold, o.deleteFileThreshold, '≥ 0');
  check(
    o.deleteRatioThreshold > 0 && o.deleteRatioThreshold <= 1,
    k.deleteRatioThreshold,
    o.deleteRatioThreshold,
    'in (0, 1]',
  );
  if (o.maxFilesToRewrite !== undefined)
    check(o.maxFilesToRewrite > 0, k.maxFilesToRewrite, o.maxFilesToRewrite, '> 0');
}
