/**
 * Creating Iceberg tables and appending to them: floe's demo warehouse, benchmarks and tests use it to make
 * real tables (Parquet data with field ids and metrics, equality deletes as Flink writes them) without a
 * JVM. Commits go through the same filesystem publication as compaction: create-if-absent of the next
 * `v<N>.metadata.json`, retried (commit.retry.*) when another writer got there first; files of a commit whose
 * state is unknown are kept.
 */
import { randomUUID } from 'node:crypto';
import { FloeError } from '../../src/errors.js';
import { icebergCommitRetryPolicy, runCommitLoop } from '../../src/util/commit-retry.js';
import { COMMIT_ID_PROPERTY } from './commit-id.js';
import { isCommitStateUnknown } from './commit-state.js';
import type { Field } from '../../src/model/index.js';
import { stringifyJsonLossless, toBigInt } from '../../src/util/json.js';
import {
  arrowSchemaForIceberg,
  icebergMetricsFromFooter,
  tableFromRows,
  writeParquet,
} from '../formats/parquet/index.js';
import {
  currentSnapshotIdOf,
  newSnapshotId,
  nextMetadata,
  snapshotById,
  snapshotsOf,
  withTotals,
  type RawMetadata,
} from './commit-metadata.js';
import { FilesystemTableOperations, publishMetadataFile } from './commit-ops.js';
import { parseMetadata } from './metadata.js';
import { encodeSingleValue } from './write-bounds.js';
import {
  STATUS_ADDED,
  assignFirstRowIds,
  avroCodecFromProperty,
  normalizeManifestFile,
  writeManifest,
  writeManifestList,
  type RawDataFile,
  type RawManifestEntry,
} from './write-manifest.js';
import { partitionType } from './write-schemas.js';
import { readAvroContainer } from '../formats/avro.js';
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
  content: 0 | 2;
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
 * when the table is partitioned — the partition columns must then be among `columns`).
 */
