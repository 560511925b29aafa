/**
 * What the API and dashboard show about one table, read from the table itself (the same readers as
 * `floe inspect`): snapshots, a file-size histogram per partition, delete files, the health score
 * (src/core/health.ts), and the plan a compaction would make now (a dry run through `runMaintenanceJob`).
 */
import type { PartitionTuple, TableModel } from '../../../model/index.js';
import { partitionLabeler } from '../../core/planning/partition-label.js';
import { partitionKey } from '../../../model/table.js';
import { sizePolicyFromProperties, tableHealth, thresholds } from '../../core/health.js';
import type { TableConfig } from './config.js';
import type { PlanSummary } from '../../orchestration/job-types.js';
import type { TableGauges } from './metrics.js';

/** Upper bounds of the file-size histogram's buckets (the last bucket is open). */
export const SIZE_BUCKETS: { label: string; short: string; maxBytes: number }[] = [
  { label: '< 64 KiB', short: '<64K', maxBytes: 64 * 1024 },
  { label: '< 1 MiB', short: '<1M', maxBytes: 1024 * 1024 },
  { label: '< 8 MiB', short: '<8M', maxBytes: 8 * 1024 * 1024 },
  { label: '< 32 MiB', short: '<32M', maxBytes: 32 * 1024 * 1024 },
  { label: '< 128 MiB', short: '<128M', maxBytes: 128 * 1024 * 1024 },
  { label: '< 512 MiB', short: '<512M', maxBytes: 512 * 1024 * 1024 },
  { label: '≥ 512 MiB', short: '≥512M', maxBytes: Number.POSITIVE_INFINITY },
];

export interface PartitionDetail {
  partition: string;
  dataFiles: number;
  dataBytes: number;
  deleteFiles: number;
  score: number;
  /** File counts per SIZE_BUCKETS entry. */
  histogram: number[];
}

export interface TableHealthSummary {
  /** The table's location from its metadata (a catalog table's is not its `ns.table` name). */
  location?: string;
  score: number;
  dataFiles: number;
  dataBytes: number;
  records: number;
  deleteFiles: number;
  deleteBytes: number;
  smallFiles: number;
  readAtMs: number;
}

export interface TableDetail {
  name: string;
  location: string;
  format: 'iceberg' | 'paimon';
  formatVersion: number;
  currentSnapshotId: string | null;
  snapshotCount: number;
  /** Newest first, at most 50. */
  snapshots: { snapshotId: string; timestampMs: number; operation: string; summary: Record<string, string> }[];
  health: TableHealthSummary;
  sizeBuckets: string[];
  /** The same buckets, labelled short (small charts). */
  sizeBucketsShort: string[];
  /** Whole-table histogram, then per partition (at most 200 partitions, worst score first). */
  histogram: number[];
  partitions: PartitionDetail[];
  partitionCount: number;
  deleteFiles: {
    count: number;
    bytes: number;
    byKind: Record<string, { files: number; records: number; bytes: number }>;
    /** At most 100. */
    files: { path: string; kind: string; records: number; bytes: number; partition: string }[];
  };
  properties: Record<string, string>;
  pendingPlan?: PlanSummary;
  pendingPlanError?: string;
}

/** "event_time_hour=2020-01-01-08, action=view", as the CLI's plans print partitions (not raw transform ints). */
const partitionText = (model: Pick<TableModel, 'specs' | 'schemas'>) => {
  const label = partitionLabeler(model);
  return (specId: number, p: PartitionTuple): string => (p.length === 0 ? '(unpartitioned)' : label(specId, p));
};

export function bucketOf(sizeBytes: number): number {
  return SIZE_BUCKETS.findIndex((b) => sizeBytes < b.maxBytes);
}

/** Reads the table's current files (src/app/table-model.ts). */
export async function loadModel(cfg: TableConfig): Promise<TableModel> {
  const { loadCurrentModel } = await import('../../app/table-model.js');
  return loadCurrentModel(cfg.table, cfg.access);
}

