#!/usr/bin/env node
/**
 * Builds the native Parquet codec (native/parquet-codec: arrow-rs `parquet` behind a napi-rs binding) into
 * native/parquet-codec/floe-parquet-codec.node, which connectors/formats/parquet/native-codec.ts loads.
 *
 * - cargo builds into the floe build cache (<cache>/native/target, the cache root of scripts/cache-dir.sh),
 *   so the dependencies are compiled once per machine, not once per clone.
 * - Nothing is run when the .node is newer than every input (Cargo.toml, Cargo.lock, build.rs, src/**).
 * - Each built addon is also kept in <cache>/native/addons/<hash of the inputs, platform, arch>.node, so a fresh
 *   clone (new mtimes, which make cargo recompile the crate: ~100 CPU-s) copies it instead of building.
 * - No cargo: a loud notice and exit 0 (floe falls back to parquet-wasm), unless FLOE_REQUIRE_NATIVE=1 (or
 *   CI=true and FLOE_REQUIRE_NATIVE unset), then exit 1 saying how to install Rust.
 * - cargo's progress ("Compiling …" lines, its stderr) is shown as it builds: a cold build takes minutes, and
 *   silence looks like a hang; its stdout is kept in <cache>/native/build.log.
 * No dependencies: it runs before `npm install` has necessarily finished anything else.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ADDON = 'floe-parquet-codec.node';
const INPUTS = ['Cargo.toml', 'Cargo.lock', 'build.rs'];
const RUSTUP_HINT =
  "install Rust with rustup (https://rustup.rs): curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh";

/** The build cache root, the same rule as scripts/cache-dir.sh. */
export function cacheRoot(env = process.env) {
  return env.FLOE_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache'), 'floe');
}

/** The file cargo leaves in target/release for a cdylib named floe_parquet_codec on this platform. */
export function cargoArtifact(platform = process.platform) {
  if (platform === 'darwin') return 'libfloe_parquet_codec.dylib';
  if (platform === 'win32') return 'floe_parquet_codec.dll';
  return 'libfloe_parquet_codec.so';
}

