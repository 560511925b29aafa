/**
 * The steps every snapshot floe commits on top of an Iceberg table shares (compaction's `replace` in
 * commit-rewrite.ts and `floe rewrite-manifests`): a fresh snapshot id and sequence number, manifests and a
 * manifest list written create-if-absent under the table's metadata directory, v3 row lineage, and the
 * commit timestamp. Each written path is recorded so a failed attempt can remove what it wrote.
 */
import { randomUUID } from 'node:crypto';
import { FloeError } from '../../util/errors.js';
import { toBigInt } from '../../util/json.js';
import type { PartitionSpec, Schema } from '../../model/index.js';
import { readAvroContainer } from '../formats/avro.js';
import { newSnapshotChange, newSnapshotId, snapshotsOf, type RawMetadata } from './commit-metadata.js';
import {
  assignFirstRowIds,
  avroCodecFromProperty,
  normalizeManifestFile,
  writeManifest,
  writeManifestList,
  type ManifestWriteInput,
  type RawDataFile,
  type RawManifestEntry,
  type RawManifestFile,
} from './write-manifest.js';
import { partitionType } from './write-schemas.js';
import type { IcebergMetadata } from './metadata.js';
import type { CommitIO, PreparedCommit } from './transaction.js';

/** The identity of the snapshot an attempt writes, and where and how its manifests go. */
export interface SnapshotDraft {
  formatVersion: number;
  snapshotId: bigint;
  sequenceNumber: bigint;
  /** What new manifests record: the snapshot's sequence number on v2+, 0 on v1 (which has none). */
  manifestSequenceNumber: bigint;
  commitUuid: string;
  metadataDir: string;
  codec: ManifestWriteInput['codec'];
  /** Every file this draft wrote, for the attempt's cleanup. */
  written: string[];
  /** Manifests written so far, numbering their file names. */
  manifestCount: number;
}

export function draftSnapshot(meta: RawMetadata, formatVersion: number, written: string[]): SnapshotDraft {
  const props = (meta.properties as Record<string, string> | undefined) ?? {};
  const sequenceNumber = toBigInt(meta['last-sequence-number'] ?? 0, 'last-sequence-number') + 1n;
  return {
    formatVersion,
    snapshotId: newSnapshotId(snapshotsOf(meta).map((s) => toBigInt(s['snapshot-id'], 'snapshot-id'))),
    sequenceNumber,
    manifestSequenceNumber: formatVersion >= 2 ? sequenceNumber : 0n,
    commitUuid: randomUUID(),
    metadataDir: (props['write.metadata.path'] ?? `${String(meta.location).replace(/\/$/, '')}/metadata`).replace(
      /\/$/,
      '',
    ),
    codec: avroCodecFromProperty(props['write.manifest.compression-codec']),
    written,
    manifestCount: 0,
  };
}

export async function readManifestList(io: Pick<CommitIO, 'read'>, location: string): Promise<RawManifestFile[]> {
  return readAvroContainer(await io.read(location), location).records.map((r) => normalizeManifestFile(r));
}

/** What a manifest of one partition spec says about the table in its header. */
export type ManifestHeader = Pick<ManifestWriteInput, 'specId' | 'specFieldsJson' | 'partition' | 'tableSchemaJson'>;

/** `where` (the metadata file) is what a message about missing schemas or specs names. */
export function manifestHeaderFor(
  meta: RawMetadata,
  typed: IcebergMetadata,
  specId: number,
  where: string,
): ManifestHeader {
  const spec = typed.specs.find((x) => x.specId === specId);
  if (!spec) throw new FloeError('Corrupt', `partition spec ${specId} is missing from ${where}`);
  const schema = typed.schemas.find((x) => x.schemaId === typed.currentSchemaId);
  if (!schema) throw new FloeError('Corrupt', `current schema ${typed.currentSchemaId} is missing from ${where}`);
  return {
    specId,
    specFieldsJson: specFieldsJsonOf(meta, spec),
    partition: partitionType(spec, schemaWithAllFields(typed.schemas, schema)),
    tableSchemaJson: schemaJsonOf(meta, typed.currentSchemaId),
  };
}

/** Writes one manifest of the draft (create-if-absent) and returns its manifest-list record. */
export async function writeDraftManifest(
  io: Pick<CommitIO, 'createNew'>,
  draft: SnapshotDraft,
  header: ManifestHeader,
  content: 'data' | 'deletes',
  entries: RawManifestEntry[],
): Promise<RawManifestFile> {
  const out = await writeManifest(
    { ...header, formatVersion: draft.formatVersion, content, entries, codec: draft.codec },
    draft.snapshotId,
    draft.manifestSequenceNumber,
  );
  const path = `${draft.metadataDir}/${draft.commitUuid}-m${draft.manifestCount++}.avro`;
  await io.createNew(path, out.bytes);
  draft.written.push(path);
  return { ...out.summary, manifest_path: path, manifest_length: BigInt(out.bytes.length) };
}

