/**
 * floe through an Iceberg SQL catalog on a real PostgreSQL server (Java JdbcCatalog's V1 `iceberg_tables`):
 * floe-written tables are registered by hand, then `floe compact --catalog sql:postgresql://…` swaps the row,
 * `floe scan` reads through the catalog, a pointer UPDATE landing between floe's refresh and its
 * compare-and-swap makes floe retry on the new base, and bad credentials / an unreachable port fail clearly.
 *
 * The server: $PG_TEST_URL when set, else a throwaway cluster from scripts/setup-postgres.sh (stopped in
 * afterAll). Each run works in its own database. When no server can be had, every test is SKIPPED loudly.
 * Expected rows are the rows appended, tracked here; never read back from floe.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { isFloeError, type FloeError } from '../../util/errors.js';
import type { Field } from '../../model/index.js';
import { stringifyJsonLossless } from '../../util/json.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { appendRows, createIcebergTable } from '../../connectors/iceberg/write-table.js';
import type { TableOperations } from '../../connectors/iceberg/commit-rewrite.js';
import { openIcebergTable } from '../../connectors/iceberg/table.js';
import { compactIceberg } from '../../src/orchestration/compact-iceberg.js';
import { openIcebergForWrite, requireCommitOps } from '../../connectors/iceberg/open-for-write.js';
import { writeScan } from '../../src/shells/cli/commands/scan.js';
import { repoRoot } from '../oracles/index.js';
import { floeCli } from './support.js';

const CATALOG_NAME = 'floe_pg';
const FIELDS: Field[] = [
  { id: 1, name: 'id', required: false, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'region', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 3, name: 'qty', required: false, type: { kind: 'primitive', name: 'int' } },
];
const APPENDS = 8;
/** Append `a`: four rows over two partitions → two small data files per append. */
const batch = (a: number) =>
  Array.from({ length: 4 }, (_, i) => ({ id: BigInt(a * 100 + i), region: i % 2 ? 'us' : 'eu', qty: a * 10 + i }));
/** What a scan must return: ids as decimal strings (JSON longs), sorted by id. */
const expectedRows = () =>
  Array.from({ length: APPENDS }, (_, a) => batch(a))
    .flat()
    .map((r) => ({ id: String(r.id), region: r.region, qty: r.qty }))
    .sort((x, y) => Number(x.id) - Number(y.id));

interface Server {
  adminUrl: string;
  stop?: () => void;
}
let server: Server | undefined;
let skipReason = '';
let dbName = '';
let url = ''; // postgresql://…/<run database>
let catalog = ''; // sql:<url>
let work = '';
const files = new FileIO();
const io = files;

