/**
 * Opening a Paimon table at a snapshot: schemas, the snapshot, its live data files (base + delta manifest
 * lists merged), the deletion vectors of its index manifest, and the translation into the neutral model
 * (schemas, one identity partition spec, data files with LSM facts, DVs as deletion-vector files, and the
 * LSM view per partition and bucket).
 */
import { FloeError, errorForFile } from '../../util/errors.js';
import type {
  ColumnStats,
  DataFile,
  DeletionVectorFile,
  FileFormat,
  LsmBucket,
  PartitionSpec,
  Schema,
  Snapshot,
  SortedRun,
  TableModel,
} from '../../model/table.js';
import { decodeSerializedRow, serializedRowArity } from './binary-row.js';
import { readDeletionVector } from './deletion-vector.js';
import { fileFormatOf } from './data-file.js';
import { joinPath, type PaimonIO } from './io.js';
import { FileIO } from '../storage/file-io.js';
import { detectTableFormat } from '../table-format.js';
import {
  readIndexManifest,
  readLiveEntries,
  mergeIndexEntries,
  namedBy,
  type DataFileMeta,
  type IndexManifestEntry,
  type ManifestEntry,
  type SimpleStats,
} from './manifest.js';
import {
  earliestSnapshotId,
  latestSnapshotId,
  listSchemaIds,
  listSnapshotIds,
  readSchema,
  readSnapshot,
  type PaimonSchema,
  type PaimonSnapshot,
} from './metadata.js';
import { dataFilePath, partitionPath, POSTPONE_BUCKET } from './paths.js';
import { toModelField, type PaimonField, type PaimonType } from './types.js';
import { rowComparator } from './values.js';
import { bucketKey, DELETION_VECTORS_INDEX, partitionHex } from './keys.js';

export interface PaimonDeletionVectorRef {
  indexFile: string;
  offset: number;
  length: number;
  cardinality?: bigint;
}

export interface PaimonFile {
  meta: DataFileMeta;
  path: string;
  partition: unknown[];
  partitionBytes: Uint8Array;
  bucket: number;
  totalBuckets: number;
  dv?: PaimonDeletionVectorRef;
}

export interface PaimonTable {
  location: string;
  io: PaimonIO;
  /** The current (latest) schema; reads project onto it. */
  schema: PaimonSchema;
  schemas: Map<number, PaimonSchema>;
  snapshot?: PaimonSnapshot;
  files: PaimonFile[];
  indexEntries: IndexManifestEntry[];
}

export interface OpenOptions {
  /** How to reach the files; default: `fileIO`, else a FileIO with default storage settings. */
  io?: PaimonIO;
  /** Shared storage configuration (credentials, location map); used when `io` is not given. */
  fileIO?: FileIO;
  snapshotId?: bigint | number;
}

export function normaliseLocation(location: string): string {
  return location.replace(/\/+$/, '');
}

/** True when `dir` holds a Paimon table (the one detector, connectors/table-format.ts). */
export async function isPaimonTable(dir: string, io: PaimonIO = new FileIO()): Promise<boolean> {
  return (await detectTableFormat(dir, io)) === 'paimon';
}

export function fieldsByName(schema: PaimonSchema): Map<string, PaimonField> {
  return new Map(schema.fields.map((f) => [f.name, f]));
}

export function partitionFields(schema: PaimonSchema): PaimonField[] {
  const byName = fieldsByName(schema);
  return schema.partitionKeys.map((k) => byName.get(k)!);
}

/** Primary keys minus partition keys (`TableSchema.trimmedPrimaryKeys`): the physical key columns. */
export function trimmedPrimaryKeyFields(schema: PaimonSchema): PaimonField[] {
  const byName = fieldsByName(schema);
  const trimmed = schema.primaryKeys.filter((k) => !schema.partitionKeys.includes(k));
  return (trimmed.length ? trimmed : schema.primaryKeys).map((k) => byName.get(k)!);
}

