/**
 * Paimon's REST catalog against Paimon's own server (RESTCatalogServer from paimon-core's test jar, run
 * by the Java oracle's PaimonRestServer on loopback with a bearer token): Java Paimon writes a table
 * through the catalog, floe lists it, compacts it with `--catalog paimon-rest:…` (the server publishes
 * floe's snapshot), and Java reads the same rows back through the catalog. A commit the server refuses
 * (403) fails naming the catalog with nothing left behind; a commit the server took but answered 500 is
 * settled by reading the snapshot back; a wrong token fails at connect, and the token is never printed.
 *
 * When Java or the oracle jar is missing, every test is SKIPPED loudly (scripts/setup-oracles.sh builds it).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { PaimonRestCatalog } from '../../connectors/catalog/paimon-rest.js';
import { listSnapshotIds, readSnapshot } from '../../connectors/paimon/metadata.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { compactTable } from '../../src/app/compact.js';
import { compactPaimon } from '../../src/orchestration/compact-paimon.js';
import { runMaintenanceJob } from '../../src/app/maintenance-job.js';
import { parseServiceConfig } from '../../src/shells/service/config.js';
import { listCatalog, readTableProperties } from '../../src/shells/service/discovery.js';
import { isFloeError, type FloeError } from '../../util/errors.js';
import { canonicalRows, javaPaimon, oracleJar, type PaimonChange } from '../oracles/index.js';

const TOKEN = `floe-test-${randomUUID()}`;
let dataDir = '';
let server: ChildProcessWithoutNullStreams | undefined;
const replies: ((line: string) => void)[] = [];
let hello: { uri: string; warehouse: string; token: string } | undefined;
let skipReason = '';
let stderrTail = '';

const skip = (ctx: TestContext) => {
  if (skipReason) {
    console.warn(`SKIPPED (no Paimon REST catalog server): ${skipReason}`);
    ctx.skip();
  }
};

/** One request to the server process (its own Java client, or a switch of the server). */
function call(req: Record<string, unknown>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    replies.push((line) => {
      const r = JSON.parse(line) as Record<string, unknown>;
      if (r.ok) resolve(r);
      else reject(new Error(`PaimonRestServer: ${String(r.error)}\n${stderrTail}`));
    });
    server!.stdin.write(JSON.stringify(req) + '\n');
  });
}

async function startServer(): Promise<void> {
  const avail = await javaPaimon.available();
  if (!avail.ok) {
    skipReason = avail.reason ?? 'java oracle unavailable';
    return;
  }
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-rest-'));
  const child = spawn(
    process.env.FLOE_ORACLE_JAVA ?? 'java',
    ['-cp', oracleJar, 'floe.oracle.PaimonRestServer', path.join(dataDir, 'wh')],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, FLOE_PAIMON_REST_TOKEN: TOKEN },
    },
  );
  server = child;
  child.stderr.on('data', (b: Buffer) => {
    stderrTail = (stderrTail + b.toString('utf8')).slice(-6000);
  });
  const first = new Promise<string>((resolve, reject) => {
    replies.push(resolve);
    child.on('exit', (code) => reject(new Error(`PaimonRestServer exited (${code}): ${stderrTail}`)));
  });
  createInterface({ input: child.stdout }).on('line', (line) => replies.shift()?.(line));
  hello = JSON.parse(await first) as typeof hello;
}

const spec = () => `paimon-rest:${hello!.uri}?warehouse=${hello!.warehouse}`;
const fields = [
  { name: 'id', type: 'long' },
  { name: 'dt', type: 'string' },
  { name: 'v', type: 'string' },
];
const rowsOf = (commit: number): PaimonChange[] =>
  Array.from({ length: 10 }, (_, i) => ({
    row: { id: commit * 100 + i, dt: i % 2 ? '2024-01-01' : '2024-01-02', v: `c${commit} r${i}` },
  }));

