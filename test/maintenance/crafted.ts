/**
 * Crafted tables for the delete-confinement tests: a small local Iceberg table (two snapshots, the older
 * one expirable) whose metadata names files outside the table in one chosen way, and a copy of the
 * Java-written Paimon table pk_09 tampered the same way. "Victim" files live beside the table; a correct
 * floe never deletes them.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringifyJsonLossless } from '../../util/json.js';
import {
  STATUS_ADDED,
  writeManifest,
  writeManifestList,
  type RawManifestEntry,
  type RawManifestFile,
} from '../../connectors/iceberg/write-manifest.js';
import { FileIO } from '../../connectors/storage/index.js';
import { readManifest, readManifestList } from '../../connectors/paimon/manifest.js';
import {
  ManifestNamer,
  manifestCodec,
  writeManifest as writePaimonManifest,
  writeManifestList as writePaimonManifestList,
} from '../../connectors/paimon/write-manifest.js';
import { readSchema, listSchemaIds } from '../../connectors/paimon/metadata.js';

export const SCHEMA = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] };
export const T0 = 1_700_000_000_000;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.resolve(repoRoot, '../shared/fixtures');

export function tempRoot(temps: string[]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'floe-confine-'));
  temps.push(root);
  return root;
}

export function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(path.join(dir, d.name)) : [path.join(dir, d.name)],
  );
}

/** A file with some bytes (parents created). */
export function plant(file: string, text = 'must survive'): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

export type IcebergCraft =
  | 'absolute path'
  | 'file:// URI'
  | 'data/../../x'
  | 'relative path'
  | 'manifest list outside'
  | 'manifest outside'
  | 'statistics file outside';
export const ICEBERG_CRAFTS: IcebergCraft[] = [
  'absolute path',
  'file:// URI',
  'data/../../x',
  'relative path',
  'manifest list outside',
  'manifest outside',
  'statistics file outside',
];

export interface CraftedIceberg {
  root: string;
  /** Table directory (metadata names it as its location unless `location` was given). */
  table: string;
  /** The file outside the table that the crafted metadata names. */
  victim: string;
  /** Data file of the expired snapshot, inside the table (its deletion shows cleanup still works). */
  expiredData: string;
  /** Manifest list and manifest of the expired snapshot when they are inside the table. */
  expiredInside: string[];
  /** Files the current snapshot needs. */
  live: string[];
  /** Working directory to run floe in (relative paths resolve against it). */
  cwd: string;
}

async function manifestFile(file: string, snapshotId: bigint, seq: bigint, paths: string[]): Promise<RawManifestFile> {
  const entries: RawManifestEntry[] = paths.map((p) => ({
    status: STATUS_ADDED,
    snapshot_id: snapshotId,
    sequence_number: null,
    file_sequence_number: null,
    data_file: {
      content: 0,
      file_path: p,
      file_format: 'PARQUET',
      partition: {},
      record_count: 1n,
      file_size_in_bytes: 12n,
      sort_order_id: 0,
    },
  }));
  const out = await writeManifest(
    {
      formatVersion: 2,
      specId: 0,
      specFieldsJson: [],
      partition: [],
      tableSchemaJson: SCHEMA,
      content: 'data',
      entries,
      codec: { codec: 'null' },
    },
    snapshotId,
    seq,
  );
  plant(file);
  writeFileSync(file, out.bytes);
  return { ...out.summary, manifest_path: file, manifest_length: BigInt(out.bytes.length) };
}

async function manifestList(
  file: string,
  snapshotId: bigint,
  parent: bigint | undefined,
  seq: bigint,
  manifests: RawManifestFile[],
): Promise<void> {
  plant(file);
  writeFileSync(
    file,
    await writeManifestList({
      formatVersion: 2,
      snapshotId,
      parentSnapshotId: parent,
      sequenceNumber: seq,
      manifests,
      codec: { codec: 'null' },
    }),
  );
}

/**
 * Builds `<root>/t`: snapshot 1 (old; expires with retainLast 1) and snapshot 2 (current). The crafted
 * detail is in snapshot 1. `location` overrides the location the metadata names (a relocated table: every
 * path in the metadata then starts with it, and the files live under `<root>/t`).
 */
