/**
 * Synthetic table builders for planner tests, the simulator and the benchmark.
 *
 *   const t = makeTable({ specs: [daySpec(0)], dataFiles: [dataFile({ size: 4 * MiB, partition: [19000] })] });
 *
 * Every builder fills sensible defaults (Iceberg v2, spec 0, sequence number 1) so a test states only
 * what matters to it. Paths are generated from a counter unless given; call `resetFixtureIds()` when
 * a test needs predictable generated paths.
 */
import type {
  DataFile,
  DeletionVectorFile,
  EqualityDeleteFile,
  PartitionSpec,
  PartitionTuple,
  PositionDeleteFile,
  Schema,
  Snapshot,
  TableModel,
  ColumnStats,
  DeleteFile,
} from '../../../model/index.js';

export const KiB = 1024;
export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

let counter = 0;
function nextId(): string {
  counter += 1;
  return String(counter).padStart(6, '0');
}
export function resetFixtureIds(): void {
  counter = 0;
}

export const TABLE_LOCATION = 's3://bucket/warehouse/db/t';

/** Schema used by default: id long, name string, op_time timestamp (field ids 1, 2, 3). */
export const defaultSchema: Schema = {
  schemaId: 0,
  fields: [
    { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
    { id: 2, name: 'name', required: false, type: { kind: 'primitive', name: 'string' } },
    { id: 3, name: 'op_time', required: false, type: { kind: 'primitive', name: 'timestamp' } },
  ],
  identifierFieldIds: [1],
};

/** A spec with no partition fields. */
export function unpartitionedSpec(specId = 0): PartitionSpec {
  return { specId, fields: [] };
}

/** Identity partitioning on the given source field ids (default: `name`, field 2). */
export function identitySpec(specId: number, ...sourceIds: number[]): PartitionSpec {
  const ids = sourceIds.length > 0 ? sourceIds : [2];
  return {
    specId,
    fields: ids.map((sourceId, i) => ({
      sourceId,
      fieldId: 1000 + i,
      name: `p${sourceId}`,
      transform: 'identity',
    })),
  };
}

/** `day(op_time)` partitioning. */
export function daySpec(specId = 0): PartitionSpec {
  return { specId, fields: [{ sourceId: 3, fieldId: 1000, name: 'op_time_day', transform: 'day' }] };
}

interface CommonOpts {
  path?: string;
  /** Size in bytes. */
  size?: number;
  records?: number;
  specId?: number;
  partition?: PartitionTuple;
  /** Data sequence number (number or bigint). */
  seq?: number | bigint;
  /** File sequence number; defaults to `seq`. */
  fileSeq?: number | bigint;
  snapshotId?: bigint;
}

function seqOf(v: number | bigint | undefined, dflt: bigint): bigint {
  if (v === undefined) return dflt;
  return typeof v === 'bigint' ? v : BigInt(v);
}

export interface DataFileOpts extends CommonOpts {
  stats?: ColumnStats;
}

export function dataFile(o: DataFileOpts = {}): DataFile {
  const seq = seqOf(o.seq, 1n);
  return {
    content: 'data',
    path: o.path ?? `${TABLE_LOCATION}/data/data-${nextId()}.parquet`,
    format: 'parquet',
    sizeBytes: o.size ?? 1 * MiB,
    recordCount: o.records ?? 1000,
    specId: o.specId ?? 0,
    partition: o.partition ?? [],
    dataSequenceNumber: seq,
    fileSequenceNumber: seqOf(o.fileSeq, seq),
    ...(o.snapshotId !== undefined ? { snapshotId: o.snapshotId } : {}),
    ...(o.stats ? { stats: o.stats } : {}),
  };
}

export interface EqDeleteOpts extends CommonOpts {
  equalityFieldIds?: number[];
}

export function eqDelete(o: EqDeleteOpts = {}): EqualityDeleteFile {
  const seq = seqOf(o.seq, 2n);
  return {
    content: 'equality-deletes',
    path: o.path ?? `${TABLE_LOCATION}/data/eq-delete-${nextId()}.parquet`,
    format: 'parquet',
    sizeBytes: o.size ?? 4 * KiB,
    recordCount: o.records ?? 10,
    specId: o.specId ?? 0,
    partition: o.partition ?? [],
    dataSequenceNumber: seq,
    fileSequenceNumber: seqOf(o.fileSeq, seq),
    equalityFieldIds: o.equalityFieldIds ?? [1],
    ...(o.snapshotId !== undefined ? { snapshotId: o.snapshotId } : {}),
  };
}

export interface PosDeleteOpts extends CommonOpts {
  /** Makes the file file-scoped (it deletes rows of this one data file only). */
  referencedDataFile?: string;
}

export function posDelete(o: PosDeleteOpts = {}): PositionDeleteFile {
  const seq = seqOf(o.seq, 2n);
  return {
    content: 'position-deletes',
    path: o.path ?? `${TABLE_LOCATION}/data/pos-delete-${nextId()}.parquet`,
    format: 'parquet',
    sizeBytes: o.size ?? 4 * KiB,
    recordCount: o.records ?? 10,
    specId: o.specId ?? 0,
    partition: o.partition ?? [],
    dataSequenceNumber: seq,
    fileSequenceNumber: seqOf(o.fileSeq, seq),
    ...(o.referencedDataFile !== undefined ? { referencedDataFile: o.referencedDataFile } : {}),
    ...(o.snapshotId !== undefined ? { snapshotId: o.snapshotId } : {}),
  };
}

export interface DvOpts extends CommonOpts {
  referencedDataFile: string;
  /** Blob offset inside the Puffin file; DVs sharing one Puffin file differ here. */
  offset?: number;
}

export function deletionVector(o: DvOpts): DeletionVectorFile {
  const seq = seqOf(o.seq, 2n);
  return {
    content: 'deletion-vector',
    path: o.path ?? `${TABLE_LOCATION}/data/dv-${nextId()}.puffin`,
    format: 'puffin',
    sizeBytes: o.size ?? 1 * KiB,
    recordCount: o.records ?? 10,
    specId: o.specId ?? 0,
    partition: o.partition ?? [],
    dataSequenceNumber: seq,
    fileSequenceNumber: seqOf(o.fileSeq, seq),
    referencedDataFile: o.referencedDataFile,
    contentOffset: o.offset ?? 4,
    contentSizeBytes: 64,
    ...(o.snapshotId !== undefined ? { snapshotId: o.snapshotId } : {}),
  };
}

export interface SnapshotOpts {
  snapshotId?: bigint;
  parentSnapshotId?: bigint;
  sequenceNumber?: number | bigint;
  timestampMs?: number;
  operation?: string;
  summary?: Record<string, string>;
}

export function snapshot(o: SnapshotOpts = {}): Snapshot {
  return {
    snapshotId: o.snapshotId ?? 1n,
    ...(o.parentSnapshotId !== undefined ? { parentSnapshotId: o.parentSnapshotId } : {}),
    sequenceNumber: seqOf(o.sequenceNumber, 1n),
    timestampMs: o.timestampMs ?? 0,
    operation: o.operation ?? 'append',
    summary: o.summary ?? {},
  };
}

export interface MakeTableOpts {
  formatVersion?: number;
  location?: string;
  specs?: PartitionSpec[];
  /** Defaults to the highest spec id given. */
  defaultSpecId?: number;
  schemas?: Schema[];
  properties?: Record<string, string>;
  dataFiles?: DataFile[];
  deleteFiles?: DeleteFile[];
  /** Defaults to one snapshot at time 0 whose sequence number covers every file. */
  snapshots?: Snapshot[];
  currentSnapshotId?: bigint;
}

function maxSeq(files: readonly { dataSequenceNumber: bigint; fileSequenceNumber: bigint }[]): bigint {
  let m = 0n;
  for (const f of files) {
    if (f.dataSequenceNumber > m) m = f.dataSequenceNumber;
    if (f.fileSequenceNumber > m) m = f.fileSequenceNumber;
  }
  return m;
}

export function makeTable(o: MakeTableOpts = {}): TableModel {
  const specs = o.specs ?? [unpartitionedSpec(0)];
  const dataFiles = o.dataFiles ?? [];
  const deleteFiles = o.deleteFiles ?? [];
  const lastSeq = maxSeq(dataFiles) > maxSeq(deleteFiles) ? maxSeq(dataFiles) : maxSeq(deleteFiles);
  const snapshots = o.snapshots ?? [snapshot({ snapshotId: 1n, sequenceNumber: lastSeq, timestampMs: 0 })];
  const current =
    o.currentSnapshotId ?? (snapshots.length > 0 ? snapshots[snapshots.length - 1]!.snapshotId : undefined);
  let lastSequenceNumber = lastSeq;
  for (const s of snapshots) if (s.sequenceNumber > lastSequenceNumber) lastSequenceNumber = s.sequenceNumber;
  return {
    format: 'iceberg',
    formatVersion: o.formatVersion ?? 2,
    location: o.location ?? TABLE_LOCATION,
    metadataLocation: `${o.location ?? TABLE_LOCATION}/metadata/00001.metadata.json`,
    schemas: o.schemas ?? [defaultSchema],
    currentSchemaId: (o.schemas ?? [defaultSchema])[0]!.schemaId,
    specs,
    defaultSpecId: o.defaultSpecId ?? Math.max(...specs.map((s) => s.specId)),
    properties: o.properties ?? {},
    snapshots,
    ...(current !== undefined ? { currentSnapshotId: current } : {}),
    refs: current !== undefined ? [{ name: 'main', type: 'branch', snapshotId: current }] : [],
    lastSequenceNumber,
    dataFiles,
    deleteFiles,
  };
}

/** `n` data files of `size` bytes each in one partition (for quick bulk setups). */
export function dataFiles(n: number, o: DataFileOpts = {}): DataFile[] {
  const out: DataFile[] = [];
  for (let i = 0; i < n; i++) out.push(dataFile({ ...o, path: o.path ? `${o.path}-${i}` : undefined }));
  return out;
}

export function paths(files: readonly { path: string }[]): string[] {
  return files.map((f) => f.path).sort();
}