function walk(dir, out) {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

/** Why the addon must be (re)built, or undefined when it is newer than every input. */
export function staleReason(crateDir) {
  const addon = path.join(crateDir, ADDON);
  if (!existsSync(addon)) return `${ADDON} not built yet`;
  const built = statSync(addon).mtimeMs;
  for (const f of inputs(crateDir)) {
    if (statSync(f).mtimeMs > built) return `${path.relative(crateDir, f)} changed`;
  }
  return undefined;
}

function inputs(crateDir) {
  const files = [...INPUTS.map((f) => path.join(crateDir, f)), ...walk(path.join(crateDir, 'src'), []).sort()];
  return files.filter((f) => existsSync(f));
}

/** The addon cache key: every input's path and bytes, and the platform the addon is built for. */
export function inputHash(crateDir) {
  const h = createHash('sha256').update(`${process.platform}-${process.arch}\0`);
  for (const f of inputs(crateDir))
    h.update(`${path.relative(crateDir, f)}\0`)
      .update(readFileSync(f))
      .update('\0');
  return h.digest('hex').slice(0, 32);
}

/**
 * The mtime an installed addon gets: a second before the inputs were hashed, because file times come from the
 * kernel's coarse clock and may lag Date.now(); an input edited around then only costs a re-hash next run.
 */
const beforeNow = () => new Date(Date.now() - 1000);

/** Copies `from` to `to` through a temporary file in the same directory and a rename, then sets its mtime. */
function install(from, to, mtime) {
  const tmp = path.join(path.dirname(to), `.tmp-${process.pid}-${path.basename(to)}`);
  copyFileSync(from, tmp);
  utimesSync(tmp, mtime, mtime);
  renameSync(tmp, to);
}

const KEEP_CACHED_ADDONS = 4;

/** Drops all but the newest few cached addons (every edit of the crate makes a new ~11 MB one). */
function prune(dir) {
  const entries = readdirSync(dir)
    .filter((f) => f.endsWith('.node') && !f.startsWith('.tmp-'))
    .map((f) => ({ f, t: statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const { f } of entries.slice(KEEP_CACHED_ADDONS)) rmSync(path.join(dir, f), { force: true });
}

/** A usable cargo: on PATH, else rustup's default place (CI shells often do not source ~/.cargo/env). */
function findCargo(env) {
  const home = env.CARGO_HOME || path.join(env.HOME || os.homedir(), '.cargo');
  const exe = process.platform === 'win32' ? 'cargo.exe' : 'cargo';
  let lastError = 'cargo not found on PATH or in ' + path.join(home, 'bin');
  for (const cargo of [exe, path.join(home, 'bin', exe)]) {
    const r = spawnSync(cargo, ['--version'], { env, encoding: 'utf8' });
    if (r.error) continue; // not there
    if (r.status === 0) return { cargo, version: r.stdout.trim() };
    // e.g. a rustup proxy without a default toolchain
    lastError = `${cargo} --version failed: ${(r.stderr || r.stdout).trim().split('\n')[0]}`;
  }
  return { error: lastError };
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Holds <cache>/native/build.lock (a directory: mkdir is atomic) from cargo's start until the .node is copied,
 * so two clones sharing the cache cannot copy each other's artifact. A lock whose owner died is taken over.
 */
function withLock(lockDir, log, fn) {
  let waited = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let owner = NaN;
      try {
        owner = Number(readPid(lockDir));
      } catch {
        // the owner has not written its pid yet
      }
      if (Number.isInteger(owner) && owner > 0 && !alive(owner)) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!waited) log(`native codec: waiting for another build (${lockDir})…`);
      waited = true;
      sleep(500);
    }
  }
  try {
    writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
    return fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function readPid(lockDir) {
  const p = path.join(lockDir, 'pid');
  return existsSync(p) ? readFileSync(p, 'utf8') : '';
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/**
 * Builds the addon when stale. Returns { status: 'up-to-date' | 'built' | 'no-cargo' | 'failed', code }, code
 * being the exit code a caller should use (0 for no-cargo unless `require`).
 */
export function buildNative({
  root,
  env = process.env,
  require = env.FLOE_REQUIRE_NATIVE ? env.FLOE_REQUIRE_NATIVE === '1' : env.CI === 'true' || env.CI === '1',
  log = (line) => process.stderr.write(`${line}\n`),
}) {
  const crateDir = path.join(root, 'native', 'parquet-codec');
  const why = staleReason(crateDir);
  if (!why) {
    log('native codec: up to date');
    return { status: 'up-to-date', code: 0 };
  }
  const cacheDir = path.join(cacheRoot(env), 'native');
  const addonsDir = path.join(cacheDir, 'addons');
  const dest = path.join(crateDir, ADDON);
  const hashed = beforeNow();
  const key = inputHash(crateDir);
  const cached = path.join(addonsDir, `${key}.node`);
  if (existsSync(cached)) {
    install(cached, dest, hashed);
    log(`native codec: up to date (copied from the build cache, ${cached})`);
    return { status: 'cached', code: 0 };
  }
  const found = findCargo(env);
  if (!found.cargo) {
    if (require) {
      log(
        `native codec: ERROR — the native Parquet codec is required (FLOE_REQUIRE_NATIVE=1 or CI=true) but ${found.error}.`,
      );
      log(
        `native codec: ${RUSTUP_HINT}, then re-run (or set FLOE_REQUIRE_NATIVE=0 to run on the parquet-wasm fallback).`,
      );
      return { status: 'no-cargo', code: 1 };
    }
    log('native codec: ************************************************************************');
    log(`native codec: NOT BUILT — ${found.error}.`);
    log(
      'native codec: floe will use the slower parquet-wasm fallback (same output, ~3x slower Parquet decode/encode).',
    );
    log(`native codec: for the fast codec, ${RUSTUP_HINT}, then run \`npm run build:native\`.`);
    log('native codec: ************************************************************************');
    return { status: 'no-cargo', code: 0 };
  }
  const targetDir = path.join(cacheDir, 'target');
  const logFile = path.join(cacheDir, 'build.log');
  mkdirSync(cacheDir, { recursive: true });
  log(`native codec: building (cold build ~2-3 min on 2 cores)… — ${why}; ${found.version}; cache ${targetDir}`);
  return withLock(path.join(cacheDir, 'build.lock'), log, () => {
    const started = new Date();
    const childEnv = {
      ...env,
      CARGO_TARGET_DIR: targetDir,
      CARGO_TERM_COLOR: 'never',
      CARGO_TERM_PROGRESS_WHEN: 'never',
    };
    if (path.isAbsolute(found.cargo)) childEnv.PATH = `${path.dirname(found.cargo)}${path.delimiter}${env.PATH ?? ''}`;
    // The target directory is shared by every clone, and cargo keys the crate's artifacts by its path within
    // the workspace and judges them by mtimes: a clone whose sources are older than another clone's last build
    // would get that build. The addon cache above missed, so these sources were never built: drop the crate's
    // own artifacts (its dependencies stay built) and let cargo compile it from them.
    spawnSync(found.cargo, ['clean', '--release', '-p', 'floe-parquet-codec'], {
      cwd: crateDir,
      env: childEnv,
      stdio: 'ignore',
    });
    const r = spawnSync(found.cargo, ['build', '--release', '--locked'], {
      cwd: crateDir,
      env: childEnv,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      // stderr (progress, compiler errors) straight to ours, live
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    writeFileSync(logFile, output);
    if (r.error || r.status !== 0) {
      process.stderr.write(output);
      const how = r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit code ${r.status}`;
      log(`native codec: ERROR — cargo build failed (${how}); full log: ${logFile}`);
      return { status: 'failed', code: r.status || 1 };
    }
    const artifact = path.join(targetDir, 'release', cargoArtifact());
    if (!existsSync(artifact)) {
      log(`native codec: ERROR — cargo succeeded but ${artifact} is missing; full log: ${logFile}`);
      return { status: 'failed', code: 1 };
    }
    // Copy then rename, so a process that has the old .node loaded keeps its mapping intact. A source edited
    // while cargo ran may be missing from the addon: then it is installed as stale and not cached.
    const checked = beforeNow();
    if (inputHash(crateDir) === key) {
      install(artifact, dest, checked);
      mkdirSync(addonsDir, { recursive: true });
      install(artifact, cached, new Date());
      prune(addonsDir);
    } else {
      install(artifact, dest, new Date(0));
      log('native codec: the sources changed during the build; the next run builds again');
    }
    log(`native codec: built in ${Math.round((Date.now() - started.getTime()) / 1000)} s`);
    return { status: 'built', code: 0 };
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  process.exitCode = buildNative({ root }).code;
}