async function loadSchemas(io: PaimonIO, location: string): Promise<Map<number, PaimonSchema>> {
  const ids = await listSchemaIds(io, location);
  if (!ids.length) {
    throw new FloeError('NotFound', `not a Paimon table: ${location} has no schema/schema-N files`, {
      context: { table: location },
    });
  }
  const schemas = new Map<number, PaimonSchema>();
  for (const id of ids) schemas.set(id, await readSchema(io, location, id));
  return schemas;
}

export async function openPaimonTable(location: string, options: OpenOptions = {}): Promise<PaimonTable> {
  const io = options.io ?? options.fileIO ?? new FileIO();
  const loc = normaliseLocation(location);
  const schemas = await loadSchemas(io, loc);
  const schema = schemas.get(Math.max(...schemas.keys()))!;
  const snapshotId = options.snapshotId !== undefined ? BigInt(options.snapshotId) : await latestSnapshotId(io, loc);
  const table: PaimonTable = { location: loc, io, schema, schemas, files: [], indexEntries: [] };
  if (snapshotId === undefined) return table;
  const snapshot = await readSnapshot(io, loc, snapshotId);
  table.snapshot = snapshot;
  let entries;
  try {
    entries = await readLiveEntries(io, loc, [snapshot.baseManifestList, snapshot.deltaManifestList]);
    if (snapshot.indexManifest) {
      table.indexEntries = mergeIndexEntries(await readIndexManifest(io, loc, snapshot.indexManifest));
    }
  } catch (e) {
    throw namedBy(e, `snapshot ${snapshot.file}`); // a missing list may be the snapshot's corruption
  }
  table.files = resolveFiles(table, entries);
  return table;
}

function resolveFiles(table: PaimonTable, entries: ManifestEntry[]): PaimonFile[] {
  const pFields = partitionFields(table.schema);
  const pTypes = pFields.map((f) => f.type);
  const dvByFile = new Map<string, PaimonDeletionVectorRef>();
  for (const e of table.indexEntries) {
    if (e.indexType !== DELETION_VECTORS_INDEX || !e.dvRanges) continue;
    const indexFile = e.externalPath ?? joinPath(table.location, 'index', e.fileName);
    for (const r of e.dvRanges) {
      const ref: PaimonDeletionVectorRef = { indexFile, offset: r.offset, length: r.length };
      if (r.cardinality !== undefined) ref.cardinality = r.cardinality;
      dvByFile.set(`${bucketKey(e.partition, e.bucket)}|${r.dataFileName}`, ref);
      dvByFile.set(`*|${r.dataFileName}`, ref);
    }
  }
  const partitionCache = new Map<string, { values: unknown[]; dir: string }>();
  return entries.map((e) => {
    const key = partitionHex(e.partition);
    let part = partitionCache.get(key);
    if (!part) {
      const values = decodeSerializedRow(e.partition, pTypes, e.manifest);
      part = { values, dir: partitionPath(table.schema.partitionKeys, pTypes, values, table.schema.options) };
      partitionCache.set(key, part);
    }
    const f: PaimonFile = {
      meta: e.file,
      path: dataFilePath(table.location, part.dir, e.bucket, e.file.fileName, e.file.externalPath),
      partition: part.values,
      partitionBytes: e.partition,
      bucket: e.bucket,
      totalBuckets: e.totalBuckets,
    };
    const dv = dvByFile.get(`${key}|${e.bucket}|${e.file.fileName}`) ?? dvByFile.get(`*|${e.file.fileName}`);
    if (dv) f.dv = dv;
    return f;
  });
}

// ------------------------------------------------------------------------------------------ LSM view

/** Paimon's `Levels` order for level-0 files: max sequence desc, then min sequence, creation time, name. */
export function compareLevel0(a: DataFileMeta, b: DataFileMeta): number {
  if (a.maxSequenceNumber !== b.maxSequenceNumber) return a.maxSequenceNumber > b.maxSequenceNumber ? -1 : 1;
  if (a.minSequenceNumber !== b.minSequenceNumber) return a.minSequenceNumber < b.minSequenceNumber ? -1 : 1;
  const ta = a.creationTime ?? 0;
  const tb = b.creationTime ?? 0;
  if (ta !== tb) return ta - tb;
  return a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0;
}

