#!/usr/bin/env node
/**
 * The CPU of one compaction by floe installed from its tarballs (fresh project, prebuilt codec package:
 * integration/packaging/fresh-install.ts) against the same compaction by this checkout (dist/ and its own
 * native build), in the same run: demo tables seeded alike, runs alternated, median user+system CPU of the
 * floe process (all its threads, process.cpuUsage() at exit). Issue 24 asks for the install within 10 %.
 *
 *   node --import tsx bench/packaged-codec-cpu.mjs [reps=5]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seedDemoTable } from '../src/demo/seed.ts';
import { freshInstall, repoRoot, run, userEnv } from '../integration/packaging/fresh-install.ts';

const reps = Number(process.argv[2] ?? 5);
const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-packaged-cpu-'));
const preload = path.join(dir, 'cpu-at-exit.mjs');
writeFileSync(
  preload,
  "import { writeFileSync } from 'node:fs';\n" +
    "process.on('exit', () => writeFileSync(process.env.CPU_OUT, JSON.stringify(process.cpuUsage())));\n",
);

async function compactCpu(cli, table, cwd, n) {
  const out = path.join(dir, `cpu-${n}.json`);
  const r = await run(process.execPath, ['--import', preload, cli, 'compact', table, '--json', '--progress', 'none'], {
    cwd,
    env: { ...userEnv(), CPU_OUT: out },
  });
  if (r.status !== 0) throw new Error(`compact ${table} failed: ${r.stderr}`);
  const codec = JSON.parse(r.stdout).parquetCodec;
  if (codec !== 'native') throw new Error(`compact ${table} ran on ${codec}`);
  const { user, system } = JSON.parse(readFileSync(out, 'utf8'));
  return (user + system) / 1000;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  const install = await freshInstall(dir);
  const installed = path.join(install.project, 'node_modules', 'floe', 'dist', 'src', 'shells', 'cli', 'main.js');
  const checkout = path.join(repoRoot, 'dist', 'src', 'shells', 'cli', 'main.js');
  const ms = { installed: [], checkout: [] };
  for (let i = 0; i < reps; i++) {
    for (const [name, cli, cwd] of [
      ['installed', installed, install.project],
      ['checkout', checkout, repoRoot],
    ]) {
      const table = (await seedDemoTable(path.join(dir, `wh-${name}-${i}`))).location;
      ms[name].push(await compactCpu(cli, table, cwd, `${name}-${i}`));
    }
  }
  const a = median(ms.installed);
  const b = median(ms.checkout);
  console.log(
    `installed (prebuilt package): ${ms.installed.map((x) => x.toFixed(0)).join(' ')} ms CPU, median ${a.toFixed(0)}`,
  );
  console.log(
    `checkout (own build):         ${ms.checkout.map((x) => x.toFixed(0)).join(' ')} ms CPU, median ${b.toFixed(0)}`,
  );
  console.log(`installed / checkout: ${(a / b).toFixed(3)} (${reps} reps each, alternated)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
