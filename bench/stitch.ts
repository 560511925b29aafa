/**
 * Row-group stitching vs decode/encode: the same Iceberg table compacted twice in the same run — once
 * with `floe.rewrite.stitch.enabled=false` (read row groups → Arrow → Parquet writer) and once copying the
 * inputs' column chunks (connectors/formats/parquet/stitch.ts) — reporting input MB/s and peak RSS of each,
 * and their ratio.
 *
 * Input: an Iceberg v2 table of `--files` (8) zstd Parquet files written by floe's table writer, `--rows`
 * (400k) rows each in one row group (mixed types: long, string ×2, decimal, timestamp, double, boolean).
 * The stitch case sets `floe.rewrite.stitch.min-row-group-bytes=1` so the measurement does not depend on
 * whether these row groups clear the default size floor. Each case runs in its own child process on its
 * own copy of the table, so peak RSS (VmHWM, bench/peak-rss.ts) is that case's alone; timings are taken inside the
 * child around `compactIceberg` (planning, reads, writes, manifests, commit).
 *
 * Flags: --files N, --rows N (per file), --keep, --dir PATH.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Field } from '../model/index.js';
import { ownPeakRssBytes } from './peak-rss.js';
import { numberFlag, type Benchmark, type BenchContext, type BenchResult } from './types.js';

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: false, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'region', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 3, name: 'note', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 4, name: 'amount', required: false, type: { kind: 'primitive', name: 'decimal', precision: 18, scale: 2 } },
  { id: 5, name: 'at', required: false, type: { kind: 'primitive', name: 'timestamptz' } },
  { id: 6, name: 'score', required: false, type: { kind: 'primitive', name: 'double' } },
  { id: 7, name: 'ok', required: false, type: { kind: 'primitive', name: 'boolean' } },
];
const REGIONS = ['eu-west', 'eu-central', 'us-east', 'us-west', 'ap-south', 'ap-east'];

interface CaseResult {
  ms: number;
  rows: number;
  bytesIn: number;
  bytesOut: number;
  outputs: number;
  stitchedTasks: number;
  maxRssBytes: number;
}

async function buildTable(
  dir: string,
  files: number,
  rowsPerFile: number,
  log: (m: string) => void,
): Promise<{ bytes: number }> {
  const { FileIO } = await import('../connectors/storage/file-io.js');
  const { appendRows, createIcebergTable } = await import('../connectors/iceberg/write-table.js');
  const fileIO = new FileIO();
  const io = fileIO;
  const t0 = Date.now();
  await createIcebergTable(io, dir, { formatVersion: 2, fields: FIELDS });
  let seed = 7;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let f = 0; f < files; f++) {
    const rows = Array.from({ length: rowsPerFile }, (_, k) => {
      const id = f * rowsPerFile + k;
      const r = rand();
      return {
        id: BigInt(id),
        region: REGIONS[id % REGIONS.length],
        note: r < 0.2 ? null : `order ${id} ${Math.floor(r * 1e9).toString(36)}`,
        amount: `${Math.floor(r * 1e7)}.${String(id % 100).padStart(2, '0')}`,
        at: 1_700_000_000_000_000n + BigInt(id) * 1_000_003n,
        score: r * 1000,
        ok: r < 0.5,
      };
    });
    await appendRows(io, dir, rows);
  }
  fileIO.destroy();
  const { loadTableModel, openIcebergTable } = await import('../connectors/iceberg/table.js');
  const fio2 = new FileIO();
  const model = await loadTableModel(await openIcebergTable(dir, { io: fio2 }));
  fio2.destroy();
  const bytes = model.dataFiles.reduce((s, x) => s + x.sizeBytes, 0);
  log(
    `stitch bench: wrote ${model.dataFiles.length} files, ${files * rowsPerFile} rows, ${(bytes / 1e6).toFixed(1)} MB in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  return { bytes };
}

/** In the child: compact the table with stitching on or off. */
async function child(dir: string, mode: string): Promise<void> {
  const { openIcebergForWrite } = await import('../connectors/iceberg/open-for-write.js');
  const { compactIceberg } = await import('../src/orchestration/compact-iceberg.js');
  const opened = await openIcebergForWrite(dir, {});
  const options: Record<string, string> = { 'min-input-files': '2' };
  if (mode === 'stitch') options['floe.rewrite.stitch.min-row-group-bytes'] = '1';
  else options['floe.rewrite.stitch.enabled'] = 'false';
  let stitchedTasks = 0;
  const t0 = performance.now();
  const report = await compactIceberg(opened.table, opened.io, opened.ops!, {
    strategy: 'binpack',
    options,
    onProgress: (e) => {
      if (e.type === 'message' && /without decoding/.test(e.text)) stitchedTasks++;
    },
  });
  const ms = performance.now() - t0;
  opened.files.destroy();
  if (report.failedTasks.length) throw new Error(`compaction failed: ${JSON.stringify(report.failedTasks)}`);
  const outputs = report.after?.dataFiles ?? 0;
  const r: CaseResult = {
    ms,
    rows: report.rowsIn,
    bytesIn: report.bytesRead,
    bytesOut: report.bytesWritten,
    outputs,
    stitchedTasks,
    maxRssBytes: ownPeakRssBytes(),
  };
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

function runChild(args: string[]): Promise<CaseResult> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [...process.execArgv, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
    c.on('error', reject);
    c.on('close', (code) => {
      if (code !== 0) return reject(new Error(`stitch bench child exited ${code}: ${err.trim()}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as CaseResult);
      } catch {
        reject(new Error(`stitch bench child printed no result: ${out.slice(0, 300)} ${err}`));
      }
    });
  });
}

const mb = (b: number) => (b / 1e6).toFixed(1);

const bench: Benchmark = {
  name: 'stitch',
  description: 'compaction by row-group stitching vs decode/encode rewrite of the same table (MB/s, peak RSS)',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const files = numberFlag(ctx.flags, 'files', 8);
    const rowsPerFile = numberFlag(ctx.flags, 'rows', 400_000);
    const root =
      typeof ctx.flags.dir === 'string' ? ctx.flags.dir : mkdtempSync(path.join(os.tmpdir(), 'floe-bench-stitch-'));
    const results: Record<string, CaseResult> = {};
    let inputBytes = 0;
    try {
      mkdirSync(root, { recursive: true });
      const pristine = path.join(root, 'pristine');
      inputBytes = (await buildTable(pristine, files, rowsPerFile, ctx.log)).bytes;
      const self = fileURLToPath(import.meta.url);
      for (const mode of ['decode/encode', 'stitch']) {
        const copy = path.join(root, mode === 'stitch' ? 'stitch' : 'decode');
        cpSync(pristine, copy, { recursive: true });
        ctx.log(`stitch bench: ${mode} …`);
        results[mode] = await runChild([self, '--floe-stitch-child', copy, mode === 'stitch' ? 'stitch' : 'decode']);
      }
    } finally {
      if (!ctx.flags.keep && typeof ctx.flags.dir !== 'string') rmSync(root, { recursive: true, force: true });
    }
    const base = results['decode/encode']!;
    const rows = Object.entries(results).map(([name, r]) => ({
      path: name,
      seconds: (r.ms / 1000).toFixed(2),
      'MB/s in': (r.bytesIn / 1e6 / (r.ms / 1000)).toFixed(1),
      'peak RSS MB': mb(r.maxRssBytes),
      'speed vs decode/encode': (base.ms / r.ms).toFixed(2),
      'RSS vs decode/encode': (r.maxRssBytes / base.maxRssBytes).toFixed(2),
      note: `${r.rows} rows, ${mb(r.bytesIn)} MB in → ${mb(r.bytesOut)} MB out in ${r.outputs} file(s); stitched tasks ${r.stitchedTasks}`,
    }));
    const notes = [
      `input: ${files} zstd Parquet files × ${rowsPerFile} rows (one row group each), ${mb(inputBytes)} MB; one bin-pack task`,
      "timings include planning, manifests and the commit; peak RSS is each child process's own (VmHWM since exec; node + wasm baseline included)",
    ];
    return { rows, notes, data: { files, rowsPerFile, inputBytes, results } };
  },
};

export default bench;

if (process.argv[2] === '--floe-stitch-child' && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  child(process.argv[3]!, process.argv[4]!).catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}
