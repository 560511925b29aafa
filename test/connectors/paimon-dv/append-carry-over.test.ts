/**
 * Issue 22.2 (Paimon): a DELETE on an append table with deletion vectors — a commit of DV index entries
 * only — landing while floe compacts the same files. floe carries the deleted rows over to its outputs'
 * DVs in the same commit; with `floe.rebase-concurrent-deletes=false` (and re-planning off) the same race
 * abandons the compaction, naming the file, and leaves nothing of floe's behind.
 *
 * The other writer's commit is built here from Paimon's file layout (a DV index file + index manifest, as
 * Java's BaseAppendDeleteFileMaintainer commits); the expected rows are what the scanner reads from that
 * snapshot, before floe's commit. The same race against a real Java DELETE: integration/paimon-append-dv.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPaimonTable } from '../../../connectors/paimon/index.js';
import { readManifestList } from '../../../connectors/paimon/manifest.js';
import { buildDvIndexFile } from '../../../connectors/paimon/dv-write.js';
import { AppendRowMap } from '../../../connectors/paimon/dv-carry-over.js';
import { ManifestNamer, writeManifestList } from '../../../connectors/paimon/write-manifest.js';
import { IndexManifestNamer, writeIndexManifest } from '../../../connectors/paimon/write-index-manifest.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { compactPaimon } from '../../../src/orchestration/compact-paimon.js';
import { isFloeError } from '../../../util/errors.js';
import { cleanup, copyFixture, hasFixtures, rowsOf } from '../paimon-compact/helpers.js';

afterEach(cleanup);
const storage = new FileIO();
const FIXTURE = 'append_table_with_alter_table'; // two partitions of two level-0 files (3 + 3 and 2 + 2 rows)
const DV_ON = { 'deletion-vectors.enabled': 'true' };

describe('AppendRowMap: input positions → output positions of a concatenating rewrite', () => {
  it('skips rows the plan had deleted and rolls across output files', () => {
    const m = new AppendRowMap();
    m.addInput('a', 4, new Set([1])); // a: 5 rows, row 1 deleted → survivors a0 a2 a3 a4 (ordinals 0-3)
    m.addInput('b', 3, undefined); // b: rows 0-2 → ordinals 4-6
    m.setOutputs([
      { fileName: 'x', rowCount: 5n },
      { fileName: 'y', rowCount: 2n },
    ]);
    expect(m.locate('a', 0)).toEqual({ fileName: 'x', position: 0 });
    expect(m.locate('a', 1)).toBeUndefined(); // already deleted: in no output
    expect(m.locate('a', 2)).toEqual({ fileName: 'x', position: 1 });
    expect(m.locate('a', 4)).toEqual({ fileName: 'x', position: 3 });
    expect(m.locate('b', 0)).toEqual({ fileName: 'x', position: 4 });
    expect(m.locate('b', 1)).toEqual({ fileName: 'y', position: 0 });
    expect(m.locate('b', 2)).toEqual({ fileName: 'y', position: 1 });
    expect(() => m.locate('b', 3)).toThrow(/does not have/);
    expect(m.replaces('c')).toBe(false);
  });
  it('refuses outputs that do not hold exactly the surviving rows', () => {
    const m = new AppendRowMap();
    m.addInput('a', 3, undefined);
    expect(() => m.setOutputs([{ fileName: 'x', rowCount: 2n }])).toThrow(/wrote 2 rows for 3/);
  });
});

/** Publishes snapshot `id` as another writer's DELETE: DVs deleting `positions` of every file of partition `[0, 1]`. */
async function publishDelete(t: string, id: bigint, positions: number[]): Promise<string[]> {
  const table = await openPaimonTable(t);
  const prev = table.snapshot!;
  const files = table.files.filter((f) => JSON.stringify(f.partition) === '[0,1]');
  const ctx = {
    table: t,
    storage,
    codec: 'zstandard' as const,
    partitionTypes: [],
    schemaId: 1,
    names: new ManifestNamer(),
  };
  const metas = [
    ...(await readManifestList(table.io, t, prev.baseManifestList)),
    ...(await readManifestList(table.io, t, prev.deltaManifestList)),
  ];
  const base = await writeManifestList(ctx, metas);
  const delta = await writeManifestList(ctx, []);
  const { bytes, ranges } = buildDvIndexFile(files.map((f) => ({ dataFile: f.meta.fileName, positions })));
  const indexName = `index-other-writer-${id}`;
  mkdirSync(path.join(t, 'index'), { recursive: true });
  writeFileSync(path.join(t, 'index', indexName), bytes);
  const entry = {
    kind: 0,
    partition: files[0]!.partitionBytes,
    bucket: 0,
    indexType: 'DELETION_VECTORS',
    fileName: indexName,
    fileSize: BigInt(bytes.length),
    rowCount: BigInt(ranges.length),
    dvRanges: ranges,
  };
  const indexManifest = await writeIndexManifest(ctx, [...table.indexEntries, entry], new IndexManifestNamer().next());
  const json = {
    version: 3,
    id: Number(id),
    schemaId: prev.schemaId,
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
  return files.map((f) => f.meta.fileName);
}

const dataAndIndexFiles = (t: string) =>
  readdirSync(t, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && (d.name.endsWith('.parquet') || d.parentPath.endsWith('index')))
    .map((d) => path.join(d.parentPath, d.name))
    .sort();

describe.skipIf(!hasFixtures)('append-table compaction racing a DELETE (deletion vectors)', () => {
  it('carries the deleted rows over to the rewritten files in the same commit', async () => {
    const t = copyFixture(FIXTURE);
    const before = await rowsOf(t);
    let expected: string[] = [];
    let raced = false;
    const report = await compactPaimon(t, {
      full: true,
      options: DV_ON,
      maxReplans: 0,
      beforePublish: async (id) => {
        if (raced) return;
        raced = true;
        await publishDelete(t, id, [0, 2]);
        expected = await rowsOf(t); // what the other writer's snapshot reads
      },
    });
    expect(expected.length).toBe(before.length - 4); // 2 rows of each of the partition's 2 files
    expect(report.carriedDeletes).toBe(4);
    expect(report.replans).toBeUndefined();
    expect(report.commitAttempts).toBe(2);
    const after = await openPaimonTable(t);
    expect(after.snapshot!.commitKind).toBe('COMPACT');
    expect(after.snapshot!.id).toBe(BigInt(report.snapshotId!));
    // the replaced files (and their DVs) are gone; the deletes now sit on floe's output
    const p01 = after.files.filter((f) => JSON.stringify(f.partition) === '[0,1]');
    expect(p01).toHaveLength(1);
    expect(p01[0]!.dv?.cardinality ?? 4n).toBe(4n);
    expect(after.indexEntries.flatMap((e) => e.dvRanges ?? []).map((r) => r.dataFileName)).toEqual([
      p01[0]!.meta.fileName,
    ]);
    expect(await rowsOf(t)).toEqual(expected);
  });

  it('with floe.rebase-concurrent-deletes=false the same race abandons the compaction, naming the file; nothing is left', async () => {
    const t = copyFixture(FIXTURE);
    const tableFiles = dataAndIndexFiles(t);
    let raced = false;
    let replaced: string[] = [];
    let expected: string[] = [];
    let otherIndex = '';
    const err = await compactPaimon(t, {
      full: true,
      options: { ...DV_ON, 'floe.rebase-concurrent-deletes': 'false' },
      maxReplans: 0,
      beforePublish: async (id) => {
        if (raced) return;
        raced = true;
        replaced = await publishDelete(t, id, [0, 2]);
        otherIndex = path.join(t, 'index', `index-other-writer-${id}`);
        expected = await rowsOf(t);
      },
    }).catch((e: unknown) => e);
    expect(isFloeError(err, 'CommitConflict'), String(err)).toBe(true);
    expect((err as Error).message).toMatch(/the deletion vector of data-\S+\.parquet changed/);
    expect(replaced.some((f) => (err as Error).message.includes(f))).toBe(true);
    const after = await openPaimonTable(t);
    expect(after.snapshot!.commitUser).toBe('other-writer');
    expect(await rowsOf(t)).toEqual(expected);
    // floe's outputs are removed: only the table's own files and the DELETE's index file are left
    expect(dataAndIndexFiles(t)).toEqual([...tableFiles, otherIndex].sort());
  });
});