export interface BucketFiles {
  partition: unknown[];
  partitionBytes: Uint8Array;
  bucket: number;
  files: PaimonFile[];
}

export function groupByBucket(files: readonly PaimonFile[]): BucketFiles[] {
  const groups = new Map<string, BucketFiles>();
  for (const f of files) {
    const k = bucketKey(f.partitionBytes, f.bucket);
    let g = groups.get(k);
    if (!g)
      groups.set(k, (g = { partition: f.partition, partitionBytes: f.partitionBytes, bucket: f.bucket, files: [] }));
    g.files.push(f);
  }
  return [...groups.values()];
}

/** Decodes a file's min/max key with its own schema's key types; undefined when it does not fit. */
export function decodeKeys(table: PaimonTable, meta: DataFileMeta): { min: unknown[]; max: unknown[] } | undefined {
  const schema = table.schemas.get(meta.schemaId) ?? table.schema;
  const types = trimmedPrimaryKeyFields(schema).map((f) => f.type);
  if (!types.length || meta.minKey.length < 4 || serializedRowArity(meta.minKey) !== types.length) return undefined;
  return {
    min: decodeSerializedRow(meta.minKey, types, meta.fileName),
    max: decodeSerializedRow(meta.maxKey, types, meta.fileName),
  };
}

/** Sorted runs of one bucket, newest first: each L0 file alone, then one run per level ≥ 1 (by min key). */
export function sortedRuns<T extends { meta: DataFileMeta }>(
  files: readonly T[],
  minKeyOf: (f: T) => unknown[] | undefined,
  keyTypes: readonly PaimonType[],
): { level: number; files: T[] }[] {
  const l0 = files.filter((f) => f.meta.level === 0).sort((a, b) => compareLevel0(a.meta, b.meta));
  const runs: { level: number; files: T[] }[] = l0.map((f) => ({ level: 0, files: [f] }));
  const cmp = rowComparator(keyTypes);
  const levels = [...new Set(files.map((f) => f.meta.level).filter((l) => l > 0))].sort((a, b) => a - b);
  for (const level of levels) {
    const inLevel = files.filter((f) => f.meta.level === level);
    inLevel.sort((a, b) => {
      const ka = minKeyOf(a);
      const kb = minKeyOf(b);
      return ka && kb ? cmp(ka, kb) : 0;
    });
    runs.push({ level, files: inLevel });
  }
  return runs;
}

// ------------------------------------------------------------------------------------------ model

function decodeStats(
  stats: SimpleStats | null,
  fields: readonly PaimonField[],
  context: string,
  out: ColumnStats,
): void {
  if (!stats || stats.minValues.length < 4) return;
  try {
    if (serializedRowArity(stats.minValues) !== fields.length) return;
    const types = fields.map((f) => ({ ...f.type, nullable: true }) as PaimonType);
    const mins = decodeSerializedRow(stats.minValues, types, context);
    const maxs = decodeSerializedRow(stats.maxValues, types, context);
    out.lowerBounds ??= new Map();
    out.upperBounds ??= new Map();
    out.nullValueCounts ??= new Map();
    fields.forEach((f, i) => {
      if (mins[i] !== null) out.lowerBounds!.set(f.id, mins[i]);
      if (maxs[i] !== null) out.upperBounds!.set(f.id, maxs[i]);
      const nc = stats.nullCounts?.[i];
      if (nc !== null && nc !== undefined) out.nullValueCounts!.set(f.id, nc);
    });
  } catch {
    // stats are advisory; an undecodable stats row must not make the table unreadable
  }
}

