/**
 * floe through an Iceberg REST catalog that authenticates: the reference server (iceberg-core's
 * RESTCatalogAdapter over a JdbcCatalog, started by the Java oracle) with its OAuth2 token route, behind
 * AuthProxy (./auth-proxy.ts), which checks the client secret, enforces bearer tokens and lets them expire
 * after TTL seconds.
 *
 * - `floe compact / inspect / expire ns.t --catalog rest:<proxy>` with $FLOE_REST_CREDENTIAL commit and
 *   read through it; tokens are refreshed during the run (more tokens issued than processes started, no
 *   request let through unauthenticated) and once after a 401; Java reads the same rows through the same
 *   catalog server.
 * - `floe serve` discovery with `catalogs:` `credentialEnv:` lists and compacts the table.
 * - bad input: a wrong secret, the token endpoint down, a 403 on the commit — each a clear error naming the
 *   catalog, the commit settled, the table unchanged and no file left behind.
 * - no secret in any result document, stderr line, log event, error or state-DB row.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalRows, type InputRow } from '../oracles/index.js';
import { RowModel } from '../iceberg-compaction/helpers.js';
import { parseServiceConfig } from '../../src/shells/service/config.js';
import { MaintenanceService } from '../../src/shells/service/service.js';
import { Discovery } from '../../src/shells/service/discovery.js';
import { AuthProxy } from './auth-proxy.js';
import {
  JavaCatalog,
  floeCli,
  javaCatalogAvailable,
  javaSession,
  startRestServer,
  type RestServer,
} from './support.js';

const avail = await javaCatalogAvailable();
const work = mkdtempSync(path.join(os.tmpdir(), 'floe-rest-oauth-'));
const warehouse = path.join(work, 'warehouse');
const CLIENT_ID = 'floe-maintenance';
const SECRET = 'Sup3r-s3cret-f0r-floe-7f1c2e';
const TTL = 2;
const TABLE = 'ns.t';
const jvm = javaSession();
let server: RestServer;
let proxy: AuthProxy;
let java: JavaCatalog;
let CATALOG = '';
/** Every text floe produced in this file: result documents, stderr, log events, errors, state rows. */
const produced: string[] = [];

const model = new RowModel({ id: 'long', region: 'string', qty: 'int' });
const batch = (b: number): InputRow[] =>
  Array.from({ length: 5 }, (_, i) => ({ id: b * 100 + i, region: i % 2 ? 'us' : 'eu', qty: b * 10 + i }));

beforeAll(async () => {
  if (!avail.ok) throw new Error(`the REST OAuth2 tests need the Java catalog oracle: ${avail.reason}`);
  server = await startRestServer(warehouse, path.join(work, 'backend.db'));
  proxy = await new AuthProxy({
    upstream: server.uri,
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    ttlSeconds: TTL,
  }).start();
  CATALOG = `rest:${proxy.uri}`;
  // Java writes straight to the server (the oracle's RESTCatalog sends no credential)
  java = new JavaCatalog(jvm, `rest:${server.uri}`);
  await jvm.call(['iceberg-write', TABLE, '--catalog', `rest:${server.uri}`], {
    formatVersion: 2,
    schema: [
      { name: 'id', type: 'long', required: true },
      { name: 'region', type: 'string' },
      { name: 'qty', type: 'int' },
    ],
    partitionSpec: [{ source: 'region' }],
    ops: [1, 2, 3, 4].map((b) => ({ op: 'append', rows: batch(b) })),
  });
  [1, 2, 3, 4].forEach((b) => model.append(batch(b)));
}, 180_000);

