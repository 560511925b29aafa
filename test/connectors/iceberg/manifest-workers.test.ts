/**
 * Manifests decoded in worker threads (connectors/iceberg/manifest-workers.ts, issue 11.6) give the same
 * table model as the in-thread reader: every file, stat and sequence number equal, in the same order —
 * on every snapshot of every real Iceberg fixture table and on a generated multi-manifest table (data and
 * delete manifests, inherited and explicit sequence numbers, EXISTING/DELETED entries, files with and
 * without stats). A corrupt or missing manifest fails with the same FloeError kind, message and context.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ContentFile, Field, FieldType } from '../../../model/index.js';
import { liveFilesOf, type SnapshotFiles } from '../../../connectors/iceberg/manifests.js';
import { PackedColumnStats } from '../../../connectors/iceberg/packed-stats.js';
import { loadTableModel, openIcebergTable } from '../../../connectors/iceberg/table.js';
import { findSnapshot } from '../../../connectors/iceberg/metadata.js';
import {
  STATUS_ADDED,
  STATUS_DELETED,
  STATUS_EXISTING,
  writeManifest,
  writeManifestList,
  type RawManifestEntry,
  type RawManifestFile,
} from '../../../connectors/iceberg/write-manifest.js';
import { encodeSingleValue } from '../../../connectors/iceberg/write-bounds.js';
import { stringifyJsonLossless } from '../../../util/json.js';
import { fixtures } from './helpers.js';

function icebergFixtures(): string[] {
  const manifest = path.join(fixtures, 'MANIFEST.json');
  // The fixtures are part of the test environment: without them this test must fail, not pass empty.
  if (!existsSync(manifest)) throw new Error(`real-table fixtures missing: ${manifest} not found`);
  const tables = (JSON.parse(readFileSync(manifest, 'utf8')) as { tables: { path: string; format: string }[] }).tables;
  return tables.filter((t) => t.format === 'iceberg').map((t) => t.path);
}

/** A file with its stats as plain maps (PackedColumnStats decode on access), everything else as it is. */
function plain(f: ContentFile): unknown {
  const r = f as unknown as Record<string, unknown>;
  if (!(r.stats instanceof PackedColumnStats)) return r;
  return { ...r, stats: r.stats.toPlain() };
}

async function outcome(p: Promise<SnapshotFiles>): Promise<unknown> {
  try {
    const s = await p;
    return { data: s.dataFiles.map(plain), deletes: s.deleteFiles.map(plain), manifests: s.manifests };
  } catch (e) {
    const f = e as Error & { kind?: string; context?: unknown };
    return { error: { name: f.name, kind: f.kind, message: f.message, context: f.context } };
  }
}

