/**
 * Paimon's JDBC catalog on SQLite, floe's side: resolving `<database>.<table>` to `<warehouse>/<db>.db/<t>`,
 * listing, and the catalog lock around floe's snapshot publication — a lock held by another writer makes
 * floe wait and then fail naming the catalog (nothing committed, nothing left behind), a stale lock of a
 * dead writer is cleared as Java clears it, and a lock that expires (or is taken) while floe holds it stops
 * the publication. The catalog tables are created with the DDL of Java's JdbcUtils /
 * SqlLiteDistributedLockDialect (1.3.1); the Java-writer side is integration/live-writers/paimon-jdbc.test.ts.
 */
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPaimonTable } from '../../../connectors/paimon/index.js';
import { PaimonJdbcCatalog } from '../../../connectors/catalog/paimon-jdbc.js';
import { compactTable } from '../../../src/app/compact.js';
import { isFloeError, type FloeError } from '../../../util/errors.js';
import { cleanup, copyFixture, hasFixtures, rowsOf, tempDir } from '../paimon-compact/helpers.js';

const LOCK_DDL =
  'CREATE TABLE paimon_distributed_locks(lock_id VARCHAR(255) NOT NULL,acquired_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,expire_time_seconds BIGINT DEFAULT 0 NOT NULL,PRIMARY KEY (lock_id))';
const TABLES_DDL =
  'CREATE TABLE paimon_tables(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,table_name VARCHAR(255) NOT NULL, PRIMARY KEY (catalog_key, database_name, table_name))';

let warehouse = '';
let dbFile = '';
let tableDir = '';
const spec = () => `paimon-jdbc:${dbFile}`;

/** A warehouse with db.db/orders (a copy of a shared fixture) registered in a SQLite JDBC catalog. */
function setUp(withLockTable: boolean): void {
  warehouse = tempDir();
  mkdirSync(path.join(warehouse, 'db.db'));
  const src = copyFixture('pk_table_scan_and_read_mor');
  tableDir = path.join(warehouse, 'db.db', 'orders');
  renameSync(src, tableDir);
  dbFile = path.join(warehouse, 'catalog.db');
  const db = new Database(dbFile);
  db.exec(TABLES_DDL);
  if (withLockTable) db.exec(LOCK_DDL);
  db.prepare('INSERT INTO paimon_tables VALUES (?, ?, ?)').run('jdbc', 'db', 'orders');
  db.close();
}

const sql = (q: string, ...p: unknown[]) => {
  const db = new Database(dbFile);
  try {
    return db.prepare(q).run(...p);
  } finally {
    db.close();
  }
};
const lockRows = () => {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare('SELECT * FROM paimon_distributed_locks').all();
  } finally {
    db.close();
  }
};
const files = () =>
  readdirSync(tableDir, { recursive: true })
    .map(String)
    .filter((f) => !f.endsWith('LATEST'))
    .sort();

afterEach(cleanup);

