/**
 * Issue 9.1 for catalogs: the commit reaches the catalog and is applied, but its answer is lost.
 * - SQL: the UPDATE of the pointer runs, then the connection drops. Re-reading the pointer (and the
 *   metadata-log of whatever it names now) tells floe its commit went in.
 * - REST: the catalog applies the commit, then answers 500 or resets the connection. Reloading the table
 *   and finding our snapshot (id, manifest list, floe.commit-id) tells floe it went in; when it is not there
 *   the state stays unknown and every written file is kept.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IcebergRewriteCommitter } from '../../../connectors/iceberg/commit-rewrite.js';
import { RestTableOperations, SqlTableOperations } from '../../../connectors/iceberg/commit-catalog.js';
import { isCommitStateUnknown } from '../../../connectors/commit-state.js';
import { liveFilesOf } from '../../../connectors/iceberg/manifests.js';
import { findSnapshot, parseMetadataBytes, parseMetadata } from '../../../connectors/iceberg/metadata.js';
import { readAvroContainer } from '../../../connectors/formats/avro.js';
import { normalizeManifestFile } from '../../../connectors/iceberg/write-manifest.js';
import type { SqlConnection } from '../../../connectors/catalog/sql-connection.js';
import { isFloeError } from '../../../util/errors.js';
import { parseJsonLossless, stringifyJsonLossless } from '../../../util/json.js';
import { localCommitIO } from '../iceberg-write/synthetic-table.js';
import { catalogTable, createCatalogDb, insertRow, metadataFiles, regionRewrite, rowsOf, tmp } from './support.js';
import { FileIO } from '../../../connectors/storage/file-io.js';

/** What the next UPDATE does: apply and lose the answer, lose it without applying, or answer normally. */
type SqlFault =
  | { kind: 'apply-then-drop'; after?: (c: SqlConnection, ours: string) => Promise<void> }
  | { kind: 'drop-before-apply' }
  | undefined;
let sqlFault: SqlFault;

vi.mock('../../../connectors/catalog/sql-connection.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../connectors/catalog/sql-connection.js')>();
  const wrap = (c: SqlConnection): SqlConnection => ({
    description: c.description,
    dialect: c.dialect,
    query: (sql, params) => c.query(sql, params),
    columns: (t) => c.columns(t),
    close: () => c.close(),
    execute: async (sql, params) => {
      const fault = /^UPDATE iceberg_tables/.test(sql) ? sqlFault : undefined;
      if (!fault) return c.execute(sql, params);
      sqlFault = undefined;
      if (fault.kind === 'drop-before-apply')
        throw new Error('Connection terminated unexpectedly (simulated, before the UPDATE ran)');
      await c.execute(sql, params);
      await fault.after?.(c, String(params![0]));
      throw new Error('Connection terminated unexpectedly (simulated, after the UPDATE was applied)');
    },
  });
  return {
    ...real,
    openSqlConnection: async (...a: Parameters<typeof real.openSqlConnection>) =>
      wrap(await real.openSqlConnection(...a)),
  };
});

const ID = { namespace: ['db'], name: 't' };

async function sqlSetup() {
  const root = tmp();
  const t = await catalogTable(root);
  const db = path.join(root, 'catalog.db');
  createCatalogDb(db);
  insertRow(db, {
    catalog_name: 'c',
    table_namespace: 'db',
    table_name: 't',
    metadata_location: t.metadataFile,
    previous_metadata_location: null,
  });
  const io = localCommitIO(root);
  return { root, db, ...t, io, ops: new SqlTableOperations(io, db, ID, undefined) };
}

async function liveDataPaths(metadataFile: string): Promise<string[]> {
  const md = parseMetadataBytes(readFileSync(metadataFile), metadataFile);
  const files = await liveFilesOf(new FileIO(), md, findSnapshot(md, md.currentSnapshotId!));
  return files.dataFiles.map((f) => f.path).sort();
}

