/**
 * A set of safe integers (|v| < 2^53) held in one typed array, probed by the value's two 32-bit words.
 *
 * Why not `Set<number>`: an equality-delete key set of a million ids costs ~23 bytes a key there; here it
 * is 4 bytes a slot while every key fits in an int32 (the usual `id`), 8 once one does not, at a load of at
 * most 3/4. A value is given as its words so a caller reading an int64 column never builds a double first.
 */

const TWO_32 = 4294967296;
/** The narrow table's empty slot; the value itself is remembered apart (`hasMin`). */
const EMPTY_NARROW = -0x80000000;
const GOLDEN = -0x61c88647; // 0x9e3779b9 as an int32: Fibonacci hashing
const MIX = -0x7a143595; // 0x85ebca6b as an int32

export class SafeIntSet {
  /** While every key fits in an int32: the keys, EMPTY_NARROW where free. */
  private narrow: Int32Array | undefined;
  /** Once one does not: the keys as doubles, NaN where free. */
  private wide: Float64Array | undefined;
  private shift: number;
  private mask: number;
  private count = 0;
  private hasMin = false;

  constructor() {
    this.shift = 32 - 4;
    this.mask = 15;
    this.narrow = new Int32Array(16).fill(EMPTY_NARROW);
  }

  get size(): number {
    return this.count + (this.hasMin ? 1 : 0);
  }

  /** Adds the value `hi * 2^32 + (lo >>> 0)`; `hi` must lie in [-2^21, 2^21). */
  add(lo: number, hi: number): void {
    lo |= 0;
    hi |= 0;
    if (this.narrow && hi === lo >> 31) {
      if (lo === EMPTY_NARROW) this.hasMin = true;
      else if (this.insertNarrow(this.narrow, lo)) this.grown();
      return;
    }
    if (this.narrow) this.widen();
    if (this.insertWide(this.wide!, lo, hi)) this.grown();
  }

  /** Whether the value `hi * 2^32 + (lo >>> 0)` is in the set. */
  has(lo: number, hi: number): boolean {
    lo |= 0;
    hi |= 0;
    const n = this.narrow;
    if (n) {
      if (hi !== lo >> 31) return false;
      if (lo === EMPTY_NARROW) return this.hasMin;
      const mask = this.mask;
      for (let i = this.slot(lo, hi); ; i = (i + 1) & mask) {
        const k = n[i]!;
        if (k === lo) return true;
        if (k === EMPTY_NARROW) return false;
      }
    }
    const w = this.wide!;
    const v = hi * TWO_32 + (lo >>> 0);
    const mask = this.mask;
    for (let i = this.slot(lo, hi); ; i = (i + 1) & mask) {
      const k = w[i]!;
      if (k === v) return true;
      if (k !== k) return false; // NaN: a free slot ends the probe
    }
  }

  private slot(lo: number, hi: number): number {
    return Math.imul(lo ^ Math.imul(hi, MIX), GOLDEN) >>> this.shift;
  }

  /** Inserts a narrow key; true when it was new. */
  private insertNarrow(n: Int32Array, lo: number): boolean {
    const mask = this.mask;
    for (let i = this.slot(lo, lo >> 31); ; i = (i + 1) & mask) {
      const k = n[i]!;
      if (k === lo) return false;
      if (k === EMPTY_NARROW) {
        n[i] = lo;
        this.count++;
        return true;
      }
    }
  }

  private insertWide(w: Float64Array, lo: number, hi: number): boolean {
    const v = hi * TWO_32 + (lo >>> 0);
    const mask = this.mask;
    for (let i = this.slot(lo, hi); ; i = (i + 1) & mask) {
      const k = w[i]!;
      if (k === v) return false;
      if (k !== k) {
        w[i] = v;
        this.count++;
        return true;
      }
    }
  }

  /** After an insert: doubles the table once it is more than 3/4 full. */
  private grown(): void {
    const capacity = this.mask + 1;
    if (this.count * 4 > capacity * 3) this.rehash(capacity * 2, this.narrow !== undefined);
  }

  /** Moves to the wide table (same capacity), the int32 minimum included. */
  private widen(): void {
    this.rehash(this.mask + 1, false);
    if (this.hasMin) {
      this.hasMin = false;
      this.insertWide(this.wide!, EMPTY_NARROW, -1);
    }
  }

  private rehash(capacity: number, narrow: boolean): void {
    const oldNarrow = this.narrow;
    const oldWide = this.wide;
    this.mask = capacity - 1;
    this.shift = 32 - Math.log2(capacity);
    this.count = 0;
    this.narrow = narrow ? new Int32Array(capacity).fill(EMPTY_NARROW) : undefined;
    this.wide = narrow ? undefined : new Float64Array(capacity).fill(NaN);
    if (oldNarrow) {
      for (const k of oldNarrow) {
        if (k === EMPTY_NARROW) continue;
        if (narrow) this.insertNarrow(this.narrow!, k);
        else this.insertWide(this.wide!, k, k >> 31);
      }
    }
    if (oldWide) {
      for (const v of oldWide) {
        if (v !== v) continue;
        const hi = Math.floor(v / TWO_32);
        this.insertWide(this.wide!, (v - hi * TWO_32) | 0, hi);
      }
    }
  }
}
