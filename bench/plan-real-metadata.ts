/**
 * Planning from real Iceberg metadata (issue 11.6): writes a table of N data files (default 1,000,000)
 * in M manifests (default 10,000) with floe's own manifest writer into a temp dir — every entry with
 * column sizes, value/null counts and lower/upper bounds for 6 columns, identity-partitioned over 1,000
 * partitions — then, each in a fresh child process, loads the table model from it and
 *   - plans it with the tiered planner (floe defaults), or
 *   - sorts its data files by (partition, size) — the peer: the floor for anything that groups files;
 * and prints wall time, CPU time (all threads) and the child's own peak RSS (VmHWM, bench/peak-rss.ts) for load
 * and for the step. The tiered case runs twice: manifests decoded in two worker threads
 * (connectors/iceberg/manifest-workers.ts; FLOE_MANIFEST_WORKERS=2) and in the main thread (=0); the peer
 * loads with floe's default (workers when the machine has spare cores). The cases run interleaved,
 * `--reps` times each; the table shows medians.
 *
 * Flags: --files N, --manifests N, --dir D (reuse / keep a generated table), --keep, --reps N (default 3).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Field } from '../model/index.js';
import {
  STATUS_ADDED,
  writeManifest,
  writeManifestList,
  type RawManifestEntry,
  type RawManifestFile,
} from '../connectors/iceberg/write-manifest.js';
import { encodeSingleValue } from '../connectors/iceberg/write-bounds.js';
import { stringifyJsonLossless } from '../util/json.js';
import { ownPeakRssBytes } from './peak-rss.js';
import { numberFlag, type Benchmark, type BenchContext, type BenchResult } from './types.js';

const MiB = 1024 * 1024;
const PARTITIONS = 1000;

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'region', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 3, name: 'note', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 4, name: 'amount', required: false, type: { kind: 'primitive', name: 'double' } },
  { id: 5, name: 'at', required: false, type: { kind: 'primitive', name: 'timestamp' } },
  { id: 6, name: 'day', required: true, type: { kind: 'primitive', name: 'int' } },
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
const PARTITION = [{ id: 1000, name: 'day', type: FIELDS[5]!.type }];

function kv<T>(pairs: [number, T][]): { key: number; value: T }[] {
  return pairs.map(([key, value]) => ({ key, value }));
}

/** Entry i: a file of 1–128 MiB (mostly small, as a streaming table has), with stats on every column. */
function entry(i: number, dir: string): RawManifestEntry {
  const size = i % 10 === 0 ? 120 * MiB : (1 + (i % 17)) * MiB;
  const rows = Math.max(1, Math.floor(size / 200));
  const day = i % PARTITIONS;
  const lo = BigInt(i) * 1_000_000n;
  const types = FIELDS.map((f) => f.type);
  const bound = (id: number, v: unknown) => encodeSingleValue(types[id - 1]!, v);
  const sizes = kv([1, 2, 3, 4, 5, 6].map((id) => [id, BigInt(Math.floor(size / 6))] as [number, bigint]));
  return {
    status: STATUS_ADDED,
    snapshot_id: 1n,
    sequence_number: null,
    file_sequence_number: null,
    data_file: {
      content: 0,
      file_path: `${dir}/data/day=${day}/00${i % 8}-${i}-5f0c1a57-${String(i).padStart(8, '0')}-00001.parquet`,
      file_format: 'PARQUET',
      partition: { day },
      record_count: BigInt(rows),
      file_size_in_bytes: BigInt(size),
      column_sizes: sizes,
      value_counts: kv([1, 2, 3, 4, 5, 6].map((id) => [id, BigInt(rows)] as [number, bigint])),
      null_value_counts: kv(
        [1, 2, 3, 4, 5, 6].map((id) => [id, id === 3 ? BigInt(rows >> 3) : 0n] as [number, bigint]),
      ),
      nan_value_counts: kv([[4, 0n]]),
      lower_bounds: kv([
        [1, bound(1, lo)],
        [2, bound(2, 'eu-central')],
        [3, bound(3, `order ${i} a`)],
        [4, bound(4, 0.5)],
        [5, bound(5, 1_700_000_000_000_000n + lo)],
        [6, bound(6, day)],
      ]),
      upper_bounds: kv([
        [1, bound(1, lo + BigInt(rows))],
        [2, bound(2, 'us-west')],
        [3, bound(3, `order ${i} zz`)],
        [4, bound(4, 999.5)],
        [5, bound(5, 1_700_000_000_000_000n + lo + BigInt(rows))],
        [6, bound(6, day)],
      ]),
      split_offsets: [4n],
      sort_order_id: 0,
    },
  };
}

