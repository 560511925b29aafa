/**
 * Issue 11: scripts/build-native.mjs builds the native Parquet codec into the build cache and copies the addon
 * next to the crate. Checked on scratch trees with a fake `cargo` (a shell script recording how it was called),
 * so the rules — skip when fresh, cargo's progress shown live, fall back loudly without cargo, fail when the
 * native codec is required — are tested without a 2-minute Rust build.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error — a plain .mjs script without type declarations
import { buildNative, cacheRoot, cargoArtifact, staleReason } from '../../../scripts/build-native.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-build-native-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let n = 0;
/** A scratch clone: scripts/build-native.mjs and a crate whose inputs are a minute old. */
function clone(): { root: string; crate: string; cache: string } {
  const root = path.join(scratch, `clone-${++n}`);
  const crate = path.join(root, 'native/parquet-codec');
  mkdirSync(path.join(crate, 'src/nested'), { recursive: true });
  mkdirSync(path.join(root, 'scripts'));
  copyFileSync(path.join(repoRoot, 'scripts/build-native.mjs'), path.join(root, 'scripts/build-native.mjs'));
  for (const f of ['Cargo.toml', 'Cargo.lock', 'build.rs', 'src/lib.rs', 'src/nested/mod.rs']) {
    writeFileSync(path.join(crate, f), `// ${f}\n`);
    age(path.join(crate, f), 60);
  }
  return { root, crate, cache: path.join(root, 'cache') };
}

function age(p: string, secondsAgo: number): void {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(p, t, t);
}

/**
 * A fake cargo in its own bin directory: `--version` answers, `build` appends its arguments and
 * CARGO_TARGET_DIR to calls.log, prints noise, then writes the artifact (or fails with a compiler error).
 */
function fakeCargo(dir: string, mode: 'ok' | 'fail' | 'edit-while-building'): string {
  const bin = path.join(dir, 'fake-bin');
  mkdirSync(bin, { recursive: true });
  const artifact = cargoArtifact();
  const ok = `/bin/mkdir -p "$CARGO_TARGET_DIR/release"; printf 'addon built from %s\\n' "$PWD" > "$CARGO_TARGET_DIR/release/${artifact}"`;
  const build =
    mode === 'ok'
      ? ok
      : mode === 'edit-while-building'
        ? `echo '// edited while cargo ran' >> src/lib.rs; ${ok}`
        : `echo 'error[E0425]: cannot find value \`nope\` in this scope' >&2; exit 101`;
  writeFileSync(
    path.join(bin, 'cargo'),
    [
      '#!/bin/sh',
      'if [ "$1" = "--version" ]; then echo "cargo 0.0.0-fake"; exit 0; fi',
      `echo "$* target=$CARGO_TARGET_DIR" >> "${path.join(dir, 'calls.log')}"`,
      'if [ "$1" = "clean" ]; then exit 0; fi',
      'echo "   Compiling floe-parquet-codec v0.1.0" >&2',
      build,
      '',
    ].join('\n'),
  );
  chmodSync(path.join(bin, 'cargo'), 0o755);
  return bin;
}

/** Runs the clone's copy of the script as `node scripts/build-native.mjs` with only the given environment. */
function runScript(root: string, env: Record<string, string>) {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/build-native.mjs')], {
    env: { HOME: root, PATH: path.join(root, 'empty-bin'), ...env },
    encoding: 'utf8',
  });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

const cargoCalls = (root: string) =>
  existsSync(path.join(root, 'calls.log')) ? readFileSync(path.join(root, 'calls.log'), 'utf8').trim().split('\n') : [];
const calls = (root: string) => cargoCalls(root).filter((c) => c.startsWith('build'));

