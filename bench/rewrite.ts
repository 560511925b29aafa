/**
 * Rewrite throughput: floe compacting many small Parquet files of an Iceberg table vs DuckDB copying the
 * very same files Parquet → Parquet, on the same machine in the same run.
 *
 * Input: an Iceberg v2 filesystem table of `--files` (200) small zstd Parquet files holding `--rows`
 * (1.5M) rows of mixed types (long, int, string ×2, decimal, timestamp, double, boolean), written with
 * floe's Parquet writer; one manifest lists them all.
 *
 * Cases, each in its own child process so peak RSS (VmHWM, bench/peak-rss.ts) is the case's alone:
 * - floe: `compactIceberg` bin-pack (min-input-files 2) — read, write, manifests, commit — timed inside;
 * - duckdb (threads=1 and default threads): `COPY (SELECT * FROM read_parquet([...])) TO … (zstd)`,
 *   timed inside, via the `duckdb` Python package of the oracle venv (.venv; `bash scripts/setup-oracles.sh`).
 *   Python's duckdb rather than @duckdb/node-api: it is already installed for the interop oracles, so the
 *   bench adds no npm dependency. Missing → the DuckDB rows say SKIPPED with the reason.
 * Spark `rewrite_data_files` is the peer of the `compact-1gb` benchmark (bench/compact-1gb.ts, on issue 11's
 * ~1 GB table, with `bash bench/setup-spark.sh`), not of this one.
 *
 * Flags: --files N, --rows N, --keep (leave the input directory), --dir PATH (where to build it).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Field } from '../model/index.js';
import type { CompactOptions } from '../src/orchestration/compact-iceberg.js';
import { arrowSchemaForIceberg, tableFromRows, writeParquet } from '../connectors/formats/parquet/index.js';
import {
  STATUS_ADDED,
  writeManifest,
  writeManifestList,
  type RawManifestEntry,
} from '../connectors/iceberg/write-manifest.js';
import { stringifyJsonLossless } from '../util/json.js';
import { ownPeakRssBytes, PY_OWN_PEAK_RSS } from './peak-rss.js';
import { numberFlag, type Benchmark, type BenchContext, type BenchResult } from './types.js';

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'qty', required: false, type: { kind: 'primitive', name: 'int' } },
  { id: 3, name: 'region', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 4, name: 'note', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 5, name: 'amount', required: false, type: { kind: 'primitive', name: 'decimal', precision: 18, scale: 2 } },
  { id: 6, name: 'at', required: false, type: { kind: 'primitive', name: 'timestamp' } },
  { id: 7, name: 'score', required: false, type: { kind: 'primitive', name: 'double' } },
  { id: 8, name: 'ok', required: false, type: { kind: 'primitive', name: 'boolean' } },
];
const SCHEMA_JSON = {
  type: 'struct',
  'schema-id': 0,
  fields: FIELDS.map((f) => ({
    id: f.id,
    name: f.name,
    required: f.required,
    type:
      f.type.kind === 'primitive' && f.type.name === 'decimal'
        ? `decimal(${f.type.precision}, ${f.type.scale})`
        : (f.type as { name: string }).name,
  })),
};
const REGIONS = ['eu-west', 'eu-central', 'us-east', 'us-west', 'ap-south', 'ap-east'];

/** Deterministic pseudo-random stream (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Input {
  dir: string;
  files: string[];
  rows: number;
  bytes: number;
}

/** Writes the small files with floe's Parquet writer and an Iceberg v2 table (one snapshot) around them. */
export async function buildInput(root: string, files: number, rows: number, log: (m: string) => void): Promise<Input> {
  const dir = path.join(root, 'events');
  mkdirSync(path.join(dir, 'data'), { recursive: true });
  mkdirSync(path.join(dir, 'metadata'), { recursive: true });
  const schema = arrowSchemaForIceberg(FIELDS);
  const rand = rng(7);
  const perFile = Math.ceil(rows / files);
  const paths: string[] = [];
  const entries: RawManifestEntry[] = [];
  let id = 0;
  let bytes = 0;
  const t0 = Date.now();
  for (let f = 0; f < files; f++) {
    const n = Math.min(perFile, rows - id);
    if (n <= 0) break;
    const batch: Record<string, unknown>[] = new Array(n);
    for (let i = 0; i < n; i++, id++) {
      const r = rand();
      batch[i] = {
        id: BigInt(id),
        qty: r < 0.05 ? null : Math.floor(r * 10_000) - 500,
        region: REGIONS[id % REGIONS.length],
        note: r < 0.2 ? null : `order ${id} ${Math.floor(r * 1e9).toString(36)}`,
        amount: `${Math.floor(r * 1e7)}.${String(id % 100).padStart(2, '0')}`,
        at: 1_700_000_000_000_000n + BigInt(id) * 1_000_003n,
        score: r * 1000,
        ok: r < 0.5,
      };
    }
    const written = await writeParquet(tableFromRows(schema, batch), `input ${f}`, {
      codec: 'zstd',
      createdBy: 'floe-bench',
    });
    const p = path.join(dir, 'data', `part-${String(f).padStart(5, '0')}.parquet`);
    writeFileSync(p, written.bytes);
    paths.push(p);
    bytes += written.bytes.byteLength;
    entries.push({
      status: STATUS_ADDED,
      snapshot_id: 1n,
      sequence_number: null,
      file_sequence_number: null,
      data_file: {
        content: 0,
        file_path: p,
        file_format: 'PARQUET',
        partition: {},
        record_count: BigInt(n),
        file_size_in_bytes: BigInt(written.bytes.byteLength),
        sort_order_id: 0,
      },
    });
  }
  const manifest = await writeManifest(
    {
      formatVersion: 2,
      specId: 0,
      specFieldsJson: [],
      partition: [],
      tableSchemaJson: SCHEMA_JSON,
      content: 'data',
      entries,
      codec: { codec: 'deflate' },
    },
    1n,
    1n,
  );
  const mPath = path.join(dir, 'metadata', 'm-1.avro');
  writeFileSync(mPath, manifest.bytes);
  const listPath = path.join(dir, 'metadata', 'snap-1.avro');
  writeFileSync(
    listPath,
    await writeManifestList({
      formatVersion: 2,
      snapshotId: 1n,
      parentSnapshotId: undefined,
      sequenceNumber: 1n,
      manifests: [{ ...manifest.summary, manifest_path: mPath, manifest_length: BigInt(manifest.bytes.length) }],
      codec: { codec: 'deflate' },
    }),
  );
  const metadata = {
    'format-version': 2,
    'table-uuid': '5f0c1a57-0000-4000-8000-00000000be4c',
    location: dir,
    'last-sequence-number': 1,
    'last-updated-ms': 1_700_000_000_000,
    'last-column-id': FIELDS.length,
    'current-schema-id': 0,
    schemas: [SCHEMA_JSON],
    'default-spec-id': 0,
    'partition-specs': [{ 'spec-id': 0, fields: [] }],
    'last-partition-id': 999,
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties: { 'write.parquet.compression-codec': 'zstd' },
    'current-snapshot-id': 1,
    refs: { main: { 'snapshot-id': 1, type: 'branch' } },
    snapshots: [
      {
        'sequence-number': 1,
        'snapshot-id': 1,
        'timestamp-ms': 1_700_000_000_000,
        summary: {
          operation: 'append',
          'added-data-files': String(paths.length),
          'added-records': String(id),
          'total-data-files': String(paths.length),
          'total-records': String(id),
        },
        'manifest-list': listPath,
        'schema-id': 0,
      },
    ],
    'snapshot-log': [],
    'metadata-log': [],
  };
  writeFileSync(path.join(dir, 'metadata', 'v1.metadata.json'), stringifyJsonLossless(metadata, 2));
  writeFileSync(path.join(dir, 'metadata', 'version-hint.text'), '1');
  log(
    `rewrite bench: wrote ${paths.length} files, ${id} rows, ${(bytes / 1e6).toFixed(1)} MB in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  return { dir, files: paths, rows: id, bytes };
}

export interface CaseResult {
  ms: number;
  rows: number;
  bytesIn: number;
  bytesOut: number;
  maxRssBytes: number;
}

export function runChild(cmd: string, args: string[], input?: string): Promise<CaseResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${path.basename(cmd)} exited ${code}: ${err.trim()}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as CaseResult);
      } catch {
        reject(new Error(`${path.basename(cmd)} printed no result: ${out.slice(0, 300)} ${err}`));
      }
    });
    child.stdin.end(input ?? '');
  });
}

/** The strategies the `sort` benchmark compares (bench/sort.ts); `rewrite` runs bin-pack. */
export const CHILD_STRATEGIES: Record<'binpack' | 'sort' | 'zorder', Pick<CompactOptions, 'strategy' | 'sort'>> = {
  binpack: { strategy: 'binpack' },
  sort: { strategy: 'sort', sort: { sortOrder: 'region ASC NULLS FIRST, id ASC' } },
  zorder: { strategy: 'zorder', sort: { columns: ['qty', 'score'] } },
};

/** In the child: compact the table and report what the parent needs. */
async function floeChild(dir: string, strategyName: keyof typeof CHILD_STRATEGIES = 'binpack'): Promise<void> {
  const { openIcebergForWrite } = await import('../connectors/iceberg/open-for-write.js');
  const { compactIceberg } = await import('../src/orchestration/compact-iceberg.js');
  const opened = await openIcebergForWrite(dir, {});
  const t0 = performance.now();
  const report = await compactIceberg(opened.table, opened.io, opened.ops!, {
    ...CHILD_STRATEGIES[strategyName],
    options: { 'min-input-files': '2' },
  });
  const ms = performance.now() - t0;
  opened.files.destroy();
  if (report.failedTasks.length) throw new Error(`floe rewrite failed: ${JSON.stringify(report.failedTasks)}`);
  const r: CaseResult = {
    ms,
    rows: report.rowsIn,
    bytesIn: report.bytesRead,
    bytesOut: report.bytesWritten,
    maxRssBytes: ownPeakRssBytes(),
  };
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

const DUCKDB_SCRIPT = `
import json, os, sys, time
import duckdb
${PY_OWN_PEAK_RSS}
spec = json.load(sys.stdin)
con = duckdb.connect()
if spec["threads"]:
    con.execute(f"SET threads={int(spec['threads'])}")
files = spec["files"]
t0 = time.perf_counter()
con.execute("COPY (SELECT * FROM read_parquet($files)) TO '" + spec["out"].replace("'", "''") + "' (FORMAT parquet, COMPRESSION zstd)", {"files": files})
ms = (time.perf_counter() - t0) * 1000
rows = con.execute("SELECT count(*) FROM read_parquet($f)", {"f": spec["out"]}).fetchone()[0]
print(json.dumps({"ms": ms, "rows": rows, "bytesIn": sum(os.path.getsize(f) for f in files), "bytesOut": os.path.getsize(spec["out"]), "maxRssBytes": own_peak_rss_bytes()}))
`;

const repoRoot = (() => {
  // dist/bench/rewrite.js or bench/rewrite.ts → the repository root holds package.json
  let d = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(d, 'package.json')) && path.dirname(d) !== d) d = path.dirname(d);
  return d;
})();

function fmtMB(b: number): string {
  return (b / 1e6).toFixed(1);
}

const bench: Benchmark = {
  name: 'rewrite',
  description: 'floe compaction (bin-pack rewrite) vs DuckDB Parquet→Parquet COPY of the same small files',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const files = numberFlag(ctx.flags, 'files', 200);
    const rows = numberFlag(ctx.flags, 'rows', 1_500_000);
    const root =
      typeof ctx.flags.dir === 'string' ? ctx.flags.dir : mkdtempSync(path.join(os.tmpdir(), 'floe-bench-rewrite-'));
    const notes: string[] = [];
    const results: Record<string, CaseResult | { skipped: string }> = {};
    try {
      const input = await buildInput(root, files, rows, ctx.log);
      const self = fileURLToPath(import.meta.url);
      ctx.log('rewrite bench: floe …');
      results.floe = await runChild(process.execPath, [self, '--floe-rewrite-child', input.dir]);
      const python = process.env.FLOE_ORACLE_PYTHON ?? path.join(repoRoot, '.venv/bin/python');
      for (const threads of [1, 0]) {
        const label = threads ? `duckdb threads=${threads}` : `duckdb threads=${os.availableParallelism()} (default)`;
        if (!existsSync(python)) {
          results[label] = { skipped: `SKIPPED: no python venv at ${python} (bash scripts/setup-oracles.sh)` };
          continue;
        }
        ctx.log(`rewrite bench: ${label} …`);
        const out = path.join(root, `duckdb-${threads}.parquet`);
        try {
          results[label] = await runChild(
            python,
            ['-c', DUCKDB_SCRIPT],
            JSON.stringify({ files: input.files, out, threads }),
          );
        } catch (e) {
          results[label] = { skipped: `SKIPPED: ${(e as Error).message.slice(0, 300)}` };
        }
        rmSync(out, { force: true });
      }
      const outFiles = readdirSync(path.join(input.dir, 'data')).filter((n) => !n.startsWith('part-'));
      notes.push(
        `input: ${input.files.length} zstd Parquet files, ${input.rows} rows, ${fmtMB(input.bytes)} MB (avg ${fmtMB(input.bytes / input.files.length)} MB); floe wrote ${outFiles.length} file(s), ${fmtMB(outFiles.reduce((n, f) => n + statSync(path.join(input.dir, 'data', f)).size, 0))} MB`,
        "timings exclude process start; floe includes planning, manifest writing and the commit; peak RSS is the child process's own (VmHWM since exec; getrusage maxrss would include the parent's RSS at fork)",
        'Spark rewrite_data_files: see the compact-1gb benchmark (issue 11 table, bench/setup-spark.sh)',
      );
    } finally {
      if (!ctx.flags.keep && typeof ctx.flags.dir !== 'string') rmSync(root, { recursive: true, force: true });
    }
    const floe = results.floe as CaseResult;
    const rowsOut: Record<string, string | number>[] = [];
    for (const [name, r] of Object.entries(results)) {
      if ('skipped' in r) {
        rowsOut.push({
          engine: name,
          seconds: '',
          'MB/s in': '',
          'rows/s': '',
          'peak RSS MB': '',
          'time vs floe': '',
          note: r.skipped,
        });
        continue;
      }
      rowsOut.push({
        engine: name,
        seconds: (r.ms / 1000).toFixed(2),
        'MB/s in': (r.bytesIn / 1e6 / (r.ms / 1000)).toFixed(1),
        'rows/s': Math.round(r.rows / (r.ms / 1000)),
        'peak RSS MB': fmtMB(r.maxRssBytes),
        'time vs floe': (r.ms / floe.ms).toFixed(2),
        note: `${r.rows} rows, ${fmtMB(r.bytesIn)} MB in → ${fmtMB(r.bytesOut)} MB out`,
      });
    }
    return { rows: rowsOut, notes, data: results };
  },
};

export default bench;

if (process.argv[2] === '--floe-rewrite-child' && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  floeChild(process.argv[3]!, (process.argv[4] as keyof typeof CHILD_STRATEGIES | undefined) ?? 'binpack').catch(
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
