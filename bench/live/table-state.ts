/**
 * What a reader of the live table faces at one instant: live data and delete files per partition, read by
 * floe from the catalog's current metadata (the same files every engine plans over).
 */
import { loadTableModel, openIcebergTable } from '../../connectors/iceberg/table.js';

export interface TableSample {
  /** Milliseconds since the scenario started. */
  atMs: number;
  dataFiles: number;
  deleteFiles: number;
  partitions: number;
  /** Highest count of any one partition. */
  maxDataFilesPerPartition: number;
  maxDeleteFilesPerPartition: number;
  liveBytes: number;
  /** The metadata file the catalog named: what the reader then scans. */
  metadataLocation: string;
  /** The Java reader's scan of the same table right after (wall ms), when sampled. */
  scanMs?: number;
  scanRows?: number;
}

export async function sampleTable(table: string, catalog: string, catalogName: string, atMs: number) {
  const t = await openIcebergTable(table, { catalog, catalogOptions: { catalogName } });
  try {
    const model = await loadTableModel(t, undefined, { workers: 0 });
    const data = new Map<string, number>();
    const deletes = new Map<string, number>();
    let liveBytes = 0;
    for (const f of model.dataFiles) {
      const k = JSON.stringify(f.partition, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
      data.set(k, (data.get(k) ?? 0) + 1);
      liveBytes += f.sizeBytes;
    }
    for (const f of model.deleteFiles) {
      const k = JSON.stringify(f.partition, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
      deletes.set(k, (deletes.get(k) ?? 0) + 1);
    }
    const sample: TableSample = {
      atMs,
      dataFiles: model.dataFiles.length,
      deleteFiles: model.deleteFiles.length,
      partitions: new Set([...data.keys(), ...deletes.keys()]).size,
      maxDataFilesPerPartition: Math.max(0, ...data.values()),
      maxDeleteFilesPerPartition: Math.max(0, ...deletes.values()),
      liveBytes,
      metadataLocation: t.metadataLocation,
    };
    return sample;
  } finally {
    t.files?.destroy();
  }
}