afterEach(() => {
  sqlFault = undefined;
});

describe('SQL catalog: a lost answer to the pointer UPDATE', () => {
  it('applied, then the connection dropped: recognised as committed (no retry, nothing removed)', async () => {
    const s = await sqlSetup();
    sqlFault = { kind: 'apply-then-drop' };
    const res = await new IcebergRewriteCommitter(s.io, s.ops).commit(regionRewrite(s.loc, s.files, 'eu'));
    expect(sqlFault).toBeUndefined(); // the fault fired
    expect(res.attempts).toBe(1);
    expect(rowsOf(s.db)[0]!.metadata_location).toBe(res.metadataLocation);
    const us = s.files.filter((f) => f.region === 'us').map((f) => f.path);
    expect(await liveDataPaths(res.metadataLocation)).toEqual([`${s.loc}/data/eu-compacted.parquet`, ...us].sort());
  });

  it('applied, another writer committed on top, then our answer was lost: the metadata-log shows ours went in', async () => {
    const s = await sqlSetup();
    let theirs = '';
    sqlFault = {
      kind: 'apply-then-drop',
      after: async (c, ours) => {
        const md = parseJsonLossless(readFileSync(ours, 'utf8')) as Record<string, unknown>;
        md['metadata-log'] = [
          ...((md['metadata-log'] as unknown[]) ?? []),
          { 'timestamp-ms': 1, 'metadata-file': ours },
        ];
        theirs = path.join(s.loc, 'metadata', '00009-bbbbbbbb-0000-4000-8000-000000000009.metadata.json');
        writeFileSync(theirs, stringifyJsonLossless(md, 2));
        await c.execute('UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ?', [
          theirs,
          ours,
        ]);
      },
    };
    const res = await new IcebergRewriteCommitter(s.io, s.ops).commit(regionRewrite(s.loc, s.files, 'eu'));
    expect(res.attempts).toBe(1);
    expect(rowsOf(s.db)[0]!.metadata_location).toBe(theirs);
    expect(rowsOf(s.db)[0]!.previous_metadata_location).toBe(res.metadataLocation);
    expect(await liveDataPaths(theirs)).toContain(`${s.loc}/data/eu-compacted.parquet`);
  });

  it('dropped before the UPDATE ran (SQLite: the pointer is unchanged): a plain failure, our files removed', async () => {
    const s = await sqlSetup();
    const before = metadataFiles(s.loc);
    sqlFault = { kind: 'drop-before-apply' };
    const e = await new IcebergRewriteCommitter(s.io, s.ops)
      .commit(regionRewrite(s.loc, s.files, 'eu'))
      .catch((x: unknown) => x);
    expect(isFloeError(e)).toBe(true);
    expect(isCommitStateUnknown(e)).toBe(false);
    expect((e as Error).message).toContain('nothing was committed');
    expect(rowsOf(s.db)[0]!.metadata_location).toBe(s.metadataFile);
    expect(metadataFiles(s.loc)).toEqual(before);
  });
});

// ------------------------------------------------------------------------------------------------ REST

type RestFault = 'apply-then-500' | 'apply-then-reset' | 'reset-before-apply';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/**
 * A REST catalog that really applies commits (add-snapshot, set-snapshot-ref on its in-memory metadata) and
 * serves the result on GET; the first POST misbehaves as `fault` says.
 */
