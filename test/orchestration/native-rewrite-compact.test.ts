/**
 * [rewrite] A bin-pack compaction through the native rewrite fast path (IcebergRewriteAdapter.directBatches)
 * against the same compaction with it off (FLOE_NATIVE_REWRITE=0): two identical tables with position and
 * equality deletes give the same live rows and output files with the same Iceberg metrics; the task trail says
 * the files went through the codec.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TestTable } from '../compaction/harness.js';
import { commitPositionDeletes } from '../compaction/positional-deletes.js';
import type { Row } from '../compaction/model.js';
import { loadTableModel, openIcebergTable } from '../../connectors/iceberg/table.js';
import type { CompactReport } from '../../src/orchestration/compact-iceberg.js';

const FULL = {
  strategy: 'binpack' as const,
  options: { 'rewrite-all': 'true', 'min-input-files': '1' },
  partialProgress: false,
  maxConcurrentGroups: 1,
};

let open: TestTable[] = [];
afterEach(() => {
  for (const t of open) t.dispose();
  open = [];
  delete process.env.FLOE_NATIVE_REWRITE;
});

const row = (i: number): Row => [
  BigInt(i),
  null,
  i % 9 === 0 ? null : `${i}.${String(i % 97).padStart(10, '0')}`,
  i % 13 === 0 ? null : `s${(i * 31) % 101}`,
  BigInt(i * 3),
];

async function table(): Promise<TestTable> {
  const t = await TestTable.create({ formatVersion: 2, partitioned: false });
  open.push(t);
  for (let k = 0; k < 4; k++) await t.append(Array.from({ length: 400 }, (_, i) => row(k * 1000 + i)));
  // by append order (paths are random): the same rows go in both tables
  const files = (await loadTableModel(await openIcebergTable(t.dir, { io: t.io }))).dataFiles
    .slice()
    .sort((a, b) => Number(a.dataSequenceNumber - b.dataSequenceNumber));
  await commitPositionDeletes(t, [
    { file: files[0]!.path, positions: Array.from({ length: 60 }, (_, i) => i * 5) }, // scattered: a gathered batch
    { file: files[1]!.path, positions: [3, 4, 5, 200] }, // a few ranges: slices
  ]);
  await t.deleteEq(['s'], [['s7'], ['s8']]);
  return t;
}

/** The committed data files' metrics, in a path-free order. */
async function outputs(t: TestTable) {
  const m = await loadTableModel(await openIcebergTable(t.dir, { io: t.io }));
  return m.dataFiles
    .map((f) => ({
      recordCount: f.recordCount,
      sizeBytes: f.sizeBytes,
      stats: f.stats,
      splitOffsets: f.splitOffsets,
      sortOrderId: f.sortOrderId,
    }))
    .sort((a, b) => a.recordCount - b.recordCount);
}

const rewriteTrail = (r: CompactReport) =>
  r.plan.tasks.flatMap((task) => task.trail.filter((s) => s.gate === 'rewrite'));

describe('native rewrite fast path in a compaction', () => {
  it('commits the rows and metrics the JS path commits', async () => {
    const fast = await table();
    const slow = await table();
    const expected = fast.model.expected();
    expect(slow.model.expected()).toEqual(expected);
    expect(expected.length).toBeLessThan(1600);

    expect(await fast.scan()).toEqual(expected);
    const fastReport = await fast.compact(FULL);
    process.env.FLOE_NATIVE_REWRITE = '0';
    const slowReport = await slow.compact(FULL);

    expect(rewriteTrail(fastReport).map((s) => s.values)).toEqual([{ nativeFiles: 4, files: 4 }]);
    expect(rewriteTrail(slowReport)).toEqual([]);
    expect(await fast.scan()).toEqual(expected);
    expect(await slow.scan()).toEqual(expected);
    expect((await fast.fileStats()).deletes).toBe(0);
    expect(await outputs(fast)).toEqual(await outputs(slow));
  });
});
