/**
 * floe through an Iceberg SQL catalog (one SQLite file) shared with the reference engines:
 * PyIceberg's SqlCatalog creates `ns.t` and appends, Java's JdbcCatalog appends to the same catalog row,
 * then `floe compact / expire / remove-orphans --catalog sql:<file>` work on it, and both engines read the
 * rows back through the catalog. Checks the row's metadata_location / previous_metadata_location moves,
 * that a Java commit landing between floe's refresh and its compare-and-swap makes floe retry on top of it
 * (the Java commit survives), and that snapshots kept by expire time-travel to the same rows.
 *
 * Expected rows are tracked by hand from the appends (RowModel), never read from floe. Steps run in order
 * and share the table; a step whose engine is unavailable (or whose predecessor failed) is SKIPPED loudly.
 */
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, type TestContext } from 'vitest';
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
  metastoreVersion,
  pythonCatalogAvailable,
  type SnapshotList,
} from './support.js';

const avail = { python: await pythonCatalogAvailable(), java: await javaCatalogAvailable() };
for (const [name, a] of Object.entries(avail))
  if (!a.ok) console.warn(`\n!!! SKIPPED: catalog interop (${name}): ${a.reason}\n`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-sql-catalog-'));
const db = path.join(work, 'catalog.db');
const warehouse = path.join(work, 'warehouse');
const CATALOG = `sql:${db}`;
const TABLE = 'ns.t';

const jvm = javaSession();
const python = pythonSession();
const py = new PyCatalog(python, CATALOG, warehouse);
const java = new JavaCatalog(jvm, `jdbc:sqlite:${db}`, warehouse);
afterAll(() => {
  jvm.close();
  python.close();
  rmSync(work, { recursive: true, force: true });
});

const TYPES = { id: 'long', region: 'string', qty: 'int' };
const model = new RowModel(TYPES);
/** Batch `b`: six rows over two partitions. */
const batch = (b: number): InputRow[] =>
  Array.from({ length: 6 }, (_, i) => ({ id: b * 100 + i, region: i % 2 ? 'us' : 'eu', qty: b * 10 + i }));
const localPath = (loc: string) =>
  loc.startsWith('file:') ? fileURLToPath(loc.replace(/^file:\/*/, 'file:///')) : loc;

const state: {
  tableLocation?: string;
  historyBefore?: Record<string, unknown>;
  written?: boolean;
  compacted?: boolean;
  raced?: boolean;
  expired?: boolean;
  manifestsRewritten?: boolean;
} = {};

function need(ctx: TestContext, ok: unknown, what: string): void {
  if (!avail.python.ok) skipLoudly(ctx, `PyIceberg unavailable: ${avail.python.reason}`);
  if (!avail.java.ok) skipLoudly(ctx, `Java catalog oracle unavailable: ${avail.java.reason}`);
  if (!ok) skipLoudly(ctx, `${what} did not happen (an earlier step failed)`);
}

async function bothRead(): Promise<void> {
  const want = canonicalRows(model.live());
  expect(canonicalRows(await py.read(TABLE)), 'PyIceberg (SqlCatalog) rows').toEqual(want);
  expect(canonicalRows(await java.read(TABLE)), 'Java (JdbcCatalog) rows').toEqual(want);
}

describe('SQL catalog (SQLite) shared with PyIceberg SqlCatalog and Java JdbcCatalog', () => {
  it('PyIceberg creates ns.t and appends; Java JdbcCatalog appends to the same catalog row', async (ctx) => {
    need(ctx, true, '');
    const w = await py.write(TABLE, {
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
    state.tableLocation = w.location;
    const j = await java.append(TABLE, batch(4));
    model.append(batch(4));
    const row = catalogRow(db, 'ns', 't');
    expect(row.catalog_name).toBe('oracle');
    expect(row.metadata_location).toBe(j.metadataFile);
    expect(row.previous_metadata_location).toBe(w.metadataFile);
    await bothRead();
    state.historyBefore = await py.history(TABLE);
    state.written = true;
  });

  it('floe compact --catalog sql: swaps the row to its new metadata; both engines read the same rows', async (ctx) => {
    need(ctx, state.written, 'the oracle writes');
    const before = catalogRow(db, 'ns', 't');
    const snapsBefore = await py.snapshots(TABLE);
    const { json: r, exitCode } = await floeCli<{
      committedTasks: string[];
      failedTasks: unknown[];
      before: { dataFiles: number; records: number };
      after: { dataFiles: number; records: number };
      snapshots: string[];
      rowsIn: number;
      rowsOut: number;
    }>(['compact', TABLE, '--catalog', CATALOG]);
    expect(exitCode).toBe(0);
    expect(r.failedTasks).toEqual([]);
    expect(r.committedTasks.length).toBeGreaterThan(0);
    expect(r.after.dataFiles).toBeLessThan(r.before.dataFiles);
    expect(r.after.records).toBe(model.live().length);
    expect(r.rowsOut).toBe(r.rowsIn);

    const after = catalogRow(db, 'ns', 't');
    expect(after.previous_metadata_location).toBe(before.metadata_location);
    expect(metastoreVersion(after.metadata_location)).toBe(metastoreVersion(before.metadata_location) + 1);
    const snaps = await py.snapshots(TABLE);
    expect(snaps.current).toBe(r.snapshots.at(-1));
    const cur = snaps.snapshots.find((s) => s.id === snaps.current)!;
    expect(cur.operation).toBe('replace');
    expect(cur.parent).toBe(snapsBefore.current);
    expect(snaps.metadataLog.at(-1)).toBe(before.metadata_location);
    await bothRead();
    // every earlier snapshot still time-travels to the same rows
    const history = await py.history(TABLE);
    for (const [id, rows] of Object.entries(state.historyBefore!)) expect(history[id], `snapshot ${id}`).toEqual(rows);
    state.compacted = true;
  });

  it("a Java commit between floe's refresh and its CAS: floe retries on top of it and the Java commit survives", async (ctx) => {
    need(ctx, state.compacted, 'the first compaction');
    await py.write(TABLE, { ops: [5, 6].map((b) => ({ op: 'append' as const, rows: batch(b) })) });
    [5, 6].forEach((b) => model.append(batch(b)));

    const opened = await openIcebergForWrite(TABLE, { catalog: CATALOG });
    const calls: string[] = [];
    let javaCommit: { currentSnapshotId: string; metadataFile: string } | undefined;
    try {
      const ops = requireCommitOps(opened);
      const racing: TableOperations = {
        refresh: () => ops.refresh(),
        async commit(base, next) {
          if (!javaCommit) {
            // floe has refreshed and built its metadata; Java's JdbcCatalog commits first
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
    const row = catalogRow(db, 'ns', 't');
    expect(row.previous_metadata_location).toBe(javaCommit!.metadataFile);
    const snaps = await py.snapshots(TABLE);
    const cur = snaps.snapshots.find((s) => s.id === snaps.current)!;
    expect(cur.operation).toBe('replace');
    expect(cur.parent).toBe(javaCommit!.currentSnapshotId);
    await bothRead(); // includes Java's batch 7
    state.raced = true;
  });

  it('floe expire --catalog sql: keeps the newest snapshots, which time-travel to the same rows', async (ctx) => {
    need(ctx, state.raced, 'the racing compaction');
    const snaps: SnapshotList = await py.snapshots(TABLE);
    const history = await py.history(TABLE);
    const keep = lineage(snaps).slice(0, 3);
    const expected = snaps.snapshots
      .map((s) => s.id)
      .filter((id) => !keep.includes(id))
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    const before = catalogRow(db, 'ns', 't');

    const { json: r, exitCode } = await floeCli<{
      deleted: string[];
      failed: unknown[];
      details: { expiredSnapshots: string[] };
    }>(['expire', TABLE, '--catalog', CATALOG, '--retain-last', '3', '--older-than', '0s']);
    expect(exitCode).toBe(0);
    expect([...r.details.expiredSnapshots].sort()).toEqual(expected);
    expect(r.failed).toEqual([]);
    for (const loc of r.deleted) expect(existsSync(localPath(loc)), `${loc} deleted`).toBe(false);
    // the files the first compaction replaced are live only in expired snapshots: they must be gone
    expect(r.deleted.filter((l) => l.endsWith('.parquet')).length).toBeGreaterThan(0);

    const after = catalogRow(db, 'ns', 't');
    expect(after.previous_metadata_location).toBe(before.metadata_location);
    expect(metastoreVersion(after.metadata_location)).toBe(metastoreVersion(before.metadata_location) + 1);
    const left = await py.snapshots(TABLE);
    expect(left.snapshots.map((s) => s.id).sort()).toEqual([...keep].sort());
    expect(left.current).toBe(snaps.current);
    const historyAfter = await py.history(TABLE);
    for (const id of keep) expect(historyAfter[id], `snapshot ${id}`).toEqual(history[id]);
    await bothRead();
    state.expired = true;
  });

  it('floe rewrite-manifests --catalog sql: commits a replace snapshot through the row; rows and history unchanged', async (ctx) => {
    need(ctx, state.expired, 'the expiry');
    const snaps = await py.snapshots(TABLE);
    const history = await py.history(TABLE);
    const before = catalogRow(db, 'ns', 't');
    const { json: r, exitCode } = await floeCli<{
      details: { committed?: boolean; snapshotId?: string; newMetadata?: string };
    }>(['rewrite-manifests', TABLE, '--catalog', CATALOG]);
    expect(exitCode).toBe(0);
    expect(r.details.committed).toBe(true);
    const after = catalogRow(db, 'ns', 't');
    expect(after.metadata_location).toBe(r.details.newMetadata);
    expect(after.previous_metadata_location).toBe(before.metadata_location);
    const left = await py.snapshots(TABLE);
    expect(left.current).toBe(r.details.snapshotId);
    const cur = left.snapshots.find((s) => s.id === left.current)!;
    expect(cur.parent).toBe(snaps.current);
    expect(cur.operation).toBe('replace');
    const historyAfter = await py.history(TABLE);
    for (const [id, rows] of Object.entries(history)) expect(historyAfter[id], `snapshot ${id}`).toEqual(rows);
    await bothRead();
    state.manifestsRewritten = true;
  });

  it('floe remove-orphans --dry-run --catalog sql: lists exactly a planted orphan and changes nothing', async (ctx) => {
    need(ctx, state.manifestsRewritten, 'the manifest rewrite');
    const tableDir = localPath(state.tableLocation!);
    const planted = path.join(tableDir, 'data', 'region=eu', 'planted-orphan.parquet');
    writeFileSync(planted, 'not referenced by any snapshot');
    await new Promise((r) => setTimeout(r, 50)); // strictly older than the cutoff taken at "now"
    const before = catalogRow(db, 'ns', 't');
    const { json: r, exitCode } = await floeCli<{
      dryRun: boolean;
      candidates: { location: string }[];
      deleted: string[];
    }>(['remove-orphans', TABLE, '--catalog', CATALOG, '--dry-run', '--older-than', '0s', '--force']);
    expect(exitCode).toBe(0);
    expect(r.dryRun).toBe(true);
    expect(r.candidates.map((c) => localPath(c.location))).toEqual([planted]);
    expect(r.deleted).toEqual([]);
    expect(existsSync(planted)).toBe(true);
    expect(catalogRow(db, 'ns', 't')).toEqual(before);
    await bothRead();
  });
});
