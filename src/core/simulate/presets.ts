/**
 * Built-in workloads, after the published Amoro-vs-Spark compaction study (a Flink streaming job writing
 * an Iceberg `orders` table while Spark `rewrite_data_files` and Amoro compact it), each with the
 * policies the study compared plus floe's own and a no-compaction baseline.
 *
 * Numbers the study does not give are chosen here and said so: row sizes, rows per upsert file, the
 * share of keys updated twice within a checkpoint.
 */
import { FloeError } from '../../../util/errors.js';
import { normalizePolicy } from './policy.js';
import { normalizeStream } from './stream.js';
import type { CommitStream, CommitStreamSpec, Policy, PolicySpec } from './types.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const TARGET = 128 * MiB;

export interface Preset {
  name: string;
  description: string;
  stream: CommitStream;
  policies: Policy[];
}

const NO_COMPACTION: PolicySpec = { name: 'none', description: 'no compaction (baseline)', planner: 'none' };

/** Spark `rewrite_data_files` bin-pack on a cron: every file under 75 % of target, groups of ≥ 1 file. */
function sparkBinpack(everyMinutes: number, extra: Record<string, string | number> = {}): PolicySpec {
  return {
    name: `spark-binpack-${everyMinutes}m`,
    description: `Spark rewrite_data_files (bin-pack, min-input-files 1) every ${everyMinutes} min`,
    planner: 'binpack',
    properties: { 'target-file-size-bytes': TARGET, 'min-input-files': 1, ...extra },
    schedule: { kind: 'periodic', everyMinutes },
  };
}

/**
 * Amoro as configured in the study: its defaults except a minor trigger of 40 files, and a table
 * evaluated every 5 minutes when it has new snapshots (Amoro only evaluates a changed table).
 */
const AMORO_STUDY: PolicySpec = {
  name: 'amoro-trigger40-5m',
  description: 'Amoro defaults, minor trigger 40 files, evaluated every 5 min when changed',
  planner: 'tiered',
  // Amoro merges every fragment each time and converts equality deletes at every minor optimize, one
  // segment per task: floe's size-tiered merge and batched conversion are switched off to model it
  properties: {
    'self-optimizing.target-size': TARGET,
    'self-optimizing.minor.trigger.file-count': 40,
    'self-optimizing.minor.fragment-size-ratio': -1,
    'self-optimizing.minor.eq-to-pos.delete-ratio': -1,
  },
  schedule: { kind: 'on-change', everyMinutes: 5 },
};

/**
 * floe's defaults for streaming tables:
 * - Amoro's classification and trigger values (fragment ≤ target/8, minor at 12 fragments + equality
 *   deletes, 1 h minor interval): 12 bounds the small files a reader opens per partition to about a
 *   dozen while a fragment is re-merged only a handful of times before it grows past the fragment size
 *   — a lower trigger merges the same bytes more often, a higher one lets readers pay for more files;
 * - evaluated every minute: evaluation reads only metadata, so checking at the writers' commit cadence
 *   costs little and caps how long fragments and equality deletes pile up at one commit interval;
 * - periodic, not only-when-changed: time-based triggers (minor interval, full interval) then fire on
 *   a table that stopped receiving writes, which Amoro's snapshot-driven evaluation never does;
 * - equality→position conversion batched by the delete-to-data ratio (default 1.25) and the minor
 *   interval, packed by key-column bytes: evaluating every minute no longer means converting every minute.
 */
const FLOE_TIERED: PolicySpec = {
  name: 'floe-tiered',
  description:
    'floe tiered (minor trigger 12, size-tiered fragment merge, batched eq→pos conversion, checked every minute)',
  planner: 'tiered',
  // size tiers: a grown fragment is re-merged only once as many bytes of smaller fragments have gathered
  // (Paimon's size-ratio rule, ratio 1%), which keeps write amplification logarithmic instead of quadratic
  properties: {
    'self-optimizing.target-size': TARGET,
    'self-optimizing.minor.trigger.file-count': 12,
    'self-optimizing.minor.fragment-size-ratio': 1,
  },
  schedule: { kind: 'periodic', everyMinutes: 1 },
};

/**
 * floe with eager conversion (delete ratio 1: a 128 MiB segment converts at ~32 pending equality-delete
 * files instead of ~40): the other side of the trade-off — fewer delete files per data file for readers,
 * more key-column reads.
 */
const FLOE_TIERED_EAGER: PolicySpec = {
  ...FLOE_TIERED,
  name: 'floe-tiered-ratio-1',
  description: 'floe tiered with eager equality→position conversion (delete ratio 1)',
  properties: { ...FLOE_TIERED.properties, 'self-optimizing.minor.eq-to-pos.delete-ratio': 1 },
};

