/**
 * floe through a real Iceberg REST catalog: the reference server (iceberg-core's RESTCatalogAdapter +
 * RESTCatalogServlet from Maven Central — what Iceberg's RESTCatalogServer fixture runs — over a JdbcCatalog
 * on SQLite with a local warehouse), started on 127.0.0.1 by the Java oracle.
 * PyIceberg's RestCatalog creates `ns.t` and appends, Java's RESTCatalog appends, then
 * `floe compact / expire --catalog rest:<url>` commit through the server, and both engines read the rows
 * back through it. The server itself validates floe's requirements: a Java commit between floe's load and
 * its POST must come back as 409 and floe must retry on top of it.
 *
 * Expected rows are tracked by hand (RowModel). Steps share the table and run in order; unavailable
 * engines or a failed predecessor make a step SKIP loudly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { isFloeError } from '../../util/errors.js';
import { compactIceberg } from '../../src/orchestration/compact-iceberg.js';
import { openIcebergForWrite, requireCommitOps } from '../../connectors/iceberg/open-for-write.js';
import type { TableOperations } from '../../connectors/iceberg/commit-rewrite.js';
import { canonicalRows, type InputRow } from '../oracles/index.js';
import { RowModel, skipLoudly } from '../iceberg-compaction/helpers.js';
import {
  JavaCatalog,
  PyCatalog,
  javaSession,
  pythonSession,
  catalogRow,
  floeCli,
  javaCatalogAvailable,
  lineage,
  pythonCatalogAvailable,
  startRestServer,
  type RestServer,
} from './support.js';

const avail = { python: await pythonCatalogAvailable(), java: await javaCatalogAvailable() };
for (const [name, a] of Object.entries(avail))
  if (!a.ok) console.warn(`\n!!! SKIPPED: REST catalog interop (${name}): ${a.reason}\n`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-rest-catalog-'));
const backendDb = path.join(work, 'backend.db');
const TABLE = 'ns.t';
const jvm = javaSession();
const python = pythonSession();
let server: RestServer | undefined;
let serverError: string | undefined;
let py: PyCatalog;
let java: JavaCatalog;
let CATALOG = '';

beforeAll(async () => {
  if (!avail.java.ok || !avail.python.ok) return;
  try {
    server = await startRestServer(path.join(work, 'warehouse'), backendDb);
  } catch (e) {
    serverError = (e as Error).message;
    console.warn(`\n!!! SKIPPED: REST catalog server could not start: ${serverError.slice(0, 2000)}\n`);
    return;
  }
  CATALOG = `rest:${server.uri}`;
  py = new PyCatalog(python, CATALOG);
  java = new JavaCatalog(jvm, CATALOG);
});

afterAll(async () => {
  jvm.close();
  python.close();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

const model = new RowModel({ id: 'long', region: 'string', qty: 'int' });
const batch = (b: number): InputRow[] =>
  Array.from({ length: 6 }, (_, i) => ({ id: b * 100 + i, region: i % 2 ? 'us' : 'eu', qty: b * 10 + i }));
const state: { historyBefore?: Record<string, unknown>; written?: boolean; compacted?: boolean; raced?: boolean } = {};

function need(ctx: TestContext, ok: unknown, what: string): void {
  if (!avail.python.ok) skipLoudly(ctx, `PyIceberg unavailable: ${avail.python.reason}`);
  if (!avail.java.ok) skipLoudly(ctx, `Java catalog oracle unavailable: ${avail.java.reason}`);
  if (!server) skipLoudly(ctx, `REST catalog server unavailable: ${serverError ?? 'not started'}`);
  if (!ok) skipLoudly(ctx, `${what} did not happen (an earlier step failed)`);
}

async function bothRead(): Promise<void> {
  const want = canonicalRows(model.live());
  expect(canonicalRows(await py.read(TABLE)), 'PyIceberg (RestCatalog) rows').toEqual(want);
  expect(canonicalRows(await java.read(TABLE)), 'Java (RESTCatalog) rows').toEqual(want);
}

/** What the server reports for the table, straight from the REST API. */
async function loadTable(): Promise<{ 'metadata-location': string }> {
  const res = await fetch(`${server!.uri}/v1/namespaces/ns/tables/t`);
  expect(res.status).toBe(200);
  return (await res.json()) as { 'metadata-location': string };
}

