/**
 * SqlTableOperations against a real SQLite catalog file: the pointer swap is a compare-and-swap on
 * metadata_location (JdbcCatalog / PyIceberg SqlCatalog semantics), a lost race is a retryable conflict
 * that never overwrites the winner, and a failed UPDATE is settled by re-reading the pointer (SQLite rolls a
 * failed statement back: pointer unchanged = not committed; lost answers: lost-response.test.ts).
 */
import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IcebergRewriteCommitter, type TableOperations } from '../../../connectors/iceberg/commit-rewrite.js';
import { SqlTableOperations } from '../../../connectors/iceberg/commit-catalog.js';
import { isCommitStateUnknown } from '../../../connectors/commit-state.js';
import { liveFilesOf } from '../../../connectors/iceberg/manifests.js';
import { findSnapshot, parseMetadataBytes } from '../../../connectors/iceberg/metadata.js';
import { isFloeError } from '../../../util/errors.js';
import { localCommitIO } from '../iceberg-write/synthetic-table.js';
import {
  FIRST_SNAPSHOT,
  catalogTable,
  createCatalogDb,
  insertRow,
  metadataFiles,
  regionRewrite,
  rowsOf,
  tmp,
} from './support.js';
import { FileIO } from '../../../connectors/storage/file-io.js';

const ID = { namespace: ['db'], name: 't' };
/** Java BaseMetastoreTableOperations / PyIceberg: `%05d-<uuid>.metadata.json`, version = previous + 1. */
const metastoreName = (version: number) =>
  new RegExp(
    `/metadata/${String(version).padStart(5, '0')}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.metadata\\.json$`,
  );

async function setup(catalogs: string[] = ['oracle']) {
  const root = tmp();
  const t = await catalogTable(root);
  const db = path.join(root, 'catalog.db');
  createCatalogDb(db);
  for (const c of catalogs)
    insertRow(db, {
      catalog_name: c,
      table_namespace: 'db',
      table_name: 't',
      metadata_location: t.metadataFile,
      previous_metadata_location: null,
    });
  return { root, db, ...t, io: localCommitIO(root) };
}

async function liveDataPaths(metadataFile: string): Promise<string[]> {
  const md = parseMetadataBytes(readFileSync(metadataFile), metadataFile);
  const files = await liveFilesOf(new FileIO(), md, findSnapshot(md, md.currentSnapshotId!));
  return files.dataFiles.map((f) => f.path).sort();
}

