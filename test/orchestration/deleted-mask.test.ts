/**
 * The rewrite adapter's per-file deletion mask (1 = deleted): position deletes and deletion vectors marked
 * from their buffers, equality keys by hash, under the spec's sequence-number rules. Expected masks come
 * from the positions and keys the test deleted, never from the adapter.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { DataFile, Field } from '../../model/index.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import {
  appendRows,
  createIcebergTable,
  deleteByEquality,
  deleteByPosition,
} from '../../connectors/iceberg/write-table.js';
import { loadTableModel, openIcebergTable } from '../../connectors/iceberg/table.js';
import { rewriteContext } from '../../src/orchestration/iceberg-steps.js';
import { TestTable } from '../compaction/harness.js';
import { commitDeletionVectors } from '../compaction/positional-deletes.js';

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'name', required: false, type: { kind: 'primitive', name: 'string' } },
];
const root = mkdtempSync(path.join(tmpdir(), 'floe-deleted-mask-'));
const io = new FileIO();
let open: TestTable[] = [];
afterEach(() => {
  for (const t of open) t.dispose();
  open = [];
});
afterAll(() => {
  io.destroy();
  rmSync(root, { recursive: true, force: true });
});

/** Each live data file's mask as the positions it marks, by the file's data sequence number. */
async function masks(dir: string, fio: FileIO = io): Promise<Map<bigint, number[]>> {
  const table = await openIcebergTable(dir, { io: fio });
  const model = await loadTableModel(table);
  const ctx = rewriteContext(table, model, fio, { outputPrefix: 'test' });
  const out = new Map<bigint, number[]>();
  for (const f of model.dataFiles as DataFile[]) {
    const mask = await ctx.adapter.deletedMask(f);
    out.set(f.dataSequenceNumber, mask ? [...mask.keys()].filter((i) => mask[i] === 1) : []);
    if (mask) expect(mask.length).toBe(f.recordCount);
  }
  return out;
}

const rows = (ids: number[], name = (i: number): string | null => `n${i}`) =>
  ids.map((i) => ({ id: BigInt(i), name: name(i) }));

async function dataPaths(dir: string): Promise<string[]> {
  const m = await loadTableModel(await openIcebergTable(dir, { io }));
  return m.dataFiles.map((f) => f.path).sort();
}

describe('deletedMask', () => {
  it('marks position deletes once each: duplicates, two files on one data file, positions past its rows', async () => {
    const dir = path.join(root, 'pos');
    await createIcebergTable(io, dir, { fields: FIELDS });
    await appendRows(io, dir, rows([0, 1, 2, 3, 4, 5, 6, 7]));
    const [file] = await dataPaths(dir);
    await deleteByPosition(io, dir, [{ path: file!, partition: {}, positions: [1, 1, 3, 8, 1000, 2 ** 40] }]);
    await deleteByPosition(io, dir, [{ path: file!, partition: {}, positions: [3, 7] }]);
    const m = await masks(dir);
    expect([...m.values()]).toEqual([[1, 3, 7]]);
  });

  it('leaves a file no delete reaches without a mask, and marks only the file a position file names', async () => {
    const dir = path.join(root, 'pos2');
    await createIcebergTable(io, dir, { fields: FIELDS });
    await appendRows(io, dir, rows([0, 1, 2]));
    await appendRows(io, dir, rows([10, 11, 12]));
    const m0 = await masks(dir);
    expect([...m0.values()]).toEqual([[], []]);
    const model = await loadTableModel(await openIcebergTable(dir, { io }));
    const second = model.dataFiles.find((f) => f.dataSequenceNumber === 2n)!;
    await deleteByPosition(io, dir, [{ path: second.path, partition: {}, positions: [0, 2] }]);
    const m = await masks(dir);
    expect(m.get(1n)).toEqual([]);
    expect(m.get(2n)).toEqual([0, 2]);
  });

  it('applies equality deletes only to older data (strict <), on multi-column string keys, null matching null', async () => {
    const dir = path.join(root, 'eq');
    await createIcebergTable(io, dir, { fields: FIELDS });
    await appendRows(
      io,
      dir,
      rows([0, 1, 2, 3], (i) => (i === 2 ? null : `n${i}`)),
    );
    await deleteByEquality(
      io,
      dir,
      ['id', 'name'],
      [
        [1n, 'n1'],
        [2n, null],
        [3n, 'other'],
        [20n, 'n20'],
      ],
    );
    // written after the delete: its (20, 'n20') is live (the delete's sequence number is not greater)
    await appendRows(io, dir, rows([20, 21]));
    const m = await masks(dir);
    expect(m.get(1n)).toEqual([1, 2]);
    expect(m.get(3n)).toEqual([]);
  });

  it('v3: marks a deletion vector straight from its bitmap, together with equality deletes', async () => {
    const t = await TestTable.create({ formatVersion: 3, partitioned: false });
    open.push(t);
    let v = 0n;
    await t.append(Array.from({ length: 300 }, (_, i) => [BigInt(i), null, null, `s${i}`, ++v]));
    await commitDeletionVectors(t, [
      { file: 0, positions: [0, 7, 7, 299, ...Array.from({ length: 50 }, (_, i) => 100 + i)] },
    ]);
    await t.deleteEq(['id'], [[5n], [7n], [200n]]);
    const m = await masks(t.dir, t.io);
    const expected = [0, 5, 7, ...Array.from({ length: 50 }, (_, i) => 100 + i), 200, 299];
    expect([...m.values()]).toEqual([expected]);
  });
});
