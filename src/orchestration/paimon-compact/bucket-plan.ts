/**
 * What a Paimon compaction does to each bucket (compact-paimon.ts): for primary-key tables the universal
 * picker (or a full compaction) chooses a unit and MergeTreeCompactTask's rules turn it into upgrades and
 * merges; for append tables the bin-packing rules choose the files to concatenate. Buckets of partitions
 * `--where` does not select are reported and left alone.
 */
import { FloeError } from '../../../util/errors.js';
import type { ProgressEvent } from '../../core/execution/events.js';
import type { DecisionStep } from '../../core/planning/plan.js';
import {
  decide,
  optionsFromProperties,
  pickFull,
  type Run,
  type UniversalOptions,
} from '../../core/planning/universal/index.js';
import { changelogProducerOf } from '../../../connectors/paimon/compact-changelog.js';
import { pickAppendFiles } from '../../../connectors/paimon/compact-append.js';
import { deletionVectorsEnabled } from '../../../connectors/paimon/compact-dv.js';
import { describeSteps, planSteps, type CompactStep } from '../../../connectors/paimon/compact-pk.js';
import { mergeEngineOf, sequenceFields } from '../../../connectors/paimon/merge-engines.js';
import { partitionPath, POSTPONE_BUCKET } from '../../../connectors/paimon/paths.js';
import {
  decodeKeys,
  groupByBucket,
  partitionFields,
  sortedRuns,
  trimmedPrimaryKeyFields,
  type BucketFiles,
  type PaimonFile,
  type PaimonTable,
} from '../../../connectors/paimon/table.js';
import type { PaimonType } from '../../../connectors/paimon/types.js';
import type { PaimonBucketReport } from '../compact-paimon.js';

/** One bucket: its report, its files, and what to rewrite (merge steps, or append files to concatenate). */
export interface BucketWork {
  report: PaimonBucketReport;
  files: PaimonFile[];
  partitionDir: string;
  partitionBytes: Uint8Array;
  totalBuckets: number;
  steps?: CompactStep[];
  appendFiles?: PaimonFile[];
}

/** What else the compaction must produce or maintain besides the merged files. */
export interface CompactionModes {
  pk: boolean;
  /** [dv] deletion-vector tables: lookup compaction, DVs rewritten per bucket into new index files. */
  deletionVectors: boolean;
  /** [changelog] full-compaction producer: Java's rewriter compares with options.numLevels() - 1 (not raised). */
  fullChangelog?: { maxLevel: number };
  /** [changelog] lookup producer. */
  lookupChangelog: boolean;
}

/** Everything planning a bucket needs, derived once from the table (options already layered) and the run. */
export interface BucketPlanContext {
  table: PaimonTable;
  modes: CompactionModes;
  full: boolean;
  where: string | undefined;
  nowMs: number;
  targetFileSize: number;
  selected: (partition: unknown[]) => boolean;
  labelOf: (partition: unknown[]) => string;
  universal: UniversalOptions;
  smallFileRatio: number;
  keyTypes: PaimonType[];
  dedupeNoSequence: boolean;
}

export function bucketPlanContext(
  table: PaimonTable,
  run: Pick<BucketPlanContext, 'full' | 'where' | 'nowMs' | 'targetFileSize' | 'selected' | 'labelOf'>,
): BucketPlanContext {
  const options = table.schema.options;
  const pk = table.schema.primaryKeys.length > 0;
  // floe is the dedicated compactor: write-only only silences the writers.
  const universal: UniversalOptions = { ...optionsFromProperties(options), writeOnly: false };
  const smallFileRatio = Number(options['compaction.small-file-ratio'] ?? '0.7');
  const keyTypes = pk ? trimmedPrimaryKeyFields(table.schema).map((f) => f.type) : [];
  const deletionVectors = pk && deletionVectorsEnabled(options);
  const dedupeNoSequence = mergeEngineOf(options) === 'deduplicate' && !sequenceFields(options).length;
  const fullChangelog =
    pk && changelogProducerOf(options) === 'full-compaction'
      ? { maxLevel: configuredLevels(universal) - 1 }
      : undefined;
  const lookupChangelog = pk && changelogProducerOf(options) === 'lookup';
  const modes: CompactionModes = { pk, deletionVectors, lookupChangelog, ...(fullChangelog ? { fullChangelog } : {}) };
  return { ...run, table, modes, universal, smallFileRatio, keyTypes, dedupeNoSequence };
}

