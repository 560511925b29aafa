/**
 * The position map of the carry-over (rebase-deletes.ts): deleted input positions land on the output rows
 * that hold those inputs' rows, rows the plan had already dropped map to nothing, and an output that does not
 * account for its rows refuses the carry-over.
 */
import { describe, expect, it } from 'vitest';
import { cannotCarry, toOutputPositions } from '../../../connectors/iceberg/rebase-deletes.js';
import type { NewContentFile } from '../../../connectors/iceberg/write-manifest.js';

const out = (path: string, sourceRows: NewContentFile['sourceRows'], recordCount: number): NewContentFile => ({
  content: 0,
  path,
  format: 'PARQUET',
  recordCount,
  sizeBytes: 100,
  specId: 0,
  partitionOf: 'in-a',
  ...(sourceRows ? { sourceRows } : {}),
});

describe('carrying deleted positions over to rewritten files', () => {
  // input a: 10 rows, position 3 deleted at plan time; input b: 5 rows; two outputs of 7 rows each
  const outputs = [
    out(
      'o1',
      [
        { path: 'a', start: 0, end: 3 },
        { path: 'a', start: 4, end: 8 },
      ],
      7,
    ),
    out(
      'o2',
      [
        { path: 'a', start: 8, end: 10 },
        { path: 'b', start: 0, end: 5 },
      ],
      7,
    ),
  ];

  it('maps input positions through the spans, in output order', () => {
    const deleted = new Map([
      ['a', new Set([0, 5, 9])],
      ['b', new Set([4])],
    ]);
    expect(toOutputPositions(outputs, deleted)).toEqual([
      { file: { path: 'o1', specId: 0 }, positions: [0, 4] },
      { file: { path: 'o2', specId: 0 }, positions: [1, 6] },
    ]);
  });

  it('a row the plan had already deleted maps to nothing', () => {
    expect(toOutputPositions(outputs, new Map([['a', new Set([3])]]))).toEqual([]);
  });

  it('refuses outputs without source rows or whose spans do not add up to their rows', () => {
    expect(cannotCarry(outputs)).toBeUndefined();
    expect(cannotCarry([out('o3', undefined, 4)])).toMatch(/does not record/);
    expect(cannotCarry([out('o4', [{ path: 'a', start: 0, end: 3 }], 4)])).toMatch(/3 source rows for its 4 rows/);
  });
});