/** Writes the table with floe's manifest writer; returns the metadata.json path. */
async function buildTable(dir: string, files: number, manifests: number, log: (m: string) => void): Promise<string> {
  const meta = path.join(dir, 'metadata');
  mkdirSync(meta, { recursive: true });
  const perManifest = Math.ceil(files / manifests);
  const list: RawManifestFile[] = [];
  const t0 = Date.now();
  for (let m = 0, i = 0; i < files; m++) {
    const entries: RawManifestEntry[] = [];
    for (let k = 0; k < perManifest && i < files; k++, i++) entries.push(entry(i, dir));
    const out = await writeManifest(
      {
        formatVersion: 2,
        specId: 0,
        specFieldsJson: [{ name: 'day', transform: 'identity', 'source-id': 6, 'field-id': 1000 }],
        partition: PARTITION,
        tableSchemaJson: SCHEMA_JSON,
        content: 'data',
        entries,
        codec: { codec: 'deflate' },
      },
      1n,
      1n,
    );
    const p = path.join(meta, `m-${m}.avro`);
    writeFileSync(p, out.bytes);
    list.push({ ...out.summary, manifest_path: p, manifest_length: BigInt(out.bytes.length) });
    if (m % 1000 === 999)
      log(`plan-real-metadata: ${i} entries in ${m + 1} manifests (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  const listPath = path.join(meta, 'snap-1.avro');
  writeFileSync(
    listPath,
    await writeManifestList({
      formatVersion: 2,
      snapshotId: 1n,
      parentSnapshotId: undefined,
      sequenceNumber: 1n,
      manifests: list,
      codec: { codec: 'deflate' },
    }),
  );
  const metadata = {
    'format-version': 2,
    'table-uuid': '5f0c1a57-0000-4000-8000-00000000be4d',
    location: dir,
    'last-sequence-number': 1,
    'last-updated-ms': 1_700_000_000_000,
    'last-column-id': FIELDS.length,
    'current-schema-id': 0,
    schemas: [SCHEMA_JSON],
    'default-spec-id': 0,
    'partition-specs': [
      { 'spec-id': 0, fields: [{ name: 'day', transform: 'identity', 'source-id': 6, 'field-id': 1000 }] },
    ],
    'last-partition-id': 1000,
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties: {},
    'current-snapshot-id': 1,
    refs: { main: { 'snapshot-id': 1, type: 'branch' } },
    snapshots: [
      {
        'sequence-number': 1,
        'snapshot-id': 1,
        'timestamp-ms': 1_700_000_000_000,
        summary: { operation: 'append', 'added-data-files': String(files), 'total-data-files': String(files) },
        'manifest-list': listPath,
        'schema-id': 0,
      },
    ],
    'snapshot-log': [],
    'metadata-log': [],
  };
  const mdPath = path.join(meta, 'v1.metadata.json');
  writeFileSync(mdPath, stringifyJsonLossless(metadata, 2));
  writeFileSync(path.join(meta, 'version-hint.text'), '1');
  writeFileSync(path.join(dir, 'COMPLETE'), `${files} ${manifests}\n`);
  log(
    `plan-real-metadata: wrote ${files} entries in ${list.length} manifests in ${((Date.now() - t0) / 1000).toFixed(0)} s`,
  );
  return mdPath;
}

interface ChildResult {
  loadMs: number;
  loadCpuMs: number;
  stepMs: number;
  stepCpuMs: number;
  /** Child's own peak RSS after loading, and at the end (VmHWM). */
  loadPeakRssBytes: number;
  peakRssBytes: number;
  heapUsedBytes: number;
  dataFiles: number;
  tasks?: number;
}

/** Child: load the model, then run the step; prints one JSON line. */
async function child(step: string, metadataPath: string): Promise<void> {
  const { openIcebergTable, loadTableModel } = await import('../connectors/iceberg/table.js');
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let t = performance.now();
  let c = cpu();
  const table = await openIcebergTable(metadataPath);
  const model = await loadTableModel(table);
  const loadMs = performance.now() - t;
  const loadCpuMs = cpu() - c;
  const loadPeakRssBytes = ownPeakRssBytes();
  t = performance.now();
  c = cpu();
  let tasks: number | undefined;
  if (step === 'tiered') {
    const { planTiered, tieredPolicyFromProperties } = await import('../src/core/planning/tiered/index.js');
    tasks = planTiered(model, tieredPolicyFromProperties({}), Date.UTC(2025, 0, 2)).tasks.length;
  } else {
    const sorted = model.dataFiles
      .slice()
      .sort((a, b) => (a.partition[0] as number) - (b.partition[0] as number) || a.sizeBytes - b.sizeBytes);
    if (sorted.length !== model.dataFiles.length) throw new Error('sort lost files');
  }
  const result: ChildResult = {
    loadMs,
    loadCpuMs,
    stepMs: performance.now() - t,
    stepCpuMs: cpu() - c,
    loadPeakRssBytes,
    peakRssBytes: ownPeakRssBytes(),
    heapUsedBytes: process.memoryUsage().heapUsed,
    dataFiles: model.dataFiles.length,
    ...(tasks !== undefined ? { tasks } : {}),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function runChild(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    // execArgv carries tsx's loader when run from source; the heap limit is raised so the RSS printed is
    // what the step needs, not where V8's default limit would stop it.
    const p = spawn(process.execPath, [...process.execArgv, '--max-old-space-size=8192', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) return reject(new Error(`child exited ${code}: ${err.trim()}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as ChildResult);
      } catch {
        reject(new Error(`child printed no result: ${out.slice(0, 300)} ${err}`));
      }
    });
  });
}

