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
 * Health score (0–100, higher is healthier), modelled on Amoro's getHealthScore. Per partition:
 *   smallFiles = 40 × min(1, averageDataFileSize / M)
 *   eqDeletes  = 40 × (1 − min(1, equalityDeleteRecords / dataRecords / duplicateRatio))
 *   posDeletes = 20 × (1 − min(1, positionDeleteRecords / dataRecords / (2 × duplicateRatio)))
 *   raw        = smallFiles + eqDeletes + posDeletes
 * The shortfall is scaled down for partitions too small to be worth compacting:
 *   factor     = min(1, dataFileCount / 12) × min(1, dataBytes / M)
 *   score      = 100 − factor × (100 − raw)
 * A partition with delete files but no data records scores its delete parts 0. Position-delete records
 * include deletion-vector cardinalities. The table score is the mean over partitions (100 for an empty table),
 * rounded to one decimal.
 */
import type { DataFile, DeleteFile, TableModel } from './model/index.js';
import { partitionKey } from './model/index.js';

export const MiB = 1024 * 1024;

export interface SizePolicy {
  targetSize: number;
  fragmentRatio: number;
  minTargetSizeRatio: number;
  duplicateRatio: number;
}

export const DEFAULT_SIZE_POLICY: SizePolicy = {
  targetSize: 128 * MiB,
  fragmentRatio: 8,
  minTargetSizeRatio: 0.75,
  duplicateRatio: 0.1,
};

function numberProp(props: Record<string, string>, key: string, fallback: number): number {
  const v = props[key];
  if (v === undefined) return fallback;
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Reads Amoro's self-optimizing.* properties (present on Amoro-managed Iceberg and Paimon tables). */
export function sizePolicyFromProperties(props: Record<string, string>, overrides: Partial<SizePolicy> = {}): SizePolicy {
  return {
    targetSize: overrides.targetSize ?? numberProp(props, 'self-optimizing.target-size', DEFAULT_SIZE_POLICY.targetSize),
    fragmentRatio: overrides.fragmentRatio ?? numberProp(props, 'self-optimizing.fragment-ratio', DEFAULT_SIZE_POLICY.fragmentRatio),
    minTargetSizeRatio:
      overrides.minTargetSizeRatio ?? numberProp(props, 'self-optimizing.min-target-size-ratio', DEFAULT_SIZE_POLICY.minTargetSizeRatio),
    duplicateRatio:
      overrides.duplicateRatio ?? numberProp(props, 'self-optimizing.major.trigger.duplicate-ratio', DEFAULT_SIZE_POLICY.duplicateRatio),
  };
}

export type SizeClass = 'fragment' | 'undersized' | 'target';

export function thresholds(p: SizePolicy): { fragmentMax: number; undersizedMax: number } {
  return { fragmentMax: Math.floor(p.targetSize / p.fragmentRatio), undersizedMax: Math.floor(p.targetSize * p.minTargetSizeRatio) };
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

export interface PartitionHealth {
  specId: number;
  partition: unknown[];
  data: Record<SizeClass, CountBytes>;
  dataFiles: number;
  dataBytes: number;
  dataRecords: number;
  deletes: DeleteSummary;
  score: number;
}

export interface HealthReport {
  policy: SizePolicy;
  thresholds: { fragmentMax: number; undersizedMax: number };
  data: Record<SizeClass, CountBytes>;
  deletes: DeleteSummary;
  partitions: PartitionHealth[];
  score: number;
}

const zero = (): CountBytes => ({ files: 0, bytes: 0, records: 0 });
const zeroClasses = (): Record<SizeClass, CountBytes> => ({ fragment: zero(), undersized: zero(), target: zero() });
const zeroDeletes = (): DeleteSummary => ({ position: zero(), equality: zero(), deletionVector: zero() });

function add(c: CountBytes, bytes: number, records: number): void {
  c.files += 1;
  c.bytes += bytes;
  c.records += records;
}

function deleteBucket(s: DeleteSummary, d: DeleteFile): CountBytes {
  return d.content === 'equality-deletes' ? s.equality : d.content === 'deletion-vector' ? s.deletionVector : s.position;
}

export function partitionScore(ph: Omit<PartitionHealth, 'score'>, p: SizePolicy): number {
  const { undersizedMax } = thresholds(p);
  const avg = ph.dataFiles > 0 ? ph.dataBytes / ph.dataFiles : 0;
  const small = 40 * Math.min(1, undersizedMax > 0 ? avg / undersizedMax : 1);
  const eqRecords = ph.deletes.equality.records;
  const posRecords = ph.deletes.position.records + ph.deletes.deletionVector.records;
  const ratioScore = (records: number, limit: number, weight: number): number => {
    if (records === 0) return weight;
    if (ph.dataRecords === 0) return 0;
    return weight * (1 - Math.min(1, records / ph.dataRecords / limit));
  };
  const raw = small + ratioScore(eqRecords, p.duplicateRatio, 40) + ratioScore(posRecords, 2 * p.duplicateRatio, 20);
  const factor = Math.min(1, ph.dataFiles / 12) * Math.min(1, undersizedMax > 0 ? ph.dataBytes / undersizedMax : 1);
  // A partition holding only deletes (no data) is all shortfall.
  const f = ph.dataFiles === 0 && (eqRecords > 0 || posRecords > 0) ? 1 : factor;
  return 100 - f * (100 - raw);
}

/** Health of the live files in `model` (its dataFiles/deleteFiles). */
export function tableHealth(model: Pick<TableModel, 'dataFiles' | 'deleteFiles'>, policy: SizePolicy = DEFAULT_SIZE_POLICY): HealthReport {
  const parts = new Map<string, Omit<PartitionHealth, 'score'>>();
  const part = (f: DataFile | DeleteFile): Omit<PartitionHealth, 'score'> => {
    const k = partitionKey(f.specId, f.partition);
    let ph = parts.get(k);
    if (!ph) {
      ph = { specId: f.specId, partition: f.partition, data: zeroClasses(), dataFiles: 0, dataBytes: 0, dataRecords: 0, deletes: zeroDeletes() };
      parts.set(k, ph);
    }
    return ph;
  };
  const data = zeroClasses();
  const deletes = zeroDeletes();
  for (const f of model.dataFiles) {
    const c = classifySize(f.sizeBytes, policy);
    add(data[c], f.sizeBytes, f.recordCount);
    const ph = part(f);
    add(ph.data[c], f.sizeBytes, f.recordCount);
    ph.dataFiles += 1;
    ph.dataBytes += f.sizeBytes;
    ph.dataRecords += f.recordCount;
  }
  // DVs share one Puffin file; count the blob bytes, not the Puffin file once per DV.
  for (const d of model.deleteFiles) {
    const bytes = d.content === 'deletion-vector' ? d.contentSizeBytes : d.sizeBytes;
    add(deleteBucket(deletes, d), bytes, d.recordCount);
    add(deleteBucket(part(d).deletes, d), bytes, d.recordCount);
  }
  const partitions = [...parts.values()].map((ph) => ({ ...ph, score: round1(partitionScore(ph, policy)) }));
  const score = partitions.length === 0 ? 100 : round1(partitions.reduce((s, p) => s + p.score, 0) / partitions.length);
  return { policy, thresholds: thresholds(policy), data, deletes, partitions, score };
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