/** A Java-written primary-key table `db.<name>` (4 commits, write-only so the small files stay). */
async function javaTable(name: string): Promise<string> {
  const r = (await call({
    cmd: 'write',
    spec: {
      database: 'db',
      table: name,
      fields,
      primaryKeys: ['dt', 'id'],
      partitionKeys: ['dt'],
      options: { bucket: '2', 'write-only': 'true' },
      commits: [0, 1, 2, 3].map(rowsOf),
    },
  })) as { result: { tablePath: string } };
  return r.result.tablePath.replace(/^file:/, '');
}

const javaRows = async (name: string) => {
  const r = (await call({ cmd: 'read', spec: { database: 'db', table: name } })) as { rows: string[] };
  return canonicalRows(r.rows.map((l) => JSON.parse(l) as Record<string, unknown>) as never);
};

const filesOf = (dir: string) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => !f.endsWith('LATEST'))
    .sort();

async function snapshots(dir: string) {
  const io = new FileIO();
  try {
    return await Promise.all((await listSnapshotIds(io, dir)).map((id) => readSnapshot(io, dir, id)));
  } finally {
    io.destroy();
  }
}

beforeAll(async () => {
  await startServer().catch((e: unknown) => {
    skipReason = (e as Error).message;
  });
}, 180_000);

