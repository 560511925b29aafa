/**
 * Hilbert-curve index of points with 64-bit unsigned coordinates (Paimon's `order_strategy=hilbert`).
 *
 * Each coordinate is given as 8 big-endian bytes whose unsigned order is the value order (the z-order
 * encoding of sort-keys.ts). The index is computed with Skilling's method ("Programming the Hilbert
 * curve", 2004): the coordinates are transformed in place into the curve's "transposed" form, whose
 * bits, interleaved most significant first and coordinate 0 first, are the Hilbert index. Sorting by the
 * index visits every aligned sub-cube contiguously and steps between neighbouring cells only, which
 * keeps rows close in every column closer together than a z-curve does at its jumps.
 *
 * Coordinates are held as (high, low) 32-bit halves so no bigint is needed per bit.
 */

/** The Hilbert index (n × 8 bytes, unsigned byte order = curve order) of `coords` (n arrays of 8 bytes). */
export function hilbertIndex(coords: readonly Uint8Array[]): Uint8Array {
  const n = coords.length;
  const hi = new Int32Array(n);
  const lo = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const c = coords[i]!;
    hi[i] = (c[0]! << 24) | (c[1]! << 16) | (c[2]! << 8) | c[3]!;
    lo[i] = (c[4]! << 24) | (c[5]! << 16) | (c[6]! << 8) | c[7]!;
  }
  toTransposed(hi, lo);
  return interleave(hi, lo);
}

/** Skilling's AxesToTranspose for 64-bit coordinates. */
function toTransposed(hi: Int32Array, lo: Int32Array): void {
  const n = hi.length;
  // inverse undo: from the top bit down to bit 1
  for (let k = 63; k >= 1; k--) {
    const high = k >= 32;
    const q = high ? 1 << (k - 32) : 1 << k;
    // P = Q - 1: every bit below k
    const ph = high ? q - 1 : 0;
    const pl = high ? -1 : q - 1;
    for (let i = 0; i < n; i++) {
      const set = high ? hi[i]! & q : lo[i]! & q;
      if (set) {
        hi[0] = hi[0]! ^ ph;
        lo[0] = lo[0]! ^ pl;
      } else {
        const th = (hi[0]! ^ hi[i]!) & ph;
        const tl = (lo[0]! ^ lo[i]!) & pl;
        hi[0] = hi[0]! ^ th;
        lo[0] = lo[0]! ^ tl;
        hi[i] = hi[i]! ^ th;
        lo[i] = lo[i]! ^ tl;
      }
    }
  }
  // Gray encode
  for (let i = 1; i < n; i++) {
    hi[i] = hi[i]! ^ hi[i - 1]!;
    lo[i] = lo[i]! ^ lo[i - 1]!;
  }
  let th = 0;
  let tl = 0;
  for (let k = 63; k >= 1; k--) {
    const high = k >= 32;
    const q = high ? 1 << (k - 32) : 1 << k;
    if (high ? hi[n - 1]! & q : lo[n - 1]! & q) {
      th ^= high ? q - 1 : 0;
      tl ^= high ? -1 : q - 1;
    }
  }
  for (let i = 0; i < n; i++) {
    hi[i] = hi[i]! ^ th;
    lo[i] = lo[i]! ^ tl;
  }
}

/** Bits of the transposed coordinates, most significant first, one bit of each coordinate in turn. */
function interleave(hi: Int32Array, lo: Int32Array): Uint8Array {
  const n = hi.length;
  const out = new Uint8Array(n * 8);
  let bit = 0;
  for (let k = 63; k >= 0; k--) {
    const high = k >= 32;
    const shift = high ? k - 32 : k;
    for (let i = 0; i < n; i++, bit++) {
      const v = high ? hi[i]! : lo[i]!;
      if ((v >>> shift) & 1) out[bit >> 3]! |= 0x80 >> (bit & 7);
    }
  }
  return out;
}
