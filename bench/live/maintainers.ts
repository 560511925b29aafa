/**
 * The two maintenance regimes the live benchmark compares on the same schedule:
 * - `floe serve` with its self-optimizing compaction (the tiered planner and the table's self-optimizing.*
 *   properties), one long-lived process; its runs come from its own state database (floe_runs);
 * - fixed-interval bin-pack (what a cron'd Spark rewrite_data_files does): `floe compact --strategy binpack`
 *   started every interval as a fresh process, each run's CPU measured by bench/rusage.py.
 * Both report the same figures: runs, commits, conflicts, bytes read and written, CPU seconds.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** dist/bench/live → repository root. */
const root = path.resolve(here, '..', '..', '..');
const cli = path.join(root, 'dist', 'src', 'shells', 'cli', 'main.js');
const rusage = path.join(root, 'bench', 'rusage.py');

export interface MaintenanceRun {
  atMs: number;
  durationMs: number;
  outcome: string;
  commits: number;
  bytesRead: number;
  bytesWritten: number;
  /** A commit conflict or a failed group (named by floe as retryable). */
  conflict: boolean;
  error?: string;
}

export interface MaintenanceTally {
  regime: string;
  cpuSeconds: number;
  runs: MaintenanceRun[];
}

export interface Target {
  /** `<ns>.<table>` in the catalog. */
  table: string;
  /** floe's `sql:…` catalog spec. */
  catalog: string;
  catalogName: string;
  everySeconds: number;
  /** Options passed to the bin-pack runs (-o key=value). */
  binpackOptions: Record<string, string>;
}

const CONFLICT = /conflict|concurrent|another writer|no longer live|position delete|deletion vector|moved/i;

const CLK_TCK = 100; // Linux USER_HZ

/** utime + stime (+ waited-for children) of a live process, in seconds. */
function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime is field 14
  const ticks = [11, 12, 13, 14].map((i) => Number(fields[i]));
  return ticks.reduce((a, b) => a + b, 0) / CLK_TCK;
}

/** `floe serve` on the catalog with only a compaction job, every `everySeconds`. */
export function startServe(dir: string, t: Target) {
  const config = path.join(dir, 'floe.yaml');
  const state = path.join(dir, 'state.db');
  // JSON is YAML: one file format fewer to get wrong here
  writeFileSync(
    config,
    JSON.stringify(
      {
        state,
        concurrency: 1,
        discovery: { interval: '10m' },
        defaults: { jobs: { compact: { schedule: `every ${t.everySeconds}s` } } },
        catalogs: [{ name: 'lake', catalog: t.catalog, catalogName: t.catalogName }],
      },
      null,
      2,
    ),
  );
  const started = Date.now();
  const child = spawn(process.execPath, [cli, 'serve', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (b: Buffer) => (log = (log + b.toString('utf8')).slice(-20000)));
  child.stderr.on('data', (b: Buffer) => (log = (log + b.toString('utf8')).slice(-20000)));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    /** Stops the service (SIGTERM: running jobs finish first) and collects its runs. */
    async stop(): Promise<MaintenanceTally> {
      let cpuSeconds = NaN;
      try {
        cpuSeconds = processCpuSeconds(child.pid!);
      } catch {
        throw new Error(`floe serve is not running any more:\n${log}`);
      }
      child.kill('SIGTERM');
      await exited;
      const { default: Sqlite } = await import('better-sqlite3');
      const db = new Sqlite(state, { readonly: true });
      try {
        const rows = db
          .prepare(
            `SELECT started_ms, duration_ms, outcome, error, bytes_read, bytes_written, snapshot_ids FROM floe_runs WHERE job = 'compact' ORDER BY started_ms`,
          )
          .all() as {
          started_ms: number;
          duration_ms: number;
          outcome: string;
          error: string | null;
          bytes_read: number | null;
          bytes_written: number | null;
          snapshot_ids: string;
        }[];
        const runs = rows.map((r): MaintenanceRun => {
          const ids = JSON.parse(r.snapshot_ids || '[]') as unknown[];
          return {
            atMs: Number(r.started_ms) - started,
            durationMs: Number(r.duration_ms),
            outcome: r.outcome,
            commits: ids.length,
            bytesRead: Number(r.bytes_read ?? 0),
            bytesWritten: Number(r.bytes_written ?? 0),
            conflict: r.outcome !== 'ok' && CONFLICT.test(r.error ?? ''),
            ...(r.error ? { error: r.error } : {}),
          };
        });
        return { regime: 'floe serve (self-optimizing)', cpuSeconds, runs };
      } finally {
        db.close();
      }
    },
    log: () => log,
  };
}

