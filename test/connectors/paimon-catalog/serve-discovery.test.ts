/**
 * `floe serve` with a Paimon JDBC catalog under `catalogs:`: the config takes `paimon-jdbc:` (relative
 * SQLite paths and warehouses resolved against the config file), discovery lists the catalog's tables as
 * Paimon tables and reads their options, and a compact job on `<database>.<table>` commits through the
 * catalog under its lock.
 */
import { mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openPaimonTable } from '../../../connectors/paimon/index.js';
import { parseServiceConfig } from '../../../src/shells/service/config.js';
import { listCatalog, readTableProperties } from '../../../src/shells/service/discovery.js';
import { runMaintenanceJob } from '../../../src/app/maintenance-job.js';
import { cleanup, copyFixture, hasFixtures, rowsOf, tempDir } from '../paimon-compact/helpers.js';

afterEach(cleanup);

describe.skipIf(!hasFixtures)('floe serve: Paimon JDBC catalog', () => {
  it('discovers the tables, reads their options and compacts one through the catalog lock', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'wh', 'db.db'), { recursive: true });
    const tableDir = path.join(dir, 'wh', 'db.db', 'orders');
    renameSync(copyFixture('pk_table_scan_and_read_mor'), tableDir);
    const db = new Database(path.join(dir, 'catalog.db'));
    // Java JdbcUtils / SqlLiteDistributedLockDialect DDL (Paimon 1.3.1)
    db.exec(
      'CREATE TABLE paimon_tables(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,table_name VARCHAR(255) NOT NULL, PRIMARY KEY (catalog_key, database_name, table_name))',
    );
    db.exec(
      'CREATE TABLE paimon_distributed_locks(lock_id VARCHAR(255) NOT NULL,acquired_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,expire_time_seconds BIGINT DEFAULT 0 NOT NULL,PRIMARY KEY (lock_id))',
    );
    db.prepare('INSERT INTO paimon_tables VALUES (?, ?, ?)').run('jdbc', 'db', 'orders');
    db.close();

    const config = await parseServiceConfig(
      {
        stateDir: 'state',
        catalogs: [
          { name: 'lake', catalog: 'paimon-jdbc:catalog.db', warehouse: 'wh', jobs: { compact: 'every 30m' } },
        ],
      },
      'floe.yaml',
      dir,
    );
    const c = config.catalogs[0]!;
    expect(c.kind).toBe('paimon-jdbc');
    expect(c.access).toMatchObject({
      catalog: `paimon-jdbc:${path.join(dir, 'catalog.db')}`,
      warehouse: path.join(dir, 'wh'),
    });
    expect(await listCatalog(c)).toEqual([{ rel: 'db.orders', ref: 'db.orders', format: 'paimon' }]);
    const props = await readTableProperties({ table: 'db.orders', access: c.access });
    expect(props.format).toBe('paimon');
    expect(props.properties).toEqual((await openPaimonTable(tableDir)).schema.options);

    const rows = await rowsOf(tableDir);
    const base = (await openPaimonTable(tableDir)).snapshot!.id;
    const r = await runMaintenanceJob({
      table: 'db.orders',
      job: 'compact',
      access: c.access,
      compact: { full: true },
    });
    expect(r.format).toBe('paimon');
    expect(r.ok).toBe(true);
    expect(r.snapshotIds).toEqual([String(base + 1n)]);
    expect(await rowsOf(tableDir)).toEqual(rows);

    await expect(
      parseServiceConfig(
        { stateDir: 's', catalogs: [{ name: 'x', catalog: 'paimon-hive:thrift://127.0.0.1:1' }] },
        'floe.yaml',
        dir,
      ),
    ).rejects.toThrow(
      /must be sql:<sqlite-path\|postgresql-url>, rest:<url>, glue:<catalog-id\|default>, paimon-jdbc:<sqlite-path\|postgresql-url> or paimon-rest:<url>\?warehouse=<name>/,
    );
    // Paimon's REST catalog is a catalog kind (integration/paimon-catalog/rest.test.ts runs it on a real server)
    const rest = await parseServiceConfig(
      { stateDir: 's', catalogs: [{ name: 'r', catalog: 'paimon-rest:http://127.0.0.1:1/?warehouse=w' }] },
      'floe.yaml',
      dir,
    );
    expect(rest.catalogs[0]!.kind).toBe('paimon-rest');
  });
});
