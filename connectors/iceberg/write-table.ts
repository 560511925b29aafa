/**
 * Creating Iceberg tables and appending to them: floe's demo warehouse, benchmarks and tests use it to make
 * real tables (Parquet data with field ids and metrics, equality deletes as Flink writes them) without a
 * JVM. Commits are an action on the one commit path (transaction.ts), as compaction's are: create-if-absent
 * of the next `v<N>.metadata.json`, retried (commit.retry.*) when another writer got there first; files of a
 * commit whose state is unknown are kept.
 */
import { randomUUID } from 'node:crypto';
import { FloeError } from '../../util/errors.js';
import { COMMIT_ID_PROPERTY } from './commit-id.js';
import type { Field } from '../../model/index.js';
import { stringifyJsonLossless } from '../../util/json.js';
import {
  arrowSchemaForIceberg,
  icebergMetricsFromFooter,
  tableFromRows,
  writeParquet,
} from '../formats/parquet/index.js';
import { currentSnapshotIdOf, snapshotById, withTotals, type RawMetadata } from './commit-metadata.js';
import { FilesystemTableOperations, publishMetadataFile } from './commit-ops.js';
import { parseMetadata } from './metadata.js';
import { encodeSingleValue } from './write-bounds.js';
import { STATUS_ADDED, manifestDataFile, type NewContentFile, type RawManifestEntry } from './write-manifest.js';
import {
  assignRowLineage,
  draftSnapshot,
  manifestHeaderFor,
  readManifestList,
  writeDraftManifest,
  writeDraftManifestList,
  preparedSnapshot,
} from './snapshot-producer.js';
import { commitTransaction, type AttemptContext, type CommitBase, type PreparedCommit } from './transaction.js';
import type { FileIO } from '../storage/file-io.js';

export interface CreateTableOptions {
  formatVersion?: 1 | 2 | 3;
  fields: Field[];
  /** Identity partitioning by these column names. */
  partitionBy?: string[];
  properties?: Record<string, string>;
  identifierFieldIds?: number[];
}

function icebergTypeJson(f: Field): unknown {
  const t = f.type;
  if (t.kind !== 'primitive')
    throw new FloeError('Unsupported', `demo writer supports primitive columns only (${f.name})`);
  if (t.name === 'decimal') return `decimal(${t.precision},${t.scale})`;
  if (t.name === 'fixed') return `fixed[${t.length}]`;
  return t.name;
}

export async function createIcebergTable(io: FileIO, location: string, o: CreateTableOptions): Promise<string> {
  const loc = location.replace(/\/+$/, '');
  const v = o.formatVersion ?? 2;
  const byName = new Map(o.fields.map((f) => [f.name, f]));
  const specFields = (o.partitionBy ?? []).map((name, i) => {
    const src = byName.get(name);
    if (!src) throw new FloeError('InvalidArgument', `partition column ${name} is not in the schema`);
    return { name, transform: 'identity', 'source-id': src.id, 'field-id': 1000 + i };
  });
  const schema: Record<string, unknown> = {
    type: 'struct',
    'schema-id': 0,
    fields: o.fields.map((f) => ({ id: f.id, name: f.name, required: f.required, type: icebergTypeJson(f) })),
  };
  if (o.identifierFieldIds?.length) schema['identifier-field-ids'] = o.identifierFieldIds;
  const now = Date.now();
  const md: RawMetadata = {
    'format-version': v,
    'table-uuid': randomUUID(),
    location: loc,
    'last-sequence-number': 0,
    'last-updated-ms': now,
    'last-column-id': Math.max(...o.fields.map((f) => f.id)),
    'current-schema-id': 0,
    schemas: [schema],
    'default-spec-id': 0,
    'partition-specs': [{ 'spec-id': 0, fields: specFields }],
    'last-partition-id': specFields.length ? 999 + specFields.length : 999,
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties: { 'write.parquet.compression-codec': 'zstd', ...(o.properties ?? {}) },
    'current-snapshot-id': v >= 3 ? null : -1,
    refs: {},
    snapshots: [],
    statistics: [],
    'partition-statistics': [],
    'snapshot-log': [],
    'metadata-log': [],
  };
  if (v >= 3) md['next-row-id'] = 0;
  if (v === 1) {
    md.schema = schema;
    md['partition-spec'] = specFields;
  }
  const file = `${loc}/metadata/v1.metadata.json`;
  await publishMetadataFile(io, file, Buffer.from(stringifyJsonLossless(md, 2)), `the first version of ${loc}`);
  await io.overwrite(`${loc}/metadata/version-hint.text`, Buffer.from('1'));
  return file;
}

