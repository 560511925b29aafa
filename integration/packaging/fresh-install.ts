/**
 * A fresh project that installs floe the way a user does: `npm pack` of this checkout (its prepack builds
 * dist/), `npm run pack:native` for the codec package of this platform, then `npm install <both tarballs>` in
 * an empty folder, on a PATH without cargo or rustc. Shared by integration/packaging/install.test.ts and
 * bench/packaged-codec-cpu.ts.
 *
 * - `--ignore-scripts`: floe and the codec packages have no install scripts; only better-sqlite3 has one, and it
 *   downloads a prebuilt binary from outside the npm registry or compiles SQLite against headers it downloads
 *   too — neither works offline, and nothing here opens a SQLite catalog.
 * - `--prefer-offline`: the packages come from npm's cache when the checkout's own install put them there.
 * - The optional peers (bullmq, ioredis, the Temporal SDK) and TypeScript are linked from this checkout's
 *   node_modules: they are the user's own installs, not what is under test.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Peers and tools linked from the checkout (see above). */
const LINKED = ['typescript', 'bullmq', 'ioredis', '@temporalio'];

/** PATH without any folder holding cargo or rustc, so nothing can build the codec. */
export function pathWithoutRust(pathVar = process.env.PATH ?? ''): string {
  return pathVar
    .split(path.delimiter)
    .filter((d) => d && !existsSync(path.join(d, 'cargo')) && !existsSync(path.join(d, 'rustc')))
    .join(path.delimiter);
}

/** The environment the installed floe runs with: no codec choice, no addon path, no Rust on PATH. */
export function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: pathWithoutRust() };
  delete env.FLOE_PARQUET_CODEC;
  delete env.FLOE_NATIVE_CODEC_PATH;
  delete env.FLOE_REQUIRE_NATIVE;
  delete env.NODE_OPTIONS;
  return env;
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

/** Runs a command to its end (asynchronously: a test worker blocked for minutes loses its link to vitest). */
export function run(cmd: string, args: string[], opts: SpawnOptions = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => resolve({ status: null, stdout, stderr, error }));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function must(what: string, r: RunResult): string {
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}, ${r.error?.message ?? ''}):\n${r.stderr}`);
  return r.stdout;
}

export interface FreshInstall {
  project: string;
  floeTarball: string;
  codecTarball: string;
  /** Seconds each step took. */
  timings: Record<string, number>;
}

async function timed<T>(timings: Record<string, number>, name: string, fn: () => Promise<T>): Promise<T> {
  const t = Date.now();
  try {
    return await fn();
  } finally {
    timings[name] = (Date.now() - t) / 1000;
  }
}

/** Packs floe and the host codec package into `dir`/packages and installs both into `dir`/project. */
export async function freshInstall(dir: string): Promise<FreshInstall> {
  const timings: Record<string, number> = {};
  const packages = path.join(dir, 'packages');
  mkdirSync(packages, { recursive: true });
  const packed = await timed(timings, 'pack:native', async () =>
    must(
      'npm run pack:native',
      await run('npm', ['run', '--silent', 'pack:native', '--', '--out', packages], { cwd: repoRoot }),
    ),
  );
  const folder = packed.trim().split('\n').at(-1)!;
  const codec = readdirSync(folder).find((f) => /^floe-parquet-codec-.*\.tgz$/.test(f));
  if (!codec) throw new Error(`npm run pack:native wrote no codec tarball into ${folder}`);
  await timed(timings, 'npm pack', async () =>
    must('npm pack', await run('npm', ['pack', '--pack-destination', packages], { cwd: repoRoot })),
  );
  const { version } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  const floeTarball = path.join(packages, `floe-${version}.tgz`);
  if (!existsSync(floeTarball)) throw new Error(`npm pack wrote no ${floeTarball}`);
  const project = path.join(dir, 'project');
  mkdirSync(project, { recursive: true });
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'floe-packaging-check', version: '1.0.0', private: true, type: 'module' }, null, 2),
  );
  const codecTarball = path.join(folder, codec);
  await timed(timings, 'npm install', async () =>
    must(
      'npm install',
      await run(
        'npm',
        ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', floeTarball, codecTarball],
        { cwd: project, env: userEnv() },
      ),
    ),
  );
  for (const name of LINKED) {
    const to = path.join(project, 'node_modules', name);
    if (!existsSync(to)) symlinkSync(path.join(repoRoot, 'node_modules', name), to);
  }
  return { project, floeTarball, codecTarball, timings };
}
