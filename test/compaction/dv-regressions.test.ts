/**
 * Issue 9 item 0: on a v3 table, tiered compaction dropped a whole Puffin file although it still held the
 * deletion vector of a data file that was not rewritten, so that file's deleted row came back. A DV may
 * only go with its data file; the other DVs of the same Puffin file stay referenced (each DV is its own
 * manifest entry, so only the entries of rewritten files' DVs are removed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TestTable, type CompactionSpec } from './harness.js';
import { commitDeletionVectors, commitPositionDeletes } from './positional-deletes.js';
import type { Row } from './model.js';
import { loadTableModel, openIcebergTable } from '../../connectors/iceberg/table.js';
import type { DataFile, DeleteFile } from '../../model/index.js';
import { deleteFileId } from '../../src/core/planning/deletes.js';

let seq = 0n;
/** `v` is unique per written row: the DV writer maps positions to model rows by it. */
const row = (id: number, s = 'x'): Row => [BigInt(id), null, null, s, ++seq];

let open: TestTable[] = [];
afterEach(() => {
  for (const t of open) t.dispose();
  open = [];
});

async function liveFiles(t: TestTable): Promise<{ data: DataFile[]; deletes: DeleteFile[] }> {
  const m = await loadTableModel(await openIcebergTable(t.dir, { io: t.io }));
  return { data: m.dataFiles, deletes: m.deleteFiles };
}

/**
 * The issue's table: one larger data file (a segment at a 256 KiB target) and four small ones, an equality
 * delete touching both kinds, and one Puffin file with the DVs of the larger file and two small ones.
 */
async function issueTable(): Promise<{ t: TestTable; large: string; small: string[] }> {
  const t = await TestTable.create({ formatVersion: 3, partitioned: false });
  open.push(t);
  await t.append(Array.from({ length: 8000 }, (_, i) => row(i, `large-${i}`)));
  for (let k = 0; k < 4; k++) await t.append([row(10_000 + 2 * k), row(10_001 + 2 * k)]);
  await t.deleteEq(['id'], [[10_000n], [7n]]);
  const { data } = await liveFiles(t);
  const large = data.find((f) => f.recordCount === 8000)!.path;
  const small = data.filter((f) => f.path !== large).map((f) => f.path);
  await commitDeletionVectors(t, [
    { file: large, positions: [11, 4000] },
    { file: small[1]!, positions: [1] },
    { file: small[2]!, positions: [0] },
  ]);
  const { deletes } = await liveFiles(t);
  const dvs = deletes.filter((d) => d.content === 'deletion-vector');
  expect(dvs.length, 'three DVs').toBe(3);
  expect(new Set(dvs.map((d) => d.path)).size, 'in one Puffin file').toBe(1);
  expect(await t.scan(), 'before compaction').toEqual(t.model.expected());
  return { t, large, small };
}

const SPECS: [string, CompactionSpec][] = [
  [
    'tiered, --target-size 256KB',
    {
      strategy: 'tiered',
      options: { 'self-optimizing.target-size': String(256 * 1024) },
      partialProgress: false,
      maxConcurrentGroups: 1,
    },
  ],
  [
    'tiered, partial progress',
    {
      strategy: 'tiered',
      options: { 'self-optimizing.target-size': String(256 * 1024) },
      partialProgress: true,
      maxConcurrentGroups: 2,
    },
  ],
  // bin-pack with a target between the small files and the large one: only the small files are rewritten
  [
    'bin-pack',
    {
      strategy: 'binpack',
      options: { 'target-file-size-bytes': String(40 * 1024), 'min-input-files': '2' },
      partialProgress: false,
      maxConcurrentGroups: 1,
    },
  ],
];