/** `num-levels`, or Paimon's default of num-sorted-run.compaction-trigger + 1. */
function configuredLevels(u: UniversalOptions): number {
  return u.numLevels ?? (u.numRunCompactionTrigger ?? 5) + 1;
}

/** Every bucket of the table, planned; refuses files in bucket-postpone. */
export function planBuckets(ctx: BucketPlanContext): BucketWork[] {
  const { table } = ctx;
  const pTypes = partitionFields(table.schema).map((f) => f.type);
  const work: BucketWork[] = [];
  for (const g of groupByBucket(table.files)) {
    if (g.bucket === POSTPONE_BUCKET) {
      throw new FloeError(
        'Unsupported',
        `cannot compact Paimon table ${table.location}: it has files in bucket-postpone`,
        { context: { table: table.location } },
      );
    }
    const base = {
      partitionDir: partitionPath(table.schema.partitionKeys, pTypes, g.partition, table.schema.options),
      partitionBytes: g.partitionBytes,
      totalBuckets: g.files[0]!.totalBuckets,
      files: g.files,
    };
    const plan = !ctx.selected(g.partition)
      ? notSelected(ctx, g)
      : ctx.modes.pk
        ? planPrimaryKeyBucket(ctx, g)
        : planAppendBucket(ctx, g);
    work.push({ ...base, ...plan });
  }
  return work;
}

/** The id of a bucket's task in progress events and `report.tasks`. */
export function bucketTaskId(w: BucketWork): string {
  return `bucket-${w.report.bucket}${w.partitionDir ? `@${w.partitionDir}` : ''}`;
}

/** The files a bucket's rewrite reads (upgraded files included). */
export function bucketInputs(w: BucketWork): PaimonFile[] {
  return w.appendFiles ?? w.steps!.flatMap((s) => (s.kind === 'upgrade' ? [s.file] : s.sections.flat(2)));
}

export const bytesOf = (files: readonly PaimonFile[]) => files.reduce((n, f) => n + Number(f.meta.fileSize), 0);

/** The `plan` progress event: how many tasks, and the files and bytes they read. */
export function planEvent(todo: readonly BucketWork[]): ProgressEvent {
  return {
    type: 'plan',
    tasks: todo.length,
    inputFiles: todo.reduce((n, w) => n + bucketInputs(w).length, 0),
    inputBytes: todo.reduce((n, w) => n + bytesOf(bucketInputs(w)), 0),
  };
}

type BucketPlan = Pick<BucketWork, 'report' | 'steps' | 'appendFiles'>;

function notSelected(ctx: BucketPlanContext, g: BucketFiles): BucketPlan {
  const names = g.files.map((f) => f.meta.fileName);
  return {
    report: {
      partition: g.partition,
      partitionLabel: ctx.labelOf(g.partition),
      bucket: g.bucket,
      runs: [],
      compact: false,
      steps: [],
      filesBefore: names,
      filesAfter: names,
      decision: [{ gate: 'where', detail: `partition not selected by ${JSON.stringify(ctx.where)}`, outcome: 'skip' }],
    },
  };
}

function planPrimaryKeyBucket(ctx: BucketPlanContext, g: BucketFiles): BucketPlan {
  const runs: Run<PaimonFile>[] = sortedRuns(g.files, (f) => decodeKeys(ctx.table, f.meta)?.min, ctx.keyTypes).map(
    (r) => ({ level: r.level, size: bytesOf(r.files), files: r.files }),
  );
  const report: PaimonBucketReport = {
    partition: g.partition,
    partitionLabel: ctx.labelOf(g.partition),
    bucket: g.bucket,
    runs: runs.map((r) => ({ level: r.level, files: r.files!.length, bytes: r.size })),
    decision: [],
    compact: false,
    steps: [],
    filesBefore: g.files.map((f) => f.meta.fileName),
    filesAfter: g.files.map((f) => f.meta.fileName),
  };
  const { trail, unit } = pickUnit(ctx, runs, g.files);
  report.decision = trail;
  if (!unit) return { report };
  const steps = unitSteps(ctx, unit);
  report.outputLevel = unit.outputLevel;
  report.dropDelete = unit.dropDelete;
  report.steps = describeSteps(steps);
  if (!steps.length) return { report };
  report.compact = true;
  return { report, steps };
}