describe('SqlTableOperations (SQLite catalog)', () => {
  it('refresh follows the catalog row', async () => {
    const s = await setup();
    const ops = new SqlTableOperations(s.io, s.db, ID, undefined);
    const cur = await ops.refresh();
    expect(cur.location).toBe(s.metadataFile);
    expect(String(cur.metadata['table-uuid'])).toBe('0f8f2f6e-6a35-4a0c-9a52-2f5f0c3d2a11');
  });

  it('publishes the next NNNNN-<uuid> file and swaps metadata_location, recording the previous one', async () => {
    const s = await setup();
    const ops = new SqlTableOperations(s.io, s.db, ID, undefined);
    const res = await new IcebergRewriteCommitter(s.io, ops).commit(regionRewrite(s.loc, s.files, 'eu'));
    expect(res.attempts).toBe(1);
    expect(res.metadataLocation).toMatch(metastoreName(8));
    const [row] = rowsOf(s.db);
    expect(row!.metadata_location).toBe(res.metadataLocation);
    expect(row!.previous_metadata_location).toBe(s.metadataFile);
    const md = parseMetadataBytes(readFileSync(res.metadataLocation), res.metadataLocation);
    expect(md.currentSnapshotId).toBe(res.snapshotId);
    expect(findSnapshot(md, res.snapshotId).parentSnapshotId).toBe(FIRST_SNAPSHOT);
    expect(md.metadataLog.at(-1)!.metadataFile).toBe(s.metadataFile);
    const us = s.files.filter((f) => f.region === 'us').map((f) => f.path);
    expect(await liveDataPaths(res.metadataLocation)).toEqual([`${s.loc}/data/eu-compacted.parquet`, ...us].sort());
  });

  it('loses the compare-and-swap when another writer moved the row: conflict, own file removed, winner kept', async () => {
    const s = await setup();
    const ops = new SqlTableOperations(s.io, s.db, ID, undefined);
    const base = await ops.refresh();
    // another writer publishes first
    const winner = path.join(s.loc, 'metadata', '00008-aaaaaaaa-0000-4000-8000-000000000008.metadata.json');
    const db = new Database(s.db);
    db.prepare('UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ?').run(
      winner,
      s.metadataFile,
    );
    db.close();
    const before = metadataFiles(s.loc);
    const e = await ops
      .commit(base, { ...base.metadata, 'last-updated-ms': 1_800_000_000_000 })
      .catch((x: unknown) => x);
    expect(isFloeError(e, 'CommitConflict')).toBe(true);
    expect((e as Error).message).toContain('sql:');
    expect(rowsOf(s.db)[0]!.metadata_location).toBe(winner);
    expect(rowsOf(s.db)[0]!.previous_metadata_location).toBe(s.metadataFile);
    expect(metadataFiles(s.loc)).toEqual(before); // the loser's 00008-… file is gone again
  });

  it('a commit landing between refresh and CAS makes the rewrite retry on top of it; nothing is lost', async () => {
    const s = await setup();
    const plain = new SqlTableOperations(s.io, s.db, ID, undefined);
    let intruded = false;
    const calls: string[] = [];
    // the other writer commits (through the same catalog) right before our first CAS
    const racing: TableOperations = {
      refresh: () => plain.refresh(),
      async commit(base, next) {
        if (!intruded) {
          intruded = true;
          await new IcebergRewriteCommitter(s.io, plain).commit(regionRewrite(s.loc, s.files, 'us'));
        }
        try {
          const loc = await plain.commit(base, next);
          calls.push('ok');
          return loc;
        } catch (e) {
          calls.push(isFloeError(e, 'CommitConflict') ? 'conflict' : 'error');
          throw e;
        }
      },
    };
    const res = await new IcebergRewriteCommitter(s.io, racing).commit(regionRewrite(s.loc, s.files, 'eu'));
    expect(calls).toEqual(['conflict', 'ok']);
    expect(res.attempts).toBe(2);
    const [row] = rowsOf(s.db);
    expect(row!.metadata_location).toBe(res.metadataLocation);
    expect(res.metadataLocation).toMatch(metastoreName(9)); // 7 → other writer's 8 → ours 9
    expect(row!.previous_metadata_location).toMatch(metastoreName(8));
    // both rewrites are live: the other writer's snapshot is our parent
    expect(await liveDataPaths(res.metadataLocation)).toEqual([
      `${s.loc}/data/eu-compacted.parquet`,
      `${s.loc}/data/us-compacted.parquet`,
    ]);
    const md = parseMetadataBytes(readFileSync(res.metadataLocation), res.metadataLocation);
    const parent = findSnapshot(md, res.snapshotId).parentSnapshotId!;
    expect(parent).not.toBe(FIRST_SNAPSHOT);
    expect(findSnapshot(md, parent).parentSnapshotId).toBe(FIRST_SNAPSHOT);
    // exactly three metadata files remain: ours, the winner's, the original (+ buildTable's v1)
    expect(metadataFiles(s.loc).filter((n) => /^\d{5}-/.test(n))).toHaveLength(3);
  });

  it('updates only the row of the named catalog when the file holds several', async () => {
    const s = await setup(['alpha', 'beta']);
    const ops = new SqlTableOperations(s.io, s.db, ID, 'beta');
    const res = await new IcebergRewriteCommitter(s.io, ops).commit(regionRewrite(s.loc, s.files, 'eu'));
    const rows = rowsOf(s.db);
    expect(rows.find((r) => r.catalog_name === 'alpha')!.metadata_location).toBe(s.metadataFile);
    expect(rows.find((r) => r.catalog_name === 'beta')!.metadata_location).toBe(res.metadataLocation);
  });

  it('a failing UPDATE whose pointer is unchanged on re-read (SQLite: the statement rolled back) is a plain failure; its file is removed', async () => {
    const s = await setup();
    const db = new Database(s.db);
    db.exec(
      `CREATE TRIGGER refuse BEFORE UPDATE ON iceberg_tables BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END`,
    );
    db.close();
    const ops = new SqlTableOperations(s.io, s.db, ID, undefined);
    const base = await ops.refresh();
    const before = metadataFiles(s.loc);
    const e = await ops
      .commit(base, { ...base.metadata, 'last-updated-ms': 1_800_000_000_000 })
      .catch((x: unknown) => x);
    expect(isFloeError(e)).toBe(true);
    expect(isCommitStateUnknown(e)).toBe(false);
    expect((e as Error).message).toContain('disk I/O error (simulated)');
    expect((e as Error).message).toContain('nothing was committed');
    expect(metadataFiles(s.loc)).toEqual(before);
    expect(rowsOf(s.db)[0]!.metadata_location).toBe(s.metadataFile);
  });

  it('a catalog file a reader keeps locked past the busy timeout: a retryable conflict, nothing committed; the rewrite retries and commits once it is free', async () => {
    const s = await setup();
    const ops = new SqlTableOperations(s.io, s.db, ID, undefined);
    const before = metadataFiles(s.loc);
    // what a reader scanning through a Java JdbcCatalog does to the file: a read lock held for seconds,
    // so a commit cannot get the exclusive lock it needs (other readers still can read)
    const holder = new Database(s.db);
    holder.exec('BEGIN');
    holder.prepare('SELECT count(*) FROM iceberg_tables').get();
    let attempts = 0;
    let first: unknown;
    let filesAfterFirst: string[] = [];
    const racing: TableOperations = {
      refresh: () => ops.refresh(),
      commit: async (b, next) => {
        if (++attempts === 2) holder.exec('COMMIT');
        try {
          return await ops.commit(b, next);
        } catch (e) {
          first = e;
          filesAfterFirst = metadataFiles(s.loc);
          throw e;
        }
      },
    };
    const res = await new IcebergRewriteCommitter(s.io, racing).commit(regionRewrite(s.loc, s.files, 'eu'));
    holder.close();
    expect(isFloeError(first, 'CommitConflict')).toBe(true);
    expect((first as { retryable: boolean }).retryable).toBe(true);
    expect(isCommitStateUnknown(first)).toBe(false);
    expect((first as Error).message).toContain('stayed locked by another connection');
    expect((first as Error).message).toContain('nothing was committed');
    // the failed attempt's metadata file is gone (its manifests are the rewrite's to clean up)
    expect(filesAfterFirst).toEqual(before);
    expect(attempts).toBe(2);
    expect(res.attempts).toBe(2);
    expect(rowsOf(s.db)[0]!.metadata_location).toBe(res.metadataLocation);
  }, 30_000);

  it('a missing table is NotFound and names the table and the catalog file', async () => {
    const s = await setup();
    const e = await new SqlTableOperations(s.io, s.db, { namespace: ['db'], name: 'nope' }, undefined)
      .refresh()
      .catch((x: unknown) => x);
    expect(isFloeError(e, 'NotFound')).toBe(true);
    expect((e as Error).message).toContain('db.nope');
    expect((e as Error).message).toContain(s.db);
    expect(existsSync(s.db)).toBe(true);
  });
});