/** 8 Flink writers, each committing one 6 KB file a minute, for an hour. */
export function appendStreamSpec(): CommitStreamSpec {
  const writers = 8;
  return {
    name: 'append-1h',
    description: '8 writers each commit one 6 KB file a minute (staggered) for 60 minutes; target 128 MiB',
    durationMinutes: 60,
    // Writers commit 7.5 s apart, as independent checkpoints would, so the table changes 8× a minute.
    tickMs: 60_000 / writers,
    commits: Array.from({ length: writers }, (_, w) => ({
      atMs: (w * 60_000) / writers,
      writer: `writer-${w}`,
      // ~100 bytes per compressed order row.
      data: [{ sizeBytes: 6 * KiB, records: 60 }],
      repeat: { everyMinutes: 1, times: 60 },
    })),
  };
}

/**
 * A 230 GiB, 500 M-row table in 128 MiB files, upserted by one Flink job (parallelism 8) that commits
 * once a minute: 8 insert files, 8 equality-delete files and 8 position-delete files per commit.
 * Chosen here: 2,000 upserted rows per writer per minute (so ~1 MB insert files at the base table's
 * ~494 bytes/row), every upsert replacing one existing row (eq-deletes spread over all older files),
 * and 1 % of the rows updated twice within the checkpoint (the position deletes).
 */
export function upsertStreamSpec(): CommitStreamSpec {
  const baseFiles = 1840; // 230 GiB / 128 MiB
  const baseRows = 500_000_000;
  const rowsPerBaseFile = Math.floor(baseRows / baseFiles);
  const bytesPerRow = TARGET / rowsPerBaseFile;
  const upsertsPerFile = 2000;
  const twice = upsertsPerFile / 100;
  return {
    name: 'upsert-1h',
    description:
      '230 GiB / 500 M-row base table in 128 MiB files; one commit a minute of 8 insert + 8 equality-delete + 8 position-delete files for 60 minutes',
    durationMinutes: 60,
    base: [{ sizeBytes: TARGET, records: rowsPerBaseFile, count: baseFiles }],
    commits: [
      {
        atMinute: 0,
        writer: 'flink-upsert',
        data: [{ sizeBytes: Math.round(upsertsPerFile * bytesPerRow), records: upsertsPerFile, count: 8 }],
        // One 8-byte key per row plus file overhead.
        equalityDeletes: [
          { sizeBytes: upsertsPerFile * 8 + 4 * KiB, records: upsertsPerFile, deletesRows: upsertsPerFile, count: 8 },
        ],
        positionDeletes: [{ target: 0, count: 8, records: twice, sizeBytes: twice * 8 + KiB }],
        repeat: { everyMinutes: 1, times: 60 },
      },
    ],
  };
}

function build(name: string, spec: CommitStreamSpec, policies: PolicySpec[]): Preset {
  return {
    name,
    description: spec.description ?? '',
    stream: normalizeStream(spec, `preset ${name}`),
    policies: policies.map((p) => normalizePolicy(p, `preset ${name}`)),
  };
}

const PRESETS: Record<string, () => Preset> = {
  'append-1h': () =>
    build('append-1h', appendStreamSpec(), [
      NO_COMPACTION,
      sparkBinpack(1),
      sparkBinpack(10),
      sparkBinpack(60),
      AMORO_STUDY,
      FLOE_TIERED,
    ]),
  'upsert-1h': () =>
    build('upsert-1h', upsertStreamSpec(), [
      NO_COMPACTION,
      sparkBinpack(5, { 'delete-file-threshold': 10 }),
      sparkBinpack(10, { 'delete-file-threshold': 10 }),
      AMORO_STUDY,
      FLOE_TIERED,
      FLOE_TIERED_EAGER,
    ]),
};

/** Policies compared on a user's stream when no --policy is given: the baseline, Spark and floe. */
export function defaultPoliciesForStream(): Policy[] {
  return [NO_COMPACTION, sparkBinpack(10), AMORO_STUDY, FLOE_TIERED].map((p) => normalizePolicy(p, 'built-in'));
}

export function presetNames(): string[] {
  return Object.keys(PRESETS);
}

export function isPreset(name: string): boolean {
  return Object.hasOwn(PRESETS, name);
}

export function getPreset(name: string): Preset {
  const make = PRESETS[name];
  if (!make)
    throw new FloeError('InvalidArgument', `unknown simulation preset "${name}" (known: ${presetNames().join(', ')})`);
  return make();
}