describe('manifests decoded in worker threads', () => {
  // Current snapshots only: each comparison starts worker threads (a second or so from sources).
  it('give the in-thread model on the current snapshot of every real fixture table', async () => {
    const tables = icebergFixtures();
    expect(tables.length).toBeGreaterThanOrEqual(10);
    let snapshots = 0;
    let files = 0;
    let withStats = 0;
    for (const rel of tables) {
      const table = await openIcebergTable(path.join(fixtures, rel));
      const md = table.metadata;
      for (const snap of md.snapshots.filter((s) => s.snapshotId === md.currentSnapshotId)) {
        const inThread = await outcome(liveFilesOf(table.io, md, snap, undefined, { workers: 0 }));
        const inWorkers = await outcome(liveFilesOf(table.io, md, snap, undefined, { workers: 1 }));
        expect(inWorkers, `${rel} snapshot ${snap.snapshotId}`).toStrictEqual(inThread);
        snapshots++;
        const o = inThread as { data?: { stats?: unknown }[]; deletes?: unknown[]; error?: unknown };
        expect(o.error, `${rel}`).toBeUndefined();
        files += (o.data?.length ?? 0) + (o.deletes?.length ?? 0);
        withStats += o.data?.filter((f) => f.stats !== undefined).length ?? 0;
      }
    }
    // the comparison ran over real content
    expect(snapshots).toBeGreaterThanOrEqual(10);
    expect(files).toBeGreaterThanOrEqual(40);
    expect(withStats).toBeGreaterThanOrEqual(20);
  }, 120_000);

  const dir = mkdtempSync(path.join(tmpdir(), 'floe-manifest-workers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const generated = buildTable(dir, 40, 60);

  it('give the in-thread model on a generated multi-manifest table, through loadTableModel too', async () => {
    const mdPath = await generated;
    const table = await openIcebergTable(mdPath);
    const snap = findSnapshot(table.metadata, table.metadata.currentSnapshotId!);
    const inThread = await liveFilesOf(table.io, table.metadata, snap, undefined, { workers: 0 });
    const inWorkers = await liveFilesOf(table.io, table.metadata, snap, undefined, { workers: 2 });
    expect(inWorkers.dataFiles.map(plain)).toStrictEqual(inThread.dataFiles.map(plain));
    expect(inWorkers.deleteFiles.map(plain)).toStrictEqual(inThread.deleteFiles.map(plain));
    // what the generator wrote: 40 × 60 entries, every 7th deleted, plus 2 delete manifests
    const live = 40 * 60 - Math.floor((40 * 60 - 1) / 7) - 1;
    expect(inThread.dataFiles).toHaveLength(live);
    expect(inThread.deleteFiles).toHaveLength(2 * 30);
    expect(new Set(inThread.dataFiles.map((f) => f.dataSequenceNumber)).size).toBeGreaterThan(1);
    expect(inThread.deleteFiles.map((f) => f.content)).toContain('equality-deletes');
    expect(inThread.deleteFiles.map((f) => f.content)).toContain('position-deletes');
    // packed stats decode to the same values, bounds included
    const f = inWorkers.dataFiles.find((d) => d.path.endsWith('/f-6-é.parquet'))!;
    expect(f.stats?.lowerBounds?.get(3)).toBe('order 6 a');
    expect(f.stats?.valueCounts?.get(1)).toBe(16n);

    const viaModel = await loadTableModel(table, undefined, { workers: 2 });
    expect(viaModel.dataFiles.map(plain)).toStrictEqual(inThread.dataFiles.map(plain));
    expect(viaModel.deleteFiles.map(plain)).toStrictEqual(inThread.deleteFiles.map(plain));
  }, 60_000);

  it('fail on a corrupt or missing manifest with the in-thread error', async () => {
    const mdPath = await generated;
    const table = await openIcebergTable(mdPath);
    const snap = findSnapshot(table.metadata, table.metadata.currentSnapshotId!);
    const run = (workers: number) => outcome(liveFilesOf(table.io, table.metadata, snap, undefined, { workers }));
    const victim = path.join(dir, 'metadata', 'm-17.avro');
    const good = readFileSync(victim);

    // a damaged block (deflate cannot inflate it)
    const bad = Buffer.from(good);
    for (let i = bad.length - 200; i < bad.length - 40; i++) bad[i] = bad[i]! ^ 0x5a;
    writeFileSync(victim, bad);
    const corrupt = await run(0);
    expect(corrupt).toMatchObject({ error: { kind: 'Corrupt' } });
    expect((corrupt as { error: { message: string } }).error.message).toContain(victim);
    expect(await run(2)).toStrictEqual(corrupt);

    // a record that ends past its block (truncated file)
    writeFileSync(victim, good.subarray(0, good.length - 300));
    const truncated = await run(0);
    expect(truncated).toMatchObject({ error: { kind: 'Corrupt' } });
    expect(await run(2)).toStrictEqual(truncated);

    unlinkSync(victim);
    const missing = await run(0);
    expect(missing).toMatchObject({ error: { kind: 'NotFound' } });
    expect((missing as { error: { message: string } }).error.message).toContain('m-17.avro');
    expect(await run(2)).toStrictEqual(missing);
    writeFileSync(victim, good);
  }, 60_000);
});

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'region', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 3, name: 'note', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 4, name: 'day', required: true, type: { kind: 'primitive', name: 'int' } },
];
const SCHEMA_JSON = {
  type: 'struct',
  'schema-id': 0,
  fields: FIELDS.map((f) => ({
    id: f.id,
    name: f.name,
    required: f.required,
    type: (f.type as { name: string }).name,
  })),
};
const SPEC = [{ name: 'day', transform: 'identity', 'source-id': 4, 'field-id': 1000 }];
const kv = <T>(pairs: [number, T][]) => pairs.map(([key, value]) => ({ key, value }));
const bound = (t: FieldType, v: unknown) => encodeSingleValue(t, v);

