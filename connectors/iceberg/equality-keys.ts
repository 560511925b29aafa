/**
 * Equality-delete keys matched on the columns' stored values, with no JS value or string made per row:
 * each row's key is written as bytes straight from the Arrow buffers of its key columns into one scratch
 * buffer, hashed, and looked up in an open-addressing table over the delete side's key bytes. A hash hit
 * is confirmed by comparing the bytes, so a collision can only cost time, never delete a live row.
 *
 * Exact: both sides are cast to the same Iceberg types first (castToSchema), so equal values are stored
 * alike; a key's bytes are each non-null value in column order — fixed-width values as their bytes (int64,
 * timestamp_ns, decimal's 128-bit unscaled value, uuid, fixed), variable-width ones as a 4-byte length and
 * the bytes, booleans as one byte — then one tag per column (1 value, 0 null), which tells the parts apart.
 * NULL matches NULL (spec: "null matches null").
 * Floats compare as Java's Double.compare does (Iceberg's Comparators): every NaN equals every NaN (one
 * canonical NaN is written), -0.0 ≠ 0.0 (their bytes differ). A chunk whose layout this does not know
 * (dictionary, large offsets, views, nested) or whose types differ from the delete side's makes
 * add/match say false, and the caller keeps its text keys.
 */
import * as arrow from 'apache-arrow';

/**
 * A 32-bit hash of a key's bytes [0, len), also given as the little-endian 32-bit words over the same memory;
 * injectable so that tests can force every key to collide.
 */
export type KeyHash = (words: Int32Array, bytes: Uint8Array, len: number) => number;

