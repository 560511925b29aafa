/**
 * The neutral table model. Both adapters (Iceberg, Paimon) fill it; planners read only it.
 * 64-bit identifiers (snapshot ids, sequence numbers, row ids) are bigint everywhere.
 */

export type TableFormat = 'iceberg' | 'paimon';

/** A primitive or nested type, in Iceberg's vocabulary (Paimon types are mapped onto it). */
export type FieldType =
  | { kind: 'primitive'; name: PrimitiveTypeName; precision?: number; scale?: number; length?: number }
  | { kind: 'struct'; fields: Field[] }
  | { kind: 'list'; elementId: number; element: FieldType; elementRequired: boolean }
  | { kind: 'map'; keyId: number; key: FieldType; valueId: number; value: FieldType; valueRequired: boolean };

export type PrimitiveTypeName =
  | 'boolean'
  | 'int'
  | 'long'
  | 'float'
  | 'double'
  | 'decimal'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'timestamptz'
  | 'timestamp_ns'
  | 'timestamptz_ns'
  | 'string'
  | 'uuid'
  | 'fixed'
  | 'binary'
  | 'unknown'
  | 'variant'
  | 'geometry'
  | 'geography'
  // Paimon-only physical types that have no Iceberg twin
  | 'tinyint'
  | 'smallint';

export interface Field {
  id: number;
  name: string;
  required: boolean;
  type: FieldType;
  doc?: string;
  /** v3 defaults, in the JSON single-value form the spec uses. */
  initialDefault?: unknown;
  writeDefault?: unknown;
}

export interface Schema {
  schemaId: number;
  fields: Field[];
  /** Iceberg identifier-field-ids / Paimon primary keys, as field ids. */
  identifierFieldIds?: number[];
}

export interface PartitionField {
  sourceId: number;
  /** Iceberg partition field id (1000+); for Paimon, the source id. */
  fieldId: number;
  name: string;
  /** identity, bucket[N], truncate[W], year, month, day, hour, void. Paimon partitions are identity. */
  transform: string;
}

export interface PartitionSpec {
  specId: number;
  fields: PartitionField[];
}

/** A partition tuple in spec order; values are the transform results (null allowed). */
export type PartitionValue = unknown;
export type PartitionTuple = PartitionValue[];

export interface ColumnStats {
  /** By field id. Bounds are decoded values (bigint for longs, string, number …). */
  columnSizes?: Map<number, bigint>;
  valueCounts?: Map<number, bigint>;
  nullValueCounts?: Map<number, bigint>;
  nanValueCounts?: Map<number, bigint>;
  lowerBounds?: Map<number, unknown>;
  upperBounds?: Map<number, unknown>;
}

export type FileFormat = 'parquet' | 'orc' | 'avro' | 'puffin' | 'paimon-index';

/** What every content file (data, deletes, deletion vectors) has. */
export interface ContentFileBase {
  path: string;
  format: FileFormat;
  sizeBytes: number;
  recordCount: number;
  specId: number;
  partition: PartitionTuple;
  /** Iceberg data sequence number (inherited where the manifest says so); Paimon: minSequenceNumber. */
  dataSequenceNumber: bigint;
  fileSequenceNumber: bigint;
  /** Snapshot that added the file. */
  snapshotId?: bigint;
}

export interface DataFile extends ContentFileBase {
  content: 'data';
  stats?: ColumnStats;
  splitOffsets?: number[];
  sortOrderId?: number;
  /** v3 row lineage. */
  firstRowId?: bigint;
  /** Paimon LSM facts. */
  lsm?: LsmFileFacts;
}

export interface LsmFileFacts {
  bucket: number;
  level: number;
  minKey: unknown[];
  maxKey: unknown[];
  minSequenceNumber: bigint;
  maxSequenceNumber: bigint;
  deleteRowCount?: number;
  schemaId: number;
  creationTimeMs?: number;
}

