/**
 * The CPU model's two rates, measured on this machine with this Parquet codec: seconds per file a
 * compaction opens or writes, and seconds per byte it reads or writes. Measured by compacting two small
 * demo tables in a temporary directory (one of many tiny files, one of few larger ones) and solving for
 * both rates from the CPU time (process.cpuUsage) each rewrite took; a few CPU seconds, once (seeding the
 * tables is most of it).
 *
 * Cached in ~/.cache/floe/cost/calibration.json (XDG_CACHE_HOME respected), keyed by codec, floe
 * version, CPU model, core count and Node version; an entry older than 30 days is measured again.
 * FLOE_COST_CALIBRATION=off skips measuring and uses the built-in rates (measured on the project's 2-core
 * build machine, native codec), saying so in the estimate's basis.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RequestCounter, processCpuMicros, withRequestCounter } from '../../../connectors/storage/request-counter.js';

export interface CpuCalibration {
  /** CPU seconds per file read or written by a rewrite (open, footer, metadata, commit share). */
  secondsPerFile: number;
  /** CPU seconds per byte read or written by a rewrite (decode, merge, encode). */
  secondsPerByte: number;
  /** What it was measured with, and when (or 'built-in'). */
  key: string;
  measuredAt: string;
  source: 'measured' | 'cache' | 'built-in';
}

const STALE_MS = 30 * 24 * 3_600_000;

/** Rates from a calibration on the project's 2-core build machine (native codec), for FLOE_COST_CALIBRATION=off. */
export const BUILT_IN_CALIBRATION: CpuCalibration = {
  secondsPerFile: 0.004,
  secondsPerByte: 25e-9,
  key: 'built-in',
  measuredAt: '2026-12-02',
  source: 'built-in',
};

function floeVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        const m = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
        if (m.name === 'floe') return m.version ?? '0';
      } catch {
        /* not ours: keep walking */
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return '0';
    dir = up;
  }
}

export function calibrationKey(codec: string): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown cpu';
  return `${codec}|floe ${floeVersion()}|${cpu}|${os.availableParallelism()} cores|node ${process.version}`;
}

function cacheFile(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'floe', 'cost', 'calibration.json');
}

type CacheShape = Record<string, Omit<CpuCalibration, 'source' | 'key'>>;

async function readCache(): Promise<CacheShape> {
  try {
    return JSON.parse(await readFile(cacheFile(), 'utf8')) as CacheShape;
  } catch {
    return {};
  }
}

let inProcess: Promise<CpuCalibration> | undefined;

/** The rates for the codec this process uses: cached, else measured now (once per process). */
export function cpuCalibration(): Promise<CpuCalibration> {
  if (process.env.FLOE_COST_CALIBRATION === 'off') return Promise.resolve(BUILT_IN_CALIBRATION);
  inProcess ??= load().catch((e: unknown) => {
    inProcess = undefined;
    throw e;
  });
  return inProcess;
}

async function load(): Promise<CpuCalibration> {
  const { parquetCodec } = await import('../../../connectors/formats/parquet/codec.js');
  const key = calibrationKey(parquetCodec().name);
  const cache = await readCache();
  const hit = cache[key];
  if (hit && Date.now() - Date.parse(hit.measuredAt) < STALE_MS) return { ...hit, key, source: 'cache' };
  const measured = await measure();
  const entry = { ...measured, measuredAt: new Date().toISOString() };
  const file = cacheFile();
  try {
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify({ ...(await readCache()), [key]: entry }, null, 2)}\n`);
    await rename(tmp, file); // atomic: a concurrent reader sees the old or the new cache, whole
  } catch {
    // an unwritable cache only means measuring again next time
  }
  return { ...entry, key, source: 'measured' };
}

interface Sample {
  files: number;
  bytes: number;
  cpuSeconds: number;
}

/** Compacts one demo table and measures the CPU of the rewrite (after planning). */
async function sample(dir: string, commits: number, rowsPerCommit: number): Promise<Sample> {
  const { seedDemoTable } = await import('../../demo/seed.js');
  const { compactTable } = await import('../compact.js');
  const seeded = await seedDemoTable(dir, commits, rowsPerCommit);
  const counter = new RequestCounter();
  const run = await withRequestCounter(counter, () =>
    compactTable(seeded.location, {
      full: true,
      parallelism: 1,
      meter: false,
      onProgress: (e) => {
        if (e.type === 'plan') counter.mark();
      },
    }),
  );
  const cpuSeconds = (processCpuMicros() - (counter.planned?.cpuMicros ?? processCpuMicros())) / 1e6;
  const r = run.report as { bytesRead: number; bytesWritten: number };
  const reads = counter.snapshot().requests.get - (counter.planned?.figures.requests.get ?? 0);
  const writes = counter.snapshot().requests.put - (counter.planned?.figures.requests.put ?? 0);
  return { files: reads + writes, bytes: r.bytesRead + r.bytesWritten, cpuSeconds };
}

async function measure(): Promise<Omit<CpuCalibration, 'source' | 'key' | 'measuredAt'>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'floe-calibrate-'));
  try {
    await sample(path.join(dir, 'warm'), 2, 100); // the first rewrite in a process also pays for loading code
    const many = await sample(path.join(dir, 'many'), 12, 150);
    const big = await sample(path.join(dir, 'big'), 3, 40_000);
    // cpu = f·files + b·bytes, solved from the two samples; one rate alone when the other comes out negative
    const det = many.files * big.bytes - big.files * many.bytes;
    let f = det !== 0 ? (many.cpuSeconds * big.bytes - big.cpuSeconds * many.bytes) / det : -1;
    let b = det !== 0 ? (many.files * big.cpuSeconds - big.files * many.cpuSeconds) / det : -1;
    if (!(f > 0 && b > 0)) {
      // a noisy machine: half of each sample's CPU to the rate it stresses
      f = many.cpuSeconds / (2 * Math.max(1, many.files));
      b = big.cpuSeconds / (2 * Math.max(1, big.bytes));
    }
    return { secondsPerFile: f, secondsPerByte: b };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
