/**
 * Plumbing for the service tests: a throwaway PostgreSQL server (scripts/setup-postgres.sh, or
 * $PG_TEST_URL), `floe serve` as a child process, and small HTTP helpers. The server is required: when it
 * cannot be had, the tests fail and say why (FLOE_SKIP_POSTGRES=1 turns that into announced skips).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import pg from 'pg';
import { repoRoot } from '../oracles/index.js';
import Database from 'better-sqlite3';
import { cpSync, mkdirSync } from 'node:fs';
import type { Field } from '../../model/index.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { appendRows, createIcebergTable } from '../../connectors/iceberg/write-table.js';
import { openIcebergTable } from '../../connectors/iceberg/table.js';
import { scanTable } from '../../connectors/iceberg/scan.js';
import { scanPaimon } from '../../connectors/paimon/scan.js';

export interface PgServer {
  adminUrl: string;
  stop(): void;
}

export function startPostgres(): PgServer {
  if (process.env.PG_TEST_URL) return { adminUrl: process.env.PG_TEST_URL, stop: () => undefined };
  const script = path.join(repoRoot, 'scripts/setup-postgres.sh');
  const r = spawnSync('bash', [script, 'start'], { encoding: 'utf8', timeout: 600_000 });
  const out = Object.fromEntries(
    (r.stdout ?? '')
      .split('\n')
      .map((l) => /^(PG_TEST_\w+)=(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
  if (r.status !== 0 || !out.PG_TEST_URL || !out.PG_TEST_DIR) {
    throw new Error(
      `no PostgreSQL server for the service state tests: scripts/setup-postgres.sh exited ${r.status ?? r.signal}: ${(r.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`,
    );
  }
  const dir = out.PG_TEST_DIR;
  return { adminUrl: out.PG_TEST_URL, stop: () => void spawnSync('bash', [script, 'stop', dir], { timeout: 60_000 }) };
}

export function withDatabase(u: string, db: string): string {
  const x = new URL(u);
  x.pathname = `/${db}`;
  return x.toString();
}

export async function pgQuery<T extends pg.QueryResultRow = Record<string, unknown>>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, params)).rows;
  } finally {
    await c.end();
  }
}

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  port: number;
  /** JSON log lines so far. */
  lines: Record<string, unknown>[];
  stderr: () => string;
  stop(): Promise<number | null>;
}

