/**
 * Issue 9.1 on filesystem tables: the create-if-absent PUT of v<N+1>.metadata.json is applied but its
 * response is lost (a reset, or the 412 the retry of the same PUT gets). floe must recognise its own commit
 * (the version file holds exactly its bytes) instead of taking it for a competitor's, deleting the manifests
 * it references and leaving the table unreadable. When the file cannot even be read back, the outcome is
 * unknown: every written file stays.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IcebergRewriteCommitter } from '../../../connectors/iceberg/commit-rewrite.js';
import { FilesystemTableOperations } from '../../../connectors/iceberg/commit-ops.js';
import { isCommitStateUnknown } from '../../../connectors/commit-state.js';
import { COMMIT_ID_PROPERTY } from '../../../connectors/iceberg/commit-id.js';
import { findSnapshot, parseMetadataBytes } from '../../../connectors/iceberg/metadata.js';
import { liveFilesOf } from '../../../connectors/iceberg/manifests.js';
import { openIcebergTable } from '../../../connectors/iceberg/table.js';
import { scanTable } from '../../../connectors/iceberg/scan.js';
import { appendRows, createIcebergTable } from '../../../connectors/iceberg/write-table.js';
import { readAvroContainer } from '../../../connectors/formats/avro.js';
import { normalizeManifestFile } from '../../../connectors/iceberg/write-manifest.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { LocalObjectStore } from '../../../connectors/storage/local-store.js';
import { compactIceberg } from '../../../src/orchestration/compact-iceberg.js';
import type { Field } from '../../../model/index.js';
import { buildTable } from './synthetic-table.js';
import { LosingStore, loseFirst, type LostResponse } from './losing-store.js';
import { data, regionRewrite } from '../catalog-commit/support.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function tmp(): string {
  const r = mkdtempSync(path.join(tmpdir(), 'floe-lost-response-'));
  roots.push(r);
  return r;
}

function losingIO(root: string, store: LosingStore): FileIO {
  const files = new FileIO();
  files.mount(root, store);
  return files;
}

/** Every file the current snapshot needs (manifest list, manifests) exists, and its live data files are these. */
async function readable(loc: string, version: number): Promise<string[]> {
  const file = path.join(loc, 'metadata', `v${version}.metadata.json`);
  const md = parseMetadataBytes(readFileSync(file), file);
  const snap = findSnapshot(md, md.currentSnapshotId!);
  const files = await liveFilesOf(new FileIO(), md, snap);
  return files.dataFiles.map((f) => f.path).sort();
}

describe('a lost response to the commit write (filesystem table)', () => {
  it.each<LostResponse>(['retry-412', 'reset'])(
    '%s: the commit is recognised as ours and the table reads back',
    async (how) => {
      const root = tmp();
      const loc0 = path.join(root, 'db', 't');
      const files = [...data(loc0, 3, 'eu'), ...data(loc0, 2, 'us')];
      const loc = await buildTable(root, { partitioned: true, data: files });
      const store = new LosingStore(new LocalObjectStore(root), {
        losePut: loseFirst(/metadata\/v2\.metadata\.json$/, how),
      });
      const io = losingIO(root, store);
      const committer = new IcebergRewriteCommitter(io, new FilesystemTableOperations(io, `${loc}/metadata`));

      const res = await committer.commit(regionRewrite(loc, files, 'eu'));

      expect(store.lost).toHaveLength(1); // the fault really happened
      expect(res.attempts).toBe(1);
      expect(res.metadataLocation).toBe(`${loc}/metadata/v2.metadata.json`);
      expect(existsSync(path.join(loc, 'metadata', 'v3.metadata.json'))).toBe(false);
      expect(await readable(loc, 2)).toEqual(
        [`${loc}/data/eu-compacted.parquet`, ...files.filter((f) => f.region === 'us').map((f) => f.path)].sort(),
      );
      const md = parseMetadataBytes(readFileSync(path.join(loc, 'metadata', 'v2.metadata.json')), 'v2');
      expect(findSnapshot(md, md.currentSnapshotId!).summary[COMMIT_ID_PROPERTY]).toMatch(/^[0-9a-f-]{36}$/);
    },
  );

  it('unreadable afterwards: commit state unknown, and every file the new version references is kept', async () => {
    const root = tmp();
    const loc0 = path.join(root, 'db', 't');
    const files = [...data(loc0, 3, 'eu'), ...data(loc0, 2, 'us')];
    const loc = await buildTable(root, { partitioned: true, data: files });
    // once the PUT has been applied and its answer lost, reading v2 back fails too
    const store: LosingStore = new LosingStore(new LocalObjectStore(root), {
      losePut: loseFirst(/metadata\/v2\.metadata\.json$/, 'reset'),
      failRead: (k) => store.lost.includes(k),
    });
    const io = losingIO(root, store);
    const committer = new IcebergRewriteCommitter(io, new FilesystemTableOperations(io, `${loc}/metadata`));

    const err = await committer.commit(regionRewrite(loc, files, 'eu')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isCommitStateUnknown(err)).toBe(true);
    // v2 did land: it must still be readable, with its manifest list and manifests in place
    expect(await readable(loc, 2)).toContain(`${loc}/data/eu-compacted.parquet`);
  });

  it('a competitor really holding the version is a conflict: retried on top of it, our stale files removed', async () => {
    const root = tmp();
    const loc0 = path.join(root, 'db', 't');
    const files = [...data(loc0, 3, 'eu'), ...data(loc0, 2, 'us')];
    const loc = await buildTable(root, { partitioned: true, data: files });
    const store = new LosingStore(new LocalObjectStore(root), { losePut: () => undefined });
    const io = losingIO(root, store);
    const ops = new FilesystemTableOperations(io, `${loc}/metadata`);
    // the competitor: another rewrite (of 'us') committed first, as v2
    await new IcebergRewriteCommitter(io, ops).commit(regionRewrite(loc, files, 'us'));
    let raced = false;
    const racing = {
      refresh: () => ops.refresh(),
      commit: async (base: Parameters<typeof ops.commit>[0], next: Parameters<typeof ops.commit>[1]) => {
        if (!raced) {
          raced = true;
          // pretend we planned on v1: publishing as v2 meets the competitor's file
          const v1 = path.join(loc, 'metadata', 'v1.metadata.json');
          return ops.commit({ metadata: parseMetadataBytes(readFileSync(v1), v1).raw, location: v1 }, next);
        }
        return ops.commit(base, next);
      },
    };
    const res = await new IcebergRewriteCommitter(io, racing).commit(regionRewrite(loc, files, 'eu'));
    expect(res.attempts).toBe(2);
    expect(res.metadataLocation).toBe(`${loc}/metadata/v3.metadata.json`);
    expect(await readable(loc, 3)).toEqual([`${loc}/data/eu-compacted.parquet`, `${loc}/data/us-compacted.parquet`]);
    // the first attempt's manifest list was removed (never referenced), the second's is live
    const md3 = parseMetadataBytes(readFileSync(path.join(loc, 'metadata', 'v3.metadata.json')), 'v3');
    const list = String(findSnapshot(md3, md3.currentSnapshotId!).manifestList);
    const lists = readAvroContainer(readFileSync(list), list).records.map((r) => normalizeManifestFile(r));
    for (const m of lists) expect(existsSync(m.manifest_path)).toBe(true);
  });
});

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: false, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 's', required: false, type: { kind: 'primitive', name: 'string' } },
];

