/**
 * Issue 14.2: on a v3 table, equality→position conversion writes deletion vectors — one per data file, in a
 * Puffin file of `deletion-vector-v1` blobs with `referenced-data-file` and `cardinality` — each the union
 * of the file's old DV and its equality-deleted rows, replacing the old DV in the same commit (a snapshot
 * holds at most one DV per data file). The old Puffin file stays while other DVs in it are live; row ids do
 * not change. Before, these tasks were skipped ("floe does not write deletion vectors yet").
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TestTable, type CompactionSpec } from './harness.js';
import { commitDeletionVectors, vColumn } from './positional-deletes.js';
import { expectAtMostOneDvPerDataFile } from './run-history.js';
import type { Row } from './model.js';
import { loadTableModel, openIcebergTable } from '../../connectors/iceberg/table.js';
import { decodeDeletionVector, readPuffinFooter } from '../../connectors/iceberg/puffin.js';
import type { DataFile, DeleteFile, DeletionVectorFile } from '../../model/index.js';
import { deleteFileId } from '../../src/core/planning/deletes.js';

let seq = 0n;
const row = (id: number, s = 'x'): Row => [BigInt(id), null, null, s, ++seq];

let open: TestTable[] = [];
afterEach(() => {
  for (const t of open) t.dispose();
  open = [];
});

async function live(t: TestTable): Promise<{ data: DataFile[]; deletes: DeleteFile[]; nextRowId: bigint | undefined }> {
  const table = await openIcebergTable(t.dir, { io: t.io });
  const m = await loadTableModel(table);
  return { data: m.dataFiles, deletes: m.deleteFiles, nextRowId: (table.metadata as { nextRowId?: bigint }).nextRowId };
}

const dvsOf = (deletes: DeleteFile[]): DeletionVectorFile[] =>
  deletes.filter((d): d is DeletionVectorFile => d.content === 'deletion-vector');

async function positionsOf(t: TestTable, dv: DeletionVectorFile): Promise<number[]> {
  const bytes = await t.io.read(dv.path);
  return decodeDeletionVector(bytes.subarray(dv.contentOffset, dv.contentOffset + dv.contentSizeBytes), dv.path);
}

const TIERED: CompactionSpec = {
  strategy: 'tiered',
  options: { 'self-optimizing.target-size': String(256 * 1024) },
  partialProgress: false,
  maxConcurrentGroups: 1,
};
/** Only conversion: Amoro's convert-at-every-minor, and no small files to merge. */
const CONVERT_ONLY: CompactionSpec = {
  strategy: 'tiered',
  options: {
    'self-optimizing.target-size': String(256 * 1024),
    'self-optimizing.minor.eq-to-pos.delete-ratio': '-1',
    'self-optimizing.minor.trigger.interval': '0',
    'self-optimizing.minor.trigger.file-count': '1',
  },
  partialProgress: false,
  maxConcurrentGroups: 1,
};

/** One larger file (a segment at a 256 KiB target), four small ones, an equality delete on both kinds, one shared Puffin. */
async function table(): Promise<{ t: TestTable; large: string; small: string[] }> {
  const t = await TestTable.create({ formatVersion: 3, partitioned: false });
  open.push(t);
  await t.append(Array.from({ length: 8000 }, (_, i) => row(i, `large-${i}`)));
  for (let k = 0; k < 4; k++) await t.append([row(10_000 + 2 * k), row(10_001 + 2 * k)]);
  await t.deleteEq(['id'], [[10_000n], [7n], [5000n]]);
  const { data } = await live(t);
  const large = data.find((f) => f.recordCount === 8000)!.path;
  const small = data.filter((f) => f.path !== large).map((f) => f.path);
  await commitDeletionVectors(t, [
    { file: large, positions: [11, 4000] },
    { file: small[1]!, positions: [1] },
  ]);
  expect(await t.scan(), 'before compaction').toEqual(t.model.expected());
  return { t, large, small };
}

