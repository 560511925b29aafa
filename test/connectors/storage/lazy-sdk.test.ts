/**
 * Issue 11.7: the S3 SDK and the SQLite driver are loaded by the first s3:// request and the first SQL
 * catalog open, not by importing FileIO, the compact command or the rewrite worker's job module — a run
 * on local files pays for neither, in the main thread or in any worker. Each case runs in a fresh child
 * (node + tsx on the sources) and lists the CommonJS modules it ended up with.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../../..');
const url = (p: string) => JSON.stringify(pathToFileURL(path.join(root, p)).href);
const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-lazy-sdk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEAVY = /node_modules\/(@aws-sdk|@smithy|better-sqlite3|pg)\//;

/** Runs `body` (ESM, top-level await) in a child, then returns the heavy packages it loaded and its output. */
function loadedBy(body: string): { packages: string[]; out: string } {
  const script = `${body}
const { createRequire } = await import('node:module');
const keys = Object.keys(createRequire(import.meta.url)('module')._cache);
console.log('MODULES ' + JSON.stringify(keys));`;
  const stdout = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'], // the SDK warns about Node 20 on stderr
  });
  const line = stdout.split('\n').find((l) => l.startsWith('MODULES '));
  expect(line, stdout).toBeDefined();
  const keys = JSON.parse(line!.slice('MODULES '.length)) as string[];
  const packages = new Set<string>();
  for (const k of keys) {
    const m = HEAVY.exec(k.split(path.sep).join('/'));
    if (m) packages.add(m[1]!);
  }
  return { packages: [...packages].sort(), out: stdout };
}

describe('heavy dependencies load on first use only', () => {
  it('local files through FileIO, the compact command and the rewrite worker module load no S3 SDK or SQL driver', () => {
    const file = path.join(dir, 'local.bin');
    const { packages, out } = loadedBy(`
await import(${url('src/shells/cli/commands/compact.ts')});
await import(${url('src/orchestration/group-worker.ts')});
const { FileIO } = await import(${url('connectors/storage/file-io.ts')});
const io = new FileIO();
await io.createNew(${JSON.stringify(file)}, new Uint8Array([1, 2, 3]));
console.log('READ ' + (await io.read(${JSON.stringify(file)})).join(','));`);
    expect(out).toContain('READ 1,2,3');
    expect(packages).toEqual([]);
  });

  it('an s3:// request loads the S3 SDK and a SQLite catalog loads better-sqlite3 (the probe sees them)', () => {
    const db = path.join(dir, 'catalog.db');
    const { packages, out } = loadedBy(`
const { FileIO } = await import(${url('connectors/storage/file-io.ts')});
const io = new FileIO({
  s3: { endpoint: 'http://127.0.0.1:1', forcePathStyle: true, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } },
  retry: { maxAttempts: 1 },
});
const e = await io.read('s3://bkt/k.parquet').catch((e) => e);
console.log('S3 ' + e.kind + ' ' + e.message);
io.destroy();
const { writeFileSync } = await import('node:fs');
writeFileSync(${JSON.stringify(db)}, ''); // an empty file is an empty SQLite database
const { openSqlConnection } = await import(${url('connectors/catalog/sql-connection.ts')});
const conn = await openSqlConnection(${JSON.stringify(db)});
console.log('SQL ' + JSON.stringify(await conn.columns('iceberg_tables')));
await conn.close();`);
    // the request really went out through the SDK and failed at the (closed) endpoint, named as before
    expect(out).toContain('S3 Internal GET s3://bkt/k.parquet: cannot connect to endpoint http://127.0.0.1:1');
    expect(out).toContain('SQL []');
    expect(packages).toEqual(expect.arrayContaining(['@aws-sdk', '@smithy', 'better-sqlite3']));
    expect(packages).not.toContain('pg');
  });
});