async function scanRows(dir: string, io: FileIO): Promise<string[]> {
  const table = await openIcebergTable(dir, { io });
  const out: string[] = [];
  for await (const b of scanTable(table)) for (const r of b.rows) out.push(`${String(r[0])}|${String(r[1])}`);
  return out.sort();
}

describe('a lost response during a real compaction and an append (filesystem table)', () => {
  it.each<LostResponse>(['retry-412', 'reset'])(
    'compact, %s on the new version: committed once, same rows, table readable',
    async (how) => {
      const root = tmp();
      const dir = path.join(root, 't');
      const plain = new FileIO();
      await createIcebergTable(plain, dir, { formatVersion: 2, fields: FIELDS });
      for (let i = 0; i < 4; i++)
        await appendRows(plain, dir, [
          { id: BigInt(i), s: `r${i}` },
          { id: BigInt(i + 10), s: `q${i}` },
        ]);
      const rows = await scanRows(dir, plain);
      // versions: v1 create, v2..v5 appends → the compaction publishes v6
      const store = new LosingStore(new LocalObjectStore(root), {
        losePut: loseFirst(/metadata\/v6\.metadata\.json$/, how),
      });
      const io = losingIO(root, store);
      const table = await openIcebergTable(dir, { io });
      const report = await compactIceberg(table, io, new FilesystemTableOperations(io, `${dir}/metadata`), {
        strategy: 'binpack',
        options: { 'rewrite-all': 'true', 'min-input-files': '1' },
        partialProgress: false,
        maxConcurrentGroups: 1,
      });
      expect(store.lost).toHaveLength(1);
      expect(report.failedTasks).toEqual([]);
      expect(report.snapshots).toHaveLength(1);
      expect(existsSync(path.join(dir, 'metadata', 'v7.metadata.json'))).toBe(false);
      expect(await scanRows(dir, plain)).toEqual(rows);
      expect(await readable(dir, 6)).toHaveLength(1);
    },
  );

  it.each<LostResponse>(['retry-412', 'reset'])(
    'append, %s on the new version: one snapshot, rows readable',
    async (how) => {
      const root = tmp();
      const dir = path.join(root, 't');
      const plain = new FileIO();
      await createIcebergTable(plain, dir, { formatVersion: 2, fields: FIELDS });
      const store = new LosingStore(new LocalObjectStore(root), {
        losePut: loseFirst(/metadata\/v2\.metadata\.json$/, how),
      });
      const io = losingIO(root, store);
      await appendRows(io, dir, [{ id: 1n, s: 'a' }]);
      expect(store.lost).toHaveLength(1);
      expect(existsSync(path.join(dir, 'metadata', 'v3.metadata.json'))).toBe(false);
      expect(await scanRows(dir, plain)).toEqual(['1|a']);
    },
  );
});