describe('v3: equality→position conversion writes deletion vectors (issue 14.2)', () => {
  it('the converted file gets one DV = old DV ∪ equality matches, in a Puffin file Java can read; the old DV entry goes', async () => {
    const { t, large } = await table();
    const before = await live(t);
    const oldDv = dvsOf(before.deletes).find((d) => d.referencedDataFile === large)!;
    const report = await t.compact(TIERED);
    expect(report.failedTasks).toEqual([]);
    expect(report.skippedTasks).toEqual([]);
    const eq = report.tasks.find((x) => x.kind === 'eq-to-pos');
    expect(eq, 'an eq→pos task was planned').toBeDefined();
    expect(eq!.outcome).toBe('committed');
    expect(await t.scan(), 'live rows after compaction').toEqual(t.model.expected());

    const after = await live(t);
    const dvs = dvsOf(after.deletes).filter((d) => d.referencedDataFile === large);
    expect(dvs.length, 'exactly one DV for the converted file').toBe(1);
    const dv = dvs[0]!;
    expect(deleteFileId(dv)).not.toBe(deleteFileId(oldDv));
    expect(dv.path).toMatch(/\.puffin$/);
    // rows 7 and 5000 (equality-deleted; v is unique per row, position = id here) and the old 11, 4000
    const v = await vColumn(
      t,
      after.data.find((f) => f.path === large)!,
    );
    const expected = [7, 11, 4000, 5000];
    expect(await positionsOf(t, dv)).toEqual(expected);
    expect(v.length).toBe(8000);
    expect(dv.recordCount, 'record_count is the cardinality').toBe(expected.length);
    // the footer lists the blob where the manifest says, with the properties Java's reader needs
    const footer = readPuffinFooter(await t.io.read(dv.path), dv.path);
    const blob = footer.blobs.find((b) => b.offset === dv.contentOffset)!;
    expect(blob).toMatchObject({
      type: 'deletion-vector-v1',
      length: dv.contentSizeBytes,
      properties: { 'referenced-data-file': large, cardinality: String(expected.length) },
    });
    // the equality delete applied only to converted / rewritten files: gone
    expect(after.deletes.filter((d) => d.content === 'equality-deletes')).toEqual([]);
    await expectAtMostOneDvPerDataFile(t, 'compaction');
    // and again, from the compacted state
    await t.compact(TIERED);
    expect(await t.scan(), 'after a second compaction').toEqual(t.model.expected());
    await expectAtMostOneDvPerDataFile(t, 'a second compaction');
  });

  it('conversion alone changes no row id: next-row-id stays, delete manifests carry no first_row_id', async () => {
    const t = await TestTable.create({ formatVersion: 3, partitioned: false });
    open.push(t);
    await t.append(Array.from({ length: 8000 }, (_, i) => row(i, `large-${i}`)));
    await t.deleteEq(['id'], [[3n], [6000n]]);
    const before = await live(t);
    const report = await t.compact(CONVERT_ONLY);
    expect(report.tasks.map((x) => [x.kind, x.outcome])).toEqual([['eq-to-pos', 'committed']]);
    const after = await live(t);
    expect(after.nextRowId).toBe(before.nextRowId);
    expect(after.data.map((f) => [f.path, f.firstRowId])).toEqual(before.data.map((f) => [f.path, f.firstRowId]));
    const dvs = dvsOf(after.deletes);
    expect(dvs.length).toBe(1);
    expect(await positionsOf(t, dvs[0]!)).toEqual([3, 6000]);
    const table = await openIcebergTable(t.dir, { io: t.io });
    const m = await loadTableModel(table);
    const deleteManifests = m.manifests.filter((x) => x.content === 'deletes');
    expect(deleteManifests.length).toBeGreaterThan(0);
    for (const mf of deleteManifests)
      expect(mf.firstRowId ?? null, `${mf.path}: first_row_id of a delete manifest`).toBeNull();
    expect(await t.scan()).toEqual(t.model.expected());
  });

  it('a DV committed concurrently for the same data file fails the conversion; nothing doubles', async () => {
    const t = await TestTable.create({ formatVersion: 3, partitioned: false });
    open.push(t);
    await t.append(Array.from({ length: 8000 }, (_, i) => row(i, `large-${i}`)));
    await t.deleteEq(['id'], [[3n]]);
    const report = await t.compact(CONVERT_ONLY, async (x) => {
      await commitDeletionVectors(x, [{ file: 0, positions: [100] }]);
    });
    expect(report.failedTasks.map((f) => f.reason).join(' ')).toMatch(
      /position delete committed since|deletion vector/,
    );
    expect(await t.scan()).toEqual(t.model.expected());
    await expectAtMostOneDvPerDataFile(t, 'a conflicting compaction');
    // a second run converts on top of the concurrent DV
    const again = await t.compact(CONVERT_ONLY);
    expect(again.failedTasks).toEqual([]);
    expect(await t.scan()).toEqual(t.model.expected());
    const dvs = dvsOf((await live(t)).deletes);
    expect(dvs.length).toBe(1);
    expect(await positionsOf(t, dvs[0]!)).toEqual([3, 100]);
  });
});