interface CompactJson {
  status?: string;
  snapshots?: string[];
  failedTasks?: { reason: string }[];
  bytesRead?: number | string;
  bytesWritten?: number | string;
  error?: { kind: string; message: string };
}

/** One `floe compact --strategy binpack` process: its result and CPU (the process tree's, via rusage.py). */
async function binpackOnce(dir: string, t: Target, n: number, startedAt: number): Promise<[MaintenanceRun, number]> {
  const out = path.join(dir, `binpack-${n}.rusage.json`);
  const opts = Object.entries(t.binpackOptions).flatMap(([k, v]) => ['-o', `${k}=${v}`]);
  const args = [
    ...[rusage, out, '--', process.execPath, cli, 'compact', t.table],
    ...['--catalog', t.catalog, '--catalog-name', t.catalogName, '--strategy', 'binpack', ...opts, '--json'],
  ];
  const at = Date.now();
  const { stdout, code } = await new Promise<{ stdout: string; code: number | null }>((resolve) => {
    const child = spawn('python3', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let s = '';
    child.stdout.on('data', (b: Buffer) => (s += b.toString('utf8')));
    child.stderr.resume();
    child.on('close', (c) => resolve({ stdout: s, code: c }));
  });
  const cost = JSON.parse(readFileSync(out, 'utf8')) as { cpu_s: number; wall_s: number };
  let j: CompactJson = {};
  try {
    j = JSON.parse(stdout) as CompactJson;
  } catch {
    j = { error: { kind: 'Unknown', message: `exit ${code}, no JSON: ${stdout.slice(0, 300)}` } };
  }
  const reasons = [...(j.failedTasks ?? []).map((f) => f.reason), ...(j.error ? [j.error.message] : [])];
  const run: MaintenanceRun = {
    atMs: at - startedAt,
    durationMs: Math.round(cost.wall_s * 1000),
    outcome: j.status ?? (code === 0 ? 'ok' : 'failed'),
    commits: j.snapshots?.length ?? 0,
    bytesRead: Number(j.bytesRead ?? 0),
    bytesWritten: Number(j.bytesWritten ?? 0),
    conflict: reasons.some((r) => CONFLICT.test(r)),
    ...(reasons.length ? { error: reasons.join('; ').slice(0, 300) } : {}),
  };
  return [run, cost.cpu_s];
}

/** Bin-pack every `everySeconds` (first run at once, as serve's first run) until stopped. */
export function startFixedBinpack(dir: string, t: Target) {
  const startedAt = Date.now();
  const runs: MaintenanceRun[] = [];
  let cpuSeconds = 0;
  let stopping = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    for (let n = 0; !stopping; n++) {
      const due = startedAt + n * t.everySeconds * 1000;
      while (!stopping && Date.now() < due)
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, Math.min(1000, due - Date.now()));
        });
      if (stopping) break;
      const [run, cpu] = await binpackOnce(dir, t, n, startedAt);
      runs.push(run);
      cpuSeconds += cpu;
    }
  })();
  return {
    async stop(): Promise<MaintenanceTally> {
      stopping = true;
      wake?.();
      await loop;
      return { regime: 'fixed-interval floe bin-pack', cpuSeconds, runs };
    },
  };
}