async function statefulCatalog(metadataFile: string, fault: RestFault) {
  let current = parseJsonLossless(readFileSync(metadataFile, 'utf8')) as Record<string, unknown>;
  let version = 8;
  let location = metadataFile;
  let posts = 0;
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, text: string) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(text);
      };
      if (req.url!.startsWith('/v1/config')) return send(200, '{"defaults":{},"overrides":{}}');
      const body = () =>
        `{"metadata-location":${JSON.stringify(location)},"metadata":${stringifyJsonLossless(current)}}`;
      if (req.method === 'GET') return send(200, body());
      posts++;
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      const first = posts === 1;
      if (first && fault === 'reset-before-apply') return req.socket.destroy();
      const commit = parseJsonLossless(Buffer.concat(chunks).toString('utf8')) as {
        updates: Record<string, unknown>[];
      };
      const next = structuredClone(current);
      for (const u of commit.updates) {
        if (u.action === 'add-snapshot') {
          const snap = u.snapshot as Record<string, unknown>;
          next.snapshots = [...((next.snapshots as unknown[]) ?? []), snap];
          next['last-sequence-number'] = snap['sequence-number'];
        } else if (u.action === 'set-snapshot-ref') {
          next.refs = {
            ...((next.refs as Record<string, unknown>) ?? {}),
            [String(u['ref-name'])]: { type: u.type, 'snapshot-id': u['snapshot-id'] },
          };
          if (u['ref-name'] === 'main') next['current-snapshot-id'] = u['snapshot-id'];
        }
      }
      current = next;
      location = path.join(path.dirname(metadataFile), `0000${version++}-server.metadata.json`);
      if (first && fault === 'apply-then-500')
        return send(500, '{"error":{"message":"simulated","type":"ServerError","code":500}}');
      if (first && fault === 'apply-then-reset') return req.socket.destroy();
      return send(200, body());
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts: () => posts,
    current: () => current,
    bodies,
  };
}

async function restSetup(fault: RestFault) {
  const root = tmp();
  const t = await catalogTable(root);
  const fake = await statefulCatalog(t.metadataFile, fault);
  const io = localCommitIO(root);
  return { ...t, fake, io, ops: new RestTableOperations(io, ID, { uri: fake.uri }) };
}

/** Every manifest list and manifest the catalog's current snapshot needs exists on disk. */
async function catalogTableReadable(current: Record<string, unknown>, where: string): Promise<string[]> {
  const md = parseMetadata(current, where);
  const files = await liveFilesOf(new FileIO(), md, findSnapshot(md, md.currentSnapshotId!));
  return files.dataFiles.map((f) => f.path).sort();
}

describe('REST catalog: a lost answer to the commit', () => {
  it.each<RestFault>(['apply-then-500', 'apply-then-reset'])(
    '%s: the reloaded table shows our snapshot → committed, files kept',
    async (fault) => {
      const s = await restSetup(fault);
      const res = await new IcebergRewriteCommitter(s.io, s.ops).commit(regionRewrite(s.loc, s.files, 'eu'));
      expect(s.fake.posts()).toBe(1);
      expect(res.attempts).toBe(1);
      const us = s.files.filter((f) => f.region === 'us').map((f) => f.path);
      expect(await catalogTableReadable(s.fake.current(), 'fake REST catalog')).toEqual(
        [`${s.loc}/data/eu-compacted.parquet`, ...us].sort(),
      );
    },
  );

  it('reset before the catalog applied it: state unknown (the catalog might still), every written file kept', async () => {
    const s = await restSetup('reset-before-apply');
    const before = parseMetadata(s.fake.current(), 'fake');
    const e = await new IcebergRewriteCommitter(s.io, s.ops)
      .commit(regionRewrite(s.loc, s.files, 'eu'))
      .catch((x: unknown) => x);
    expect(isCommitStateUnknown(e)).toBe(true);
    expect(s.fake.posts()).toBe(1);
    expect(parseMetadata(s.fake.current(), 'fake').currentSnapshotId).toBe(before.currentSnapshotId);
    // the manifest list and manifests the lost commit named are all still there
    const posted = parseJsonLossless(s.fake.bodies[0]!) as { updates: { snapshot?: Record<string, unknown> }[] };
    const list = String(posted.updates[0]!.snapshot!['manifest-list']);
    expect(existsSync(list)).toBe(true);
    for (const m of readAvroContainer(readFileSync(list), list).records.map(
      (r) => normalizeManifestFile(r).manifest_path,
    ))
      expect(existsSync(m)).toBe(true);
  });
});