describe('scripts/build-native.mjs', () => {
  it('is stale until built, fresh after, and stale again when any input (Cargo files, build.rs, src/**) is newer', () => {
    const { crate } = clone();
    expect(staleReason(crate)).toBe('floe-parquet-codec.node not built yet');
    writeFileSync(path.join(crate, 'floe-parquet-codec.node'), 'x');
    expect(staleReason(crate)).toBeUndefined();
    for (const f of ['Cargo.toml', 'Cargo.lock', 'build.rs', 'src/lib.rs', path.join('src', 'nested', 'mod.rs')]) {
      age(path.join(crate, f), -5);
      expect(staleReason(crate)).toBe(`${f} changed`);
      age(path.join(crate, f), 60);
    }
    expect(staleReason(crate)).toBeUndefined();
  });

  it('uses the cache root of scripts/cache-dir.sh', () => {
    expect(cacheRoot({ FLOE_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c');
    expect(cacheRoot({ FLOE_CACHE_DIR: '', XDG_CACHE_HOME: '/x' })).toBe(path.join('/x', 'floe'));
    expect(cacheRoot({ HOME: '/h' })).toBe(path.join('/h', '.cache', 'floe'));
  });

  it('builds with cargo build --release --locked into <cache>/native/target, showing its progress, and copies the addon', () => {
    const { root, crate, cache } = clone();
    const bin = fakeCargo(root, 'ok');
    const first = runScript(root, { PATH: `${bin}:/usr/bin:/bin`, FLOE_CACHE_DIR: cache });
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(
      /^native codec: building \(cold build ~2-3 min on 2 cores\)… — floe-parquet-codec\.node not built yet/,
    );
    expect(first.stderr).toMatch(/native codec: built in \d+ s\n$/);
    // cargo's progress is shown while it builds (issue 28.5: minutes of silence looked like a hang)
    expect(first.stderr).toMatch(/building[^\n]*\n {3}Compiling floe-parquet-codec v0\.1\.0\n/);
    expect(calls(root)).toEqual([`build --release --locked target=${path.join(cache, 'native', 'target')}`]);
    // the shared target may hold another clone's build of the crate, newer than these sources: dropped first
    expect(cargoCalls(root)).toEqual([
      `clean --release -p floe-parquet-codec target=${path.join(cache, 'native', 'target')}`,
      `build --release --locked target=${path.join(cache, 'native', 'target')}`,
    ]);
    expect(readFileSync(path.join(crate, 'floe-parquet-codec.node'), 'utf8')).toBe(`addon built from ${crate}\n`);
    expect(existsSync(path.join(cache, 'native', 'build.log'))).toBe(true);
    expect(existsSync(path.join(cache, 'native', 'build.lock'))).toBe(false);

    // a no-op run does not call cargo at all
    const second = runScript(root, { PATH: `${bin}:/usr/bin:/bin`, FLOE_CACHE_DIR: cache });
    expect(second).toMatchObject({ code: 0, stderr: 'native codec: up to date\n' });
    expect(calls(root)).toHaveLength(1);

    // an edited source rebuilds (a touched but unchanged one is found in the cache)
    writeFileSync(path.join(crate, 'src/lib.rs'), '// edited\n');
    age(path.join(crate, 'src/lib.rs'), -5);
    const third = runScript(root, { PATH: `${bin}:/usr/bin:/bin`, FLOE_CACHE_DIR: cache });
    expect(third.code).toBe(0);
    expect(third.stderr).toMatch(/— src\/lib\.rs changed/);
    expect(calls(root)).toHaveLength(2);
  });

  it("prints cargo's error and exits with cargo's code when the build fails; the old addon is left alone", () => {
    const { root, crate, cache } = clone();
    writeFileSync(path.join(crate, 'floe-parquet-codec.node'), 'old');
    age(path.join(crate, 'floe-parquet-codec.node'), 120);
    const r = runScript(root, { PATH: `${fakeCargo(root, 'fail')}:/usr/bin:/bin`, FLOE_CACHE_DIR: cache });
    expect(r.code).toBe(101);
    expect(r.stderr).toMatch(/Compiling floe-parquet-codec/);
    expect(r.stderr).toMatch(/error\[E0425\]: cannot find value `nope`/);
    expect(r.stderr).toMatch(/native codec: ERROR — cargo build failed \(exit code 101\); full log: /);
    expect(readFileSync(path.join(crate, 'floe-parquet-codec.node'), 'utf8')).toBe('old');
  });

  it('without cargo: a loud notice and exit 0, exit 1 with the rustup hint when required (FLOE_REQUIRE_NATIVE=1 or CI)', () => {
    const { root, crate, cache } = clone();
    const base = { FLOE_CACHE_DIR: cache };
    const optional = runScript(root, base);
    expect(optional.code).toBe(0);
    expect(optional.stderr).toMatch(/NOT BUILT — cargo not found on PATH or in /);
    expect(optional.stderr).toMatch(/slower parquet-wasm fallback/);
    expect(optional.stderr).toMatch(/npm run build:native/);
    for (const env of [{ FLOE_REQUIRE_NATIVE: '1' }, { CI: 'true' }] as Record<string, string>[]) {
      const required = runScript(root, { ...base, ...env });
      expect(required.code).toBe(1);
      expect(required.stderr).toMatch(/native codec: ERROR — the native Parquet codec is required/);
      expect(required.stderr).toMatch(/rustup/);
    }
    expect(runScript(root, { ...base, CI: 'true', FLOE_REQUIRE_NATIVE: '0' }).code).toBe(0);
    expect(existsSync(path.join(crate, 'floe-parquet-codec.node'))).toBe(false);
  });

  it("finds rustup's cargo in $CARGO_HOME/bin when it is not on PATH, and takes over a lock whose owner died", () => {
    const { root, crate, cache } = clone();
    const cargoHome = path.join(root, 'cargo-home');
    mkdirSync(cargoHome);
    const bin = fakeCargo(root, 'ok');
    mkdirSync(path.join(cargoHome, 'bin'));
    copyFileSync(path.join(bin, 'cargo'), path.join(cargoHome, 'bin', 'cargo'));
    chmodSync(path.join(cargoHome, 'bin', 'cargo'), 0o755);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    mkdirSync(path.join(cache, 'native', 'build.lock'), { recursive: true });
    writeFileSync(path.join(cache, 'native', 'build.lock', 'pid'), dead.stdout);
    const r = runScript(root, { CARGO_HOME: cargoHome, FLOE_CACHE_DIR: cache });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/built in/);
    expect(readFileSync(path.join(crate, 'floe-parquet-codec.node'), 'utf8')).toBe(`addon built from ${crate}\n`);
  });

  it('a fresh clone with the same inputs copies the addon from the build cache, even without cargo', () => {
    const a = clone();
    expect(runScript(a.root, { PATH: `${fakeCargo(a.root, 'ok')}:/usr/bin:/bin`, FLOE_CACHE_DIR: a.cache }).code).toBe(
      0,
    );
    const b = clone(); // same file contents, another path
    const r = runScript(b.root, { FLOE_CACHE_DIR: a.cache, FLOE_REQUIRE_NATIVE: '1' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^native codec: up to date \(copied from the build cache, .*\.node\)\n$/);
    expect(readFileSync(path.join(b.crate, 'floe-parquet-codec.node'), 'utf8')).toBe(`addon built from ${a.crate}\n`);
    expect(staleReason(b.crate)).toBeUndefined();
    // other contents: not in the cache, and no cargo to build it
    writeFileSync(path.join(b.crate, 'src/lib.rs'), '// changed\n');
    age(path.join(b.crate, 'src/lib.rs'), -5);
    const changed = runScript(b.root, { FLOE_CACHE_DIR: a.cache, FLOE_REQUIRE_NATIVE: '1' });
    expect(changed.code).toBe(1);
    expect(changed.stderr).toMatch(/required .* but cargo not found/);
  });

  it('a source edited while cargo runs leaves the addon stale and out of the cache', () => {
    const { root, crate, cache } = clone();
    const r = runScript(root, {
      PATH: `${fakeCargo(root, 'edit-while-building')}:/usr/bin:/bin`,
      FLOE_CACHE_DIR: cache,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/the sources changed during the build; the next run builds again/);
    expect(existsSync(path.join(crate, 'floe-parquet-codec.node'))).toBe(true);
    expect(staleReason(crate)).toMatch(/ changed$/);
    expect(existsSync(path.join(cache, 'native', 'addons'))).toBe(false);
  });

  it('never fails a caller that does not require it (npm run demo) when cargo is missing', () => {
    const { root, cache } = clone();
    const lines: string[] = [];
    const r = buildNative({
      root,
      env: { HOME: root, PATH: path.join(root, 'empty-bin'), FLOE_CACHE_DIR: cache, CI: 'true' },
      require: false,
      log: (l: string) => lines.push(l),
    });
    expect(r).toEqual({ status: 'no-cargo', code: 0 });
    expect(lines.join('\n')).toMatch(/parquet-wasm fallback/);
  });

  it('is wired into npm test, npm run bench, npm run build:native and npm run demo', () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['build:native']).toBe('node scripts/build-native.mjs');
    expect(pkg.scripts.bench).toMatch(/node scripts\/build-native\.mjs && node --expose-gc dist\/bench\/run\.js$/);
    expect(readFileSync(path.join(repoRoot, 'scripts/build-if-stale.mjs'), 'utf8')).toMatch(
      /buildNative\(\{ root, require: false \}\)/,
    );
    const testAll = readFileSync(path.join(repoRoot, 'scripts/test-all.sh'), 'utf8');
    expect(testAll).toMatch(/FLOE_REQUIRE_NATIVE=1 node scripts\/build-native\.mjs/);
    expect(testAll).toMatch(/export FLOE_PARQUET_CODEC="\$\{FLOE_PARQUET_CODEC:-native\}"/);
  });
});