interface NewFile {
  content: 0 | 1 | 2;
  rows: Record<string, unknown>[];
  fields: Field[];
  partition: Record<string, unknown>;
  equalityIds?: number[];
}

/** Appends rows (one Parquet file per partition). Returns the new snapshot id. */
export function appendRows(io: FileIO, location: string, rows: Record<string, unknown>[]): Promise<bigint> {
  return commitFiles(io, location, 'append', (md, fields, partitionNames) => {
    const groups = new Map<string, NewFile>();
    for (const r of rows) {
      const partition = Object.fromEntries(partitionNames.map((p) => [p, r[p] ?? null]));
      const key = stringifyJsonLossless(partition);
      const g = groups.get(key) ?? { content: 0 as const, rows: [], fields, partition };
      g.rows.push(r);
      groups.set(key, g);
    }
    void md;
    return [...groups.values()];
  });
}

/**
 * Deletes every row whose `columns` equal one of `keys`, with equality-delete files (one per partition
 * when the table is partitioned — the partition columns must then be among `columns`, unless
 * `partitions[i]` gives key i's partition: a partition-scoped delete on the key alone, as Flink upserts write).
 */
export function deleteByEquality(
  io: FileIO,
  location: string,
  columns: string[],
  keys: unknown[][],
  partitions?: Record<string, unknown>[],
): Promise<bigint> {
  return commitFiles(io, location, 'delete', (_md, fields, partitionNames) => {
    const byName = new Map(fields.map((f) => [f.name, f]));
    const keyFields = columns.map((c) => {
      const f = byName.get(c);
      if (!f) throw new FloeError('InvalidArgument', `equality column ${c} is not in the schema`);
      return f;
    });
    for (const p of partitionNames) {
      if (!columns.includes(p) && !partitions)
        throw new FloeError(
          'InvalidArgument',
          `equality deletes on a partitioned table must include partition column ${p}`,
        );
    }
    const groups = new Map<string, NewFile>();
    for (const [at, k] of keys.entries()) {
      const row = Object.fromEntries(columns.map((c, i) => [c, k[i]]));
      const given = partitions?.[at];
      const partition = Object.fromEntries(partitionNames.map((p) => [p, (given ?? row)[p] ?? null]));
      const key = stringifyJsonLossless(partition);
      const g = groups.get(key) ?? {
        content: 2 as const,
        rows: [],
        fields: keyFields,
        partition,
        equalityIds: keyFields.map((f) => f.id),
      };
      g.rows.push(row);
      groups.set(key, g);
    }
    return [...groups.values()];
  });
}

/** The reserved columns of a position delete file (spec "Position Delete Files"). */
const POSITION_DELETE_FIELDS: Field[] = [
  { id: 2147483546, name: 'file_path', required: true, type: { kind: 'primitive', name: 'string' } },
  { id: 2147483545, name: 'pos', required: true, type: { kind: 'primitive', name: 'long' } },
];

/**
 * Deletes rows by position, as Spark's merge-on-read DELETE does: one position delete file per data file
 * named (its partition given by the caller), rows sorted by position.
 */
export function deleteByPosition(
  io: FileIO,
  location: string,
  deletes: { path: string; partition: Record<string, unknown>; positions: readonly number[] }[],
): Promise<bigint> {
  return commitFiles(io, location, 'delete', () =>
    deletes
      .filter((d) => d.positions.length > 0)
      .map((d) => ({
        content: 1 as const,
        rows: [...d.positions].sort((a, b) => a - b).map((p) => ({ file_path: d.path, pos: BigInt(p) })),
        fields: POSITION_DELETE_FIELDS,
        partition: d.partition,
      })),
  );
}

async function commitFiles(
  io: FileIO,
  location: string,
  operation: 'append' | 'delete',
  make: (md: RawMetadata, fields: Field[], partitionNames: string[]) => NewFile[],
): Promise<bigint> {
  const loc = location.replace(/\/+$/, '');
  const ops = new FilesystemTableOperations(io, `${loc}/metadata`);
  return commitTransaction(
    ops,
    io,
    { prepare: (base, _v, ctx) => prepareFiles(io, loc, operation, make, base, ctx) },
    { table: loc },
  );
}

