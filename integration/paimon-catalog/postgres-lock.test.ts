/**
 * Paimon's JDBC catalog on a real PostgreSQL server: `floe compact --catalog paimon-jdbc:postgresql://…`
 * resolves the table under the warehouse and publishes under the catalog's distributed lock
 * (`paimon_distributed_locks`, Java's PostgresqlDistributedLockDialect DDL and expiry SQL); a lock another
 * writer holds makes floe wait and fail naming the catalog with nothing left behind; a dead writer's
 * expired lock is cleared; two lock holders are serialised; a catalog that refuses floe the lock (its role
 * may read the catalog but not write the lock table) fails at once naming the catalog, nothing left.
 *
 * The server: $PG_TEST_URL when set, else a throwaway cluster from scripts/setup-postgres.sh (startPostgres,
 * stopped in afterAll). When no server can be had, every test is SKIPPED loudly.
 */
import { mkdirSync, readdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, type TestContext } from 'vitest';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import { PaimonJdbcCatalog } from '../../connectors/catalog/paimon-jdbc.js';
import { compactTable } from '../../src/app/compact.js';
import { isFloeError, type FloeError } from '../../util/errors.js';
import { cleanup, copyFixture, hasFixtures, rowsOf, tempDir } from '../../test/connectors/paimon-compact/helpers.js';
import { startPostgres } from '../service/support.js';

// PostgresqlDistributedLockDialect / JdbcUtils (Paimon 1.3.1)
const DDL = [
  'CREATE TABLE paimon_tables(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,table_name VARCHAR(255) NOT NULL, PRIMARY KEY (catalog_key, database_name, table_name))',
  'CREATE TABLE paimon_distributed_locks(lock_id VARCHAR(255) NOT NULL,acquired_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,expire_time_seconds BIGINT DEFAULT 0 NOT NULL,PRIMARY KEY (lock_id))',
];

let adminUrl = '';
let stop: (() => void) | undefined;
let skipReason = '';
let url = '';
let dbSeq = 0;
let warehouse = '';
let tableDir = '';

function startServer(): void {
  try {
    const server = startPostgres();
    adminUrl = server.adminUrl;
    stop = () => server.stop();
  } catch (e) {
    skipReason = (e as Error).message;
  }
}

async function sql(text: string, params: unknown[] = [], on = url): Promise<Record<string, unknown>[]> {
  const c = new pg.Client({ connectionString: on });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as Record<string, unknown>[];
  } finally {
    await c.end();
  }
}

const skip = (ctx: TestContext) => {
  if (skipReason) {
    console.warn(`SKIPPED (no PostgreSQL server): ${skipReason}`);
    ctx.skip();
  }
};
const spec = () => `paimon-jdbc:${url}`;
const files = () =>
  readdirSync(tableDir, { recursive: true })
    .map(String)
    .filter((f) => !f.endsWith('LATEST'))
    .sort();

beforeAll(() => {
  if (!hasFixtures) skipReason = 'the shared Paimon fixtures are missing';
  else startServer();
}, 620_000);
afterAll(() => {
  cleanup();
  stop?.();
});

beforeEach(async () => {
  if (skipReason) return;
  const db = `floe_paimon_${process.pid}_${++dbSeq}`;
  await sql(`CREATE DATABASE ${db}`, [], adminUrl);
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  url = u.toString();
  for (const d of DDL) await sql(d);
  await sql('INSERT INTO paimon_tables VALUES ($1, $2, $3)', ['jdbc', 'db', 'orders']);
  warehouse = tempDir();
  mkdirSync(path.join(warehouse, 'db.db'));
  tableDir = path.join(warehouse, 'db.db', 'orders');
  renameSync(copyFixture('pk_table_scan_and_read_mor'), tableDir);
});

