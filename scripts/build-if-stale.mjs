#!/usr/bin/env node
/**
 * Builds dist/ with tsc only when a source changed since the last build (`npm run demo`, `npm run floe`):
 * a second `npm run demo` no longer spends a minute and a half type-checking an unchanged tree.
 * Stale = no stamp, a newer tsconfig.json/package.json/.ts file under the compiled roots, or a different
 * set of source files than the stamp recorded (a file was added or removed).
 * Then it builds the native Parquet codec the same way (scripts/build-native.mjs), never failing the demo over it.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildNative } from './build-native.mjs';

/** The roots tsconfig.json compiles (its "include": src, connectors, model, util, bench). */
export const SOURCE_ROOTS = ['src', 'connectors', 'model', 'util', 'bench'];
export const STAMP = path.join('dist', '.build-stamp');

function sources(root) {
  const out = [];
  for (const r of SOURCE_ROOTS) {
    const dir = path.join(root, r);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir, { recursive: true }))
      if (String(f).endsWith('.ts')) out.push(path.join(r, String(f)));
  }
  return out.sort();
}

function fingerprint(files) {
  return createHash('sha256').update(files.join('\n')).digest('hex');
}

/** Why dist/ must be rebuilt, or undefined when it is up to date. */
export function staleReason(root) {
  const stamp = path.join(root, STAMP);
  if (!existsSync(stamp)) return 'no previous build';
  const built = statSync(stamp).mtimeMs;
  const files = sources(root);
  if (readFileSync(stamp, 'utf8').trim() !== fingerprint(files)) return 'source files were added or removed';
  for (const f of ['tsconfig.json', 'package.json', ...files]) {
    const p = path.join(root, f);
    if (existsSync(p) && statSync(p).mtimeMs > built) return `${f} changed`;
  }
  return undefined;
}

/** Records the current source set after a successful build. */
export function writeStamp(root) {
  mkdirSync(path.join(root, 'dist'), { recursive: true });
  writeFileSync(path.join(root, STAMP), `${fingerprint(sources(root))}\n`);
}

export function buildDist(root) {
  const why = staleReason(root);
  if (!why) {
    process.stderr.write('build: dist/ is up to date\n');
    return 0;
  }
  process.stderr.write(`build: ${why} — running tsc\n`);
  const tsc = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.json')],
    { stdio: 'inherit' },
  );
  if (tsc.status !== 0) return tsc.status ?? 1;
  writeStamp(root);
  return 0;
}

function main() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const status = buildDist(root);
  if (status !== 0) return status;
  // The native Parquet codec is an optimisation: without cargo, or when its build fails, floe runs on the
  // parquet-wasm fallback, so the demo goes on either way (build-native says so loudly).
  const native = buildNative({ root, require: false });
  if (native.status === 'failed')
    process.stderr.write(
      'build: the demo goes on with the codec floe can load (an older native build, else parquet-wasm)\n',
    );
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