function dataEntry(i: number, dir: string): RawManifestEntry {
  const rows = 10 + (i % 13);
  const day = i % 9;
  // every 5th file has no stats, every 3rd two row groups, every 7th is deleted, every 4th carried over
  const stats =
    i % 5 === 4
      ? {}
      : {
          column_sizes: kv([1, 2, 3].map((id) => [id, BigInt(100 * id + i)] as [number, bigint])),
          value_counts: kv([1, 2, 3].map((id) => [id, BigInt(rows)] as [number, bigint])),
          null_value_counts: kv([[3, BigInt(i % 2)]]),
          lower_bounds: kv([
            [1, bound(FIELDS[0]!.type, BigInt(i) * 1000n)],
            [3, bound(FIELDS[2]!.type, `order ${i} a`)],
          ]),
          upper_bounds: kv([
            [1, bound(FIELDS[0]!.type, BigInt(i) * 1000n + BigInt(rows))],
            [3, bound(FIELDS[2]!.type, `order ${i} zz`)],
          ]),
        };
  const status = i % 7 === 0 ? STATUS_DELETED : i % 4 === 1 ? STATUS_EXISTING : STATUS_ADDED;
  const explicit = status !== STATUS_ADDED || i % 2 === 0;
  return {
    status,
    snapshot_id: status === STATUS_ADDED && i % 3 === 0 ? null : 2n,
    sequence_number: explicit ? 1n + BigInt(i % 2) : null,
    file_sequence_number: explicit ? 2n : null,
    data_file: {
      content: 0,
      file_path: `${dir}/data/day=${day}/f-${i}-é.parquet`,
      file_format: 'PARQUET',
      partition: { day },
      record_count: BigInt(rows),
      file_size_in_bytes: BigInt(1000 + i),
      ...stats,
      split_offsets: i % 3 === 0 ? [4n, 5000n] : [4n],
      sort_order_id: i % 6 === 0 ? null : 0,
    },
  };
}

function deleteEntry(i: number, dir: string): RawManifestEntry {
  const eq = i % 2 === 0;
  return {
    status: STATUS_ADDED,
    snapshot_id: null,
    sequence_number: null,
    file_sequence_number: null,
    data_file: {
      content: eq ? 2 : 1,
      file_path: `${dir}/data/day=${i % 9}/d-${i}.parquet`,
      file_format: 'PARQUET',
      partition: { day: i % 9 },
      record_count: BigInt(1 + i),
      file_size_in_bytes: BigInt(500 + i),
      ...(eq
        ? { equality_ids: [1, 3] }
        : i % 4 === 1
          ? { referenced_data_file: `${dir}/data/day=${i % 9}/f-${i}-é.parquet` }
          : {}),
      value_counts: kv([[1, BigInt(1 + i)]]),
    },
  };
}

async function buildTable(dir: string, manifests: number, perManifest: number): Promise<string> {
  const meta = path.join(dir, 'metadata');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(meta, { recursive: true });
  const partition = [{ id: 1000, name: 'day', type: FIELDS[3]!.type }];
  const list: RawManifestFile[] = [];
  const write = async (name: string, content: 'data' | 'deletes', entries: RawManifestEntry[]) => {
    const out = await writeManifest(
      {
        formatVersion: 2,
        specId: 0,
        specFieldsJson: SPEC,
        partition,
        tableSchemaJson: SCHEMA_JSON,
        content,
        entries,
        codec: { codec: 'deflate' },
      },
      3n,
      3n,
    );
    const p = path.join(meta, name);
    writeFileSync(p, out.bytes);
    list.push({ ...out.summary, manifest_path: p, manifest_length: BigInt(out.bytes.length) });
  };
  for (let m = 0, i = 0; m < manifests; m++) {
    const entries: RawManifestEntry[] = [];
    for (let k = 0; k < perManifest; k++, i++) entries.push(dataEntry(i, dir));
    await write(`m-${m}.avro`, 'data', entries);
  }
  for (let m = 0; m < 2; m++) {
    const entries: RawManifestEntry[] = [];
    for (let k = 0; k < 30; k++) entries.push(deleteEntry(m * 30 + k, dir));
    await write(`d-${m}.avro`, 'deletes', entries);
  }
  const listPath = path.join(meta, 'snap-3.avro');
  writeFileSync(
    listPath,
    await writeManifestList({
      formatVersion: 2,
      snapshotId: 3n,
      parentSnapshotId: undefined,
      sequenceNumber: 3n,
      manifests: list,
      codec: { codec: 'deflate' },
    }),
  );
  const metadata = {
    'format-version': 2,
    'table-uuid': '5f0c1a57-0000-4000-8000-0000000000aa',
    location: dir,
    'last-sequence-number': 3,
    'last-updated-ms': 1_700_000_000_000,
    'last-column-id': FIELDS.length,
    'current-schema-id': 0,
    schemas: [SCHEMA_JSON],
    'default-spec-id': 0,
    'partition-specs': [{ 'spec-id': 0, fields: SPEC }],
    'last-partition-id': 1000,
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties: {},
    'current-snapshot-id': 3,
    refs: { main: { 'snapshot-id': 3, type: 'branch' } },
    snapshots: [
      {
        'sequence-number': 3,
        'snapshot-id': 3,
        'timestamp-ms': 1_700_000_000_000,
        summary: { operation: 'append' },
        'manifest-list': listPath,
        'schema-id': 0,
      },
    ],
    'snapshot-log': [],
    'metadata-log': [],
  };
  const mdPath = path.join(meta, 'v1.metadata.json');
  writeFileSync(mdPath, stringifyJsonLossless(metadata, 2));
  return mdPath;
}
