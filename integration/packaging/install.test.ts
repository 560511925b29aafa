/**
 * floe installed the way a user installs it (issue 24): the tarballs of `npm pack` and `npm run pack:native` in
 * a fresh project on a PATH without cargo/rustc (fresh-install.ts). A compaction there runs on the prebuilt
 * codec package; with that package removed it runs on WebAssembly, says so once and how to get the native
 * codec, and commits the same rows. The library entry points import and type-check from the install.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoTable } from '../../src/demo/seed.js';
import { codecPackageName, hostTriple } from '../../connectors/formats/parquet/native-platform.js';
import { freshInstall, run, userEnv, type FreshInstall, type RunResult } from './fresh-install.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-packaging-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const triple = hostTriple();
const codecPackage = triple ? codecPackageName(triple) : '';
let install: FreshInstall;

/** The installed floe through npx, as a user runs it. */
function floe(args: string[]): Promise<RunResult> {
  return run('npx', ['--no-install', 'floe', ...args], { cwd: install.project, env: userEnv() });
}

/** Every live row of a table as sorted JSON lines, read by the installed floe. */
async function rows(table: string): Promise<string[]> {
  const r = await floe(['scan', table, '--format', 'jsonl', '--progress', 'none']);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean).sort();
}

async function compact(table: string) {
  const r = await floe(['compact', table, '--json', '--progress', 'none']);
  expect(r.status, r.stderr).toBe(0);
  return { doc: JSON.parse(r.stdout) as Record<string, unknown>, stderr: r.stderr };
}

describe.skipIf(!triple)(`floe installed from its tarballs (${triple ?? 'no codec package for this platform'})`, () => {
  let nativeTable: string;
  let wasmTable: string;
  let before: string[];

  beforeAll(async () => {
    install = await freshInstall(dir);
    // a smaller table than the demo's (12 commits of 200 rows): the point is the codec, not the size
    nativeTable = (await seedDemoTable(path.join(dir, 'wh-native'), 12, 200)).location;
    wasmTable = (await seedDemoTable(path.join(dir, 'wh-wasm'), 12, 200)).location;
    console.log(`packaging: ${JSON.stringify(install.timings)}`);
  });

  it('packs dist/ without dist/bench, with the LICENSE, and lists the codec packages as optional dependencies', async () => {
    const list = (await run('tar', ['tzf', install.floeTarball])).stdout.split('\n');
    expect(list).toContain('package/dist/src/shells/cli/main.js');
    expect(list).toContain('package/LICENSE');
    expect(list.filter((f) => f.startsWith('package/dist/bench'))).toEqual([]);
    const manifest = JSON.parse(
      readFileSync(path.join(install.project, 'node_modules', 'floe', 'package.json'), 'utf8'),
    ) as { license: string; version: string; optionalDependencies: Record<string, string> };
    expect(manifest.license).toBe('Apache-2.0');
    expect(manifest.optionalDependencies[codecPackage]).toBe(manifest.version);
    expect(readFileSync(path.join(install.project, 'node_modules', 'floe', 'LICENSE'), 'utf8')).toMatch(
      /Apache License\s+Version 2\.0, January 2004/,
    );
    expect((await run('sh', ['-c', 'command -v cargo || command -v rustc'], { env: userEnv() })).stdout).toBe('');
  });

  it('the library entry points import and type-check from the install', async () => {
    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "for (const m of ['floe', 'floe/bullmq', 'floe/temporal']) console.log(m, Object.keys(await import(m)).length)",
      ],
      { cwd: install.project, env: userEnv() },
    );
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^floe \d+\nfloe\/bullmq \d+\nfloe\/temporal \d+\n$/);
    writeFileSync(
      path.join(install.project, 'check.ts'),
      [
        "import { FloeError, openIcebergTable, scanTable } from 'floe';",
        "import { createFloeWorkers, enqueueMaintenance, type FloeRunResult } from 'floe/bullmq';",
        "import { createFloeWorker, startMaintainTable } from 'floe/temporal';",
        // skipLibCheck hides errors inside .d.ts files, and an unresolved type would then be `any`: refuse it
        'type IsAny<T> = 0 extends 1 & T ? true : false;',
        'const notAny: [',
        '  IsAny<typeof openIcebergTable>, IsAny<typeof scanTable>, IsAny<typeof createFloeWorkers>,',
        '  IsAny<typeof enqueueMaintenance>, IsAny<typeof createFloeWorker>, IsAny<typeof startMaintainTable>,',
        '  IsAny<FloeRunResult>,',
        '] = [false, false, false, false, false, false, false];',
        "export const error: FloeError = new FloeError('InvalidArgument', 'checked');",
        'export { notAny };',
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(install.project, 'tsconfig.json'),
      JSON.stringify({
        // skipLibCheck: the Temporal SDK's own declarations do not check under strict (TS7016 on `ms`)
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          types: ['node'],
          skipLibCheck: true,
        },
        files: ['check.ts'],
      }),
    );
    const tsc = await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], {
      cwd: install.project,
      env: userEnv(),
    });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });

  it('runs on the prebuilt codec package; without it on WebAssembly, saying so once, with the same rows', async () => {
    const version = await floe(['--version', '--verbose']);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout).toContain(`parquet codec: native — package ${codecPackage}@`);
    before = await rows(nativeTable);
    expect(before.length).toBeGreaterThan(0);

    const nativeRun = await compact(nativeTable);
    expect(nativeRun.doc.parquetCodec).toBe('native');
    expect(nativeRun.stderr).not.toMatch(/notice/);

    rmSync(path.join(install.project, 'node_modules', ...codecPackage.split('/')), { recursive: true });
    const fallback = await floe(['--version', '--verbose']);
    expect(fallback.stdout).toContain('parquet codec: wasm — the WebAssembly fallback');
    expect(fallback.stdout).toContain(`to get the native codec: install ${codecPackage}`);

    expect(await rows(wasmTable)).toEqual(before);
    const wasmRun = await compact(wasmTable);
    expect(wasmRun.doc.parquetCodec).toBe('wasm');
    const notices = wasmRun.stderr.split('\n').filter((l) => l.startsWith('floe: notice:'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('using the WebAssembly Parquet codec');
    expect(notices[0]).toContain(`install ${codecPackage}`);
    expect(notices[0]).toContain('npm run build:native');

    // both compactions committed, and the tables hold the same rows as before
    expect((wasmRun.doc.snapshots as string[]).length).toBeGreaterThan(0);
    expect((nativeRun.doc.snapshots as string[]).length).toBeGreaterThan(0);
    expect(wasmRun.doc.after).toEqual(nativeRun.doc.after);
    expect(await rows(nativeTable)).toEqual(before);
    expect(await rows(wasmTable)).toEqual(before);
  });
});