describe('REST catalog (reference server) shared with PyIceberg RestCatalog and Java RESTCatalog', () => {
  it('PyIceberg creates ns.t and appends through the server; Java RESTCatalog appends', async (ctx) => {
    need(ctx, true, '');
    await py.write(TABLE, {
      formatVersion: 2,
      schema: [
        { name: 'id', type: 'long', required: true },
        { name: 'region', type: 'string' },
        { name: 'qty', type: 'int' },
      ],
      partitionSpec: [{ source: 'region' }],
      ops: [1, 2, 3].map((b) => ({ op: 'append' as const, rows: batch(b) })),
    });
    [1, 2, 3].forEach((b) => model.append(batch(b)));
    const j = await java.append(TABLE, batch(4));
    model.append(batch(4));
    expect((await loadTable())['metadata-location']).toBe(j.metadataFile);
    await bothRead();
    state.historyBefore = await py.history(TABLE);
    state.written = true;
  });

  it('floe compact --catalog rest: commits through the server; both engines read the same rows', async (ctx) => {
    need(ctx, state.written, 'the oracle writes');
    const before = (await loadTable())['metadata-location'];
    const snapsBefore = await py.snapshots(TABLE);
    const { json: r, exitCode } = await floeCli<{
      committedTasks: string[];
      failedTasks: unknown[];
      before: { dataFiles: number };
      after: { dataFiles: number; records: number };
      snapshots: string[];
    }>(['compact', TABLE, '--catalog', CATALOG]);
    expect(exitCode).toBe(0);
    expect(r.failedTasks).toEqual([]);
    expect(r.committedTasks.length).toBeGreaterThan(0);
    expect(r.after.dataFiles).toBeLessThan(r.before.dataFiles);
    expect(r.after.records).toBe(model.live().length);

    // the server wrote new metadata and moved its backend row
    const now = (await loadTable())['metadata-location'];
    expect(now).not.toBe(before);
    const row = catalogRow(backendDb, 'ns', 't');
    expect(row.metadata_location).toBe(now);
    expect(row.previous_metadata_location).toBe(before);
    const snaps = await py.snapshots(TABLE);
    expect(snaps.current).toBe(r.snapshots.at(-1));
    const cur = snaps.snapshots.find((s) => s.id === snaps.current)!;
    expect(cur.operation).toBe('replace');
    expect(cur.parent).toBe(snapsBefore.current);
    await bothRead();
    const history = await py.history(TABLE);
    for (const [id, rows] of Object.entries(state.historyBefore!)) expect(history[id], `snapshot ${id}`).toEqual(rows);
    state.compacted = true;
  });

  it("a Java commit between floe's load and its POST: the server answers 409, floe retries on top of it", async (ctx) => {
    need(ctx, state.compacted, 'the first compaction');
    await py.write(TABLE, { ops: [5, 6].map((b) => ({ op: 'append' as const, rows: batch(b) })) });
    [5, 6].forEach((b) => model.append(batch(b)));
    const opened = await openIcebergForWrite(TABLE, { catalog: CATALOG });
    const calls: string[] = [];
    let javaCommit: { currentSnapshotId: string } | undefined;
    try {
      const ops = requireCommitOps(opened);
      const racing: TableOperations = {
        refresh: () => ops.refresh(),
        async commit(base, next) {
          if (!javaCommit) {
            javaCommit = await java.append(TABLE, batch(7));
            model.append(batch(7));
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
    const snaps = await py.snapshots(TABLE);
    const cur = snaps.snapshots.find((s) => s.id === snaps.current)!;
    expect(cur.operation).toBe('replace');
    expect(cur.parent).toBe(javaCommit!.currentSnapshotId);
    await bothRead();
    state.raced = true;
  });

  it('floe expire --catalog rest: removes snapshots through the server; kept ones read the same', async (ctx) => {
    need(ctx, state.raced, 'the racing compaction');
    const snaps = await py.snapshots(TABLE);
    const history = await py.history(TABLE);
    const keep = lineage(snaps).slice(0, 2);
    const expected = snaps.snapshots
      .map((s) => s.id)
      .filter((id) => !keep.includes(id))
      .sort();
    const { json: r, exitCode } = await floeCli<{ failed: unknown[]; details: { expiredSnapshots: string[] } }>([
      'expire',
      TABLE,
      '--catalog',
      CATALOG,
      '--retain-last',
      '2',
      '--older-than',
      '0s',
    ]);
    expect(exitCode).toBe(0);
    expect(r.failed).toEqual([]);
    expect([...r.details.expiredSnapshots].sort()).toEqual(expected);
    const left = await py.snapshots(TABLE);
    expect(left.snapshots.map((s) => s.id).sort()).toEqual([...keep].sort());
    const historyAfter = await py.history(TABLE);
    for (const id of keep) expect(historyAfter[id], `snapshot ${id}`).toEqual(history[id]);
    await bothRead();
  });
});