function statsOf(table: PaimonTable, meta: DataFileMeta, isPk: boolean): ColumnStats | undefined {
  const schema = table.schemas.get(meta.schemaId) ?? table.schema;
  const out: ColumnStats = {};
  let valueFields: PaimonField[] = schema.fields;
  if (meta.valueStatsCols) {
    const byName = fieldsByName(schema);
    valueFields = meta.valueStatsCols.map((n) => byName.get(n)).filter((f): f is PaimonField => !!f);
    if (valueFields.length !== meta.valueStatsCols.length) valueFields = [];
  }
  if (valueFields.length) decodeStats(meta.valueStats, valueFields, meta.fileName, out);
  if (isPk && !out.lowerBounds?.size) decodeStats(meta.keyStats, trimmedPrimaryKeyFields(schema), meta.fileName, out);
  return out.lowerBounds || out.nullValueCounts ? out : undefined;
}

async function dvCardinality(table: PaimonTable, f: PaimonFile, cache: Map<string, Uint8Array>): Promise<number> {
  const dv = f.dv!;
  if (dv.cardinality !== undefined) return Number(dv.cardinality);
  let bytes = cache.get(dv.indexFile);
  if (!bytes) {
    bytes = await table.io.read(dv.indexFile);
    cache.set(dv.indexFile, bytes);
  }
  return readDeletionVector(bytes, dv.offset, dv.length, dv.indexFile).length;
}

function snapshotToModel(s: PaimonSnapshot, hasParent: boolean): Snapshot {
  const summary: Record<string, string> = { commitUser: s.commitUser, commitIdentifier: String(s.commitIdentifier) };
  for (const k of ['totalRecordCount', 'deltaRecordCount', 'changelogRecordCount', 'watermark'] as const) {
    if (s[k] !== undefined) summary[k] = String(s[k]);
  }
  for (const k of ['deltaManifestList', 'changelogManifestList', 'indexManifest', 'statistics', 'operation'] as const) {
    if (s[k] !== undefined) summary[k] = String(s[k]);
  }
  const out: Snapshot = {
    snapshotId: s.id,
    sequenceNumber: s.id,
    timestampMs: s.timeMillis,
    operation: String(s.commitKind),
    summary,
    schemaId: s.schemaId,
    manifestList: s.baseManifestList,
  };
  if (hasParent) out.parentSnapshotId = s.id - 1n;
  return out;
}

function schemaToModel(s: PaimonSchema): Schema {
  const byName = fieldsByName(s);
  const out: Schema = { schemaId: s.id, fields: s.fields.map(toModelField) };
  if (s.primaryKeys.length) out.identifierFieldIds = s.primaryKeys.map((k) => byName.get(k)!.id);
  return out;
}