export interface PositionDeleteFile extends ContentFileBase {
  content: 'position-deletes';
  /** Set when the file deletes rows of exactly one data file (file-scoped deletes, always for DVs). */
  referencedDataFile?: string;
  stats?: ColumnStats;
}

export interface EqualityDeleteFile extends ContentFileBase {
  content: 'equality-deletes';
  equalityFieldIds: number[];
  stats?: ColumnStats;
}

/** Iceberg v3 deletion vector (Puffin blob) or a Paimon deletion-vector index entry. */
export interface DeletionVectorFile extends ContentFileBase {
  content: 'deletion-vector';
  /** The Puffin / index file holding the blob. */
  path: string;
  /** Deleted row count (cardinality). */
  recordCount: number;
  referencedDataFile: string;
  contentOffset: number;
  contentSizeBytes: number;
}

export type DeleteFile = PositionDeleteFile | EqualityDeleteFile | DeletionVectorFile;
export type ContentFile = DataFile | DeleteFile;

export interface SnapshotRef {
  name: string;
  type: 'branch' | 'tag';
  snapshotId: bigint;
  maxRefAgeMs?: number;
  maxSnapshotAgeMs?: number;
  minSnapshotsToKeep?: number;
}

export interface Snapshot {
  snapshotId: bigint;
  parentSnapshotId?: bigint;
  sequenceNumber: bigint;
  timestampMs: number;
  /** Iceberg: append/replace/overwrite/delete; Paimon: APPEND/COMPACT/OVERWRITE/ANALYZE. */
  operation: string;
  summary: Record<string, string>;
  schemaId?: number;
  /** Iceberg manifest list; Paimon base manifest list. */
  manifestList?: string;
  /** v3 row lineage. */
  firstRowId?: bigint;
  addedRows?: bigint;
}

/** One sorted run of an LSM bucket: all L0 files are runs of their own; each level ≥ 1 is one run. */
export interface SortedRun {
  level: number;
  files: DataFile[];
  sizeBytes: number;
}

export interface LsmBucket {
  partition: PartitionTuple;
  bucket: number;
  /** Newest first, as Paimon orders them: L0 by max sequence number descending, then levels ascending. */
  runs: SortedRun[];
}

export interface TableModel {
  format: TableFormat;
  formatVersion: number;
  /** Where the table lives (normalised location, no trailing slash). */
  location: string;
  /** The metadata file / snapshot file the model was read from. */
  metadataLocation: string;
  tableUuid?: string;
  schemas: Schema[];
  currentSchemaId: number;
  specs: PartitionSpec[];
  defaultSpecId: number;
  properties: Record<string, string>;
  snapshots: Snapshot[];
  currentSnapshotId?: bigint;
  refs: SnapshotRef[];
  lastSequenceNumber: bigint;
  /** Live files of the current snapshot (or the one asked for). */
  dataFiles: DataFile[];
  deleteFiles: DeleteFile[];
  /** LSM view for Paimon primary-key tables. */
  lsm?: LsmBucket[];
  /** Paimon primary-key field names / ids; empty for append tables. */
  primaryKeyFieldIds?: number[];
  /** Iceberg sort orders and the default one (the sort strategy's default order). */
  sortOrders?: {
    orderId: number;
    fields: {
      sourceId: number;
      transform: string;
      direction: 'asc' | 'desc';
      nullOrder: 'nulls-first' | 'nulls-last';
    }[];
  }[];
  defaultSortOrderId?: number;
}

export function currentSchema(t: TableModel): Schema {
  const s = t.schemas.find((x) => x.schemaId === t.currentSchemaId);
  if (!s) throw new Error(`table ${t.location}: current schema ${t.currentSchemaId} is missing`);
  return s;
}

export function partitionKey(specId: number, partition: PartitionTuple): string {
  return `${specId}|${partition.map((v) => (typeof v === 'bigint' ? `${v}n` : (JSON.stringify(v) ?? 'null'))).join('|')}`;
}
