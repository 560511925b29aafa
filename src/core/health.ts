/**
 * File size classes and a table health score, format-neutral (Iceberg and Paimon models both feed it).
 *
 * Size classes use Amoro's names and thresholds (CommonPartitionEvaluator): with T = target size,
 * F = floor(T / fragment-ratio) and M = floor(T × min-target-size-ratio):
 *   fragment    size ≤ F
 *   undersized  F < size ≤ M        (Amoro: "undersized segment")
 *   target      size > M            (Amoro: "target-size-reached segment")
 * Defaults: T = `self-optimizing.target-size` or 128 MiB, fragment-ratio 8, min-target-size-ratio 0.75
 * (so F = 16 MiB, M = 96 MiB), duplicate ratio (`self-optimizing.major.trigger.duplicate-ratio`) 0.1.
 *
 * Health score (0–100, higher is healthier): how much of the work of a full scan is useful, judged the way a
 * query engine pays for a table's layout. A scan's cost is counted in bytes read, with every file open
 * charged `open-cost` bytes (4 MiB, Spark's `spark.sql.files.openCostInBytes`; a seek and a footer read on
 * object storage cost about as much as reading a few MiB):
 *   actual = data bytes + data files × open                         (small files)
 *          + Σ over data files of Σ over the delete files applying to it (open + delete bytes)
 *                                                                   (merge-on-read: each task reads the
 *                                                                    deletes of its file again)
 *          + delete files applying to no data file × open           (still planned and listed)
 *          + manifests × open + manifest bytes                      (metadata, table level; manifests whose
 *                                                                    counts say they hold no live file are
 *                                                                    skipped unopened, as engines do)
 *   ideal  = the same scan after compaction: live bytes (data bytes × (1 − deleted share)) in
 *            ⌈live bytes / target⌉ files per partition (per bucket for Paimon, whose buckets never
 *            merge), no delete files, manifests of
 *            `commit.manifest.target-size-bytes` (8 MiB) holding the ideal number of entries
 *   score  = 100 × ideal / actual (at most 100), per partition without the manifest terms, and for the table
 *            over the sums (a partition whose files are already larger than the target counts as ideal).
 * The deleted share is (position-delete + DV records) / data records, at most 1: those records each name a
 * deleted row. Equality-delete records do not: a key may match no row, one, or (after an upsert) the older
 * copy of a row whose newer copy is live, so counting them as deleted rows made a Flink upsert table score 0
 * while it had live rows. An equality delete's cost is the merge a reader pays — the delete-file reads above —
 * and the rows it removes are not subtracted from the ideal (so the ideal may be a little high, never 0).
 * Delete files are associated with data files by Iceberg's rules (deletes.ts). So 120 fragments of 3 KiB with
 * 30 equality deletes score about 0, and one 128 MiB file per partition without deletes scores 100.
 * `explainHealth` prints the terms.
 */
import type { DataFile, DeleteFile, PartitionSpec, TableModel } from '../../model/index.js';
import { partitionKey } from '../../model/index.js';
import { buildDeleteIndex } from './planning/deletes.js';
import { formatBytes } from '../../util/units.js';

export const MiB = 1024 * 1024;

export interface SizePolicy {
  targetSize: number;
  fragmentRatio: number;
  minTargetSizeRatio: number;
  duplicateRatio: number;
  /** Bytes a file open costs a scan (`floe.health.open-cost-bytes`, default 4 MiB). */
  openCost: number;
  /** Ideal manifest size (`commit.manifest.target-size-bytes`, default 8 MiB). */
  manifestTargetSize: number;
}

export const DEFAULT_SIZE_POLICY: SizePolicy = {
  targetSize: 128 * MiB,
  fragmentRatio: 8,
  minTargetSizeRatio: 0.75,
  duplicateRatio: 0.1,
  openCost: 4 * MiB,
  manifestTargetSize: 8 * MiB,
};

