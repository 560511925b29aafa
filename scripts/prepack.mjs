#!/usr/bin/env node
/**
 * npm's lifecycle steps that make floe install the way users install it (package.json `prepare`, `prepack`,
 * `postpack`):
 *
 * - `prepare` (run by `npm install` in a checkout, by a git-URL install in npm's clone, by a folder install
 *   in the folder, and by `npm pack`): builds dist/ when a source changed (scripts/build-if-stale.mjs), so the
 *   package never ships without its compiled code.
 * - `prepack` (`npm pack`, `npm publish`): builds dist/ too, then lists the prebuilt codec packages
 *   (`@floe/parquet-codec-<triple>`, connectors/formats/parquet/native-platform.ts) as `optionalDependencies`
 *   of the packed manifest at floe's own version, the way napi-rs' `prepublish` does. They are not in the
 *   checkout's package.json: while they are unpublished, `npm ci` refuses a manifest whose dependencies the
 *   lock file cannot hold, and a checkout must not fetch a native binary by a name nobody has published yet.
 *   The original package.json is kept in .cache/prepack/ and put back by `postpack` (or by the next run of any
 *   step, when a pack was interrupted).
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildDist } from './build-if-stale.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = path.join(root, 'package.json');
const saved = path.join(root, '.cache', 'prepack', 'package.json');

/** Puts back the package.json a `prepack` replaced. */
function restore() {
  if (existsSync(saved)) renameSync(saved, manifest);
}

function build() {
  if (!existsSync(path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'))) {
    if (existsSync(path.join(root, 'dist', 'src', 'shells', 'cli', 'main.js'))) return 0;
    process.stderr.write(
      `floe: cannot build dist/ in ${root}: TypeScript (a devDependency) is not installed — run \`npm install\` there first\n`,
    );
    return 1;
  }
  return buildDist(root);
}

async function prepack() {
  const code = build();
  if (code !== 0) return code;
  const { NATIVE_TARGETS, codecPackageName } = await import(
    pathToFileURL(path.join(root, 'dist', 'connectors', 'formats', 'parquet', 'native-platform.js')).href
  );
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  const optionalDependencies = { ...(pkg.optionalDependencies ?? {}) };
  for (const t of NATIVE_TARGETS) optionalDependencies[codecPackageName(t.triple)] = pkg.version;
  // both keep the original's mtime: build-if-stale takes a newer package.json for a changed build input
  const { atime, mtime } = statSync(manifest);
  mkdirSync(path.dirname(saved), { recursive: true });
  copyFileSync(manifest, saved);
  utimesSync(saved, atime, mtime);
  writeFileSync(manifest, `${JSON.stringify({ ...pkg, optionalDependencies }, null, 2)}\n`);
  utimesSync(manifest, atime, mtime);
  return 0;
}

const step = process.argv[2];
// `npm pack` runs prepack, then prepare (while it makes the tarball), then postpack: prepare must leave the
// packed manifest in place there; anywhere else a leftover from an interrupted pack is put back first.
const packing = process.env.npm_command === 'pack' || process.env.npm_command === 'publish';
if (step !== 'prepare' || !packing) restore();
if (step === 'prepare') process.exitCode = build();
else if (step === 'prepack') process.exitCode = await prepack();
else if (step === 'postpack') process.exitCode = 0;
else {
  process.stderr.write('usage: node scripts/prepack.mjs prepare|prepack|postpack\n');
  process.exitCode = 2;
}