describe('Paimon JDBC catalog on PostgreSQL', () => {
  it('lists, resolves and compacts under the catalog lock; the lock row is gone after', async (ctx) => {
    skip(ctx);
    const c = await PaimonJdbcCatalog.open(url, { warehouse });
    expect(await c.listTables()).toEqual([{ namespace: ['db'], name: 'orders' }]);
    await c.close();
    const rows = await rowsOf(tableDir);
    const base = (await openPaimonTable(tableDir)).snapshot!.id;
    const run = await compactTable('db.orders', { catalog: spec(), warehouse, full: true });
    if (run.format !== 'paimon') throw new Error('expected a Paimon run');
    expect(run.report.snapshotId).toBe(String(base + 1n));
    expect(await rowsOf(tableDir)).toEqual(rows);
    expect(await sql('SELECT * FROM paimon_distributed_locks')).toEqual([]);
  });

  it('a lock another writer holds: floe waits, then fails naming the catalog; nothing committed or left', async (ctx) => {
    skip(ctx);
    await sql('INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) VALUES ($1, 600)', [
      'jdbc.db.orders',
    ]);
    const before = files();
    const err = (await compactTable('db.orders', {
      catalog: spec(),
      warehouse,
      full: true,
      options: { 'lock-acquire-timeout': '1 s', 'lock-check-max-sleep': '200 ms' },
    }).catch((e: unknown) => e)) as FloeError;
    expect(isFloeError(err, 'CommitConflict')).toBe(true);
    expect(err.message).toMatch(
      /Paimon catalog paimon-jdbc:postgresql:\/\/.*: could not acquire lock jdbc\.db\.orders within 1000 ms/,
    );
    expect(files()).toEqual(before);
    expect(await sql('SELECT lock_id FROM paimon_distributed_locks')).toEqual([{ lock_id: 'jdbc.db.orders' }]);
  });

  it("clears a dead writer's expired lock (Java's EXTRACT(EPOCH FROM AGE(…)) rule) and commits", async (ctx) => {
    skip(ctx);
    await sql(
      "INSERT INTO paimon_distributed_locks (lock_id, acquired_at, expire_time_seconds) VALUES ($1, NOW() - INTERVAL '1 hour', 60)",
      ['jdbc.db.orders'],
    );
    const base = (await openPaimonTable(tableDir)).snapshot!.id;
    const run = await compactTable('db.orders', { catalog: spec(), warehouse, full: true });
    if (run.format !== 'paimon') throw new Error('expected a Paimon run');
    expect(run.report.snapshotId).toBe(String(base + 1n));
    expect(await sql('SELECT * FROM paimon_distributed_locks')).toEqual([]);
  });

  it('a catalog that refuses the lock (no write privilege on the lock table): a clear error naming the catalog, at once; nothing committed or left', async (ctx) => {
    skip(ctx);
    const role = `floe_nolock_${process.pid}_${dbSeq}`;
    await sql(`CREATE ROLE ${role} LOGIN PASSWORD 'nolock'`);
    await sql(`GRANT SELECT ON paimon_tables, paimon_distributed_locks TO ${role}`);
    const u = new URL(url);
    u.username = role;
    u.password = 'nolock';
    const before = files();
    const base = (await openPaimonTable(tableDir)).snapshot!.id;
    const started = Date.now();
    const err = (await compactTable('db.orders', {
      catalog: `paimon-jdbc:${u.toString()}`,
      warehouse,
      full: true,
    }).catch((e: unknown) => e)) as FloeError;
    expect(isFloeError(err, 'AccessDenied'), String(err)).toBe(true);
    expect(err.message).toMatch(/SQL catalog .*postgresql:\/\/.*permission denied for table paimon_distributed_locks/);
    expect(err.message).not.toContain('nolock@'); // the password is not echoed
    // refused, not "held by another": no waiting out lock-acquire-timeout (8 min by default)
    expect(Date.now() - started).toBeLessThan(60_000);
    expect((await openPaimonTable(tableDir)).snapshot!.id).toBe(base);
    expect(files()).toEqual(before);
    expect(await sql('SELECT * FROM paimon_distributed_locks')).toEqual([]);
  });

  it('serialises two holders: the second runs only after the first released', async (ctx) => {
    skip(ctx);
    const a = await PaimonJdbcCatalog.open(url, { warehouse });
    const b = await PaimonJdbcCatalog.open(url, { warehouse, options: { 'lock-check-max-sleep': '100 ms' } });
    try {
      const events: string[] = [];
      let releaseA!: () => void;
      const aHeld = new Promise<void>((r) => (releaseA = r));
      let aIn!: () => void;
      const aEntered = new Promise<void>((r) => (aIn = r));
      const first = a.lockFor('db', 'orders').runWithLock(async (held) => {
        events.push('a in');
        aIn();
        await aHeld;
        await held.assertHeld();
        events.push('a out');
      });
      await aEntered;
      const second = b.lockFor('db', 'orders').runWithLock(async () => void events.push('b in'));
      await new Promise((r) => setTimeout(r, 600));
      expect(events).toEqual(['a in']);
      releaseA();
      await Promise.all([first, second]);
      expect(events).toEqual(['a in', 'a out', 'b in']);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
