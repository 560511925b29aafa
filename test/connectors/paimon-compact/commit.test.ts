/**
 * The committer's conflict handling: a lost race against a commit that leaves our inputs alone is
 * retried at the next snapshot id; a race against one that replaced our inputs is abandoned (and our
 * files removed); the pure conflict check finds missing inputs and level overlaps.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPaimonTable } from '../../../connectors/paimon/index.js';
import { checkConflicts, commitPaimonSnapshot } from '../../../connectors/paimon/commit-compact.js';
import {
  FILE_KIND_ADD,
  FILE_KIND_DELETE,
  readManifestList,
  type ManifestEntry,
} from '../../../connectors/paimon/manifest.js';
import { ManifestNamer, writeManifestList } from '../../../connectors/paimon/write-manifest.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { compactPaimon } from '../../../src/orchestration/compact-paimon.js';
import { isFloeError } from '../../../util/errors.js';
import { cleanup, copyFixture, rowsOf } from './helpers.js';

afterEach(cleanup);

const storage = new FileIO();

/** Publishes snapshot `id` as an APPEND that changes no file (another writer's empty commit). */
async function publishEmptyCommit(t: string, id: bigint): Promise<void> {
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
  const json = {
    version: 3,
    id: Number(id),
    schemaId: 0,
    baseManifestList: base.name,
    deltaManifestList: delta.name,
    changelogManifestList: null,
    commitUser: 'other-writer',
    commitIdentifier: 1,
    commitKind: 'APPEND',
    timeMillis: Date.now(),
    totalRecordCount: Number(prev.totalRecordCount ?? 0n),
    deltaRecordCount: 0,
  };
  writeFileSync(path.join(t, 'snapshot', `snapshot-${id}`), JSON.stringify(json, null, 2));
}

describe('Paimon compaction commit races', () => {
  it('retries at the next id after a concurrent commit that left the inputs live', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    const rows = await rowsOf(t);
    const base = (await openPaimonTable(t)).snapshot!.id;
    let raced = false;
    const report = await compactPaimon(t, {
      full: true,
      beforePublish: async (id) => {
        if (raced) return;
        raced = true;
        expect(id).toBe(base + 1n);
        await publishEmptyCommit(t, id);
      },
    });
    expect(report.commitAttempts).toBe(2);
    expect(report.snapshotId).toBe(String(base + 2n));
    const after = await openPaimonTable(t);
    expect(after.snapshot!.id).toBe(base + 2n);
    expect(after.snapshot!.commitKind).toBe('COMPACT');
    expect(readFileSync(path.join(t, 'snapshot', 'LATEST'), 'utf8')).toBe(String(base + 2n));
    expect(await rowsOf(t)).toEqual(rows);
  });

  it('abandons the commit and deletes its files when a concurrent compaction replaced the inputs', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    const rows = await rowsOf(t);
    const base = (await openPaimonTable(t)).snapshot!.id;
    const dataFiles = () =>
      readdirSync(t, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.parquet'))
        .sort();
    const manifests = () => readdirSync(path.join(t, 'manifest')).sort();
    let inner: string[] = [];
    let innerManifests: string[] = [];
    let outerNew: string[] = [];
    const before = dataFiles();
    const err = await compactPaimon(t, {
      full: true,
      beforePublish: async () => {
        if (inner.length) return;
        outerNew = dataFiles().filter((f) => !before.includes(f));
        await compactPaimon(t, { full: true }); // the other job wins the race
        inner = dataFiles();
        innerManifests = manifests();
      },
    }).catch((e: unknown) => e);
    expect(isFloeError(err, 'CommitConflict')).toBe(true);
    expect((err as Error).message).toMatch(/no longer live/);
    expect(outerNew.length).toBeGreaterThan(0);
    for (const f of outerNew) expect(existsSync(path.join(t, f))).toBe(false);
    expect(dataFiles()).toEqual(inner.filter((f) => !outerNew.includes(f)));
    // the losing commit's manifests and lists are gone too
    expect(manifests().length).toBeLessThanOrEqual(innerManifests.length);
    expect((await openPaimonTable(t)).snapshot!.id).toBe(base + 1n);
    expect(await rowsOf(t)).toEqual(rows);
  });

  it('the conflict check reports missing inputs and level overlaps', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    const table = await openPaimonTable(t);
    const live: ManifestEntry[] = table.files.map((f) => ({
      kind: FILE_KIND_ADD,
      partition: f.partitionBytes,
      bucket: f.bucket,
      totalBuckets: f.totalBuckets,
      file: f.meta,
      manifest: 'm',
    }));
    const l5 = table.files.find((f) => f.meta.level === 5)!;
    const l0 = table.files.find(
      (f) =>
        f.meta.level === 0 &&
        f.bucket === l5.bucket &&
        Buffer.compare(Buffer.from(f.partitionBytes), Buffer.from(l5.partitionBytes)) === 0,
    );
    const entry = (f: typeof l5, kind: number, level = f.meta.level) => ({
      kind,
      partition: f.partitionBytes,
      bucket: f.bucket,
      totalBuckets: f.totalBuckets,
      file: { ...f.meta, level },
    });
    // Deleting a live file is fine.
    expect(checkConflicts(table, live, [entry(l5, FILE_KIND_DELETE)])).toEqual({
      missing: [],
      overlaps: [],
      rescaled: [],
    });
    // Deleting it at a level it is not at: not live.
    expect(checkConflicts(table, live, [entry(l5, FILE_KIND_DELETE, 3)]).missing).toHaveLength(1);
    // Moving an L0 file of the same bucket to L5 next to the existing L5 file: ranges overlap (both hold
    // keys of the same bucket; the fixture's L0 file updates a key of the L5 run).
    if (l0)
      expect(
        checkConflicts(table, live, [entry(l0, FILE_KIND_DELETE), entry(l0, FILE_KIND_ADD, 5)]).overlaps.length,
      ).toBeGreaterThan(0);
  });

  it('refuses an empty commit', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    await expect(commitPaimonSnapshot({ table: await openPaimonTable(t), storage, changes: [] })).rejects.toSatisfy(
      (e: unknown) => isFloeError(e, 'InvalidArgument'),
    );
  });
});
