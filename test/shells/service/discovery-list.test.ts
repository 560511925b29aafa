/**
 * Listing what `catalogs:` entries hold: a SQL catalog file (JdbcCatalog/SqlCatalog `iceberg_tables`,
 * views excluded), a REST catalog (prefix from /v1/config, nested namespaces, pagination), and a
 * warehouse folder holding copies of real Iceberg and Paimon tables from /work/shared/fixtures.
 */
import Database from 'better-sqlite3';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRestCatalogTables, listSqlCatalogTables } from '../../../connectors/catalog/list-tables.js';
import { listWarehouse, readTableProperties } from '../../../src/shells/service/discovery.js';

const FIXTURES = process.env.FLOE_FIXTURES ?? '/work/shared/fixtures';
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'floe-discovery-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQL catalog listing', () => {
  it('lists tables of iceberg_tables, not views, optionally of one catalog_name', async () => {
    const file = path.join(dir, 'catalog.db');
    const db = new Database(file);
    db.exec(
      `CREATE TABLE iceberg_tables (catalog_name TEXT, table_namespace TEXT, table_name TEXT, metadata_location TEXT, previous_metadata_location TEXT, iceberg_type TEXT)`,
    );
    const ins = db.prepare('INSERT INTO iceberg_tables VALUES (?, ?, ?, ?, NULL, ?)');
    ins.run('prod', 'sales', 'orders', '/m/1.json', 'TABLE');
    ins.run('prod', 'sales.eu', 'returns', '/m/2.json', null);
    ins.run('prod', 'sales', 'orders_view', '/m/3.json', 'VIEW');
    ins.run('dev', 'sales', 'scratch', '/m/4.json', 'TABLE');
    db.close();
    expect(await listSqlCatalogTables(file)).toEqual([
      { namespace: ['sales'], name: 'orders' },
      { namespace: ['sales'], name: 'scratch' },
      { namespace: ['sales', 'eu'], name: 'returns' },
    ]);
    expect(await listSqlCatalogTables(file, 'prod')).toEqual([
      { namespace: ['sales'], name: 'orders' },
      { namespace: ['sales', 'eu'], name: 'returns' },
    ]);
  });
});

describe('REST catalog listing', () => {
  let server: Server;
  const seen: string[] = [];
  beforeAll(async () => {
    // a REST catalog with prefix "wh1", namespaces a and a.b, and paginated table lists
    server = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers.authorization ?? ''}`);
      const u = new URL(req.url!, 'http://x');
      const send = (body: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (u.pathname === '/v1/config') return send({ defaults: {}, overrides: { prefix: 'wh1' } });
      if (u.pathname === '/v1/wh1/namespaces') {
        const parent = u.searchParams.get('parent');
        if (parent === null) return send({ namespaces: [['a']] });
        if (parent === 'a') return send({ namespaces: [['a', 'b']] });
        return send({ namespaces: [] });
      }
      if (u.pathname === '/v1/wh1/namespaces/a/tables') {
        if (u.searchParams.get('pageToken') === 'p2') return send({ identifiers: [{ namespace: ['a'], name: 't2' }] });
        return send({ identifiers: [{ namespace: ['a'], name: 't1' }], 'next-page-token': 'p2' });
      }
      if (u.pathname === `/v1/wh1/namespaces/${encodeURIComponent('a\u001fb')}/tables`)
        return send({ identifiers: [{ namespace: ['a', 'b'], name: 'deep' }] });
      res.writeHead(404).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => server.close());

  it('walks nested namespaces and follows next-page-token, sending the bearer token', async () => {
    const uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ids = await listRestCatalogTables(uri, { token: 'tok', warehouse: 'main' });
    expect(ids).toEqual([
      { namespace: ['a', 'b'], name: 'deep' },
      { namespace: ['a'], name: 't1' },
      { namespace: ['a'], name: 't2' },
    ]);
    expect(seen[0]).toBe('/v1/config?warehouse=main Bearer tok');
  });
});

describe('warehouse listing (real tables from other engines)', () => {
  it('finds Iceberg and Paimon tables under a prefix, within the depth, and reads their properties', async () => {
    const wh = path.join(dir, 'warehouse');
    mkdirSync(wh, { recursive: true });
    // copies of fixtures (never written to the repo); a missing fixture fails here, loudly
    cpSync(path.join(FIXTURES, 'paimon-cpp/pk_09'), path.join(wh, 'pm/pk_09'), { recursive: true });
    cpSync(path.join(FIXTURES, 'paimon-cpp/append_09'), path.join(wh, 'pm/append_09'), { recursive: true });
    cpSync(
      path.join(FIXTURES, 'impala/iceberg_v2_partitioned_position_deletes'),
      path.join(wh, 'ice/partitioned_pos'),
      { recursive: true },
    );
    cpSync(path.join(FIXTURES, 'icebird/spark_bunnies'), path.join(wh, 'deep/er/still/bunnies'), { recursive: true });
    const found = await listWarehouse(wh, 3);
    expect(found).toEqual([
      { rel: 'ice/partitioned_pos', ref: path.join(wh, 'ice/partitioned_pos'), format: 'iceberg' },
      { rel: 'pm/append_09', ref: path.join(wh, 'pm/append_09'), format: 'paimon' },
      { rel: 'pm/pk_09', ref: path.join(wh, 'pm/pk_09'), format: 'paimon' },
    ]);
    expect((await listWarehouse(wh, 4)).map((t) => t.rel)).toContain('deep/er/still/bunnies');
    const pk = await readTableProperties({ table: path.join(wh, 'pm/pk_09'), access: {} }, 'paimon');
    expect(pk.format).toBe('paimon');
    expect(pk.properties['deletion-vectors.enabled']).toBe('true');
    const ice = await readTableProperties({ table: path.join(wh, 'ice/partitioned_pos'), access: {} });
    expect(ice.format).toBe('iceberg');
  });
});
