/**
 * floe through the AWS Glue Data Catalog API (`glue:` catalogs): a real Glue-compatible server (moto's
 * server mode from PyPI, installed by scripts/setup-moto.sh) holds an Iceberg table entry (parameters
 * table_type=ICEBERG, metadata_location) pointing at a table the Java oracle wrote.
 * - `floe compact db.t --catalog glue:default?…` loads through GetTable, commits with UpdateTable naming the
 *   VersionId it read, moves metadata_location (previous_metadata_location = the base), and Java reads the
 *   same rows from the new metadata file;
 * - a concurrent UpdateTable between floe's load and its commit makes the VersionId stale: the commit loses
 *   the CAS as a retryable CommitConflict and leaves no metadata file behind. moto records table versions
 *   but does not check UpdateTable's VersionId, so a small filter in front of it (versionCasFilter) does
 *   what Glue does: an UpdateTable whose VersionId is not the table's current one gets Glue's
 *   ConcurrentModificationException; everything else passes through unchanged;
 * - discovery lists the Iceberg tables (and only those) through GetDatabases/GetTables.
 * Without moto or Java the test fails and says why.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateDatabaseCommand,
  CreateTableCommand,
  GetTableCommand,
  GlueClient,
  UpdateTableCommand,
} from '@aws-sdk/client-glue';
import { canonicalRows, javaIceberg, repoRoot, type InputRow } from '../oracles/index.js';
import { RowModel } from '../iceberg-compaction/helpers.js';
import { GlueTableOperations } from '../../connectors/iceberg/commit-glue.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { listCatalogTables } from '../../connectors/catalog/list-tables.js';
import { isFloeError } from '../../util/errors.js';
import { floeCli, javaCatalogAvailable } from './support.js';
import { freePort } from '../support/s3-binaries.js';

const MOTO = path.join(repoRoot, '.cache/moto-venv/bin/moto_server');
const work = mkdtempSync(path.join(os.tmpdir(), 'floe-glue-'));
const tableDir = path.join(work, 'warehouse', 'db', 't');
let moto: ChildProcess | undefined;
let endpoint = '';
let glue: GlueClient;
const ENV = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: 'us-east-1' };
const saved: Record<string, string | undefined> = {};
const model = new RowModel({ id: 'long', region: 'string', qty: 'int' });
const batch = (b: number): InputRow[] =>
  Array.from({ length: 5 }, (_, i) => ({ id: b * 100 + i, region: i % 2 ? 'us' : 'eu', qty: b }));

async function startMoto(): Promise<void> {
  const port = await freePort();
  moto = spawn(MOTO, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  endpoint = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    try {
      if ((await fetch(`${endpoint}/moto-api/`)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('moto_server did not start within 60 s');
}

/** Glue's VersionId check in front of moto (see the module comment); returns its endpoint. */
async function versionCasFilter(upstream: string): Promise<{ uri: string; rejected: number; close: () => void }> {
  const state = { uri: '', rejected: 0, close: () => server.close() };
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const target = String(req.headers['x-amz-target'] ?? '');
        if (target === 'AWSGlue.UpdateTable') {
          const input = JSON.parse(body.toString('utf8')) as {
            DatabaseName: string;
            TableInput: { Name: string };
            VersionId?: string;
          };
          // moto reads the account and region from the caller's headers: ask as the caller did
          const asked: Record<string, string> = {};
          for (const [k, v] of Object.entries(req.headers))
            if (typeof v === 'string' && k !== 'host' && k !== 'content-length') asked[k] = v;
          asked['x-amz-target'] = 'AWSGlue.GetTable';
          const cur = await fetch(upstream, {
            method: 'POST',
            headers: asked,
            body: JSON.stringify({ DatabaseName: input.DatabaseName, Name: input.TableInput.Name }),
          });
          const version = ((await cur.json()) as { Table?: { VersionId?: string } }).Table?.VersionId;
          if (input.VersionId !== undefined && input.VersionId !== version) {
            state.rejected++;
            res.writeHead(400, {
              'content-type': 'application/x-amz-json-1.1',
              'x-amzn-errortype': 'ConcurrentModificationException',
            });
            res.end(
              JSON.stringify({
                __type: 'ConcurrentModificationException',
                Message: `VersionId ${input.VersionId} is not the latest (${version})`,
              }),
            );
            return;
          }
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
        const up = await fetch(`${upstream}${req.url ?? '/'}`, {
          method: req.method ?? 'POST',
          headers,
          ...(body.length ? { body } : {}),
        });
        const out = Buffer.from(await up.arrayBuffer());
        res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/x-amz-json-1.1' });
        res.end(out);
      })().catch((e: unknown) => {
        res.writeHead(502);
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.uri = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return state;
}

let filter: Awaited<ReturnType<typeof versionCasFilter>>;

const spec = () => `glue:default?glue.endpoint=${encodeURIComponent(filter.uri)}&glue.region=us-east-1`;

async function glueTable(): Promise<{ params: Record<string, string>; version: string | undefined }> {
  const t = (await glue.send(new GetTableCommand({ DatabaseName: 'db', Name: 't' }))).Table!;
  return { params: t.Parameters ?? {}, version: t.VersionId };
}

beforeAll(async () => {
  const java = await javaCatalogAvailable();
  if (!java.ok) throw new Error(`the Glue tests need the Java oracle: ${java.reason}`);
  if (!existsSync(MOTO)) throw new Error(`moto_server missing at ${MOTO}: run \`bash scripts/setup-moto.sh\``);
  for (const [k, v] of Object.entries(ENV)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  await startMoto();
  filter = await versionCasFilter(endpoint);
  glue = new GlueClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
  const w = await javaIceberg.write(tableDir, {
    formatVersion: 2,
    schema: [
      { name: 'id', type: 'long', required: true },
      { name: 'region', type: 'string' },
      { name: 'qty', type: 'int' },
    ],
    partitionSpec: [{ source: 'region' }],
    ops: [1, 2, 3, 4, 5].map((b) => ({ op: 'append' as const, rows: batch(b) })),
  });
  [1, 2, 3, 4, 5].forEach((b) => model.append(batch(b)));
  await glue.send(new CreateDatabaseCommand({ DatabaseInput: { Name: 'db' } }));
  await glue.send(
    new CreateTableCommand({
      DatabaseName: 'db',
      TableInput: {
        Name: 't',
        TableType: 'EXTERNAL_TABLE',
        Parameters: { table_type: 'ICEBERG', metadata_location: w.metadataFile },
        StorageDescriptor: { Location: tableDir },
      },
    }),
  );
  await glue.send(
    new CreateTableCommand({ DatabaseName: 'db', TableInput: { Name: 'hive_only', Parameters: { EXTERNAL: 'TRUE' } } }),
  );
}, 180_000);

afterAll(async () => {
  glue?.destroy();
  filter?.close();
  moto?.kill();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(work, { recursive: true, force: true });
});

describe('Glue Data Catalog API (moto server)', () => {
  it('discovery lists the Iceberg tables only', async () => {
    expect(await listCatalogTables(spec())).toEqual([{ namespace: ['db'], name: 't' }]);
  });

  it('floe compact commits with UpdateTable + VersionId; Java reads the same rows from the new metadata', async () => {
    const before = await glueTable();
    const { json, exitCode } = await floeCli<{ committedTasks: unknown[] }>([
      'compact',
      'db.t',
      '--catalog',
      spec(),
      '--parallelism',
      '1',
    ]);
    expect(exitCode, JSON.stringify(json)).toBe(0);
    expect(json.committedTasks.length).toBeGreaterThan(0);
    const after = await glueTable();
    expect(after.params.metadata_location).not.toBe(before.params.metadata_location);
    expect(after.params.previous_metadata_location).toBe(before.params.metadata_location);
    expect(after.params.table_type).toBe('ICEBERG');
    expect(after.version).not.toBe(before.version);
    expect(canonicalRows(await javaIceberg.read(after.params.metadata_location!))).toEqual(canonicalRows(model.live()));
  });

  it('a concurrent UpdateTable makes the VersionId stale: the commit loses the CAS and leaves nothing', async () => {
    const io = new FileIO();
    try {
      const ops = new GlueTableOperations(io, { namespace: ['db'], name: 't' }, 'default', {
        'glue.endpoint': filter.uri,
        'glue.region': 'us-east-1',
      });
      const base = await ops.refresh();
      // another writer touches the entry (same pointer, new version), as Glue's own jobs do
      const cur = (await glue.send(new GetTableCommand({ DatabaseName: 'db', Name: 't' }))).Table!;
      await glue.send(
        new UpdateTableCommand({
          DatabaseName: 'db',
          TableInput: {
            Name: 't',
            TableType: cur.TableType,
            Parameters: { ...cur.Parameters, owner: 'etl' },
            StorageDescriptor: cur.StorageDescriptor,
          },
          VersionId: cur.VersionId,
        }),
      );
      const metaFiles = () =>
        readdirSync(path.join(tableDir, 'metadata'))
          .filter((f) => f.endsWith('.metadata.json'))
          .sort();
      const filesBefore = metaFiles();
      const next = { ...base.metadata, properties: { ...(base.metadata.properties as object), touched: 'yes' } };
      const err = await ops.commit(base, next).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isFloeError(err, 'CommitConflict'), String(err)).toBe(true);
      expect((err as Error).message).toMatch(/glue:default.*VersionId .* is stale/);
      expect(filter.rejected).toBe(1);
      expect(metaFiles()).toEqual(filesBefore);
      expect((await glueTable()).params.metadata_location).toBe(base.location);
    } finally {
      io.destroy();
    }
  });
});