/** One attempt: the data files written, one manifest naming them ahead of the parent's, the snapshot. */
async function prepareFiles(
  io: FileIO,
  loc: string,
  operation: 'append' | 'delete',
  make: (md: RawMetadata, fields: Field[], partitionNames: string[]) => NewFile[],
  base: CommitBase,
  ctx: AttemptContext,
): Promise<PreparedCommit<bigint>> {
  const typed = parseMetadata(base.metadata, base.location);
  const schema = typed.schemas.find((s) => s.schemaId === typed.currentSchemaId)!;
  const spec = typed.specs.find((s) => s.specId === typed.defaultSpecId)!;
  const partitionNames = spec.fields.map((pf) => schema.fields.find((f) => f.id === pf.sourceId)!.name);
  const files = make(base.metadata, schema.fields, partitionNames);
  const draft = draftSnapshot(base.metadata, typed.formatVersion, ctx.written);
  const entries: RawManifestEntry[] = [];
  const changes: Record<string, bigint> = {};
  const add = (k: string, n: bigint | number) => (changes[k] = (changes[k] ?? 0n) + BigInt(n));
  for (const f of files) {
    const arrowSchema = arrowSchemaForIceberg(f.fields);
    const pq = await writeParquet(tableFromRows(arrowSchema, f.rows), 'new file', { codec: 'zstd' });
    const dir = `${loc}/data${spec.fields.length ? `/${partitionNames.map((p) => `${p}=${encodeURIComponent(String(f.partition[p]))}`).join('/')}` : ''}`;
    const path = `${dir}/${randomUUID()}${['', '-pos-delete', '-eq-delete'][f.content]}.parquet`;
    await io.createNew(path, pq.bytes);
    ctx.written.push(path);
    const m = icebergMetricsFromFooter(pq.footer, f.fields, { fieldMetrics: pq.fieldMetrics });
    const encoded = (b: Map<number, unknown>) =>
      new Map([...b].map(([key, value]) => [key, encodeSingleValue(f.fields.find((x) => x.id === key)!.type, value)]));
    const file: Omit<NewContentFile, 'partitionOf'> = {
      content: f.content,
      path,
      format: 'PARQUET',
      recordCount: pq.rowCount,
      sizeBytes: pq.bytes.byteLength,
      specId: spec.specId,
      columnSizes: m.columnSizes,
      valueCounts: m.valueCounts,
      nullValueCounts: m.nullValueCounts,
      nanValueCounts: m.nanValueCounts,
      lowerBounds: encoded(m.lowerBounds),
      upperBounds: encoded(m.upperBounds),
      splitOffsets: m.splitOffsets.map((o) => BigInt(o)),
      sortOrderId: 0,
      ...(f.equalityIds ? { equalityIds: f.equalityIds } : {}),
    };
    const df = manifestDataFile(file, f.partition);
    entries.push({
      status: STATUS_ADDED,
      snapshot_id: draft.snapshotId,
      sequence_number: null,
      file_sequence_number: null,
      data_file: df,
    });
    if (f.content === 0) {
      add('added-data-files', 1);
      add('added-records', pq.rowCount);
    } else if (f.content === 1) {
      add('added-delete-files', 1);
      add('added-position-delete-files', 1);
      add('added-position-deletes', pq.rowCount);
    } else {
      add('added-delete-files', 1);
      add('added-equality-delete-files', 1);
      add('added-equality-deletes', pq.rowCount);
    }
    add('added-files-size', pq.bytes.byteLength);
  }
  const header = manifestHeaderFor(base.metadata, typed, spec.specId, base.location);
  const manifest = await writeDraftManifest(io, draft, header, operation === 'append' ? 'data' : 'deletes', entries);
  const currentId = currentSnapshotIdOf(base.metadata);
  const parent = currentId === undefined ? undefined : snapshotById(base.metadata, currentId);
  const previous = parent ? await readManifestList(io, String(parent['manifest-list'])) : [];
  const manifests = [manifest, ...previous];
  const { firstRowId, addedRows } = assignRowLineage(draft, base.metadata, manifests);
  const listPath = await writeDraftManifestList(io, draft, ctx.attempt, currentId, manifests, firstRowId);
  const summary = {
    operation,
    ...withTotals(changes, parent?.summary as Record<string, string> | undefined),
    [COMMIT_ID_PROPERTY]: draft.commitUuid,
  };
  const facts = { parentSnapshotId: currentId, manifestList: listPath, summary, schemaId: schema.schemaId };
  return preparedSnapshot(base.metadata, draft, { ...facts, firstRowId, addedRows }, Date.now, () => draft.snapshotId);
}