/** v3 row lineage: data manifests without first_row_id get one, advancing the table's next-row-id. */
export function assignRowLineage(
  draft: SnapshotDraft,
  meta: RawMetadata,
  manifests: RawManifestFile[],
): { firstRowId: bigint | undefined; addedRows: bigint } {
  if (draft.formatVersion < 3) return { firstRowId: undefined, addedRows: 0n };
  return assignFirstRowIds(manifests, toBigInt(meta['next-row-id'] ?? 0, 'next-row-id'));
}

/** Writes the draft's manifest list (create-if-absent, named per attempt) and returns its location. */
export async function writeDraftManifestList(
  io: Pick<CommitIO, 'createNew'>,
  draft: SnapshotDraft,
  attempt: number,
  parentSnapshotId: bigint | undefined,
  manifests: RawManifestFile[],
  firstRowId: bigint | undefined,
): Promise<string> {
  const listPath = `${draft.metadataDir}/snap-${draft.snapshotId}-${attempt}-${draft.commitUuid}.avro`;
  const bytes = await writeManifestList({
    formatVersion: draft.formatVersion,
    snapshotId: draft.snapshotId,
    parentSnapshotId,
    sequenceNumber: draft.manifestSequenceNumber,
    ...(firstRowId !== undefined ? { firstRowId } : {}),
    manifests,
    codec: draft.codec,
  });
  await io.createNew(listPath, bytes);
  draft.written.push(listPath);
  return listPath;
}

/** What a draft's snapshot says besides its identity: its parent, manifest list, summary and row lineage. */
export interface DraftSnapshotFacts {
  parentSnapshotId: bigint | undefined;
  manifestList: string;
  summary: Record<string, string>;
  schemaId: number | undefined;
  firstRowId: bigint | undefined;
  addedRows: bigint;
}

/**
 * The draft's snapshot as a prepared commit: add-snapshot + set-snapshot-ref main (newSnapshotChange),
 * timestamped now but never before the base's last update; `result` answers once it is published.
 */
export function preparedSnapshot<R>(
  meta: RawMetadata,
  draft: SnapshotDraft,
  facts: DraftSnapshotFacts,
  now: () => number,
  result: (metadataLocation: string | undefined) => R,
): PreparedCommit<R> {
  const timestampMs = commitTimestampMs(meta, now);
  const change = newSnapshotChange(meta, {
    ...facts,
    snapshotId: draft.snapshotId,
    sequenceNumber: draft.sequenceNumber,
    timestampMs,
  });
  return { ...change, timestampMs, result };
}

/** A snapshot's timestamp: now, but never before the metadata's last update (timestamps must not go back). */
export function commitTimestampMs(meta: RawMetadata, now: () => number): number {
  return Math.max(now(), Number(meta['last-updated-ms'] ?? 0) + 1);
}

function stableValue(v: unknown): string {
  if (typeof v === 'bigint') return `${v}n`;
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return `0x${Buffer.from(v).toString('hex')}`;
  return JSON.stringify(v) ?? 'null';
}

/** A raw data file's partition tuple as a comparable string (`name=value/…`, bigint and bytes spelled apart). */
export function rawPartitionKey(df: RawDataFile): string {
  return Object.entries(df.partition ?? {})
    .map(([k, v]) => `${k}=${stableValue(v)}`)
    .join('/');
}

/** The schema JSON object as the metadata spells it (v1 tables carry a single `schema`). */
function schemaJsonOf(meta: RawMetadata, schemaId: number): unknown {
  const list = meta.schemas as Record<string, unknown>[] | undefined;
  const found = list?.find((s) => Number(s['schema-id'] ?? 0) === schemaId);
  return found ?? meta.schema;
}

/** The spec's fields array in PartitionSpecParser.toJsonFields form, for the manifest header. */
function specFieldsJsonOf(meta: RawMetadata, spec: PartitionSpec): unknown[] {
  const list = meta['partition-specs'] as Record<string, unknown>[] | undefined;
  const found = list?.find((s) => Number(s['spec-id']) === spec.specId);
  if (found) return found.fields as unknown[];
  if (Array.isArray(meta['partition-spec'])) return meta['partition-spec'] as unknown[]; // v1's single spec
  return spec.fields.map((f) => ({
    name: f.name,
    transform: f.transform,
    'source-id': f.sourceId,
    'field-id': f.fieldId,
  }));
}

/** A partition source column may have been dropped from the current schema; older schemas still know it. */
function schemaWithAllFields(all: Schema[], current: Schema): Schema {
  const ids = new Set(current.fields.map((f) => f.id));
  const extra = all.flatMap((s) => s.fields).filter((f) => !ids.has(f.id) && (ids.add(f.id), true));
  return { ...current, fields: [...current.fields, ...extra] };
}