function numberProp(props: Record<string, string>, key: string, fallback: number): number {
  const v = props[key];
  if (v === undefined) return fallback;
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Reads Amoro's self-optimizing.* properties (present on Amoro-managed Iceberg and Paimon tables). */
export function sizePolicyFromProperties(
  props: Record<string, string>,
  overrides: Partial<SizePolicy> = {},
): SizePolicy {
  return {
    targetSize:
      overrides.targetSize ?? numberProp(props, 'self-optimizing.target-size', DEFAULT_SIZE_POLICY.targetSize),
    fragmentRatio:
      overrides.fragmentRatio ?? numberProp(props, 'self-optimizing.fragment-ratio', DEFAULT_SIZE_POLICY.fragmentRatio),
    minTargetSizeRatio:
      overrides.minTargetSizeRatio ??
      numberProp(props, 'self-optimizing.min-target-size-ratio', DEFAULT_SIZE_POLICY.minTargetSizeRatio),
    duplicateRatio:
      overrides.duplicateRatio ??
      numberProp(props, 'self-optimizing.major.trigger.duplicate-ratio', DEFAULT_SIZE_POLICY.duplicateRatio),
    openCost: overrides.openCost ?? numberProp(props, 'floe.health.open-cost-bytes', DEFAULT_SIZE_POLICY.openCost),
    manifestTargetSize:
      overrides.manifestTargetSize ??
      numberProp(props, 'commit.manifest.target-size-bytes', DEFAULT_SIZE_POLICY.manifestTargetSize),
  };
}

export type SizeClass = 'fragment' | 'undersized' | 'target';

export function thresholds(p: SizePolicy): { fragmentMax: number; undersizedMax: number } {
  return {
    fragmentMax: Math.floor(p.targetSize / p.fragmentRatio),
    undersizedMax: Math.floor(p.targetSize * p.minTargetSizeRatio),
  };
}

export function classifySize(sizeBytes: number, p: SizePolicy): SizeClass {
  const t = thresholds(p);
  if (sizeBytes <= t.fragmentMax) return 'fragment';
  if (sizeBytes <= t.undersizedMax) return 'undersized';
  return 'target';
}

export interface CountBytes {
  files: number;
  bytes: number;
  records: number;
}

export interface DeleteSummary {
  position: CountBytes;
  equality: CountBytes;
  deletionVector: CountBytes;
}

/** The terms of the scan-cost model, in bytes (see the header). */
export interface ScanCost {
  dataBytes: number;
  dataFiles: number;
  /** data files × open cost */
  fileOpens: number;
  /** (data file, delete file) pairs a scan applies */
  deleteReads: number;
  /** Σ over those pairs of (open cost + delete file bytes) */
  deleteReadBytes: number;
  /** delete files that apply to no live data file */
  unusedDeleteFiles: number;
  /** estimated share of data rows that are deleted (0–1) */
  deletedShare: number;
  manifests: number;
  manifestBytes: number;
  actual: number;
  /** files after compaction (per partition: ⌈live bytes / target⌉) */
  idealFiles: number;
  idealManifests: number;
  ideal: number;
}

export interface PartitionHealth {
  specId: number;
  partition: unknown[];
  data: Record<SizeClass, CountBytes>;
  dataFiles: number;
  dataBytes: number;
  dataRecords: number;
  deletes: DeleteSummary;
  cost: ScanCost;
  score: number;
}

export interface HealthReport {
  policy: SizePolicy;
  thresholds: { fragmentMax: number; undersizedMax: number };
  data: Record<SizeClass, CountBytes>;
  deletes: DeleteSummary;
  partitions: PartitionHealth[];
  /** Table-wide terms (sums over partitions plus the manifests). */
  cost: ScanCost;
  score: number;
}

const zero = (): CountBytes => ({ files: 0, bytes: 0, records: 0 });
const zeroClasses = (): Record<SizeClass, CountBytes> => ({ fragment: zero(), undersized: zero(), target: zero() });
const zeroDeletes = (): DeleteSummary => ({ position: zero(), equality: zero(), deletionVector: zero() });
const zeroCost = (): ScanCost => ({
  dataBytes: 0,
  dataFiles: 0,
  fileOpens: 0,
  deleteReads: 0,
  deleteReadBytes: 0,
  unusedDeleteFiles: 0,
  deletedShare: 0,
  manifests: 0,
  manifestBytes: 0,
  actual: 0,
  idealFiles: 0,
  idealManifests: 0,
  ideal: 0,
});

function add(c: CountBytes, bytes: number, records: number): void {
  c.files += 1;
  c.bytes += bytes;
  c.records += records;
}

function deleteBucket(s: DeleteSummary, d: DeleteFile): CountBytes {
  return d.content === 'equality-deletes'
    ? s.equality
    : d.content === 'deletion-vector'
      ? s.deletionVector
      : s.position;
}

/** DVs share one Puffin file; a DV costs its blob, not the whole Puffin file. */
function deleteBytes(d: DeleteFile): number {
  return d.content === 'deletion-vector' ? d.contentSizeBytes : d.sizeBytes;
}

/** Rows known to be deleted: position deletes and DVs name rows; equality deletes name keys (see the header). */
const deletedRows = (s: DeleteSummary): number => s.position.records + s.deletionVector.records;

/** `buckets`: Paimon bucket → data bytes; a bucket's files cannot merge with another bucket's. */
type Work = Omit<PartitionHealth, 'score' | 'cost'> & { cost: ScanCost; buckets: Map<number, number> };

/** Finishes a partition's cost terms: its ideal layout, its actual scan cost, and the score. */
function settle(ph: Work, p: SizePolicy): void {
  const c = ph.cost;
  const deleted = deletedRows(ph.deletes);
  c.dataBytes = ph.dataBytes;
  c.dataFiles = ph.dataFiles;
  c.deletedShare = ph.dataRecords > 0 ? Math.min(1, deleted / ph.dataRecords) : deleted > 0 ? 1 : 0;
  c.fileOpens = ph.dataFiles * p.openCost;
  c.actual = ph.dataBytes + c.fileOpens + c.deleteReadBytes + c.unusedDeleteFiles * p.openCost;
  const live = ph.dataBytes * (1 - c.deletedShare);
  const filesFor = (bytes: number) => (bytes > 0 ? Math.ceil(bytes / p.targetSize) : 0);
  c.idealFiles = ph.buckets.size
    ? [...ph.buckets.values()].reduce((n, b) => n + filesFor(b * (1 - c.deletedShare)), 0)
    : filesFor(live);
  // files already above the target are not made worse by the model's rounding
  c.ideal = Math.min(c.actual, live + c.idealFiles * p.openCost);
}

const scoreOf = (c: ScanCost): number => (c.actual <= 0 ? 100 : round1((100 * c.ideal) / c.actual));

export interface HealthInput extends Pick<TableModel, 'dataFiles' | 'deleteFiles'> {
  /** Partition specs, to associate deletes by Iceberg's rules (global equality deletes); default: by partition. */
  specs?: readonly PartitionSpec[];
  /** The snapshot's manifests (Iceberg), for the metadata term. */
  manifests?: readonly { content: string; length: number; addedFilesCount?: number; existingFilesCount?: number }[];
}

type ManifestCounts = NonNullable<HealthInput['manifests']>[number];

/** Whether a manifest may hold a live file: engines skip one whose counts say it holds none, unopened. */
export function holdsLiveFiles(m: Pick<ManifestCounts, 'addedFilesCount' | 'existingFilesCount'>): boolean {
  return (
    m.addedFilesCount === undefined ||
    m.existingFilesCount === undefined ||
    m.addedFilesCount + m.existingFilesCount > 0
  );
}

/** Health of the live files in `model` (its dataFiles/deleteFiles, and manifests when given). */
export function tableHealth(model: HealthInput, policy: SizePolicy = DEFAULT_SIZE_POLICY): HealthReport {
  const parts = new Map<string, Work>();
  const part = (f: DataFile | DeleteFile): Work => {
    const k = partitionKey(f.specId, f.partition);
    let ph = parts.get(k);
    if (!ph) {
      ph = {
        specId: f.specId,
        partition: f.partition,
        data: zeroClasses(),
        dataFiles: 0,
        dataBytes: 0,
        dataRecords: 0,
        deletes: zeroDeletes(),
        cost: zeroCost(),
        buckets: new Map(),
      };
      parts.set(k, ph);
    }
    return ph;
  };
  const data = zeroClasses();
  const deletes = zeroDeletes();
  const index = buildDeleteIndex(model.specs ?? [], model.deleteFiles);
  const used = new Set<DeleteFile>();
  for (const f of model.dataFiles) {
    const c = classifySize(f.sizeBytes, policy);
    add(data[c], f.sizeBytes, f.recordCount);
    const ph = part(f);
    add(ph.data[c], f.sizeBytes, f.recordCount);
    ph.dataFiles += 1;
    ph.dataBytes += f.sizeBytes;
    ph.dataRecords += f.recordCount;
    if (f.lsm) ph.buckets.set(f.lsm.bucket, (ph.buckets.get(f.lsm.bucket) ?? 0) + f.sizeBytes);
    for (const d of index.forDataFile(f)) {
      used.add(d);
      ph.cost.deleteReads += 1;
      ph.cost.deleteReadBytes += policy.openCost + deleteBytes(d);
    }
  }
  for (const d of model.deleteFiles) {
    const bytes = deleteBytes(d);
    add(deleteBucket(deletes, d), bytes, d.recordCount);
    const ph = part(d);
    add(deleteBucket(ph.deletes, d), bytes, d.recordCount);
    if (!used.has(d)) ph.cost.unusedDeleteFiles += 1;
  }
  const partitions: PartitionHealth[] = [];
  const total = zeroCost();
  for (const ph of parts.values()) {
    settle(ph, policy);
    const { buckets: _buckets, ...rest } = ph;
    partitions.push({ ...rest, score: scoreOf(ph.cost) });
    for (const k of [
      'dataBytes',
      'dataFiles',
      'fileOpens',
      'deleteReads',
      'deleteReadBytes',
      'unusedDeleteFiles',
      'actual',
      'idealFiles',
      'ideal',
    ] as const) {
      total[k] += ph.cost[k];
    }
  }
  const records = partitions.reduce((n, p) => n + p.dataRecords, 0);
  const deleted = deletedRows(deletes);
  total.deletedShare = records > 0 ? Math.min(1, deleted / records) : deleted > 0 ? 1 : 0;
  // Metadata: every manifest is opened and read while planning; after compaction the live entries fit in
  // manifests of the target size, at today's bytes per entry.
  // Engines skip a manifest whose counts say it holds no added or existing file without opening it.
  const manifests = (model.manifests ?? []).filter(holdsLiveFiles);
  if (manifests.length) {
    total.manifests = manifests.length;
    total.manifestBytes = manifests.reduce((n, m) => n + m.length, 0);
    const entries = model.dataFiles.length + model.deleteFiles.length;
    const idealBytes = entries > 0 ? (total.manifestBytes / entries) * total.idealFiles : 0;
    total.idealManifests = total.idealFiles > 0 ? Math.max(1, Math.ceil(idealBytes / policy.manifestTargetSize)) : 0;
    const actual = total.manifests * policy.openCost + total.manifestBytes;
    total.actual += actual;
    total.ideal += Math.min(actual, total.idealManifests * policy.openCost + idealBytes);
  }
  return { policy, thresholds: thresholds(policy), data, deletes, partitions, cost: total, score: scoreOf(total) };
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

const fmt = (n: number): string => formatBytes(Math.round(n));

/** `inspect --explain`: the score's formula with this table's numbers. */
export function explainHealth(h: HealthReport): string[] {
  const c = h.cost;
  const p = h.policy;
  const row = (label: string, bytes: number) => `  ${label.padEnd(72)} ${fmt(bytes).padStart(11)}`;
  return [
    'health score = 100 × ideal scan cost / actual scan cost — bytes a full scan reads, each file open charged open-cost bytes',
    `  open-cost ${fmt(p.openCost)} (floe.health.open-cost-bytes), target ${fmt(p.targetSize)}, manifest target ${fmt(p.manifestTargetSize)}`,
    'actual scan cost',
    row('data bytes', c.dataBytes),
    row(`+ ${c.dataFiles} data file(s) × open-cost`, c.fileOpens),
    row(`+ ${c.deleteReads} delete-file reads × (open-cost + delete bytes)¹`, c.deleteReadBytes),
    row(
      `+ ${c.unusedDeleteFiles} delete file(s) applying to no data file × open-cost`,
      c.unusedDeleteFiles * p.openCost,
    ),
    row(
      `+ ${c.manifests} manifest(s) × open-cost + ${fmt(c.manifestBytes)} manifest bytes`,
      c.manifests * p.openCost + c.manifestBytes,
    ),
    row('= actual', c.actual),
    'ideal scan cost (after compaction)',
    `  live bytes = data bytes × (1 − ${(c.deletedShare * 100).toFixed(1)} % rows deleted by position/DV), in ⌈live bytes / target⌉ file(s) per partition = ${c.idealFiles},`,
    `  no delete files, ${c.idealManifests} manifest(s) at today's bytes per entry`,
    row('= ideal', c.ideal),
    `score = 100 × ${fmt(c.ideal)} / ${fmt(c.actual)} = ${h.score.toFixed(1)}  (a partition's score: the same without the manifest terms)`,
    '¹ every data file reads each delete file that applies to it (merge-on-read), so D delete files over F data files cost up to D × F reads',
  ];
}