afterAll(async () => {
  jvm.close();
  await proxy?.close();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** `floe <args> --json` with the credential in the environment, stderr captured too. */
async function floe(args: string[], credential = `${CLIENT_ID}:${SECRET}`) {
  const saved = process.env.FLOE_REST_CREDENTIAL;
  process.env.FLOE_REST_CREDENTIAL = credential;
  const err: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((c: string | Uint8Array) => {
    err.push(typeof c === 'string' ? c : Buffer.from(c).toString('utf8'));
    return true;
  }) as typeof process.stderr.write;
  try {
    let r: { json: Record<string, unknown>; exitCode: number };
    try {
      r = await floeCli<Record<string, unknown>>([...args, '--catalog', CATALOG, '--progress', 'none']);
    } catch (e) {
      // failures before the job starts surface as the error main.ts prints: keep its message
      r = { json: { error: (e as Error).message, kind: (e as { kind?: string }).kind }, exitCode: 1 };
    }
    produced.push(JSON.stringify(r.json), err.join(''));
    return { ...r, stderr: err.join('') };
  } finally {
    process.stderr.write = write;
    if (saved === undefined) delete process.env.FLOE_REST_CREDENTIAL;
    else process.env.FLOE_REST_CREDENTIAL = saved;
  }
}

async function metadataLocation(): Promise<string> {
  const res = await fetch(`${server.uri}/v1/namespaces/ns/tables/t`);
  return ((await res.json()) as { 'metadata-location': string })['metadata-location'];
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  // .floe/lease.json is the CLI's table lease record (written by every run, released at its end)
  return out.filter((f) => !f.includes(`${path.sep}.floe${path.sep}`)).sort();
}

const tableDir = () => path.join(warehouse, 'ns', 't');

describe('REST catalog with OAuth2 client credentials (reference server behind a token-enforcing filter)', () => {
  it('floe compact commits with client credentials, refreshing the token; Java reads the same rows', async () => {
    const before = await metadataLocation();
    const issuedBefore = proxy.issued.length;
    const r = await floe(['compact', TABLE, '--parallelism', '1']);
    expect(r.exitCode, JSON.stringify(r.json)).toBe(0);
    expect((r.json.committedTasks as unknown[]).length).toBeGreaterThan(0);
    expect(await metadataLocation()).not.toBe(before);
    expect(canonicalRows(await java.read(TABLE))).toEqual(canonicalRows(model.live()));
    // every request but the token route carried a live token: nothing reached the server unauthenticated
    const unauthorized = proxy.requests.filter((q) => q.status === 401);
    expect(unauthorized.filter((q) => q.path.startsWith('/v1/oauth'))).toEqual([]);
    expect(proxy.issued.length).toBeGreaterThan(issuedBefore);
    expect(proxy.requests.every((q) => q.path.startsWith('/v1/oauth') || q.authorization?.startsWith('Bearer '))).toBe(
      true,
    );
  });

  it('a token that expires between requests is refreshed before use; a revoked one after one 401', async () => {
    const issued = proxy.issued.length;
    await new Promise((r) => setTimeout(r, TTL * 1000 + 200)); // every token issued so far is dead now
    let r = await floe(['expire', TABLE, '--dry-run', '--older-than', '1s']);
    expect(r.exitCode, JSON.stringify(r.json)).toBe(0);
    expect(proxy.issued.length).toBeGreaterThan(issued);

    // in-process: one client per catalog keeps its token; revoke it server-side
    const { RestCatalog } = await import('../../connectors/catalog/rest.js');
    const c = new RestCatalog(proxy.uri, { credential: `${CLIENT_ID}:${SECRET}` });
    await c.loadTable({ namespace: ['ns'], name: 't' });
    proxy.expireAll();
    const n401 = proxy.requests.filter((q) => q.status === 401).length;
    const loaded = await c.loadTable({ namespace: ['ns'], name: 't' });
    expect(loaded.metadataLocation).toBe(await metadataLocation());
    expect(proxy.requests.filter((q) => q.status === 401).length).toBe(n401 + 1);
    // the revoked token cannot be exchanged: the client credentials get a new one
    expect(proxy.issued.at(-1)!.grant).toBe('client_credentials');
    r = await floe(['expire', TABLE, '--retain-last', '1', '--older-than', '1s']);
    expect(r.exitCode, JSON.stringify(r.json)).toBe(0);
    expect(canonicalRows(await java.read(TABLE))).toEqual(canonicalRows(model.live()));
  });

  it('a refresh ahead of expiry uses token exchange (RFC 8693) of the still-live token', async () => {
    const { RestCatalog } = await import('../../connectors/catalog/rest.js');
    const c = new RestCatalog(proxy.uri, { credential: `${CLIENT_ID}:${SECRET}`, 'rest.client.max-retries': '0' });
    await c.loadTable({ namespace: ['ns'], name: 't' });
    await new Promise((r) => setTimeout(r, TTL * 1000 * 0.85)); // inside the refresh window, still live
    await c.loadTable({ namespace: ['ns'], name: 't' });
    expect(proxy.issued.at(-1)!.grant).toBe('urn:ietf:params:oauth:grant-type:token-exchange');
  });

  it('floe serve discovery with catalogs: credentialEnv lists and compacts the table', async () => {
    process.env.FLOE_TEST_CATALOG_CREDENTIAL = `${CLIENT_ID}:${SECRET}`;
    const logs: string[] = [];
    try {
      const config = await parseServiceConfig(
        {
          state: 'floe.db',
          catalogs: [{ name: 'prod', catalog: CATALOG, credentialEnv: 'FLOE_TEST_CATALOG_CREDENTIAL' }],
          defaults: { jobs: { compact: 'every 1h' } },
        },
        'floe.yaml',
        work,
        process.env,
      );
      const svc = new MaintenanceService(config, {
        log: (l) => void logs.push(JSON.stringify(l, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))),
      });
      await svc.init();
      try {
        const found = await new Discovery(svc).refresh();
        expect(found).toEqual({ tables: ['prod.ns.t'], optedOut: [], errors: [] });
        const summary = await svc.runOnce();
        expect(summary.outcomes.map((o) => ('error' in o ? o.error : o.ok))).toEqual([true]);
      } finally {
        await svc.close();
      }
      expect(canonicalRows(await java.read(TABLE))).toEqual(canonicalRows(model.live()));
      produced.push(...logs, ...dumpSqlite(path.join(work, 'floe.db')));
    } finally {
      delete process.env.FLOE_TEST_CATALOG_CREDENTIAL;
    }
  });

  it('vended credentials in loadTable (requested with X-Iceberg-Access-Delegation) become the table FileIO', async () => {
    const VENDED_SECRET = 'vended-S3-secret-9a8b7c';
    proxy.vend = () => ({
      'storage-credentials': [
        {
          prefix: 's3://lake-bucket/warehouse/ns/t',
          config: {
            's3.access-key-id': 'ASIAVENDED',
            's3.secret-access-key': VENDED_SECRET,
            's3.session-token': 'vended-session-token-1234',
            's3.endpoint': 'http://127.0.0.1:9',
            's3.session-token-expires-at-ms': String(Date.now() + 3_600_000),
          },
        },
      ],
    });
    const saved = process.env.FLOE_REST_CREDENTIAL;
    process.env.FLOE_REST_CREDENTIAL = `${CLIENT_ID}:${SECRET}`;
    try {
      const { openIcebergForWrite } = await import('../../connectors/iceberg/open-for-write.js');
      const opened = await openIcebergForWrite(TABLE, { catalog: CATALOG });
      try {
        const conn = opened.files.config.s3Buckets?.['lake-bucket'];
        expect(conn?.endpoint).toBe('http://127.0.0.1:9');
        expect(typeof conn?.credentials).toBe('function');
        const creds = await (conn!.credentials as () => Promise<{ accessKeyId: string }>)();
        expect(creds.accessKeyId).toBe('ASIAVENDED');
        // the table's own (local) files still read as before
        expect(opened.table.metadata.location).toContain(tableDir());
        produced.push(
          JSON.stringify(opened.files.config),
          String((conn!.credentials as { description: string }).description),
        );
      } finally {
        opened.files.destroy();
      }
      const load = proxy.requests
        .filter((q) => q.method === 'GET' && q.path.endsWith('/namespaces/ns/tables/t'))
        .at(-1);
      expect(load).toBeDefined();
      expect(JSON.stringify(produced)).not.toContain(VENDED_SECRET);
      expect(JSON.stringify(produced)).not.toContain('vended-session-token-1234');
    } finally {
      proxy.vend = undefined;
      if (saved === undefined) delete process.env.FLOE_REST_CREDENTIAL;
      else process.env.FLOE_REST_CREDENTIAL = saved;
    }
  });

  describe('bad input: clear error naming the catalog, commit settled, nothing left behind', () => {
    it('a wrong secret', async () => {
      const before = await metadataLocation();
      const files = filesUnder(tableDir());
      const r = await floe(['compact', TABLE], `${CLIENT_ID}:not-the-secret`);
      expect(r.exitCode).not.toBe(0);
      const text = JSON.stringify(r.json);
      expect(text).toContain(CATALOG);
      expect(text).toMatch(/OAuth2 token request .* was refused \(invalid_client/);
      expect(text).not.toContain('not-the-secret');
      expect(await metadataLocation()).toBe(before);
      expect(filesUnder(tableDir())).toEqual(files);
    });

    it('the token endpoint down', async () => {
      proxy.tokenRouteDown = true;
      try {
        await new Promise((r) => setTimeout(r, TTL * 1000 + 200));
        const before = await metadataLocation();
        const files = filesUnder(tableDir());
        const r = await floe(['compact', TABLE]);
        expect(r.exitCode).not.toBe(0);
        expect(JSON.stringify(r.json)).toMatch(
          /REST catalog rest:http:\/\/127\.0\.0\.1:\d+: OAuth2 token request .*unreachable/,
        );
        expect(await metadataLocation()).toBe(before);
        expect(filesUnder(tableDir())).toEqual(files);
      } finally {
        proxy.tokenRouteDown = false;
      }
    });

    it('a 403 on the commit itself', async () => {
      // more small files so there is something to compact
      await java.append(TABLE, batch(7));
      await java.append(TABLE, batch(8));
      model.append(batch(7));
      model.append(batch(8));
      const before = await metadataLocation();
      const files = filesUnder(tableDir());
      proxy.failNextCommit = 403;
      const r = await floe([
        'compact',
        TABLE,
        '--parallelism',
        '1',
        '--strategy',
        'binpack',
        '-o',
        'min-input-files=2',
      ]);
      const text = JSON.stringify(r.json);
      expect(r.exitCode, text).not.toBe(0);
      expect(text).toContain(CATALOG);
      expect(text).toMatch(/HTTP 403.*nothing was committed/);
      expect(text).not.toMatch(/unknown/i);
      expect(await metadataLocation()).toBe(before);
      expect(filesUnder(tableDir())).toEqual(files);
      expect(canonicalRows(await java.read(TABLE))).toEqual(canonicalRows(model.live()));
    });
  });

  it('no secret in any output, log line, JSON result, error or state-DB row', () => {
    expect(produced.length).toBeGreaterThan(8);
    const all = produced.join('\n');
    expect(all).toContain('ns.t'); // the texts are real
    for (const secret of [SECRET, `${CLIENT_ID}:${SECRET}`]) expect(all).not.toContain(secret);
    // nor any bearer token the proxy issued
    for (const q of proxy.requests) if (q.authorization) expect(all).not.toContain(q.authorization.slice(7));
  });
});

/** Every row of every table of a SQLite database, as text. */
function dumpSqlite(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[];
    return tables.flatMap((t) =>
      db
        .prepare(`SELECT * FROM "${t.name}"`)
        .all()
        .map((r) => JSON.stringify(r)),
    );
  } finally {
    db.close();
  }
}