function startServer(): Server | string {
  if (process.env.PG_TEST_URL) return { adminUrl: process.env.PG_TEST_URL };
  const started = Date.now();
  const r = spawnSync('bash', [path.join(repoRoot, 'scripts/setup-postgres.sh'), 'start'], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  const out = Object.fromEntries(
    (r.stdout ?? '')
      .split('\n')
      .map((l) => /^(PG_TEST_\w+)=(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
  if (r.status !== 0 || !out.PG_TEST_URL || !out.PG_TEST_DIR) {
    return `scripts/setup-postgres.sh failed (exit ${r.status ?? r.signal}): ${(r.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`;
  }
  console.info(`postgres test server ${out.PG_TEST_URL} up in ${Date.now() - started} ms`);
  const dir = out.PG_TEST_DIR;
  return {
    adminUrl: out.PG_TEST_URL,
    stop: () =>
      void spawnSync('bash', [path.join(repoRoot, 'scripts/setup-postgres.sh'), 'stop', dir], { timeout: 60_000 }),
  };
}

function withDatabase(u: string, db: string): string {
  const x = new URL(u);
  x.pathname = `/${db}`;
  return x.toString();
}

async function sql<T extends pg.QueryResultRow = Record<string, unknown>>(
  text: string,
  params: unknown[] = [],
  on = url,
): Promise<T[]> {
  const c = new pg.Client({ connectionString: on });
  await c.connect();
  try {
    return (await c.query<T>(text, params)).rows;
  } finally {
    await c.end();
  }
}

interface Row {
  metadata_location: string;
  previous_metadata_location: string | null;
}
async function row(table: string): Promise<Row> {
  const rows = await sql<Row>(
    'SELECT metadata_location, previous_metadata_location FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3',
    [CATALOG_NAME, 'ns', table],
  );
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

/** A floe-written table of APPENDS small appends, registered as ns.<name>; returns its current metadata file. */
async function registerTable(name: string): Promise<string> {
  const loc = path.join(work, 'warehouse', 'ns', name);
  await createIcebergTable(io, loc, { formatVersion: 2, fields: FIELDS, partitionBy: ['region'] });
  for (let a = 0; a < APPENDS; a++) await appendRows(io, loc, batch(a));
  const metadataFile = path.join(loc, 'metadata', `v${APPENDS + 1}.metadata.json`);
  expect(existsSync(metadataFile)).toBe(true);
  await sql(
    `INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location, iceberg_type) VALUES ($1, 'ns', $2, $3, NULL, 'TABLE')`,
    [CATALOG_NAME, name, metadataFile],
  );
  return metadataFile;
}

async function scanViaCatalog(ref: string, spec = catalog): Promise<Record<string, unknown>[]> {
  let text = '';
  await writeScan(ref, { catalog: spec }, (c) => void (text += c));
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l.replace(/"id":(\d+)/, '"id":"$1"')) as Record<string, unknown>) // longs kept exact as strings
    .sort((x, y) => Number(x.id) - Number(y.id));
}

const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as FloeError,
  );
const metastoreName = (v: number) =>
  new RegExp(`/metadata/${String(v).padStart(5, '0')}-[0-9a-f-]{36}\\.metadata\\.json$`);

function need(ctx: TestContext): void {
  if (!server) {
    console.warn(`\n!!! SKIPPED: ${ctx.task.name}: ${skipReason}\n`);
    ctx.skip(skipReason);
  }
}

beforeAll(async () => {
  const s = startServer();
  if (typeof s === 'string') {
    skipReason = s;
    console.warn(`\n!!! SKIPPED: PostgreSQL SQL-catalog tests: ${s}\n`);
    return;
  }
  try {
    dbName = `floe_it_${process.pid}_${Date.now()}`;
    await sql(`CREATE DATABASE ${dbName}`, [], s.adminUrl);
  } catch (e) {
    s.stop?.();
    skipReason = `cannot use the PostgreSQL server at ${s.adminUrl}: ${(e as Error).message}`;
    console.warn(`\n!!! SKIPPED: PostgreSQL SQL-catalog tests: ${skipReason}\n`);
    return;
  }
  server = s;
  url = withDatabase(s.adminUrl, dbName);
  catalog = `sql:${url}`;
  work = mkdtempSync(path.join(os.tmpdir(), 'floe-pg-catalog-'));
  // Java JdbcCatalog, schema V1 (JdbcUtil: CREATE_CATALOG_TABLE + V1 iceberg_type column)
  await sql(`CREATE TABLE iceberg_tables (
    catalog_name VARCHAR(255) NOT NULL,
    table_namespace VARCHAR(255) NOT NULL,
    table_name VARCHAR(255) NOT NULL,
    metadata_location VARCHAR(1000),
    previous_metadata_location VARCHAR(1000),
    iceberg_type VARCHAR(5),
    PRIMARY KEY (catalog_name, table_namespace, table_name))`);
  await sql(`CREATE TABLE iceberg_namespace_properties (
    catalog_name VARCHAR(255) NOT NULL,
    namespace VARCHAR(255) NOT NULL,
    property_key VARCHAR(255),
    property_value VARCHAR(1000),
    PRIMARY KEY (catalog_name, namespace, property_key))`);
}, 600_000);

afterAll(async () => {
  files.destroy();
  if (server) {
    await sql(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`, [], server.adminUrl).catch(() => undefined);
    await sql(`DROP ROLE IF EXISTS floe_pw`, [], server.adminUrl).catch(() => undefined);
    server.stop?.();
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('SQL catalog on PostgreSQL', () => {
  it('floe scan reads a registered table through the catalog (postgresql://, postgres://, jdbc:postgresql://)', async (ctx) => {
    need(ctx);
    await registerTable('t');
    expect(await scanViaCatalog('ns.t')).toEqual(expectedRows());
    const u = new URL(url);
    expect(await scanViaCatalog('ns.t', `sql:${url.replace(/^postgresql:/, 'postgres:')}`)).toHaveLength(APPENDS * 4);
    const jdbc = `sql:jdbc:postgresql://${u.host}${u.pathname}?user=${u.username}`;
    expect(await scanViaCatalog('ns.t', jdbc)).toHaveLength(APPENDS * 4);
    const e = await caught(openIcebergTable('ns.missing', { catalog }));
    expect(isFloeError(e, 'NotFound')).toBe(true);
    expect(e!.message).toContain('ns.missing');
    expect(e!.message).toContain(u.host);
  });

  it('floe compact --catalog sql:postgresql://… swaps the row and keeps every row', async (ctx) => {
    need(ctx);
    const before = await row('t');
    const { json: r, exitCode } = await floeCli<{
      committedTasks: string[];
      failedTasks: unknown[];
      before: { dataFiles: number };
      after: { dataFiles: number; records: number };
    }>(['compact', 'ns.t', '--catalog', catalog]);
    expect(exitCode).toBe(0);
    expect(r.failedTasks).toEqual([]);
    expect(r.committedTasks.length).toBeGreaterThan(0);
    expect(r.before.dataFiles).toBe(APPENDS * 2);
    expect(r.after.dataFiles).toBeLessThan(r.before.dataFiles);
    expect(r.after.records).toBe(APPENDS * 4);
    const after = await row('t');
    expect(after.metadata_location).not.toBe(before.metadata_location);
    // JdbcCatalog naming: v9 (filesystem name) is version 9, so the next file is 00010-<uuid>
    expect(after.metadata_location).toMatch(metastoreName(APPENDS + 2));
    expect(after.previous_metadata_location).toBe(before.metadata_location);
    const md = JSON.parse(readFileSync(after.metadata_location, 'utf8')) as {
      'metadata-log': { 'metadata-file': string }[];
    };
    expect(md['metadata-log'].at(-1)!['metadata-file']).toBe(before.metadata_location);
    expect(await scanViaCatalog('ns.t')).toEqual(expectedRows());
  });

  it('a pointer UPDATE between refresh and compare-and-swap is a conflict; floe retries on the new base', async (ctx) => {
    need(ctx);
    const original = await registerTable('r');
    const intruderFile = path.join(path.dirname(original), '00042-0b0e0b0e-0000-4000-8000-000000000042.metadata.json');
    const opened = await openIcebergForWrite('ns.r', { catalog });
    const calls: string[] = [];
    try {
      const ops = requireCommitOps(opened);
      const racing: TableOperations = {
        refresh: () => ops.refresh(),
        async commit(base, next) {
          if (!existsSync(intruderFile)) {
            // another writer: same snapshots, one extra property, published by swapping the pointer itself
            const theirs = {
              ...base.metadata,
              properties: { ...(base.metadata.properties as Record<string, string>), 'written-by': 'intruder' },
            };
            await io.createNew(intruderFile, Buffer.from(stringifyJsonLossless(theirs, 2)));
            const n = await sql(
              `UPDATE iceberg_tables SET metadata_location = $1, previous_metadata_location = $2 WHERE catalog_name = $3 AND table_namespace = 'ns' AND table_name = 'r' AND metadata_location = $2 RETURNING 1`,
              [intruderFile, base.location, CATALOG_NAME],
            );
            expect(n).toHaveLength(1);
          }
          try {
            const loc = await ops.commit(base, next);
            calls.push('ok');
            return loc;
          } catch (e) {
            calls.push(isFloeError(e, 'CommitConflict') ? 'conflict' : `error: ${(e as Error).message}`);
            throw e;
          }
        },
      };
      const report = await compactIceberg(opened.table, opened.io, racing, { strategy: 'tiered' });
      expect(report.failedTasks).toEqual([]);
      expect(report.committedTasks.length).toBeGreaterThan(0);
    } finally {
      opened.files.destroy();
    }
    expect(calls).toEqual(['conflict', 'ok']);
    const after = await row('r');
    expect(after.previous_metadata_location).toBe(intruderFile);
    expect(after.metadata_location).toMatch(metastoreName(43));
    // the intruder's change survived: floe's commit was rebuilt on top of it
    const md = JSON.parse(readFileSync(after.metadata_location, 'utf8')) as { properties: Record<string, string> };
    expect(md.properties['written-by']).toBe('intruder');
    expect(await scanViaCatalog('ns.r')).toEqual(expectedRows());
  });

  it('a wrong password is AccessDenied naming the host; the right one works', async (ctx) => {
    need(ctx);
    await sql(`DROP ROLE IF EXISTS floe_pw`, [], server!.adminUrl);
    await sql(`CREATE ROLE floe_pw LOGIN PASSWORD 'right-pw'`, [], server!.adminUrl);
    await sql(`GRANT SELECT ON iceberg_tables TO floe_pw`);
    const u = new URL(url);
    const as = (pw: string) => `sql:postgresql://floe_pw:${pw}@${u.host}${u.pathname}`;
    const e = await caught(openIcebergTable('ns.t', { catalog: as('wrong-pw') }));
    if (e === undefined) {
      console.warn('\n!!! SKIPPED: wrong password: this server accepts any password for floe_pw (trust auth)\n');
      ctx.skip();
    }
    expect(isFloeError(e, 'AccessDenied')).toBe(true);
    expect(e!.message).toContain(u.hostname);
    expect(e!.message).not.toContain('wrong-pw');
    // the right password, also in JDBC form (?user=&password=)
    expect(await scanViaCatalog('ns.t', as('right-pw'))).toEqual(expectedRows());
    expect(
      await scanViaCatalog('ns.t', `sql:jdbc:postgresql://${u.host}${u.pathname}?user=floe_pw&password=right-pw`),
    ).toHaveLength(APPENDS * 4);
  });

  it('an unreachable port is a clear, retryable connection error', async () => {
    // needs no server: a port nobody listens on
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const started = Date.now();
    const e = await caught(
      openIcebergTable('ns.t', { catalog: `sql:postgresql://postgres@127.0.0.1:${port}/postgres` }),
    );
    expect(isFloeError(e, 'Transient')).toBe(true);
    expect(e!.message).toContain(`127.0.0.1:${port}`);
    expect(e!.message).toMatch(/cannot reach PostgreSQL/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