interface CompactUnit {
  outputLevel: number;
  files: PaimonFile[];
  dropDelete: boolean;
  maxLevel: number;
  /** Full compaction of a single run at the max level: these files are rewritten in place. */
  rewriteOnly?: PaimonFile[] | null;
}

/** The unit to compact: a full compaction's, or the universal picker's (seeded with the last full one). */
function pickUnit(
  ctx: BucketPlanContext,
  runs: Run<PaimonFile>[],
  files: readonly PaimonFile[],
): { trail: DecisionStep[]; unit: CompactUnit | null } {
  const u = ctx.universal;
  const raised = Math.max(configuredLevels(u), ...runs.map((r) => r.level + 1));
  const filesOf = (rs: readonly Run<PaimonFile>[]) => rs.flatMap((r) => [...(r.files ?? [])]);
  if (ctx.full) {
    const dvFile = ctx.modes.deletionVectors ? (f: PaimonFile) => !!f.dv : undefined; // [dv] DV files rewritten
    const p = pickFull(raised, runs, u, dvFile);
    if (!p) return { trail: [{ gate: 'full', detail: 'nothing to compact', outcome: 'skip' }], unit: null };
    const unit = { outputLevel: p.outputLevel, files: filesOf(p.runs), dropDelete: p.dropDelete, maxLevel: raised - 1 };
    return { trail: p.trail, unit: { ...unit, rewriteOnly: p.rewriteFiles } };
  }
  const d = decide(configuredLevels(u), runs, u, ctx.nowMs, {
    lastFullCompactionMs: lastFullCompactionSeed(files, raised - 1),
  });
  if (!d.pick) return { trail: d.trail, unit: null };
  const unit = {
    outputLevel: d.pick.outputLevel,
    files: filesOf(d.pick.runs),
    dropDelete: d.pick.dropDelete,
    maxLevel: d.numLevels - 1,
  };
  return { trail: d.trail, unit };
}

/** The upgrades and merges a unit turns into (MergeTreeCompactTask). */
function unitSteps(ctx: BucketPlanContext, unit: CompactUnit): CompactStep[] {
  if (unit.rewriteOnly)
    return unit.rewriteOnly.map((f) => ({
      kind: 'rewrite' as const,
      sections: [[[f]]],
      reason: 'full compaction rewrites files in place',
    }));
  const { deletionVectors, lookupChangelog } = ctx.modes;
  return planSteps(ctx.table, unit.files, {
    outputLevel: unit.outputLevel,
    maxLevel: unit.maxLevel,
    minFileSize: ctx.targetFileSize * ctx.smallFileRatio,
    forceRewriteAllFiles: ctx.universal.forceRewriteAllFiles ?? false,
    ...(deletionVectors || lookupChangelog // [dv]
      ? { lookup: { deletionVectors, dedupeNoSequence: ctx.dedupeNoSequence } }
      : {}),
  });
}

/** Newest creation time among max-level files, converted from Paimon's local-as-UTC stamp (epoch ms). */
function lastFullCompactionSeed(files: readonly PaimonFile[], maxLevel: number): number | null {
  let newest = -1;
  for (const f of files) {
    const t = f.meta.creationTime;
    if (f.meta.level === maxLevel && t !== undefined)
      newest = Math.max(newest, t + new Date(t).getTimezoneOffset() * 60_000);
  }
  return newest < 0 ? null : newest;
}

function planAppendBucket(ctx: BucketPlanContext, g: BucketFiles): BucketPlan {
  const p = pickAppendFiles(g.files, ctx.table.schema.options, { full: ctx.full, targetFileSize: ctx.targetFileSize });
  const report: PaimonBucketReport = {
    partition: g.partition,
    partitionLabel: ctx.labelOf(g.partition),
    bucket: g.bucket,
    runs: [{ level: 0, files: g.files.length, bytes: bytesOf(g.files) }],
    decision: p.trail,
    compact: p.files.length > 0,
    outputLevel: 0,
    steps: p.files.length
      ? [{ gate: 'rewrite', detail: `${p.files.length} file(s) concatenated in sequence order`, outcome: 'pick' }]
      : [],
    filesBefore: g.files.map((f) => f.meta.fileName),
    filesAfter: g.files.map((f) => f.meta.fileName),
  };
  return p.files.length ? { report, appendFiles: p.files } : { report };
}
