/**
 * The table writer's position deletes and partition-scoped equality deletes (the deletes benchmark's table):
 * floe's scan sees exactly the rows the test did not delete.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Field } from '../../../model/index.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import {
  appendRows,
  createIcebergTable,
  deleteByEquality,
  deleteByPosition,
} from '../../../connectors/iceberg/write-table.js';
import { openIcebergTable } from '../../../connectors/iceberg/table.js';
import { scanTable } from '../../../connectors/iceberg/scan.js';

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'part', required: true, type: { kind: 'primitive', name: 'string' } },
];
const root = mkdtempSync(path.join(tmpdir(), 'floe-write-deletes-'));
const io = new FileIO();
afterAll(() => {
  io.destroy();
  rmSync(root, { recursive: true, force: true });
});

async function liveIds(dir: string): Promise<number[]> {
  const table = await openIcebergTable(dir, { io });
  const ids: number[] = [];
  for await (const b of scanTable(table, {})) {
    const at = b.fields.findIndex((f) => f.name === 'id');
    for (const r of b.rows) ids.push(Number(r[at]));
  }
  return ids.sort((a, b) => a - b);
}

describe('write-table deletes', () => {
  it('deleteByPosition removes the named positions of each file; deleteByEquality scopes keys to a given partition', async () => {
    const dir = path.join(root, 't');
    await createIcebergTable(io, dir, { fields: FIELDS, partitionBy: ['part'] });
    await appendRows(
      io,
      dir,
      [0, 1, 2, 3, 4].map((i) => ({ id: BigInt(i), part: 'a' })),
    );
    await appendRows(
      io,
      dir,
      [10, 11, 12].map((i) => ({ id: BigInt(i), part: 'b' })),
    );
    const fileOf = (p: string) => {
      const d = path.join(dir, 'data', `part=${p}`);
      return path.join(
        d,
        readdirSync(d).find((n) => !n.includes('delete'))!,
      );
    };
    await deleteByPosition(io, dir, [
      { path: fileOf('a'), partition: { part: 'a' }, positions: [3, 0] },
      { path: fileOf('b'), partition: { part: 'b' }, positions: [] },
    ]);
    expect(await liveIds(dir)).toEqual([1, 2, 4, 10, 11, 12]);
    // id 11 scoped to partition a deletes nothing (it lives in b); 12 scoped to b goes
    await deleteByEquality(io, dir, ['id'], [[11n], [12n]], [{ part: 'a' }, { part: 'b' }]);
    expect(await liveIds(dir)).toEqual([1, 2, 4, 10, 11]);
  });
});
