/**
 * A large synthetic Iceberg table for planner benchmarks: day partitions with a skewed (Zipf-like)
 * number of files each, a mix of fragment / undersized / target-sized files, equality deletes in some
 * partitions and file-scoped position deletes on some files. Deterministic for a given seed.
 */
import type { DataFile, DeleteFile, PartitionSpec, TableModel } from '../model/index.js';

const MiB = 1024 * 1024;
const LOCATION = 's3://bench/warehouse/db/events';

export interface SyntheticTableOptions {
  dataFiles: number;
  partitions: number;
  seed: number;
  /** Share of partitions that get equality deletes. */
  eqDeletePartitionShare: number;
  /** Share of data files that get a position delete. */
  posDeleteFileShare: number;
}

export const DEFAULT_SYNTHETIC: SyntheticTableOptions = {
  dataFiles: 1_000_000,
  partitions: 2_000,
  seed: 42,
  eqDeletePartitionShare: 0.1,
  posDeleteFileShare: 0.01,
};

/** mulberry32: small, fast, good enough to shape a benchmark table. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SyntheticTable {
  table: TableModel;
  facts: {
    dataFiles: number;
    deleteFiles: number;
    partitions: number;
    fragments: number;
    undersized: number;
    targetSized: number;
    totalBytes: number;
  };
}

export function buildSyntheticTable(o: SyntheticTableOptions = DEFAULT_SYNTHETIC): SyntheticTable {
  const random = rng(o.seed);
  const spec: PartitionSpec = {
    specId: 0,
    fields: [{ sourceId: 3, fieldId: 1000, name: 'op_time_day', transform: 'day' }],
  };
  // Files per partition ∝ 1/(rank+1)^0.8, cumulative rounding so the total is exact.
  const weights = Array.from({ length: o.partitions }, (_, i) => 1 / (i + 1) ** 0.8);
  const wSum = weights.reduce((a, b) => a + b, 0);
  const counts: number[] = [];
  let cum = 0;
  let given = 0;
  for (const w of weights) {
    cum += w;
    const upTo = Math.round((o.dataFiles * cum) / wSum);
    counts.push(upTo - given);
    given = upTo;
  }
  counts[counts.length - 1]! += o.dataFiles - given;

  const maxSeq = 5_000;
  const seqs = Array.from({ length: maxSeq + 2 }, (_, i) => BigInt(i)); // shared bigints
  const dataFiles: DataFile[] = [];
  const deleteFiles: DeleteFile[] = [];
  const facts = {
    dataFiles: 0,
    deleteFiles: 0,
    partitions: o.partitions,
    fragments: 0,
    undersized: 0,
    targetSized: 0,
    totalBytes: 0,
  };
  for (let p = 0; p < o.partitions; p++) {
    const day = 19_000 + p;
    const partition = [day]; // shared by every file of the partition
    const dir = `${LOCATION}/data/op_time_day=${day}`;
    for (let i = 0; i < counts[p]!; i++) {
      const kind = random();
      let size: number;
      if (kind < 0.6) {
        size = Math.round(64 * 1024 * 256 ** random()); // 64 KiB … 16 MiB, log-uniform
        facts.fragments++;
      } else if (kind < 0.85) {
        size = Math.round(16 * MiB + random() * 80 * MiB);
        facts.undersized++;
      } else {
        size = Math.round(96 * MiB + random() * 160 * MiB);
        facts.targetSized++;
      }
      const seq = seqs[1 + Math.floor(random() * (maxSeq - 1))]!;
      const f: DataFile = {
        content: 'data',
        path: `${dir}/${p}-${i}.parquet`,
        format: 'parquet',
        sizeBytes: size,
        recordCount: Math.max(1, Math.round(size / 120)),
        specId: 0,
        partition,
        dataSequenceNumber: seq,
        fileSequenceNumber: seq,
      };
      dataFiles.push(f);
      facts.totalBytes += size;
      if (random() < o.posDeleteFileShare) {
        const dseq = seqs[Number(seq) + 1]!;
        deleteFiles.push({
          content: 'position-deletes',
          path: `${dir}/${p}-${i}-pos.parquet`,
          format: 'parquet',
          sizeBytes: 4096,
          recordCount: 1 + Math.floor(random() * f.recordCount * 0.2),
          specId: 0,
          partition,
          dataSequenceNumber: dseq,
          fileSequenceNumber: dseq,
          referencedDataFile: f.path,
        });
      }
    }
    if (random() < o.eqDeletePartitionShare) {
      const n = 1 + Math.floor(random() * 20);
      for (let k = 0; k < n; k++) {
        const dseq = seqs[1 + Math.floor(random() * maxSeq)]!;
        deleteFiles.push({
          content: 'equality-deletes',
          path: `${dir}/eq-${k}.parquet`,
          format: 'parquet',
          sizeBytes: 64 * 1024,
          recordCount: 1000,
          specId: 0,
          partition,
          dataSequenceNumber: dseq,
          fileSequenceNumber: dseq,
          equalityFieldIds: [1],
        });
      }
    }
  }
  facts.dataFiles = dataFiles.length;
  facts.deleteFiles = deleteFiles.length;
  const lastSeq = seqs[maxSeq + 1]!;
  const table: TableModel = {
    format: 'iceberg',
    formatVersion: 2,
    location: LOCATION,
    metadataLocation: `${LOCATION}/metadata/00001.metadata.json`,
    schemas: [
      {
        schemaId: 0,
        fields: [
          { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
          { id: 2, name: 'payload', required: false, type: { kind: 'primitive', name: 'string' } },
          { id: 3, name: 'op_time', required: false, type: { kind: 'primitive', name: 'timestamp' } },
        ],
        identifierFieldIds: [1],
      },
    ],
    currentSchemaId: 0,
    specs: [spec],
    defaultSpecId: 0,
    properties: {},
    snapshots: [{ snapshotId: 1n, sequenceNumber: lastSeq, timestampMs: 0, operation: 'overwrite', summary: {} }],
    currentSnapshotId: 1n,
    refs: [{ name: 'main', type: 'branch', snapshotId: 1n }],
    lastSequenceNumber: lastSeq,
    dataFiles,
    deleteFiles,
  };
  return { table, facts };
}
