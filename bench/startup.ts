/**
 * CLI start-up cost: `floe --version`, `floe --help` and `floe compact --help` (dist/src/shells/cli/main.js),
 * each a fresh `node` process, next to the peer `node -e 0` in the same run, interleaved (every repetition
 * runs every case once, in order), `--reps` (7) repetitions; medians of wall time, CPU time (user + sys of
 * the child) and peak RSS, with the ratio to the peer.
 *
 * CPU and RSS: a CommonJS preload (`node -r`, no ESM loader, so the peer stays a bare `node -e 0`) writes
 * `process.resourceUsage()` and VmHWM (peak RSS since exec, see bench/peak-rss.ts) at the child's 'exit' —
 * microsecond user/sys time since the process started, i.e. bootstrap included, only the teardown after
 * 'exit' missed (the same for every case). Wall time is
 * taken in this process from spawn to exit.
 *
 * Modules: one extra, untimed run per case with a loader (`module.register`) that records every file: URL
 * the ESM loader loads, plus the CommonJS cache at exit (require() of CommonJS dependencies bypasses the
 * ESM hooks); the count is the distinct files, split into floe's own (dist/) and dependencies (node_modules/).
 * Built-ins (node:*) are not counted.
 *
 * `--before DIR`: also runs DIR/dist/src/shells/cli/main.js (e.g. the previous commit built outside the tree:
 * `git archive HEAD | tar -x -C DIR`, node_modules symlinked, `npx tsc -p tsconfig.json` there) in the same
 * interleaved loop, and reports before/after CPU ratios.
 *
 * Flags: --reps N (7), --before DIR.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FloeError } from '../util/errors.js';
import { numberFlag, type Benchmark, type BenchResult } from './types.js';

// dist/bench/startup.js → the checkout root
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const CPU_PROBE = `
const fs = require('node:fs');
const out = process.env.FLOE_BENCH_PROBE_OUT;
process.on('exit', () => {
  const u = process.resourceUsage();
  // VmHWM, not maxRSS: maxRSS keeps the (bench) parent's RSS at fork as a floor (bench/peak-rss.ts)
  let maxRssKb = u.maxRSS;
  try { maxRssKb = Number(/^VmHWM:\\s*(\\d+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]); } catch {}
  fs.writeFileSync(out, JSON.stringify({ userUs: u.userCPUTime, sysUs: u.systemCPUTime, maxRssKb }));
});
`;

// Runs on the loader thread: every module the ESM loader loads, one URL per line.
const MODULE_LOADER = `
import { appendFileSync } from 'node:fs';
const out = process.env.FLOE_BENCH_MODULES_OUT;
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(out, url + '\\n');
  return next(url, context);
}
`;

// Preload for the counting run: installs the loader, and lists the CommonJS cache at exit.
const MODULE_PRELOAD = `
import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
register(process.env.FLOE_BENCH_LOADER_URL);
const require = createRequire(import.meta.url);
process.on('exit', () => {
  const urls = Object.keys(require.cache).map((f) => pathToFileURL(f).href);
  if (urls.length > 0) appendFileSync(process.env.FLOE_BENCH_MODULES_OUT, urls.join('\\n') + '\\n');
});
`;

interface Case {
  name: string;
  /** Which CLI build ('' for the peer). */
  build: 'peer' | 'after' | 'before';
  /** The command as shown in the table. */
  shown: string;
  args: string[];
}

interface Sample {
  wallMs: number;
  cpuMs: number;
  maxRssKb: number;
}

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Runs `node <nodeArgs> <args>` to completion; rejects on a non-zero exit (a broken CLI must not look fast). */
function runChild(nodeArgs: string[], c: Case, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, ...c.args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const ms = performance.now() - t0;
      if (code === 0) resolve(ms);
      else
        reject(
          new FloeError('Internal', `startup bench: ${c.name} exited with ${code ?? signal}: ${stderr.slice(0, 500)}`),
        );
    });
  });
}

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  // the bench parent runs with these; the children must not inherit them
  delete env.NODE_OPTIONS;
  delete env.NODE_DEBUG;
  return env;
}

async function timeOnce(c: Case, probe: string, out: string): Promise<Sample> {
  rmSync(out, { force: true });
  const wallMs = await runChild(['-r', probe], c, childEnv({ FLOE_BENCH_PROBE_OUT: out }));
  const u = JSON.parse(readFileSync(out, 'utf8')) as { userUs: number; sysUs: number; maxRssKb: number };
  return { wallMs, cpuMs: (u.userUs + u.sysUs) / 1000, maxRssKb: u.maxRssKb };
}

interface ModuleCount {
  total: number;
  floe: number;
  deps: number;
}

async function countModules(c: Case, dir: string, preload: string, loader: string): Promise<ModuleCount> {
  const out = path.join(dir, `modules-${c.build}-${c.name.replace(/\W+/g, '_')}.txt`);
  rmSync(out, { force: true });
  writeFileSync(out, '');
  await runChild(
    ['--no-warnings', '--import', pathToFileURL(preload).href],
    c,
    childEnv({ FLOE_BENCH_MODULES_OUT: out, FLOE_BENCH_LOADER_URL: pathToFileURL(loader).href }),
  );
  const files = new Set(
    readFileSync(out, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0 && l !== pathToFileURL(preload).href),
  );
  let deps = 0;
  for (const f of files) if (f.includes('/node_modules/')) deps++;
  return { total: files.size, floe: files.size - deps, deps };
}

