/**
 * The Hilbert index (src/core/execution/hilbert.ts) checked by the curve's defining properties, not by values
 * the code produced: sorted by index, the cells of an aligned block form one path whose consecutive cells
 * are neighbours (distance 1 in exactly one coordinate), and every cell gets its own index. The z-curve
 * fails the same check, so the check can fail.
 */
import { describe, expect, it } from 'vitest';
import { hilbertIndex } from '../../../src/core/execution/hilbert.js';
import { compareBytes, interleaveBits, zBytes } from '../../../src/core/execution/sort-keys.js';

const LONG = { kind: 'primitive', name: 'long' } as const;

/** 8 order-preserving bytes of a long (sign bit flipped), as sort-keys encodes z and Hilbert columns. */
const coord = (v: bigint) => zBytes(v, LONG, 8);

function grid(dims: number, side: number, offset: bigint): bigint[][] {
  let pts: bigint[][] = [[]];
  for (let d = 0; d < dims; d++) {
    const next: bigint[][] = [];
    for (const p of pts) for (let v = 0; v < side; v++) next.push([...p, offset + BigInt(v)]);
    pts = next;
  }
  return pts;
}

function sortedBy(pts: bigint[][], key: (p: bigint[]) => Uint8Array): bigint[][] {
  return pts
    .map((p) => ({ p, k: key(p) }))
    .sort((a, b) => compareBytes(a.k, b.k))
    .map((x) => x.p);
}

/** Steps of the path whose points are not neighbours on the grid. */
function jumps(path: bigint[][]): number {
  let n = 0;
  for (let i = 1; i < path.length; i++) {
    let dist = 0n;
    for (let d = 0; d < path[i]!.length; d++) {
      const x = path[i]![d]! - path[i - 1]![d]!;
      dist += x < 0n ? -x : x;
    }
    if (dist !== 1n) n++;
  }
  return n;
}

const hilbert = (p: bigint[]) => hilbertIndex(p.map(coord));
const zorder = (p: bigint[]) => interleaveBits(p.map(coord));

describe('Hilbert index', () => {
  for (const [dims, side, offset] of [
    [2, 16, 0n],
    [2, 8, -4n], // straddles zero: not one aligned block once the sign bit is flipped
    [3, 8, 1000n],
    [4, 4, 64n],
  ] as const) {
    it(`${dims} dimensions, ${side}^${dims} cells from ${offset}: one path of neighbouring cells, distinct indexes`, () => {
      const pts = grid(dims, side, offset);
      const keys = new Set(pts.map((p) => Buffer.from(hilbert(p)).toString('hex')));
      expect(keys.size).toBe(pts.length);
      expect(hilbert(pts[0]!)).toHaveLength(dims * 8);
      // only an aligned block is one contiguous piece of the curve; -4..3 crosses the sign flip's block
      // boundary (0x7fff…fc..0x8000…03), so it may split into pieces, each still a neighbour path
      const path = sortedBy(pts, hilbert);
      if (offset % BigInt(side) === 0n) expect(jumps(path)).toBe(0);
      else expect(jumps(path)).toBeLessThan(pts.length / 4);
    });
  }

  it('the z-curve jumps on the same grid (the check can fail)', () => {
    const pts = grid(2, 16, 0n);
    expect(jumps(sortedBy(pts, zorder))).toBeGreaterThan(10);
  });

  it('keeps clustering across the full 64-bit range (large and negative values)', () => {
    const big = 1n << 62n;
    const pts = grid(2, 8, big);
    expect(jumps(sortedBy(pts, hilbert))).toBe(0);
    const neg = grid(2, 8, -(1n << 40n));
    expect(jumps(sortedBy(neg, hilbert))).toBe(0);
  });
});