export function deleteByEquality(io: FileIO, location: string, columns: string[], keys: unknown[][]): Promise<bigint> {
  return commitFiles(io, location, 'delete', (_md, fields, partitionNames) => {
    const byName = new Map(fields.map((f) => [f.name, f]));
    const keyFields = columns.map((c) => {
      const f = byName.get(c);
      if (!f) throw new FloeError('InvalidArgument', `equality column ${c} is not in the schema`);
      return f;
    });
    for (const p of partitionNames) {
      if (!columns.includes(p))
        throw new FloeError(
          'InvalidArgument',
          `equality deletes on a partitioned table must include partition column ${p}`,
        );
    }
    const groups = new Map<string, NewFile>();
    for (const k of keys) {
      const row = Object.fromEntries(columns.map((c, i) => [c, k[i]]));
      const partition = Object.fromEntries(partitionNames.map((p) => [p, row[p] ?? null]));
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

async function commitFiles(
  io: FileIO,
  location: string,
  operation: 'append' | 'delete',
  make: (md: RawMetadata, fields: Field[], partitionNames: string[]) => NewFile[],
): Promise<bigint> {
  const loc = location.replace(/\/+$/, '');
  const ops = new FilesystemTableOperations(io, `${loc}/metadata`);
  const first = await ops.refresh();
  const policy = icebergCommitRetryPolicy((first.metadata.properties as Record<string, string> | undefined) ?? {}, loc);
  let base = first;
  return runCommitLoop(policy, async (attempt) => {
    if (attempt > 1) base = await ops.refresh();
    const typed = parseMetadata(base.metadata, base.location);
    const schema = typed.schemas.find((s) => s.schemaId === typed.currentSchemaId)!;
    const spec = typed.specs.find((s) => s.specId === typed.defaultSpecId)!;
    const partitionNames = spec.fields.map((pf) => schema.fields.find((f) => f.id === pf.sourceId)!.name);
    const files = make(base.metadata, schema.fields, partitionNames);
    const v = typed.formatVersion;
    const snapshotId = newSnapshotId(snapshotsOf(base.metadata).map((s) => toBigInt(s['snapshot-id'], 'snapshot-id')));
    const seq = typed.lastSequenceNumber + 1n;
    const written: string[] = [];
    try {
      const entries: RawManifestEntry[] = [];
      const changes: Record<string, bigint> = {};
      const add = (k: string, n: bigint | number) => (changes[k] = (changes[k] ?? 0n) + BigInt(n));
      for (const f of files) {
        const arrowSchema = arrowSchemaForIceberg(f.fields);
        const pq = await writeParquet(tableFromRows(arrowSchema, f.rows), 'new file', { codec: 'zstd' });
        const dir = `${loc}/data${spec.fields.length ? `/${partitionNames.map((p) => `${p}=${encodeURIComponent(String(f.partition[p]))}`).join('/')}` : ''}`;
        const path = `${dir}/${randomUUID()}${f.content === 2 ? '-eq-delete' : ''}.parquet`;
        await io.createNew(path, pq.bytes);
        written.push(path);
        const m = icebergMetricsFromFooter(pq.footer, f.fields, { fieldMetrics: pq.fieldMetrics });
        const bounds = (b: Map<number, unknown>) =>
          [...b]
            .map(([key, value]) => ({ key, value: encodeSingleValue(f.fields.find((x) => x.id === key)!.type, value) }))
            .sort((a, b2) => a.key - b2.key);
        const counts = (c: Map<number, bigint>) =>
          [...c].map(([key, value]) => ({ key, value })).sort((a, b2) => a.key - b2.key);
        const df: RawDataFile = {
          content: f.content,
          file_path: path,
          file_format: 'PARQUET',
          partition: f.partition,
          record_count: BigInt(pq.rowCount),
          file_size_in_bytes: BigInt(pq.bytes.byteLength),
          column_sizes: counts(m.columnSizes),
          value_counts: counts(m.valueCounts),
          null_value_counts: counts(m.nullValueCounts),
          nan_value_counts: counts(m.nanValueCounts),
          lower_bounds: bounds(m.lowerBounds),
          upper_bounds: bounds(m.upperBounds),
          key_metadata: null,
          split_offsets: m.splitOffsets.map((o) => BigInt(o)),
          equality_ids: f.equalityIds ?? null,
          sort_order_id: 0,
        };
        entries.push({
          status: STATUS_ADDED,
          snapshot_id: snapshotId,
          sequence_number: null,
          file_sequence_number: null,
          data_file: df,
        });
        if (f.content === 0) {
          add('added-data-files', 1);
          add('added-records', pq.rowCount);
        } else {
          add('added-delete-files', 1);
          add('added-equality-delete-files', 1);
          add('added-equality-deletes', pq.rowCount);
        }
        add('added-files-size', pq.bytes.byteLength);
      }
      const partition = partitionType(spec, schema);
      const codec = avroCodecFromProperty(typed.properties['write.manifest.compression-codec']);
      const specFieldsJson =
        ((base.metadata['partition-specs'] as RawMetadata[] | undefined)?.find(
          (s) => Number(s['spec-id']) === spec.specId,
        )?.fields as unknown[]) ?? [];
      const schemaJson = (base.metadata.schemas as RawMetadata[]).find(
        (s) => Number(s['schema-id']) === schema.schemaId,
      );
      const uuid = randomUUID();
      const manifest = await writeManifest(
        {
          formatVersion: v,
          specId: spec.specId,
          specFieldsJson,
          partition,
          tableSchemaJson: schemaJson,
          content: operation === 'append' ? 'data' : 'deletes',
          entries,
          codec,
        },
        snapshotId,
        v >= 2 ? seq : 0n,
      );
      const mPath = `${loc}/metadata/${uuid}-m0.avro`;
      await io.createNew(mPath, manifest.bytes);
      written.push(mPath);
      const currentId = currentSnapshotIdOf(base.metadata);
      const parent = currentId === undefined ? undefined : snapshotById(base.metadata, currentId);
      const previous = parent
        ? readAvroContainer(
            await io.read(String(parent['manifest-list'])),
            String(parent['manifest-list']),
          ).records.map((r) => normalizeManifestFile(r))
        : [];
      const manifests = [
        { ...manifest.summary, manifest_path: mPath, manifest_length: BigInt(manifest.bytes.length) },
        ...previous,
      ];
      let firstRowId: bigint | undefined;
      let addedRows = 0n;
      if (v >= 3) ({ firstRowId, addedRows } = assignFirstRowIds(manifests, typed.nextRowId ?? 0n));
      const listPath = `${loc}/metadata/snap-${snapshotId}-${attempt}-${uuid}.avro`;
      await io.createNew(
        listPath,
        await writeManifestList({
          formatVersion: v,
          snapshotId,
          parentSnapshotId: currentId,
          sequenceNumber: v >= 2 ? seq : 0n,
          firstRowId,
          manifests,
          codec,
        }),
      );
      written.push(listPath);
      const summary = {
        operation,
        ...withTotals(changes, parent?.summary as Record<string, string> | undefined),
        [COMMIT_ID_PROPERTY]: uuid,
      };
      const next = nextMetadata(base.metadata, base.location, {
        snapshotId,
        parentSnapshotId: currentId,
        sequenceNumber: seq,
        timestampMs: Math.max(Date.now(), typed.lastUpdatedMs + 1),
        manifestList: listPath,
        summary,
        schemaId: schema.schemaId,
        firstRowId,
        addedRows,
      });
      await ops.commit(base, next);
      return snapshotId;
    } catch (e) {
      // a commit whose state is unknown may reference these files: keep them
      if (!isCommitStateUnknown(e)) await Promise.all(written.map((w) => io.remove(w).catch(() => undefined)));
      throw e;
    }
  });
}