/** MurmurHash3 (x86, 32-bit) of the key bytes, a word at a time. */
export const murmur3: KeyHash = (words, bytes, len) => {
  let h = 0x9747b28c;
  const n = len >> 2;
  for (let i = 0; i < n; i++) {
    let k = Math.imul(words[i]!, 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  for (let i = len - 1; i >= n << 2; i--) k = (k << 8) | bytes[i]!;
  if ((len & 3) !== 0) {
    k = Math.imul(k, 0xcc9e2d51);
    h ^= Math.imul((k << 15) | (k >>> 17), 0x1b873593);
  }
  h ^= len;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
};

/** Writes row `row`'s key bytes for one column at `at` of `out` (room is ensured); returns the end. */
type ColumnWriter = (row: number, out: Uint8Array, at: number) => number;

interface ChunkWriter {
  /** Upper bound of one row's key bytes over all columns. */
  maxRowBytes: number;
  columns: ColumnWriter[];
  /** Per column: whether a row's value is there (absent: no nulls in the chunk). */
  valid: (((row: number) => boolean) | undefined)[];
  /** One int64 or int32 column without nulls: its values as 32-bit words (the fast path). */
  words?: Int32Array;
  wide?: boolean;
}

const F64_NAN = new Uint8Array(new Float64Array([Number.NaN]).buffer);
const F32_NAN = new Uint8Array(new Float32Array([Number.NaN]).buffer);

function validity(d: arrow.Data): ((row: number) => boolean) | undefined {
  if (d.nullCount === 0) return undefined;
  const bits = d.nullBitmap;
  if (!bits || bits.byteLength === 0) return () => false; // no bitmap with nulls: all null (checked by the caller)
  const off = d.offset;
  return (row) => ((bits[(off + row) >> 3]! >> ((off + row) & 7)) & 1) === 1;
}

/**
 * The writer of one key column chunk's values (nothing for a null: its tag, written after all values, says
 * so), or undefined for a layout it does not know.
 */
function columnWriter(
  d: arrow.Data,
): { write: ColumnWriter; maxBytes: number; valid?: (row: number) => boolean } | undefined {
  if (d.typeId === arrow.Type.Null) return { maxBytes: 0, write: (_r, _out, at) => at, valid: () => false };
  if (d.nullCount > 0 && (!d.nullBitmap || d.nullBitmap.byteLength === 0) && d.nullCount !== d.length) return undefined;
  if (d.children.length > 0 || d.dictionary) return undefined;
  const valid = validity(d);
  const w = (maxBytes: number, write: ColumnWriter) => ({ maxBytes, write, ...(valid ? { valid } : {}) });
  if (d.typeId === arrow.Type.Bool) {
    const bits = d.values as Uint8Array;
    const off = d.offset;
    return w(1, (row, out, at) => {
      out[at] = (bits[(off + row) >> 3]! >> ((off + row) & 7)) & 1;
      return at + 1;
    });
  }
  if (d.typeId === arrow.Type.Utf8 || d.typeId === arrow.Type.Binary) {
    const offs = d.valueOffsets;
    if (!(offs instanceof Int32Array)) return undefined;
    const bytes = d.values as Uint8Array;
    return w(4 + (offs[d.length]! - offs[0]!), (row, out, at) => {
      const from = offs[row]!;
      const n = offs[row + 1]! - from;
      out[at] = n & 255;
      out[at + 1] = (n >>> 8) & 255;
      out[at + 2] = (n >>> 16) & 255;
      out[at + 3] = n >>> 24;
      for (let i = 0; i < n; i++) out[at + 4 + i] = bytes[from + i]!;
      return at + 4 + n;
    });
  }
  const values = d.values as unknown;
  if (d.valueOffsets || !ArrayBuffer.isView(values) || values instanceof DataView) return undefined;
  if (d.typeId === arrow.Type.Float) {
    if (!(values instanceof Float64Array || values instanceof Float32Array)) return undefined; // float16
    const width = values.BYTES_PER_ELEMENT;
    const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    const nan = width === 8 ? F64_NAN : F32_NAN;
    return w(width, (row, out, at) => {
      if (Number.isNaN(values[row]!)) out.set(nan, at);
      else for (let i = 0, s = row * width; i < width; i++) out[at + i] = raw[s + i]!;
      return at + width;
    });
  }
  // fixed width: ints, dates, times, timestamps (any unit: the stored integer), decimals, fixed, uuid
  const t = values as NodeJS.TypedArray;
  const width = t.BYTES_PER_ELEMENT * d.stride;
  const raw = new Uint8Array(t.buffer, t.byteOffset, t.byteLength);
  return w(width, (row, out, at) => {
    for (let i = 0, s = row * width; i < width; i++) out[at + i] = raw[s + i]!;
    return at + width;
  });
}

function chunkWriter(cols: readonly arrow.Data[]): ChunkWriter | undefined {
  const columns: ColumnWriter[] = [];
  const valid: (((row: number) => boolean) | undefined)[] = [];
  let maxRowBytes = cols.length; // the tags
  for (const c of cols) {
    const w = columnWriter(c);
    if (!w) return undefined;
    columns.push(w.write);
    valid.push(w.valid);
    maxRowBytes += w.maxBytes;
  }
  const out: ChunkWriter = { columns, maxRowBytes, valid };
  const only = cols[0]!;
  const v = only.values as unknown;
  if (cols.length === 1 && !valid[0] && only.typeId === arrow.Type.Int) {
    if (v instanceof BigInt64Array)
      [out.words, out.wide] = [new Int32Array(v.buffer, v.byteOffset, 2 * only.length), true];
    else if (v instanceof Int32Array) [out.words, out.wide] = [v, false];
  }
  return out;
}

/** What must agree between the delete side and the data side for their bytes to mean the same values. */
function signature(cols: readonly arrow.Data[]): string {
  return cols.map((c) => `${String(c.type)}/${c.stride}`).join('|');
}

export class EqualityKeySet {
  private arena = new Uint8Array(1024);
  private used = 0;
  /** Per key: where its bytes start and end in the arena, and its hash. */
  private starts = new Int32Array(64);
  private ends = new Int32Array(64);
  private hashes = new Int32Array(64);
  private count = 0;
  /** Open addressing, linear probing: key index + 1, 0 = empty; at most half full. */
  private slots = new Int32Array(128);
  /** One row's key bytes, and the same memory as words (for the hash). */
  private scratch = new Uint8Array(256);
  private scratchWords = new Int32Array(this.scratch.buffer);
  private types: string | undefined;

  constructor(private readonly hash: KeyHash = murmur3) {}

  get size(): number {
    return this.count;
  }

  /** Adds every row's key of a chunk of the key columns; false (nothing added) when its layout is unknown. */
  add(cols: readonly arrow.Data[]): boolean {
    const w = this.writerFor(cols);
    if (!w) return false;
    const n = cols[0]?.length ?? 0;
    for (let row = 0; row < n; row++) {
      const len = this.encode(w, row);
      const h = this.hash(this.scratchWords, this.scratch, len) | 0;
      if (this.find(h, len) < 0) this.insert(h, len);
    }
    return true;
  }

  /**
   * Sets `mask[first + i] = 1` for each row i of a chunk of the key columns whose key is in the set; false
   * (nothing set) when its layout is unknown or its types are not the delete side's.
   */
  match(cols: readonly arrow.Data[], first: number, mask: Uint8Array): boolean {
    const w = this.writerFor(cols);
    if (!w) return false;
    if (this.count === 0) return true;
    const n = cols[0]?.length ?? 0;
    const { hash, scratch, scratchWords } = this;
    if (w.words) {
      // the same bytes encode() writes (value, then tag 1), without a call per column
      const words = w.words;
      const len = w.wide ? 9 : 5;
      const step = w.wide ? 2 : 1;
      for (let row = 0, i = 0; row < n; row++, i += step) {
        scratchWords[0] = words[i]!;
        if (step === 2) scratchWords[1] = words[i + 1]!;
        scratch[len - 1] = 1;
        if (this.find(hash(scratchWords, scratch, len) | 0, len) >= 0) mask[first + row] = 1;
      }
      return true;
    }
    for (let row = 0; row < n; row++) {
      const len = this.encode(w, row);
      if (this.find(hash(scratchWords, scratch, len) | 0, len) >= 0) mask[first + row] = 1;
    }
    return true;
  }

  private writerFor(cols: readonly arrow.Data[]): ChunkWriter | undefined {
    if (cols.length === 0) return undefined;
    const sig = signature(cols);
    if (this.types !== undefined && this.types !== sig) return undefined;
    const w = chunkWriter(cols);
    if (!w) return undefined;
    this.types = sig;
    if (w.maxRowBytes > this.scratch.length)
      this.scratch = new Uint8Array(Math.max(w.maxRowBytes, 2 * this.scratch.length));
    return w;
  }

  /** Row `row`'s key into the scratch: each present value's bytes, then one tag per column (1 value, 0 null). */
  private encode(w: ChunkWriter, row: number): number {
    let at = 0;
    const out = this.scratch;
    const cols = w.columns.length;
    for (let c = 0; c < cols; c++) {
      const valid = w.valid[c];
      if (!valid || valid(row)) at = w.columns[c]!(row, out, at);
    }
    for (let c = 0; c < cols; c++) {
      const valid = w.valid[c];
      out[at++] = !valid || valid(row) ? 1 : 0;
    }
    return at;
  }

  /** The index of the key equal to scratch[0, len) with hash h, or -1. */
  private find(h: number, len: number): number {
    const { slots, hashes, starts, ends, arena, scratch } = this;
    const m = slots.length - 1;
    for (let s = h & m; ; s = (s + 1) & m) {
      const e = slots[s]!;
      if (e === 0) return -1;
      const k = e - 1;
      if (hashes[k] !== h) continue;
      const a = starts[k]!;
      if (ends[k]! - a !== len) continue;
      let same = true;
      for (let i = 0; i < len; i++) {
        if (arena[a + i] !== scratch[i]) {
          same = false;
          break;
        }
      }
      if (same) return k;
    }
  }

  private insert(h: number, len: number): void {
    if (this.used + len > this.arena.length) {
      const a = new Uint8Array(Math.max(2 * this.arena.length, this.used + len));
      a.set(this.arena.subarray(0, this.used));
      this.arena = a;
    }
    if (this.count === this.starts.length) {
      const grow = (x: Int32Array) => {
        const y = new Int32Array(2 * x.length);
        y.set(x);
        return y;
      };
      this.starts = grow(this.starts);
      this.ends = grow(this.ends);
      this.hashes = grow(this.hashes);
    }
    const k = this.count++;
    this.arena.set(this.scratch.subarray(0, len), this.used);
    this.starts[k] = this.used;
    this.ends[k] = this.used + len;
    this.hashes[k] = h;
    this.used += len;
    if (2 * this.count > this.slots.length) this.rehash();
    else this.place(k);
  }

  private place(k: number): void {
    const m = this.slots.length - 1;
    let s = this.hashes[k]! & m;
    while (this.slots[s] !== 0) s = (s + 1) & m;
    this.slots[s] = k + 1;
  }

  private rehash(): void {
    this.slots = new Int32Array(2 * this.slots.length);
    for (let k = 0; k < this.count; k++) this.place(k);
  }
}