export async function toTableModel(table: PaimonTable, options: { allSnapshots?: boolean } = {}): Promise<TableModel> {
  const { io, location, schema } = table;
  const isPk = schema.primaryKeys.length > 0;
  const spec: PartitionSpec = {
    specId: 0,
    fields: partitionFields(schema).map((f) => ({
      sourceId: f.id,
      fieldId: f.id,
      name: f.name,
      transform: 'identity',
    })),
  };

  const snapshots: Snapshot[] = [];
  if (options.allSnapshots !== false && table.snapshot) {
    const earliest = (await earliestSnapshotId(io, location)) ?? table.snapshot.id;
    const ids = (await listSnapshotIds(io, location)).filter((id) => id >= earliest);
    for (const id of ids) {
      try {
        const s = id === table.snapshot.id ? table.snapshot : await readSnapshot(io, location, id);
        snapshots.push(snapshotToModel(s, ids.includes(id - 1n)));
      } catch (e) {
        // a snapshot expired concurrently is simply gone; anything else is real
        if (!(e instanceof FloeError && e.kind === 'NotFound')) throw e;
      }
    }
  } else if (table.snapshot) {
    snapshots.push(snapshotToModel(table.snapshot, false));
  }

  const dvCache = new Map<string, Uint8Array>();
  const dataFiles: DataFile[] = [];
  const deleteFiles: DeletionVectorFile[] = [];
  const modelByPath = new Map<string, DataFile>();
  let lastSeq = 0n;
  for (const f of table.files) {
    const m = f.meta;
    if (m.maxSequenceNumber > lastSeq) lastSeq = m.maxSequenceNumber;
    const keys = isPk ? decodeKeys(table, m) : undefined;
    const d: DataFile = {
      content: 'data',
      path: f.path,
      format: (fileFormatOf(m.fileName) ?? 'parquet') as FileFormat,
      sizeBytes: Number(m.fileSize),
      recordCount: Number(m.rowCount),
      specId: 0,
      partition: f.partition,
      dataSequenceNumber: m.minSequenceNumber,
      fileSequenceNumber: m.maxSequenceNumber,
      lsm: {
        bucket: f.bucket,
        level: m.level,
        minKey: keys?.min ?? [],
        maxKey: keys?.max ?? [],
        minSequenceNumber: m.minSequenceNumber,
        maxSequenceNumber: m.maxSequenceNumber,
        schemaId: m.schemaId,
      },
    };
    if (m.deleteRowCount !== undefined) d.lsm!.deleteRowCount = Number(m.deleteRowCount);
    if (m.creationTime !== undefined) d.lsm!.creationTimeMs = m.creationTime;
    if (m.firstRowId !== undefined) d.firstRowId = m.firstRowId;
    const stats = statsOf(table, m, isPk);
    if (stats) d.stats = stats;
    dataFiles.push(d);
    modelByPath.set(f.path, d);
    if (f.dv) {
      let cardinality: number;
      try {
        cardinality = await dvCardinality(table, f, dvCache);
      } catch (e) {
        throw errorForFile('Corrupt', f.dv.indexFile, 'cannot read Paimon deletion vector', e);
      }
      deleteFiles.push({
        content: 'deletion-vector',
        path: f.dv.indexFile,
        // The model's FileFormat has no Paimon index-file member yet (reported to the lead).
        format: 'paimon-index' as FileFormat,
        sizeBytes: f.dv.length,
        recordCount: cardinality,
        specId: 0,
        partition: f.partition,
        dataSequenceNumber: m.maxSequenceNumber,
        fileSequenceNumber: m.maxSequenceNumber,
        referencedDataFile: f.path,
        contentOffset: f.dv.offset,
        contentSizeBytes: f.dv.length,
      });
    }
  }

  let lsm: LsmBucket[] | undefined;
  if (isPk) {
    lsm = [];
    const keyTypes = trimmedPrimaryKeyFields(schema).map((f) => f.type);
    for (const g of groupByBucket(table.files)) {
      if (g.bucket === POSTPONE_BUCKET) continue;
      const runs = sortedRuns(g.files, (f) => modelByPath.get(f.path)!.lsm!.minKey, keyTypes);
      lsm.push({
        partition: g.partition,
        bucket: g.bucket,
        runs: runs.map((r): SortedRun => {
          const files = r.files.map((f) => modelByPath.get(f.path)!);
          return { level: r.level, files, sizeBytes: files.reduce((n, x) => n + x.sizeBytes, 0) };
        }),
      });
    }
  }

  const model: TableModel = {
    format: 'paimon',
    formatVersion: table.snapshot?.version ?? schema.version,
    location,
    metadataLocation: table.snapshot?.file ?? schema.file,
    schemas: [...table.schemas.values()].map(schemaToModel),
    currentSchemaId: schema.id,
    specs: [spec],
    defaultSpecId: 0,
    properties: { ...schema.options },
    snapshots,
    refs: [],
    lastSequenceNumber: lastSeq,
    dataFiles,
    deleteFiles,
  };
  if (table.snapshot) {
    model.currentSnapshotId = table.snapshot.id;
    model.refs.push({ name: 'main', type: 'branch', snapshotId: table.snapshot.id });
  }
  if (lsm) model.lsm = lsm;
  if (isPk) {
    const byName = fieldsByName(schema);
    model.primaryKeyFieldIds = schema.primaryKeys.map((k) => byName.get(k)!.id);
  }
  return model;
}

/** Reads the table at `snapshotId` (default: latest) into the neutral model. */
export async function loadPaimonTable(
  location: string,
  options: OpenOptions & { allSnapshots?: boolean } = {},
): Promise<TableModel> {
  const table = await openPaimonTable(location, options);
  return toTableModel(table, { allSnapshots: options.allSnapshots ?? true });
}
