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

  it('reads skipped positions as the rows the plan dropped, however the spans are cut', () => {
    // the same two outputs with input a as one span skipping position 3: the same positions, and the same refusal
    const skipping = [
      out('o1', [{ path: 'a', start: 0, end: 8, skip: [3] }], 7),
      out(
        'o2',
        [
          { path: 'a', start: 8, end: 10 },
          { path: 'b', start: 0, end: 5 },
        ],
        7,
      ),
    ];
    const deleted = new Map([
      ['a', new Set([0, 3, 5, 9])],
      ['b', new Set([4])],
    ]);
    expect(toOutputPositions(skipping, deleted)).toEqual(toOutputPositions(outputs, deleted));
    expect(cannotCarry(skipping)).toBeUndefined();
    expect(cannotCarry([out('o5', [{ path: 'a', start: 0, end: 8, skip: [3] }], 8)])).toMatch(/7 source rows/);
  });

  it('agrees with a row-by-row map on random drops and deletes', () => {
    // truth: the output holds input rows 0..n-1 less the dropped ones, in order
    for (let seed = 1; seed <= 200; seed++) {
      let x = seed;
      const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
      const n = 1 + Math.floor(rand() * 60);
      const dropped = [...Array(n).keys()].filter(() => rand() < 0.3);
      const kept = [...Array(n).keys()].filter((p) => !dropped.includes(p));
      const del = new Set([...Array(n).keys()].filter(() => rand() < 0.2));
      const o = out('o', [{ path: 'a', start: 0, end: n, ...(dropped.length ? { skip: dropped } : {}) }], kept.length);
      const want = kept.flatMap((p, k) => (del.has(p) ? [k] : []));
      const got = toOutputPositions([o], new Map([['a', del]]));
      expect(got.length ? [...got[0]!.positions].sort((a, b) => a - b) : []).toEqual(want);
    }
  });
});