describe.skipIf(!hasFixtures)('Paimon JDBC catalog (SQLite)', () => {
  beforeEach(() => setUp(true));

  it('lists its tables and resolves <database>.<table> under the warehouse', async () => {
    const c = await PaimonJdbcCatalog.open(dbFile, { warehouse });
    try {
      expect(await c.listTables()).toEqual([{ namespace: ['db'], name: 'orders' }]);
      const t = await c.loadTable('db.orders');
      expect(t.location).toBe(tableDir);
      expect(t.lock?.description).toBe(`paimon-jdbc:${dbFile} lock jdbc.db.orders`);
      expect(c.locking).toBe(true);
    } finally {
      await c.close();
    }
  });

  it('compacts through the catalog under its lock, and releases it', async () => {
    const rows = await rowsOf(tableDir);
    const base = (await openPaimonTable(tableDir)).snapshot!.id;
    let seen: unknown[] = [];
    const run = await compactTable('db.orders', {
      catalog: spec(),
      warehouse,
      full: true,
    });
    if (run.format !== 'paimon') throw new Error('expected a Paimon run');
    expect(run.report.snapshotId).toBe(String(base + 1n));
    expect(await rowsOf(tableDir)).toEqual(rows);
    expect(lockRows()).toEqual([]);
    // the row floe holds: Java's expiry (lock-acquire-timeout 8 min by default → 480 s)
    const c = await PaimonJdbcCatalog.open(dbFile, { warehouse });
    try {
      await c.lockFor('db', 'orders').runWithLock(async () => {
        seen = lockRows();
      });
    } finally {
      await c.close();
    }
    expect(seen).toEqual([{ lock_id: 'jdbc.db.orders', acquired_at: expect.any(String), expire_time_seconds: 480 }]);
    expect(lockRows()).toEqual([]);
  });

  it('waits for a lock another writer holds, then fails naming the catalog; nothing is committed or left', async () => {
    sql('INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) VALUES (?, ?)', 'jdbc.db.orders', 600);
    const before = files();
    const rows = await rowsOf(tableDir);
    const t0 = Date.now();
    const err = (await compactTable('db.orders', {
      catalog: spec(),
      warehouse,
      full: true,
      options: { 'lock-acquire-timeout': '1 s', 'lock-check-max-sleep': '200 ms' },
    }).catch((e: unknown) => e)) as FloeError;
    expect(isFloeError(err, 'CommitConflict')).toBe(true);
    expect(err.message).toContain(`Paimon catalog paimon-jdbc:${dbFile}: could not acquire lock jdbc.db.orders`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(files()).toEqual(before);
    expect(await rowsOf(tableDir)).toEqual(rows);
    // the other writer's lock is untouched
    expect(lockRows()).toHaveLength(1);
  });

  it('clears the expired lock of a dead writer (as Java does) and commits', async () => {
    sql(
      "INSERT INTO paimon_distributed_locks (lock_id, acquired_at, expire_time_seconds) VALUES (?, datetime('now', '-1 hour'), ?)",
      'jdbc.db.orders',
      60,
    );
    const base = (await openPaimonTable(tableDir)).snapshot!.id;
    const run = await compactTable('db.orders', { catalog: spec(), warehouse, full: true });
    if (run.format !== 'paimon') throw new Error('expected a Paimon run');
    expect(run.report.snapshotId).toBe(String(base + 1n));
    expect(lockRows()).toEqual([]);
  });

  it('publishes nothing when its own lock expired before the publish, and leaves nothing behind', async () => {
    const before = files();
    const rows = await rowsOf(tableDir);
    const c = await PaimonJdbcCatalog.open(dbFile, { warehouse, options: { 'lock-acquire-timeout': '2 s' } });
    const { compactPaimon } = await import('../../../src/orchestration/compact-paimon.js');
    try {
      const lock = (await c.loadTable('db.orders')).lock!;
      const err = (await compactPaimon(tableDir, {
        full: true,
        commitLock: lock,
        beforePublish: () => new Promise((r) => setTimeout(r, 2200)),
      }).catch((e: unknown) => e)) as FloeError;
      expect(isFloeError(err, 'CommitConflict')).toBe(true);
      expect(err.message).toMatch(/lock jdbc\.db\.orders expired: held \d+ ms, its expiry is 2 s/);
      expect(err.message).toContain(`paimon-jdbc:${dbFile}`);
    } finally {
      await c.close();
    }
    expect(files()).toEqual(before);
    expect(await rowsOf(tableDir)).toEqual(rows);
    expect(lockRows()).toEqual([]);
  });

  it('publishes nothing when another writer took the lock while floe held it', async () => {
    const before = files();
    const c = await PaimonJdbcCatalog.open(dbFile, { warehouse });
    const { compactPaimon } = await import('../../../src/orchestration/compact-paimon.js');
    try {
      const err = (await compactPaimon(tableDir, {
        full: true,
        commitLock: (await c.loadTable('db.orders')).lock!,
        beforePublish: async () => {
          // what an acquirer does to a row it judges expired: delete it and insert its own
          sql('DELETE FROM paimon_distributed_locks');
          sql(
            "INSERT INTO paimon_distributed_locks (lock_id, acquired_at, expire_time_seconds) VALUES ('jdbc.db.orders', '2000-01-01 00:00:00', 480)",
          );
        },
      }).catch((e: unknown) => e)) as FloeError;
      expect(isFloeError(err, 'CommitConflict')).toBe(true);
      expect(err.message).toMatch(/was released or taken by another writer/);
    } finally {
      await c.close();
    }
    expect(files()).toEqual(before);
    // floe released only its own row: the other holder keeps the lock
    expect(lockRows()).toEqual([
      { lock_id: 'jdbc.db.orders', acquired_at: '2000-01-01 00:00:00', expire_time_seconds: 480 },
    ]);
  });
});

describe.skipIf(!hasFixtures)('Paimon JDBC catalog (SQLite): bad input', () => {
  it('a catalog without the lock table is not locked unless lock.enabled=true (then floe creates it, as Java)', async () => {
    setUp(false);
    const c = await PaimonJdbcCatalog.open(dbFile, { warehouse });
    expect(c.locking).toBe(false);
    expect((await c.loadTable('db.orders')).lock).toBeUndefined();
    await c.close();
    const on = await PaimonJdbcCatalog.open(dbFile, { warehouse, options: { 'lock.enabled': 'true' } });
    expect(on.locking).toBe(true);
    await on.close();
    expect(lockRows()).toEqual([]);
  });

  it('names the catalog for a missing table, a missing warehouse, a non-Paimon database and a bad lock.enabled', async () => {
    setUp(true);
    const c = await PaimonJdbcCatalog.open(dbFile, {});
    await expect(c.loadTable('db.nope')).rejects.toThrow(
      `table db.nope not found in Paimon catalog paimon-jdbc:${dbFile}`,
    );
    await expect(c.loadTable('db.orders')).rejects.toThrow(/give --warehouse/);
    await expect(c.loadTable('a.b.c')).rejects.toThrow(/must be <database>.<table>/);
    await c.close();
    const other = path.join(warehouse, 'other.db');
    new Database(other).close();
    await expect(PaimonJdbcCatalog.open(other)).rejects.toThrow(
      `Paimon catalog paimon-jdbc:${other}: it has no paimon_tables table`,
    );
    await expect(PaimonJdbcCatalog.open(dbFile, { options: { 'lock.enabled': 'yes' } })).rejects.toThrow(
      /lock.enabled="yes" must be true or false/,
    );
    expect(existsSync(path.join(warehouse, 'nope'))).toBe(false);
  });
});