export function healthSummary(model: TableModel, nowMs: number): TableHealthSummary {
  const policy = sizePolicyFromProperties(model.properties, {});
  const h = tableHealth(model, policy);
  const { undersizedMax } = thresholds(policy);
  return {
    location: model.location,
    score: h.score,
    dataFiles: model.dataFiles.length,
    dataBytes: model.dataFiles.reduce((n, f) => n + f.sizeBytes, 0),
    records: model.dataFiles.reduce((n, f) => n + f.recordCount, 0),
    deleteFiles: model.deleteFiles.length,
    deleteBytes: model.deleteFiles.reduce((n, f) => n + f.sizeBytes, 0),
    smallFiles: model.dataFiles.filter((f) => f.sizeBytes < undersizedMax).length,
    readAtMs: nowMs,
  };
}

export const gaugesOf = (h: TableHealthSummary): TableGauges => ({
  healthScore: h.score,
  dataFiles: h.dataFiles,
  dataBytes: h.dataBytes,
  deleteFiles: h.deleteFiles,
  smallFiles: h.smallFiles,
});

export function buildDetail(cfg: TableConfig, model: TableModel, nowMs: number): TableDetail {
  const policy = sizePolicyFromProperties(model.properties, {});
  const h = tableHealth(model, policy);
  const scoreByKey = new Map(h.partitions.map((p) => [partitionKey(p.specId, p.partition as never), p.score]));
  const parts = new Map<string, PartitionDetail>();
  const partText = partitionText(model);
  const part = (specId: number, p: PartitionTuple) => {
    const k = partitionKey(specId, p as never);
    let d = parts.get(k);
    if (!d) {
      d = {
        partition: partText(specId, p),
        dataFiles: 0,
        dataBytes: 0,
        deleteFiles: 0,
        score: scoreByKey.get(k) ?? 100,
        histogram: SIZE_BUCKETS.map(() => 0),
      };
      parts.set(k, d);
    }
    return d;
  };
  const histogram = SIZE_BUCKETS.map(() => 0);
  for (const f of model.dataFiles) {
    const d = part(f.specId, f.partition);
    d.dataFiles++;
    d.dataBytes += f.sizeBytes;
    const b = bucketOf(f.sizeBytes);
    d.histogram[b]!++;
    histogram[b]!++;
  }
  const byKind: TableDetail['deleteFiles']['byKind'] = {};
  for (const f of model.deleteFiles) {
    part(f.specId, f.partition).deleteFiles++;
    const k = (byKind[f.content] ??= { files: 0, records: 0, bytes: 0 });
    k.files++;
    k.records += f.recordCount;
    k.bytes += f.sizeBytes;
  }
  const partitions = [...parts.values()].sort((a, b) => a.score - b.score || b.dataFiles - a.dataFiles);
  const snapshots = [...model.snapshots].sort((a, b) => b.timestampMs - a.timestampMs).slice(0, 50);
  return {
    name: cfg.name,
    location: model.location,
    format: model.format as 'iceberg' | 'paimon',
    formatVersion: model.formatVersion,
    currentSnapshotId: model.currentSnapshotId === undefined ? null : model.currentSnapshotId.toString(),
    snapshotCount: model.snapshots.length,
    snapshots: snapshots.map((s) => ({
      snapshotId: s.snapshotId.toString(),
      timestampMs: s.timestampMs,
      operation: s.operation,
      summary: pick(s.summary),
    })),
    health: healthSummary(model, nowMs),
    sizeBuckets: SIZE_BUCKETS.map((b) => b.label),
    sizeBucketsShort: SIZE_BUCKETS.map((b) => b.short),
    histogram,
    partitions: partitions.slice(0, 200),
    partitionCount: partitions.length,
    deleteFiles: {
      count: model.deleteFiles.length,
      bytes: model.deleteFiles.reduce((n, f) => n + f.sizeBytes, 0),
      byKind,
      files: model.deleteFiles.slice(0, 100).map((f) => ({
        path: f.path,
        kind: f.content,
        records: f.recordCount,
        bytes: f.sizeBytes,
        partition: partText(f.specId, f.partition),
      })),
    },
    properties: model.properties,
  };
}

/** Snapshot summaries carry dozens of keys; the counts people look at are enough here. */
function pick(summary: Record<string, string>): Record<string, string> {
  const keep = [
    'added-data-files',
    'deleted-data-files',
    'added-delete-files',
    'removed-delete-files',
    'total-data-files',
    'total-delete-files',
    'added-records',
    'total-records',
    'engine-name',
    'floe.version',
  ];
  return Object.fromEntries(Object.entries(summary).filter(([k]) => keep.includes(k)));
}
