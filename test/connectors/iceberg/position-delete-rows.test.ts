/**
 * forEachPositionRun: a position delete file's rows as (path, positions) runs, read column-wise through the
 * Parquet codec. Expected runs come from the rows the test wrote.
 */
import { describe, expect, it } from 'vitest';
import type { Field } from '../../../model/index.js';
import { arrowSchemaForIceberg, tableFromRows, writeParquet } from '../../../connectors/formats/parquet/index.js';
import { forEachPositionRun } from '../../../connectors/iceberg/position-delete-rows.js';

const FIELDS: [Field, Field] = [
  { id: 2147483546, name: 'file_path', required: true, type: { kind: 'primitive', name: 'string' } },
  { id: 2147483545, name: 'pos', required: true, type: { kind: 'primitive', name: 'long' } },
];

async function runsOf(rows: { file_path: string; pos: bigint }[], maxRowGroupRows?: number) {
  const written = await writeParquet(tableFromRows(arrowSchemaForIceberg(FIELDS), rows), 'pos.parquet', {
    ...(maxRowGroupRows ? { maxRowGroupRows } : {}),
  });
  const runs: [string, number[]][] = [];
  await forEachPositionRun(written.bytes, 'pos.parquet', FIELDS, (p, positions) => runs.push([p, [...positions]]));
  return runs;
}

describe('forEachPositionRun', () => {
  it('gives one run per path, positions in file order, across row groups and batches', async () => {
    const rows = [
      ...[0, 5, 7].map((p) => ({ file_path: 's3://b/t/data/a.parquet', pos: BigInt(p) })),
      ...[1, 2, 3, 4, 9].map((p) => ({ file_path: 's3://b/t/data/b-é.parquet', pos: BigInt(p) })),
      ...[2 ** 40, 2 ** 53 - 1].map((p) => ({ file_path: 's3://b/t/data/c.parquet', pos: BigInt(p) })),
    ];
    const expected = [
      ['s3://b/t/data/a.parquet', [0, 5, 7]],
      ['s3://b/t/data/b-é.parquet', [1, 2, 3, 4, 9]],
      ['s3://b/t/data/c.parquet', [2 ** 40, 2 ** 53 - 1]],
    ];
    expect(await runsOf(rows)).toEqual(expected);
    // row groups of 2 rows: runs continue across row group boundaries
    expect(await runsOf(rows, 2)).toEqual(expected);
  });

  it('tells paths of equal length apart byte by byte', async () => {
    const rows = ['x/1', 'x/2', 'x/2', 'x/1'].map((file_path, i) => ({ file_path, pos: BigInt(i) }));
    expect(await runsOf(rows)).toEqual([
      ['x/1', [0]],
      ['x/2', [1, 2]],
      ['x/1', [3]],
    ]);
  });

  it('reads a file without rows as no runs', async () => {
    expect(await runsOf([])).toEqual([]);
  });
});
