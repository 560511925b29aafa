#!/usr/bin/env node
/**
 * `npm run pack:native [-- --out DIR]`: packs the native Parquet codec as the npm package for this platform,
 * `@floe/parquet-codec-<triple>` (connectors/formats/parquet/native-platform.ts: `os`/`cpu`/`libc` set, the
 * addon as its `main`, floe's version), into DIR (default .cache/pack-native/). The addon is the one
 * scripts/build-native.mjs builds (or copies from the build cache); a missing Rust toolchain is an error here.
 * The other platforms are listed as not built, with why: this script builds only what the host can run.
 * Prints the folder's absolute path as its last line.
 *
 * Runs under tsx (`node --import tsx`) to share the platform table with the loader.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADDON, buildNative } from './build-native.mjs';
import {
  NATIVE_TARGETS,
  codecFileName,
  codecPackageName,
  hostTriple,
} from '../connectors/formats/parquet/native-platform.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (line) => process.stderr.write(`${line}\n`);

function outDir(argv) {
  const i = argv.indexOf('--out');
  if (i >= 0 && !argv[i + 1]) throw new Error('--out needs a directory');
  return path.resolve(i >= 0 ? argv[i + 1] : path.join(root, '.cache', 'pack-native'));
}

/** The codec package's manifest for one target, at floe's version. */
export function codecManifest(target, floe) {
  return {
    name: codecPackageName(target.triple),
    version: floe.version,
    description: `floe's native Parquet codec (arrow-rs through napi-rs) for ${target.triple}`,
    license: floe.license,
    os: [target.os],
    cpu: [target.cpu],
    ...(target.libc ? { libc: [target.libc] } : {}),
    main: codecFileName(target.triple),
    files: [codecFileName(target.triple)],
    engines: floe.engines,
  };
}

function packHost(out, floe) {
  const triple = hostTriple();
  const target = NATIVE_TARGETS.find((t) => t.triple === triple);
  if (!target) throw new Error(`no codec package is defined for ${process.platform}-${process.arch}`);
  const built = buildNative({ root, require: true, log });
  if (built.code !== 0) throw new Error('the native codec did not build (see above)');
  const stage = path.join(out, '.stage', triple);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  const manifest = codecManifest(target, floe);
  writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(path.join(root, 'native', 'parquet-codec', ADDON), path.join(stage, manifest.main));
  copyFileSync(path.join(root, 'LICENSE'), path.join(stage, 'LICENSE'));
  writeFileSync(
    path.join(stage, 'README.md'),
    `# ${manifest.name}\n\nThe native Parquet codec of [floe](https://www.npmjs.com/package/floe) for ${triple}. ` +
      "floe lists it as an optional dependency and loads it by itself; see floe's docs/install.md.\n",
  );
  const r = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], {
    cwd: stage,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`npm pack failed in ${stage}: ${r.stderr || r.error?.message}`);
  const [{ filename, size }] = JSON.parse(r.stdout);
  rmSync(path.join(out, '.stage'), { recursive: true, force: true });
  log(`pack:native: ${manifest.name}@${manifest.version} → ${path.join(out, filename)} (${size} bytes)`);
}

function main() {
  const out = outDir(process.argv.slice(2));
  const floe = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  mkdirSync(out, { recursive: true });
  // the folder holds this run's tarballs only
  for (const f of readdirSync(out)) if (/^floe-parquet-codec-.*\.tgz$/.test(f)) rmSync(path.join(out, f));
  packHost(out, floe);
  for (const t of NATIVE_TARGETS) {
    if (t.triple === hostTriple()) continue;
    log(
      `pack:native: not built here: ${codecPackageName(t.triple)} (${t.rustTarget}; this script builds the ` +
        'host platform only — build the others on their own platform, see docs/install.md)',
    );
  }
  if (!existsSync(out)) throw new Error(`${out} was not created`);
  process.stdout.write(`${out}\n`);
}

try {
  main();
} catch (e) {
  log(`pack:native: ERROR — ${e.message}`);
  process.exitCode = 1;
}