export async function craftIceberg(
  root: string,
  craft: IcebergCraft | 'none',
  options: { location?: string; properties?: Record<string, string> } = {},
): Promise<CraftedIceberg> {
  const table = path.join(root, 't');
  const loc = options.location ?? table;
  const named = (rel: string) => `${loc}/${rel}`; // how the metadata spells a table file
  const onDisk = (rel: string) => path.join(table, rel);
  const outside = path.join(root, 'outside');
  const cwd = path.join(root, 'cwd');
  mkdirSync(cwd, { recursive: true });
  let victim = '';
  const expiredPaths = [named('data/d1.parquet')];
  plant(onDisk('data/d1.parquet'), 'data file 1 ');
  plant(onDisk('data/d2.parquet'), 'data file 2 ');
  switch (craft) {
    case 'absolute path':
      victim = plant(path.join(outside, 'abs.parquet'));
      expiredPaths.push(victim);
      break;
    case 'file:// URI':
      victim = plant(path.join(outside, 'uri.parquet'));
      expiredPaths.push(`file://${victim}`);
      break;
    case 'data/../../x':
      victim = plant(path.join(outside, 'trav.parquet'));
      expiredPaths.push(named('data/../../outside/trav.parquet'));
      break;
    case 'relative path':
      victim = plant(path.join(cwd, 'rel.parquet'));
      expiredPaths.push('rel.parquet');
      break;
    default:
      break;
  }
  const m1File = craft === 'manifest outside' ? path.join(outside, 'm1.avro') : onDisk('metadata/m1.avro');
  const m1 = await manifestFile(m1File, 1n, 1n, expiredPaths);
  if (craft === 'manifest outside') victim = m1File;
  const m1Named = craft === 'manifest outside' ? m1File : named('metadata/m1.avro');
  const l1File = craft === 'manifest list outside' ? path.join(outside, 'snap-1.avro') : onDisk('metadata/snap-1.avro');
  await manifestList(l1File, 1n, undefined, 1n, [{ ...m1, manifest_path: m1Named }]);
  if (craft === 'manifest list outside') victim = l1File;
  const l1Named = craft === 'manifest list outside' ? `file://${l1File}` : named('metadata/snap-1.avro');

  const m2 = await manifestFile(onDisk('metadata/m2.avro'), 2n, 2n, [named('data/d2.parquet')]);
  await manifestList(onDisk('metadata/snap-2.avro'), 2n, 1n, 2n, [{ ...m2, manifest_path: named('metadata/m2.avro') }]);

  const statistics: unknown[] = [];
  if (craft === 'statistics file outside') {
    victim = plant(path.join(outside, 's1.stats'), 'PFA1 stats');
    statistics.push({
      'snapshot-id': 1,
      'statistics-path': victim,
      'file-size-in-bytes': 10,
      'file-footer-size-in-bytes': 4,
      'blob-metadata': [],
    });
  }
  const md = {
    'format-version': 2,
    'table-uuid': '9d1f6f3e-8d8c-4a3e-9f55-0c4c3a0f1b2a',
    location: loc,
    'last-sequence-number': 2,
    'last-updated-ms': T0 + 2000,
    'last-column-id': 1,
    'current-schema-id': 0,
    schemas: [SCHEMA],
    'default-spec-id': 0,
    'partition-specs': [{ 'spec-id': 0, fields: [] }],
    'last-partition-id': 999,
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties: options.properties ?? {},
    'current-snapshot-id': 2,
    refs: { main: { 'snapshot-id': 2, type: 'branch' } },
    snapshots: [
      {
        'sequence-number': 1,
        'snapshot-id': 1,
        'timestamp-ms': T0,
        summary: { operation: 'append' },
        'manifest-list': l1Named,
        'schema-id': 0,
      },
      {
        'sequence-number': 2,
        'snapshot-id': 2,
        'parent-snapshot-id': 1,
        'timestamp-ms': T0 + 1000,
        summary: { operation: 'overwrite' },
        'manifest-list': named('metadata/snap-2.avro'),
        'schema-id': 0,
      },
    ],
    statistics,
    'partition-statistics': [],
    'snapshot-log': [
      { 'timestamp-ms': T0, 'snapshot-id': 1 },
      { 'timestamp-ms': T0 + 1000, 'snapshot-id': 2 },
    ],
    'metadata-log': [],
  };
  plant(onDisk('metadata/v1.metadata.json'));
  writeFileSync(onDisk('metadata/v1.metadata.json'), stringifyJsonLossless(md, 2));
  writeFileSync(onDisk('metadata/version-hint.text'), '1');
  const expiredInside = [
    ...(craft === 'manifest outside' ? [] : [onDisk('metadata/m1.avro')]),
    ...(craft === 'manifest list outside' ? [] : [onDisk('metadata/snap-1.avro')]),
  ];
  return {
    root,
    table,
    victim,
    expiredData: onDisk('data/d1.parquet'),
    expiredInside,
    live: [
      onDisk('data/d2.parquet'),
      onDisk('metadata/m2.avro'),
      onDisk('metadata/snap-2.avro'),
      onDisk('metadata/v1.metadata.json'),
    ],
    cwd,
  };
}

// ---------------------------------------------------------------------------------------------- Paimon

