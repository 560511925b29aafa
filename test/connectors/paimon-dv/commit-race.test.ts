/**
 * Commit races on a deletion-vector table (fixture pk_09): a concurrent commit that leaves the inputs and
 * the DV index alone is retried over; one that changed the deletion vectors of a bucket floe rewrites
 * abandons the compaction (another writer's deletes must not be lost), and floe's data and index files
 * are removed while every file the table references stays.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPaimonTable } from '../../../connectors/paimon/index.js';
import { readManifestList } from '../../../connectors/paimon/manifest.js';
import { ManifestNamer, writeManifestList } from '../../../connectors/paimon/write-manifest.js';
import { IndexManifestNamer, writeIndexManifest } from '../../../connectors/paimon/write-index-manifest.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { compactPaimon } from '../../../src/orchestration/compact-paimon.js';
import { isFloeError } from '../../../util/errors.js';
import { cleanup, copyFixture, rowsOf } from '../paimon-compact/helpers.js';

afterEach(cleanup);

const storage = new FileIO();

/**
 * Publishes snapshot `id` as another writer's APPEND changing no data file; `dropDvs` empties its index
 * manifest of DVs, `addHash` adds a (dynamic-bucket) HASH index entry.
 */
async function publishOther(t: string, id: bigint, dropDvs: boolean, addHash = false): Promise<void> {
  const table = await openPaimonTable(t);
  const prev = table.snapshot!;
  const ctx = {
    table: t,
    storage,
    codec: 'zstandard' as const,
    partitionTypes: [],
    schemaId: 0,
    names: new ManifestNamer(),
  };
  const metas = [
    ...(await readManifestList(table.io, t, prev.baseManifestList)),
    ...(await readManifestList(table.io, t, prev.deltaManifestList)),
  ];
  const base = await writeManifestList(ctx, metas);
  const delta = await writeManifestList(ctx, []);
  const hash = {
    kind: 0,
    partition: table.indexEntries[0]!.partition,
    bucket: 0,
    indexType: 'HASH',
    fileName: 'index-hash-by-another-writer-0',
    fileSize: 8n,
    rowCount: 2n,
  };
  const indexManifest =
    dropDvs || addHash
      ? await writeIndexManifest(
          ctx,
          [
            ...table.indexEntries.filter((e) => !dropDvs || e.indexType !== 'DELETION_VECTORS'),
            ...(addHash ? [hash] : []),
          ],
          new IndexManifestNamer().next(),
        )
      : prev.indexManifest;
  const json = {
    version: 3,
    id: Number(id),
    schemaId: 0,
    baseManifestList: base.name,
    deltaManifestList: delta.name,
    changelogManifestList: null,
    indexManifest,
    commitUser: 'other-writer',
    commitIdentifier: 1,
    commitKind: 'APPEND',
    timeMillis: Date.now(),
    totalRecordCount: Number(prev.totalRecordCount ?? 0n),
    deltaRecordCount: 0,
  };
  writeFileSync(path.join(t, 'snapshot', `snapshot-${id}`), JSON.stringify(json, null, 2));
}

const listing = (t: string) =>
  readdirSync(t, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && !d.parentPath.endsWith('snapshot') && !d.parentPath.endsWith('manifest'))
    .map((d) => path.join(d.parentPath, d.name))
    .sort();

describe('DV compaction commit races', () => {
  it('retries over a concurrent commit that kept the DV index', async () => {
    const t = copyFixture('pk_09');
    const rows = await rowsOf(t);
    const base = (await openPaimonTable(t)).snapshot!.id;
    let raced = false;
    const report = await compactPaimon(t, {
      full: true,
      beforePublish: async (id) => {
        if (raced) return;
        raced = true;
        await publishOther(t, id, false);
      },
    });
    expect(report.commitAttempts).toBe(2);
    expect(report.snapshotId).toBe(String(base + 2n));
    expect(await rowsOf(t)).toEqual(rows);
  });

  it('carries other index entries (HASH) into the new index manifest', async () => {
    const t = copyFixture('pk_09');
    const rows = await rowsOf(t);
    await publishOther(t, (await openPaimonTable(t)).snapshot!.id + 1n, false, true);
    const report = await compactPaimon(t, { full: true });
    expect(report.snapshotId).toBeDefined();
    const after = await openPaimonTable(t);
    expect(after.indexEntries.filter((e) => e.indexType === 'HASH').map((e) => e.fileName)).toEqual([
      'index-hash-by-another-writer-0',
    ]);
    expect(await rowsOf(t)).toEqual(rows);
  });

  it('abandons the compaction when another writer changed the DVs of a bucket it rewrites (re-planning off)', async () => {
    const t = copyFixture('pk_09');
    const before = listing(t);
    const base = (await openPaimonTable(t)).snapshot!.id;
    let raced = false;
    const err = await compactPaimon(t, {
      full: true,
      maxReplans: 0,
      beforePublish: async (id) => {
        if (raced) return;
        raced = true;
        await publishOther(t, id, true);
      },
    }).catch((e: unknown) => e);
    expect(isFloeError(err, 'CommitConflict'), String(err)).toBe(true);
    expect((err as Error).message).toMatch(/deletion vectors/);
    const after = await openPaimonTable(t);
    expect(after.snapshot!.id).toBe(base + 1n);
    expect(after.snapshot!.commitUser).toBe('other-writer');
    // floe's data and index files are gone; the table's own files are all still there
    expect(listing(t)).toEqual(before);
  });

  it('re-plans on the newest snapshot after that race', async () => {
    const t = copyFixture('pk_09');
    const base = (await openPaimonTable(t)).snapshot!.id;
    let raced = false;
    const report = await compactPaimon(t, {
      full: true,
      beforePublish: async (id) => {
        if (raced) return;
        raced = true;
        await publishOther(t, id, true);
      },
    });
    expect(report.replans).toBe(1);
    expect(report.baseSnapshotId).toBe(String(base + 1n));
    // the other writer's commit left one file per bucket and no DVs: the new plan has nothing to do
    expect(report.snapshotId).toBeUndefined();
    const after = await openPaimonTable(t);
    expect(after.snapshot!.id).toBe(base + 1n);
    expect(after.snapshot!.commitUser).toBe('other-writer');
  });
});