describe('v3: DVs shared in one Puffin file, partial rewrite (issue 9.0)', () => {
  for (const [name, spec] of SPECS) {
    it(`${name}: the DV of the file not rewritten stays, its deleted rows stay deleted`, async () => {
      const { t, large, small } = await issueTable();
      const report = await t.compact(spec);
      expect(report.failedTasks).toEqual([]);
      const rewritten = new Set(
        report.plan.tasks
          .filter((x) => x.kind !== 'eq-to-pos' && report.committedTasks.includes(x.id))
          .flatMap((x) => x.inputs.map((f) => f.path)),
      );
      expect(rewritten.has(large), 'the larger file is not rewritten').toBe(false);
      expect(
        small.some((p) => rewritten.has(p)),
        'small files are rewritten',
      ).toBe(true);
      expect(await t.scan(), 'live rows after compaction').toEqual(t.model.expected());
      const { data, deletes } = await liveFiles(t);
      expect(data.some((f) => f.path === large)).toBe(true);
      // what the plan said it would drop is gone — and it promised nothing that the skipped eq→pos needed
      const promised = new Set(
        [...report.plan.removableDeletes, ...report.plan.tasks.flatMap((x) => x.removableDeletes)].map(deleteFileId),
      );
      expect(
        deletes.map(deleteFileId).filter((d) => promised.has(d)),
        'promised removable but still live',
      ).toEqual([]);
      const dvs = deletes.filter((d) => d.content === 'deletion-vector');
      expect(
        dvs.map((d) => (d.content === 'deletion-vector' ? d.referencedDataFile : '')),
        'only the DV of the file that was not rewritten stays',
      ).toEqual([large]);
      // the summary counts a DV by its blob, not by the Puffin file it shares (as Java does)
      const table = await openIcebergTable(t.dir, { io: t.io });
      const current = table.metadata.snapshots.find((x) => x.snapshotId === table.metadata.currentSnapshotId)!;
      const expectedSize =
        data.reduce((n, f) => n + f.sizeBytes, 0) +
        deletes.reduce((n, d) => n + (d.content === 'deletion-vector' ? d.contentSizeBytes : d.sizeBytes), 0);
      expect(current.summary['total-files-size'], 'total-files-size').toBe(String(expectedSize));
      await t.compact(spec); // and again, from the compacted state
      expect(await t.scan(), 'live rows after a second compaction').toEqual(t.model.expected());
    });
  }
});

describe('v2: a position delete file naming several data files, partial rewrite', () => {
  for (const [name, spec] of SPECS) {
    it(`${name}: the file stays while a data file it names survives`, async () => {
      const t = await TestTable.create({ formatVersion: 2, partitioned: false });
      open.push(t);
      await t.append(Array.from({ length: 8000 }, (_, i) => row(i, `large-${i}`)));
      for (let k = 0; k < 4; k++) await t.append([row(10_000 + 2 * k), row(10_001 + 2 * k)]);
      const { data } = await liveFiles(t);
      const large = data.find((f) => f.recordCount === 8000)!.path;
      const small = data.filter((f) => f.path !== large).map((f) => f.path);
      await commitPositionDeletes(t, [
        { file: large, positions: [3, 7000] },
        { file: small[0]!, positions: [1] },
        { file: small[3]!, positions: [0] },
      ]);
      const posFile = (await liveFiles(t)).deletes.find((d) => d.content === 'position-deletes')!;
      expect(await t.scan(), 'before compaction').toEqual(t.model.expected());
      const report = await t.compact(spec);
      expect(report.failedTasks).toEqual([]);
      expect(report.committedTasks.length).toBeGreaterThan(0);
      expect(await t.scan(), 'live rows after compaction').toEqual(t.model.expected());
      const after = await liveFiles(t);
      // it may go only when no file it names survives unconverted: the larger file rewritten, or its deletes
      // moved into a new position delete file by a committed eq→pos task
      const converted = report.plan.tasks.some(
        (x) => x.kind === 'eq-to-pos' && report.committedTasks.includes(x.id) && x.inputs.some((f) => f.path === large),
      );
      if (after.data.some((f) => f.path === large) && !converted)
        expect(
          after.deletes.map((d) => d.path),
          'the position delete file stays',
        ).toContain(posFile.path);
      if (!after.deletes.some((d) => d.path === posFile.path)) {
        expect(after.data.some((f) => f.path === large) ? converted : true, 'dropped only after conversion').toBe(true);
      }
      await t.compact(spec);
      expect(await t.scan(), 'live rows after a second compaction').toEqual(t.model.expected());
    });
  }
});