/** `floe serve --config <file> --http-port 0` from source; resolves once it prints its port. */
export function startServe(config: string, env: Record<string, string>): Promise<ServeProcess> {
  const main = path.join(repoRoot, 'src/shells/cli/main.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', main, 'serve', '--config', config, '--http-port', '0'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let err = '';
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (c: string) => {
    buf += c;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const l = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        lines.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => {
      err += c;
      const m = /floe serve: http on [^\s]+:(\d+)/.exec(err);
      if (m) {
        resolve({
          child,
          port: Number(m[1]),
          lines,
          stderr: () => err,
          stop: async () => {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`floe serve exited ${code} before listening: ${err.slice(-2000)}`)));
  });
}

/** Polls `cond` (an async check) until it holds; the overall limit only guards against a hang. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, limitMs = 120_000): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// ---------------------------------------------------------------- a warehouse to serve

export const FIXTURES = process.env.FLOE_FIXTURES ?? '/work/shared/fixtures';
const FIELDS: Field[] = [
  { id: 1, name: 'id', required: false, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'region', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 3, name: 'qty', required: false, type: { kind: 'primitive', name: 'int' } },
];

export interface Warehouse {
  root: string;
  /** Filesystem Iceberg table, many small appends over two partitions. */
  orders: string;
  /** Iceberg table in the SQL catalog (`sales.events`). */
  events: string;
  catalogFile: string;
  /** A copy of the Paimon primary-key fixture whose L0 files need merging. */
  paimon: string;
  /** Rows written, tracked here (never read back through floe). */
  expected: { orders: string[]; events: string[] };
}

const rowText = (r: { id: bigint; region: string; qty: number }) => `${r.id}|${r.region}|${r.qty}`;

/**
 * `<root>/warehouse/db/orders` (Iceberg, floe-written), `<root>/warehouse/db/frozen` (Iceberg with
 * `self-optimizing.enabled=false`), `<root>/warehouse/pm/mor` (a copy of a Java-Paimon fixture), and
 * `sales.events` in the SQLite catalog `<root>/catalog.db` (files under `<root>/lake`).
 */
export async function buildWarehouse(root: string, appends = 10): Promise<Warehouse> {
  const files = new FileIO();
  const io = files;
  const expected = { orders: [] as string[], events: [] as string[] };
  const orders = path.join(root, 'warehouse/db/orders');
  await createIcebergTable(io, orders, { formatVersion: 2, fields: FIELDS, partitionBy: ['region'] });
  for (let a = 0; a < appends; a++) {
    const rows = Array.from({ length: 4 }, (_, i) => ({
      id: BigInt(a * 100 + i),
      region: i % 2 ? 'us' : 'eu',
      qty: a * 10 + i,
    }));
    await appendRows(io, orders, rows);
    expected.orders.push(...rows.map(rowText));
  }
  const frozen = path.join(root, 'warehouse/db/frozen');
  await createIcebergTable(io, frozen, {
    formatVersion: 2,
    fields: FIELDS,
    properties: { 'self-optimizing.enabled': 'false' },
  });
  for (let a = 0; a < 3; a++) await appendRows(io, frozen, [{ id: BigInt(a), region: 'eu', qty: a }]);
  const events = path.join(root, 'lake/sales/events');
  await createIcebergTable(io, events, { formatVersion: 2, fields: FIELDS });
  for (let a = 0; a < appends; a++) {
    const rows = Array.from({ length: 3 }, (_, i) => ({ id: BigInt(a * 10 + i), region: 'ap', qty: i }));
    await appendRows(io, events, rows);
    expected.events.push(...rows.map(rowText));
  }
  const catalogFile = path.join(root, 'catalog.db');
  const db = new Database(catalogFile);
  db.exec(`CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL,
    metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000), iceberg_type VARCHAR(5), PRIMARY KEY (catalog_name, table_namespace, table_name))`);
  db.prepare(`INSERT INTO iceberg_tables VALUES ('lake', 'sales', 'events', ?, NULL, 'TABLE')`).run(
    path.join(events, 'metadata', `v${appends + 1}.metadata.json`),
  );
  db.close();
  // a real table written by Java Paimon (copied to the temp dir; fixtures never go into the repo)
  const paimon = path.join(root, 'warehouse/pm/mor');
  mkdirSync(path.dirname(paimon), { recursive: true });
  cpSync(path.join(FIXTURES, 'paimon-cpp/pk_table_scan_and_read_mor'), paimon, { recursive: true });
  files.destroy();
  expected.orders.sort();
  expected.events.sort();
  return { root, orders, events, catalogFile, paimon, expected };
}

export async function icebergRows(location: string, catalog?: string): Promise<string[]> {
  const table = catalog ? await openIcebergTable(location, { catalog }) : await openIcebergTable(location);
  const out: string[] = [];
  for await (const b of scanTable(table)) {
    const ix = (n: string) => b.fields.findIndex((f) => f.name === n);
    const [id, region, qty] = [ix('id'), ix('region'), ix('qty')];
    for (const r of b.rows) out.push(`${String(r[id])}|${String(r[region])}|${String(r[qty])}`);
  }
  return out.sort();
}

export async function paimonRows(location: string, fileIO?: FileIO): Promise<string[]> {
  const out: string[] = [];
  for await (const r of scanPaimon(location, fileIO ? { fileIO } : {}))
    out.push(JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  return out.sort();
}

export async function api<T = unknown>(
  port: number,
  token: string,
  method: string,
  p: string,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`http://127.0.0.1:${port}${p}`, { method, headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // text endpoints (/metrics)
  }
  return { status: res.status, body: body as T };
}

/**
 * A `floe serve` child process that SIGKILLs itself at fault point `killAt` (FLOE_FAULT_KILL_AT), e.g. right
 * after its first commit is published; killed from outside after 120 s if it never gets there.
 */
export function killedServe(
  config: string,
  token: string,
  killAt: string,
): Promise<{ signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'src/shells/cli/main.ts'), 'serve', '--config', config, '--http-port', '0'],
    {
      cwd: repoRoot,
      env: { ...process.env, FLOE_API_TOKEN: token, FLOE_FAULT_KILL_AT: killAt },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve({ signal, stderr });
    }),
  );
}