afterAll(() => {
  server?.stdin.end();
  server?.kill();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('Paimon REST catalog (Paimon RESTCatalogServer)', () => {
  it('lists the tables Java created, compacts through the server, Java reads the same rows', async (ctx) => {
    skip(ctx);
    const dir = await javaTable('events');
    const before = await javaRows('events');
    expect(before).toHaveLength(40);
    const prev = process.env.FLOE_PAIMON_REST_TOKEN;
    process.env.FLOE_PAIMON_REST_TOKEN = TOKEN;
    try {
      const c = await PaimonRestCatalog.open(hello!.uri, { warehouse: hello!.warehouse });
      expect(await c.listTables()).toContainEqual({ namespace: ['db'], name: 'events' });
      const base = (await snapshots(dir)).at(-1)!.id;
      const run = await compactTable('db.events', { catalog: spec(), full: true });
      if (run.format !== 'paimon') throw new Error('expected a Paimon run');
      expect(run.report.snapshotId).toBe(String(base + 1n));
      const last = (await snapshots(dir)).at(-1)!;
      expect(last.id).toBe(base + 1n);
      expect(last.commitKind).toBe('COMPACT');
      expect(last.commitUser).toMatch(/^floe-/);
      // the server wrote snapshot-N itself: Java 1.x re-serialises it without floe's uuid
      expect(last.raw.uuid).toBeUndefined();
      console.log(
        `paimon-rest: floe committed snapshot ${last.id} through ${spec()} (${run.report.tasks?.length ?? 0} tasks)`,
      );
    } finally {
      if (prev === undefined) delete process.env.FLOE_PAIMON_REST_TOKEN;
      else process.env.FLOE_PAIMON_REST_TOKEN = prev;
    }
    expect(await javaRows('events')).toEqual(before);
    // Java keeps writing through the catalog on top of floe's snapshot
    await call({ cmd: 'write', spec: { database: 'db', table: 'events', commits: [rowsOf(9)] } });
    expect(await javaRows('events')).toHaveLength(50);
  }, 240_000);

  it('a commit the server refuses (403) fails naming the catalog; floe leaves nothing behind', async (ctx) => {
    skip(ctx);
    const dir = await javaTable('denied');
    const before = filesOf(dir);
    const rows = await javaRows('denied');
    const catalog = await PaimonRestCatalog.open(hello!.uri, { warehouse: hello!.warehouse, token: TOKEN });
    const t = await catalog.loadTable('db.denied');
    const io = new FileIO();
    let err: FloeError;
    try {
      err = (await compactPaimon(t.location, {
        full: true,
        dryRun: false,
        options: {},
        fileIO: io,
        committer: t.committer,
        // the server's permission changes after floe wrote its files, before it publishes
        beforePublish: async () => {
          await call({ cmd: 'deny', database: 'db', table: 'denied' });
        },
      }).catch((e: unknown) => e)) as FloeError;
    } finally {
      io.destroy();
    }
    expect(isFloeError(err, 'AccessDenied')).toBe(true);
    expect(err.message).toContain(`Paimon REST catalog paimon-rest:${hello!.uri}`);
    expect(err.message).toMatch(/commit of snapshot \d+ of db\.denied → HTTP 403/);
    expect(err.message).toContain('nothing was committed');
    expect(err.message).not.toContain(TOKEN);
    expect(filesOf(dir)).toEqual(before);
    expect((await snapshots(dir)).every((s) => !s.commitUser.startsWith('floe-'))).toBe(true);
    expect(rows).toHaveLength(40);
  }, 240_000);

  it('a commit the server took but answered 500 is settled by reading snapshot-N back', async (ctx) => {
    skip(ctx);
    const dir = await javaTable('flaky');
    const before = await javaRows('flaky');
    const catalog = await PaimonRestCatalog.open(hello!.uri, { warehouse: hello!.warehouse, token: TOKEN });
    const t = await catalog.loadTable('db.flaky');
    await call({ cmd: 'fail-after-commit', on: true });
    const io = new FileIO();
    try {
      const report = await compactPaimon(t.location, {
        full: true,
        dryRun: false,
        options: {},
        fileIO: io,
        committer: t.committer,
      });
      expect(report.snapshotId).toBeDefined();
    } finally {
      io.destroy();
    }
    // the server did answer 500 to floe's commit (the switch is one-shot, cleared when used)
    expect((await call({ cmd: 'fail-after-commit', on: false })).was).toBe(false);
    const last = (await snapshots(dir)).at(-1)!;
    expect(last.commitUser).toMatch(/^floe-/);
    expect(await javaRows('flaky')).toEqual(before);
  }, 240_000);

  it('floe serve: a paimon-rest catalog under catalogs: lists its tables and compacts one through the server', async (ctx) => {
    skip(ctx);
    const dir = await javaTable('served');
    const before = await javaRows('served');
    const config = await parseServiceConfig(
      {
        stateDir: 'state',
        catalogs: [
          { name: 'lake', catalog: spec(), catalogProperties: { token: TOKEN }, jobs: { compact: 'every 30m' } },
        ],
      },
      'floe.yaml',
      dataDir,
    );
    const c = config.catalogs[0]!;
    expect(c.kind).toBe('paimon-rest');
    expect(await listCatalog(c)).toContainEqual({ rel: 'db.served', ref: 'db.served', format: 'paimon' });
    const props = await readTableProperties({ table: 'db.served', access: c.access });
    expect(props).toMatchObject({ format: 'paimon', properties: { bucket: '2' } });
    const base = (await snapshots(dir)).at(-1)!.id;
    const r = await runMaintenanceJob({
      table: 'db.served',
      job: 'compact',
      access: c.access,
      compact: { full: true },
    });
    expect(r.ok).toBe(true);
    expect(r.snapshotIds).toEqual([String(base + 1n)]);
    expect((await snapshots(dir)).at(-1)!.raw.uuid).toBeUndefined(); // published by the server
    expect(await javaRows('served')).toEqual(before);
  }, 240_000);

  it('a wrong token fails at connect naming the catalog, without printing the token', async (ctx) => {
    skip(ctx);
    const wrong = `wrong-${randomUUID()}`;
    const err = (await PaimonRestCatalog.open(hello!.uri, { warehouse: hello!.warehouse, token: wrong }).catch(
      (e: unknown) => e,
    )) as FloeError;
    expect(isFloeError(err)).toBe(true);
    expect(err.message).toContain(`Paimon REST catalog paimon-rest:${hello!.uri}`);
    expect(err.message).not.toContain(wrong);
    // the spec may not carry the token
    await expect(compactTable('db.events', { catalog: `${spec()}&token=${wrong}` })).rejects.toThrow(/is a secret/);
  }, 60_000);
});