const MB = (b: number) => Math.round(b / MiB);

const benchmark: Benchmark = {
  name: 'plan-real-metadata',
  description:
    'load + plan a table of real Iceberg manifests (default 1M data files in 10k manifests), against a plain sort',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const files = numberFlag(ctx.flags, 'files', 1_000_000);
    const manifests = numberFlag(ctx.flags, 'manifests', 10_000);
    const given = typeof ctx.flags.dir === 'string' ? ctx.flags.dir : undefined;
    const dir = given ?? mkdtempSync(path.join(os.tmpdir(), 'floe-bench-plan-meta-'));
    try {
      const mdPath = path.join(dir, 'metadata', 'v1.metadata.json');
      if (!existsSync(path.join(dir, 'COMPLETE'))) await buildTable(dir, files, manifests, ctx.log);
      const self = fileURLToPath(import.meta.url);
      const reps = numberFlag(ctx.flags, 'reps', 3);
      const cases: { key: string; label: string; step: string; env: NodeJS.ProcessEnv }[] = [
        { key: 'sort', label: 'load (floe default) + sort by (partition, size) (peer)', step: 'sort', env: {} },
        {
          key: 'tiered',
          label: 'load in 2 worker threads + tiered plan',
          step: 'tiered',
          env: { FLOE_MANIFEST_WORKERS: '2' },
        },
        {
          key: 'tiered-in-thread',
          label: 'load in the main thread + tiered plan',
          step: 'tiered',
          env: { FLOE_MANIFEST_WORKERS: '0' },
        },
      ];
      const runs: Record<string, ChildResult[]> = {};
      for (let r = 0; r < reps; r++) {
        for (const c of cases) {
          ctx.log(`plan-real-metadata: rep ${r + 1}/${reps}: ${c.label} …`);
          (runs[c.key] ??= []).push(await runChild([self, '--plan-real-metadata-child', c.step, mdPath], c.env));
        }
      }
      const median = (xs: number[]) => {
        const s = xs.slice().sort((a, b) => a - b);
        return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
      };
      const med = (key: string, f: (r: ChildResult) => number) => median(runs[key]!.map(f));
      const total = (r: ChildResult) => r.loadMs + r.stepMs;
      const peerTotal = med('sort', total);
      const rows = cases.map((c) => {
        const m = (f: (r: ChildResult) => number) => med(c.key, f);
        const totals = runs[c.key]!.map(total);
        return {
          case: c.label,
          'load s': (m((r) => r.loadMs) / 1000).toFixed(1),
          'load CPU s': (m((r) => r.loadCpuMs) / 1000).toFixed(1),
          'step s': (m((r) => r.stepMs) / 1000).toFixed(2),
          'step CPU s': (m((r) => r.stepCpuMs) / 1000).toFixed(2),
          'total s': (m(total) / 1000).toFixed(1),
          'total s range': `${(Math.min(...totals) / 1000).toFixed(1)}–${(Math.max(...totals) / 1000).toFixed(1)}`,
          '× peer total': (m(total) / peerTotal).toFixed(2),
          'peak RSS after load MiB': MB(m((r) => r.loadPeakRssBytes)),
          'peak RSS MiB': MB(m((r) => r.peakRssBytes)),
          'bytes/file (peak RSS)': Math.round(m((r) => r.peakRssBytes / r.dataFiles)),
          'data files': runs[c.key]![0]!.dataFiles,
          tasks: runs[c.key]![0]!.tasks ?? '',
        };
      });
      const results = runs;
      return {
        rows,
        notes: [
          `table: ${files} data files in ${manifests} manifests written by floe's manifest writer (Java Iceberg's manifest schema and layout, deflate), 6 columns with full stats, ${PARTITIONS} identity partitions; dir ${dir}`,
          `each case runs in a fresh child process (node, --max-old-space-size=8192), ${reps} interleaved repetitions, medians; CPU s counts every thread; peak RSS is the child's own high-water mark (VmHWM), worker threads included`,
          `load average at the end: ${os
            .loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')}; ${os.availableParallelism()} cores`,
          'targets (issue 11.6): 1M files in ~10k manifests planned in ≤ 10 s and ≤ 1 GiB RSS',
        ],
        data: { files, manifests, results },
      };
    } finally {
      if (!given && !ctx.flags.keep) rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;

if (process.argv[2] === '--plan-real-metadata-child' && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  child(process.argv[3]!, process.argv[4]!).catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}
