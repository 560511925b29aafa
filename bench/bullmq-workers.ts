/**
 * `npm run bench -- bullmq-workers` (issue 12): the issue-11 table without deletes (bench/table-1gb.ts,
 * FLOE_BENCH_SCALE / --scale) compacted (bin-pack, min-input-files 2: one rewrite job per partition, 8)
 * through floe/bullmq with 1 worker process and with 2 worker processes (concurrency 1 each), against a
 * real redis-server on 127.0.0.1 (scripts/setup-redis.sh). Interleaved, --reps (default 3), each on a
 * fresh copy of the table; wall = enqueue (plan included) → commit job finished, workers already running;
 * CPU = the workers' own (process.cpuUsage) plus the enqueueing parent's. Prints medians, the
 * 1-vs-2 wall ratio and whether the rows equal the input (DuckDB count + checksum of all columns).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, treeState } from './compact-1gb.js';
import { BenchTable, scaleFiles } from './table-1gb.js';
import { numberFlag, type Benchmark, type BenchContext, type BenchResult } from './types.js';

interface Redis {
  port: number;
  stop(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function startRedis(): Promise<Redis> {
  if (spawnSync('redis-server', ['--version']).status !== 0)
    throw new Error('redis-server is not installed: run `bash scripts/setup-redis.sh`');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-bench-redis-'));
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1');
      c.once('error', () => resolve(false));
      c.once('connect', () => {
        c.destroy();
        resolve(true);
      });
    });
    if (up)
      return {
        port,
        stop: () => {
          child.kill('SIGTERM');
          rmSync(dir, { recursive: true, force: true });
        },
      };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

interface WorkerProc {
  child: ChildProcess;
  out: () => string;
}

async function startWorker(port: number, queue: string): Promise<WorkerProc> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bullmq-worker.js');
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, REDIS_PORT: String(port), QUEUE: queue },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const t = setInterval(() => {
      if (out.includes('ready\n')) {
        clearInterval(t);
        resolve();
      } else if (child.exitCode !== null) {
        clearInterval(t);
        reject(new Error(`worker exited: ${out}`));
      }
    }, 50);
  });
  return { child, out: () => out };
}

async function stopWorker(w: WorkerProc): Promise<{ cpu_s: number; peak_rss_bytes: number; jobs: number }> {
  const gone = new Promise((r) => w.child.once('exit', r));
  w.child.kill('SIGTERM');
  await gone;
  const line = w
    .out()
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (!line) throw new Error(`worker printed no cost: ${w.out().slice(-500)}`);
  return JSON.parse(line) as { cpu_s: number; peak_rss_bytes: number; jobs: number };
}

interface Sample {
  workers: number;
  wall_s: number;
  cpu_s: number;
  peak_rss_bytes: number;
  jobs: number[];
  rowsOk: boolean;
}

const bench: Benchmark = {
  name: 'bullmq-workers',
  description: 'the ~1 GB small-files table compacted through floe/bullmq with 1 and with 2 worker processes',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const { enqueueMaintenance } = await import('../src/shells/bindings/bullmq.js');
    const scale = numberFlag(ctx.flags, 'scale', Number(process.env.FLOE_BENCH_SCALE ?? 1));
    const reps = numberFlag(ctx.flags, 'reps', 3);
    const table = new BenchTable(scaleFiles(scale));
    const facts = await table.ensure(ctx.log);
    const loadBefore = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    const redis = await startRedis();
    const samples: Sample[] = [];
    const t0 = Date.now();
    try {
      for (let r = 0; r < reps; r++) {
        for (const n of r % 2 ? [2, 1] : [1, 2]) {
          await table.restore('base');
          const queue = `bench-${r}-${n}`;
          const workers = await Promise.all(Array.from({ length: n }, () => startWorker(redis.port, queue)));
          const cpu0 = process.cpuUsage();
          const w0 = performance.now();
          const run = await enqueueMaintenance(
            { connection: { host: '127.0.0.1', port: redis.port }, queueName: queue },
            {
              table: table.work,
              job: 'compact',
              compact: { strategy: 'binpack' },
              properties: { 'min-input-files': '2' },
            },
          );
          const result = await run.waitUntilFinished(3_600_000);
          const wall_s = (performance.now() - w0) / 1000;
          const c = process.cpuUsage(cpu0);
          const costs = await Promise.all(workers.map(stopWorker));
          if (!result.ok) throw new Error(`bullmq run ${run.runId} failed: ${JSON.stringify(result).slice(0, 800)}`);
          const rows = await table.checksum(table.currentMetadata());
          const want = facts.expected.base!;
          const s: Sample = {
            workers: n,
            wall_s,
            cpu_s: (c.user + c.system) / 1e6 + costs.reduce((a, x) => a + x.cpu_s, 0),
            peak_rss_bytes: Math.max(...costs.map((x) => x.peak_rss_bytes)),
            jobs: costs.map((x) => x.jobs),
            rowsOk: rows.rows === want.rows && rows.checksum === want.checksum,
          };
          samples.push(s);
          ctx.log(
            `bullmq-workers rep ${r + 1}/${reps}, ${n} worker(s): ${wall_s.toFixed(1)} s, ${s.cpu_s.toFixed(1)} CPU-s, jobs per worker ${s.jobs.join('/')}, rows ${s.rowsOk ? 'identical' : 'DIFFER'}`,
          );
        }
      }
    } finally {
      redis.stop();
    }
    const of = (n: number) => samples.filter((s) => s.workers === n);
    const m = (n: number, k: 'wall_s' | 'cpu_s' | 'peak_rss_bytes') => median(of(n).map((s) => s[k]));
    const rows = [1, 2].map((n) => ({
      workers: `${n} process${n > 1 ? 'es' : ''}`,
      'wall s': m(n, 'wall_s').toFixed(1),
      'CPU s': m(n, 'cpu_s').toFixed(1),
      'peak RSS MiB (largest worker)': (m(n, 'peak_rss_bytes') / 2 ** 20).toFixed(0),
      'wall × 1 worker': (m(n, 'wall_s') / m(1, 'wall_s')).toFixed(2),
      'jobs per worker': of(n)
        .map((s) => s.jobs.join('/'))
        .join(' '),
      rows: of(n).every((s) => s.rowsOk) ? 'identical' : 'DIFFER',
      'reps (wall s)': of(n)
        .map((s) => s.wall_s.toFixed(1))
        .join(' '),
    }));
    const notes = [
      `wall-time ratio 1 worker / 2 workers: ${(m(1, 'wall_s') / m(2, 'wall_s')).toFixed(2)}× (speed-up of the 2nd worker process)`,
      `table: ${facts.files} files, ${facts.rows} rows, ${(facts.dataBytes / 1e9).toFixed(3)} GB (no deletes); rows checked against the input after every run: ${samples.every((s) => s.rowsOk) ? 'identical' : 'DIFFER'}`,
      `floe tree: ${treeState()}; ${reps} interleaved reps, medians; ${os.availableParallelism()} cores; load before ${loadBefore}, after ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; total ${((Date.now() - t0) / 60_000).toFixed(1)} min`,
    ];
    return { rows, notes, data: { samples } };
  },
};

export default bench;
