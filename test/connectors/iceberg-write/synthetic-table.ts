/**
 * Builds small Iceberg v2 tables from scratch with floe's writers, for commit tests. Data files are named
 * but not written: commit logic only touches metadata.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FileIO } from '../../../connectors/storage/file-io.js';
import {
  writeManifest,
  writeManifestList,
  STATUS_ADDED,
  type RawManifestEntry,
  type RawManifestFile,
} from '../../../connectors/iceberg/write-manifest.js';
import { stringifyJsonLossless } from '../../../util/json.js';

export const SCHEMA = {
  type: 'struct',
  'schema-id': 0,
  fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'region', required: false, type: 'string' },
  ],
};

export interface SyntheticFile {
  path: string;
  region?: string;
  rows: number;
  size: number;
  content?: 0 | 1 | 2;
  equalityIds?: number[];
  referencedDataFile?: string;
}

/** Table file access for local tables whose locations are plain absolute paths. */
export function localCommitIO(_root: string): FileIO {
  return new FileIO();
}

/** Writes snapshot 1 (data files) and optionally snapshot 2 (delete files) of a v2 table; returns its location. */
export async function buildTable(
  root: string,
  opts: { partitioned: boolean; data: SyntheticFile[]; deletes?: SyntheticFile[] },
): Promise<string> {
  const loc = path.join(root, 'db', 't');
  mkdirSync(path.join(loc, 'metadata'), { recursive: true });
  const spec = opts.partitioned ? [{ name: 'region', transform: 'identity', 'source-id': 2, 'field-id': 1000 }] : [];
  const partition = opts.partitioned
    ? [{ id: 1000, name: 'region', type: { kind: 'primitive' as const, name: 'string' as const } }]
    : [];
  const entry = (f: SyntheticFile, snap: bigint): RawManifestEntry => ({
    status: STATUS_ADDED,
    snapshot_id: snap,
    sequence_number: null,
    file_sequence_number: null,
    data_file: {
      content: f.content ?? 0,
      file_path: f.path,
      file_format: 'PARQUET',
      partition: opts.partitioned ? { region: f.region ?? null } : {},
      record_count: BigInt(f.rows),
      file_size_in_bytes: BigInt(f.size),
      equality_ids: f.equalityIds ?? null,
      referenced_data_file: f.referencedDataFile ?? null,
      sort_order_id: (f.content ?? 0) === 1 ? null : 0,
    },
  });
  const snapshots: Record<string, unknown>[] = [];
  const manifests: RawManifestFile[] = [];
  const commit = async (
    snap: bigint,
    seq: bigint,
    content: 'data' | 'deletes',
    files: SyntheticFile[],
    parent?: bigint,
  ) => {
    const m = await writeManifest(
      {
        formatVersion: 2,
        specId: 0,
        specFieldsJson: spec,
        partition,
        tableSchemaJson: SCHEMA,
        content,
        entries: files.map((f) => entry(f, snap)),
        codec: { codec: 'deflate' },
      },
      snap,
      seq,
    );
    const mPath = path.join(loc, 'metadata', `m-${snap}.avro`);
    writeFileSync(mPath, m.bytes);
    manifests.push({ ...m.summary, manifest_path: mPath, manifest_length: BigInt(m.bytes.length) });
    const listPath = path.join(loc, 'metadata', `snap-${snap}.avro`);
    writeFileSync(
      listPath,
      await writeManifestList({
        formatVersion: 2,
        snapshotId: snap,
        parentSnapshotId: parent,
        sequenceNumber: seq,
        manifests: [...manifests].reverse(),
        codec: { codec: 'deflate' },
      }),
    );
    const rows = files.reduce((n, f) => n + f.rows, 0);
    snapshots.push({
      'sequence-number': seq,
      'snapshot-id': snap,
      ...(parent === undefined ? {} : { 'parent-snapshot-id': parent }),
      'timestamp-ms': 1_700_000_000_000 + Number(seq),
      summary:
        content === 'data'
          ? {
              operation: 'append',
              'added-data-files': String(files.length),
              'added-records': String(rows),
              'total-data-files': String(files.length),
              'total-records': String(rows),
              'total-delete-files': '0',
              'total-files-size': String(files.reduce((n, f) => n + f.size, 0)),
              'total-position-deletes': '0',
              'total-equality-deletes': '0',
            }
          : { operation: 'delete', 'added-delete-files': String(files.length) },
      'manifest-list': listPath,
      'schema-id': 0,
    });
  };
  // snapshot ids beyond 2^53 on purpose
  const s1 = 9_007_199_254_740_993n;
  await commit(s1, 1n, 'data', opts.data);
  let current = s1;
  let seq = 1n;
  if (opts.deletes?.length) {
    current = 9_007_199_254_740_995n;
    seq = 2n;
    await commit(current, 2n, 'deletes', opts.deletes, s1);
  }
  const metadata = {
    'format-version': 2,
    'table-uuid': '0f8f2f6e-6a35-4a0c-9a52-2f5f0c3d2a11',
    location: loc,
    'last-sequence-number': seq,
    'last-updated-ms': 1_700_000_000_000 + Number(seq),
    'last-column-id': 2,
    'current-schema-id': 0,
    schemas: [SCHEMA],
    'default-spec-id': 0,
    'partition-specs': [{ 'spec-id': 0, fields: spec }],
    'last-partition-id': opts.partitioned ? 1000 : 999,
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties: { 'commit.retry.min-wait-ms': '1' },
    'current-snapshot-id': current,
    refs: { main: { 'snapshot-id': current, type: 'branch' } },
    snapshots,
    statistics: [],
    'partition-statistics': [],
    'snapshot-log': snapshots.map((s) => ({ 'timestamp-ms': s['timestamp-ms'], 'snapshot-id': s['snapshot-id'] })),
    'metadata-log': [],
  };
  writeFileSync(path.join(loc, 'metadata', 'v1.metadata.json'), stringifyJsonLossless(metadata, 2));
  writeFileSync(path.join(loc, 'metadata', 'version-hint.text'), '1');
  return loc;
}