export type PaimonCraft =
  | 'absolute path'
  | 'file:// URI'
  | 'data/../../x'
  | 'relative path'
  | 'manifest list outside'
  | 'manifest outside'
  | 'statistics file outside';
export const PAIMON_CRAFTS: PaimonCraft[] = [
  'absolute path',
  'file:// URI',
  'data/../../x',
  'relative path',
  'manifest list outside',
  'manifest outside',
  'statistics file outside',
];

export interface CraftedPaimon {
  table: string;
  victim: string;
  cwd: string;
}

const DAY = 86_400_000;

/** Copy of pk_09 (8 snapshots; retainMin 2 expires 1..6) whose snapshot 1 names a file outside the table. */
export async function craftPaimon(
  root: string,
  craft: PaimonCraft | 'none',
  extra: { externalPath?: string } = {},
): Promise<CraftedPaimon> {
  const table = path.join(root, 'pk_09');
  cpSync(path.join(FIXTURES, 'paimon-cpp/pk_09'), table, { recursive: true });
  const old = new Date(Date.now() - 10 * DAY);
  for (const f of walk(table)) utimesSync(f, old, old);
  const cwd = path.join(root, 'cwd');
  mkdirSync(cwd, { recursive: true });
  const snapFile = path.join(table, 'snapshot', 'snapshot-1');
  const snap = JSON.parse(readFileSync(snapFile, 'utf8')) as Record<string, unknown>;
  const io = new FileIO();
  const pio = io;
  const schemaIds = await listSchemaIds(pio, table);
  const options = (await readSchema(pio, table, schemaIds[schemaIds.length - 1]!)).options;
  const ctx = {
    table,
    storage: {
      createNew: async (p: string, b: Uint8Array) => void writeFileSync(p.replace(/^file:\/\//, ''), b),
      overwrite: async (p: string, b: Uint8Array) => void writeFileSync(p.replace(/^file:\/\//, ''), b),
      remove: async () => undefined,
    },
    codec: manifestCodec(options, table),
    partitionTypes: [],
    schemaId: 0,
    names: new ManifestNamer(),
  };
  const base = String(snap.baseManifestList);
  const delta = String(snap.deltaManifestList);
  let victim = '';

  /** Snapshot 1's delta list gets one more manifest holding an ADD of a data file at `externalPath`. */
  const externalEntry = async (externalPath: string) => {
    const metas = await readManifestList(pio, table, delta);
    const entries = await readManifest(pio, table, metas[0]!.fileName);
    const e = entries[0]!;
    const crafted = {
      kind: 0,
      partition: e.partition,
      bucket: e.bucket,
      totalBuckets: e.totalBuckets,
      file: { ...e.file, fileName: 'crafted-external.parquet', externalPath },
    };
    const meta = await writePaimonManifest(ctx, [crafted], () => []);
    const list = await writePaimonManifestList(ctx, [...metas, meta]);
    snap.deltaManifestList = list.name;
  };
  switch (craft) {
    case 'absolute path':
      victim = plant(path.join(root, 'outside', 'abs.parquet'));
      await externalEntry(victim);
      break;
    case 'file:// URI':
      victim = plant(path.join(root, 'outside', 'uri.parquet'));
      await externalEntry(`file://${victim}`);
      break;
    case 'data/../../x':
      victim = plant(path.join(root, 'outside', 'trav.parquet'));
      await externalEntry(`file://${table}/bucket-0/../../outside/trav.parquet`);
      break;
    case 'relative path':
      victim = plant(path.join(cwd, 'rel.parquet'));
      await externalEntry('rel.parquet');
      break;
    case 'manifest list outside': {
      // a real manifest list, stored beside the table and named by a path that climbs out of manifest/
      victim = path.join(root, 'outside-list');
      cpSync(path.join(table, 'manifest', base), victim);
      snap.baseManifestList = '../../outside-list';
      break;
    }
    case 'manifest outside': {
      victim = path.join(root, 'outside-manifest');
      const metas = await readManifestList(pio, table, delta);
      cpSync(path.join(table, 'manifest', metas[0]!.fileName), victim);
      const list = await writePaimonManifestList(ctx, [
        { ...metas[0]!, fileName: '../../outside-manifest' },
        ...metas.slice(1),
      ]);
      snap.deltaManifestList = list.name;
      break;
    }
    case 'statistics file outside':
      victim = plant(path.join(root, 'outside-stats'));
      snap.statistics = '../../outside-stats';
      break;
    default:
      break;
  }
  if (extra.externalPath !== undefined) await externalEntry(extra.externalPath);
  writeFileSync(snapFile, JSON.stringify(snap, null, 2));
  for (const f of walk(table)) utimesSync(f, old, old);
  return { table, victim, cwd };
}
