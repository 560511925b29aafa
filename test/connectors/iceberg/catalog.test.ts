/** SQL (SQLite, JdbcCatalog/SqlCatalog schema) and REST catalogs, both built at test time. */
import Database from 'better-sqlite3';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIcebergTable } from '../../../connectors/iceberg/table.js';
import { countLiveRows } from '../../../connectors/iceberg/scan.js';
import { parseTableIdentifier } from '../../../connectors/catalog/index.js';
import { caught, fixtures } from './helpers.js';

const T = path.join(fixtures, 'duckdb-iceberg/merch_v1');
const PREFIX = 'data/persistent/iceberg_v1_repro/repro/merch_v1';
const CURRENT = `${PREFIX}/metadata/00003-8d01e4aa-d143-49c9-898e-b5e477577b70.metadata.json`;
const remap = [{ from: PREFIX, to: T }];

let tmp: string;
let dbPath: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'floe-cat-'));
  dbPath = path.join(tmp, 'catalog.db');
  const db = new Database(dbPath);
  // The table layout Java's JdbcCatalog (schema V1) and PyIceberg's SqlCatalog create.
  db.exec(`CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL,
    table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000),
    iceberg_type VARCHAR(5), PRIMARY KEY (catalog_name, table_namespace, table_name))`);
  const ins = db.prepare('INSERT INTO iceberg_tables VALUES (?, ?, ?, ?, ?, ?)');
  ins.run('default', 'repro', 'merch_v1', CURRENT, null, 'TABLE');
  ins.run('default', 'a.b', 'v', 'x', null, 'VIEW');
  ins.run('one', 'ns', 'dup', 'x', null, null);
  ins.run('two', 'ns', 'dup', 'y', null, null);
  db.close();
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('SQL catalog', () => {
  it('loads a table by ns.table', async () => {
    const t = await openIcebergTable('repro.merch_v1', { catalog: `sql:${dbPath}`, remap });
    expect(t.via).toBe('catalog');
    expect(t.metadataLocation).toBe(CURRENT);
    expect(await countLiveRows(t)).toBe(4);
  });
  it('accepts a SQLAlchemy URL', async () => {
    const t = await openIcebergTable('repro.merch_v1', { catalog: `sql:sqlite:///${dbPath}`, remap });
    expect(t.metadata.formatVersion).toBe(1);
  });
  it('views and unknown tables are NotFound; ambiguous catalogs ask for a name', async () => {
    expect((await caught(openIcebergTable('a.b.v', { catalog: `sql:${dbPath}` }))).kind).toBe('NotFound');
    expect((await caught(openIcebergTable('repro.nope', { catalog: `sql:${dbPath}` }))).kind).toBe('NotFound');
    const amb = await caught(openIcebergTable('ns.dup', { catalog: `sql:${dbPath}` }));
    expect(amb.kind).toBe('InvalidArgument');
    expect(amb.message).toMatch(/one, two/);
  });
  it('SQL catalogs other than SQLite and PostgreSQL are refused clearly', async () => {
    const e = await caught(openIcebergTable('a.b', { catalog: 'sql:mysql://u@h/db' }));
    expect(e.kind).toBe('Unsupported');
  });
  it('parses identifiers', () => {
    expect(parseTableIdentifier('a.b.c')).toEqual({ namespace: ['a', 'b'], name: 'c' });
    expect(() => parseTableIdentifier('c')).toThrow(/namespace/);
  });
});

describe('REST catalog', () => {
  let server: Server;
  let url: string;
  const seen: { path: string; auth?: string }[] = [];
  beforeAll(async () => {
    // Metadata with a > 2^53 snapshot id, served the way a REST catalog would (raw text, not re-serialised).
    const metadataText = readFileSync(path.join(fixtures, 'icebird/spark_bunnies/metadata/v5.metadata.json'), 'utf8');
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? '', ...(req.headers.authorization ? { auth: req.headers.authorization } : {}) });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/config') return res.end(JSON.stringify({ defaults: {}, overrides: { prefix: 'wh1' } }));
      if (req.url === '/v1/wh1/namespaces/spark%1Fdb/tables/bunnies') {
        return res.end(
          `{"metadata-location":"s3a://hyperparam-iceberg/spark/bunnies/metadata/v5.metadata.json","metadata":${metadataText},"config":{}}`,
        );
      }
      res.statusCode = 404;
      res.end(JSON.stringify({ error: { message: 'Table does not exist', type: 'NoSuchTableException', code: 404 } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const addr = server.address() as { port: number };
    url = `http://127.0.0.1:${addr.port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('loads metadata losslessly with the config prefix and a bearer token', async () => {
    const t = await openIcebergTable('spark.db.bunnies', {
      catalog: `rest:${url}`,
      catalogOptions: { token: 'secret' },
      remap: [{ from: 's3a://hyperparam-iceberg/spark/bunnies', to: path.join(fixtures, 'icebird/spark_bunnies') }],
    });
    const raw = JSON.parse(
      readFileSync(path.join(fixtures, 'icebird/spark_bunnies/metadata/v5.metadata.json'), 'utf8').replace(
        /(snapshot-id"\s*:\s*)(\d+)/g,
        '$1"$2"',
      ),
    );
    expect(t.metadata.currentSnapshotId?.toString()).toBe(String(raw['current-snapshot-id']));
    expect(t.metadata.snapshots.map((s) => s.snapshotId.toString())).toEqual(
      raw.snapshots.map((s: { 'snapshot-id': string }) => s['snapshot-id']),
    );
    expect(await countLiveRows(t)).toBe(20);
    expect(seen.every((s) => s.auth === 'Bearer secret')).toBe(true);
  });

  it('a missing table is NotFound with the server message', async () => {
    const e = await caught(openIcebergTable('spark.nope', { catalog: `rest:${url}` }));
    expect(e.kind).toBe('NotFound');
    expect(e.message).toContain('Table does not exist');
  });
});