const bench: Benchmark = {
  name: 'startup',
  description: 'CLI start-up: floe --version / --help / compact --help vs node -e 0, fresh processes, interleaved',
  async run(ctx): Promise<BenchResult> {
    const reps = Math.floor(numberFlag(ctx.flags, 'reps', 7));
    const beforeFlag = ctx.flags.before;
    if (beforeFlag === true)
      throw new FloeError('InvalidArgument', '--before needs a directory (a checkout with dist/ built)');
    const cliFor = (root: string) => path.join(root, 'dist', 'src', 'shells', 'cli', 'main.js');
    const builds: { build: 'after' | 'before'; cli: string }[] = [{ build: 'after', cli: cliFor(ROOT) }];
    if (typeof beforeFlag === 'string') builds.push({ build: 'before', cli: cliFor(path.resolve(beforeFlag)) });
    for (const b of builds)
      if (!existsSync(b.cli))
        throw new FloeError('NotFound', `startup bench: no CLI build at ${b.cli} (run npm run build there)`);

    const commands: [string, string[]][] = [
      ['--version', ['--version']],
      ['--help', ['--help']],
      ['compact --help', ['compact', '--help']],
    ];
    const cases: Case[] = [{ name: 'node -e 0', build: 'peer', shown: 'node -e 0', args: ['-e', '0'] }];
    for (const b of builds)
      for (const [name, args] of commands)
        cases.push({ name, build: b.build, shown: `floe ${name}`, args: [b.cli, ...args] });

    const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-bench-startup-'));
    try {
      const probe = path.join(dir, 'cpu-probe.cjs');
      const loader = path.join(dir, 'module-loader.mjs');
      const preload = path.join(dir, 'module-preload.mjs');
      writeFileSync(probe, CPU_PROBE);
      writeFileSync(loader, MODULE_LOADER);
      writeFileSync(preload, MODULE_PRELOAD);
      const out = path.join(dir, 'usage.json');

      // one untimed warm-up round (file cache), then the interleaved repetitions
      for (const c of cases) await timeOnce(c, probe, out);
      const samples = new Map<Case, Sample[]>(cases.map((c) => [c, []]));
      for (let r = 0; r < reps; r++) {
        ctx.log(`startup: repetition ${r + 1}/${reps}`);
        for (const c of cases) samples.get(c)!.push(await timeOnce(c, probe, out));
      }
      const modules = new Map<Case, ModuleCount>();
      for (const c of cases) modules.set(c, await countModules(c, dir, preload, loader));

      const med = (c: Case) => {
        const s = samples.get(c)!;
        return {
          wallMs: median(s.map((x) => x.wallMs)),
          cpuMs: median(s.map((x) => x.cpuMs)),
          rssMiB: median(s.map((x) => x.maxRssKb)) / 1024,
        };
      };
      const peer = med(cases[0]!);
      const rows = cases.map((c) => {
        const m = med(c);
        const mods = modules.get(c)!;
        return {
          build: c.build === 'peer' ? '' : c.build === 'after' ? 'this tree' : 'before',
          command: c.shown,
          'wall ms': round(m.wallMs),
          'cpu ms': round(m.cpuMs),
          'wall ×peer': round(m.wallMs / peer.wallMs, 2),
          'cpu ×peer': round(m.cpuMs / peer.cpuMs, 2),
          'peak rss MiB': round(m.rssMiB),
          modules: mods.total,
          'floe/deps': c.build === 'peer' ? '' : `${mods.floe}/${mods.deps}`,
        };
      });

      const notes = [
        `${reps} interleaved repetitions (+1 warm-up) of each case, each a fresh process; medians. CPU = user+sys of the child (process.resourceUsage at exit).`,
        `modules = distinct files loaded (ESM loader + CommonJS cache), floe's own / node_modules; node: built-ins not counted.`,
        `load average at the end: ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')} (${os.cpus().length} cores) — compare ratios within this run, not absolute times across runs.`,
      ];
      const comparison: Record<string, { cpuBeforeOverAfter: number; cpuAboveNodeBeforeOverAfter: number }> = {};
      if (builds.length > 1) {
        notes.push(`before = ${cliFor(path.resolve(String(beforeFlag)))}; after = this tree:`);
        for (const [name] of commands) {
          const a = med(cases.find((c) => c.build === 'after' && c.name === name)!);
          const b = med(cases.find((c) => c.build === 'before' && c.name === name)!);
          const total = b.cpuMs / a.cpuMs;
          // what floe adds on top of starting node at all; guarded so noise cannot divide by ~0
          const above = (b.cpuMs - peer.cpuMs) / Math.max(a.cpuMs - peer.cpuMs, 1);
          comparison[name] = { cpuBeforeOverAfter: round(total, 2), cpuAboveNodeBeforeOverAfter: round(above, 2) };
          notes.push(
            `  floe ${name}: CPU before/after ${round(total, 2)}× (${round(b.cpuMs)} → ${round(a.cpuMs)} ms); above node -e 0: ${round(above, 2)}× (${round(b.cpuMs - peer.cpuMs)} → ${round(a.cpuMs - peer.cpuMs)} ms); wall ${round(b.wallMs / a.wallMs, 2)}×`,
          );
        }
      }
      const data = {
        reps,
        cases: cases.map((c) => ({
          build: c.build,
          command: c.shown,
          args: c.args,
          samples: samples.get(c),
          modules: modules.get(c),
        })),
        comparison,
      };
      return { rows, notes, data };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default bench;
