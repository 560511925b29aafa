/**
 * Dropping deleted rows from an Arrow table without going through JS values. The kept rows are found as
 * contiguous [start, end) ranges — the selection vector — and applied to each batch:
 * - few ranges (sparse or clustered deletes): zero-copy slices of the batch;
 * - many ranges (e.g. 5 % of rows deleted at random): one gather per column into a contiguous batch, by
 *   typed-array copies of whole ranges (fixed-width values, string bytes, list children) and bit copies for
 *   validity/booleans. Thousands of tiny slices would otherwise each cross to the encoder separately and
 *   make every row group tiny.
 * Exact for every type (decimals, nested, int64): values are copied as bits, never decoded.
 */
import * as arrow from 'apache-arrow';

type Range = [number, number];
/** A typed array of any element type (Arrow JS does not export its own alias). */
type AnyTypedArray = NodeJS.TypedArray;

/** Rows [0, numRows) minus `deleted` (positions relative to the table's first row) as [start, end) ranges. */
export function keptRanges(numRows: number, deleted: (pos: number) => boolean): Range[] {
  const ranges: Range[] = [];
  let start = -1;
  for (let i = 0; i < numRows; i++) {
    if (deleted(i)) {
      if (start >= 0) ranges.push([start, i]);
      start = -1;
    } else if (start < 0) {
      start = i;
    }
  }
  if (start >= 0) ranges.push([start, numRows]);
  return ranges;
}

/** Up to this many kept ranges per batch the result is zero-copy slices; beyond it, a gather. */
export const MAX_SLICES_PER_BATCH = 16;

export function dropRows(table: arrow.Table, deleted: (pos: number) => boolean): arrow.Table {
  const ranges = keptRanges(table.numRows, deleted);
  if (ranges.length === 1 && ranges[0]![0] === 0 && ranges[0]![1] === table.numRows) return table;
  if (ranges.length === 0) return table.slice(0, 0);
  const out: arrow.RecordBatch[] = [];
  let batchStart = 0;
  let r = 0;
  for (const batch of table.batches) {
    const batchEnd = batchStart + batch.numRows;
    const local: Range[] = [];
    while (r < ranges.length && ranges[r]![0] < batchEnd) {
      const [s, e] = ranges[r]!;
      local.push([Math.max(s, batchStart) - batchStart, Math.min(e, batchEnd) - batchStart]);
      if (e > batchEnd) break; // the range continues into the next batch
      r++;
    }
    batchStart = batchEnd;
    if (local.length === 0) continue;
    out.push(...selectRows(batch, local));
  }
  return new arrow.Table(table.schema, out);
}

function selectRows(batch: arrow.RecordBatch, ranges: Range[]): arrow.RecordBatch[] {
  if (ranges.length <= MAX_SLICES_PER_BATCH) return ranges.map(([s, e]) => batch.slice(s, e));
  const length = ranges.reduce((n, [s, e]) => n + e - s, 0);
  const data = gather(batch.data, ranges, length);
  if (!data) return ranges.map(([s, e]) => batch.slice(s, e)); // a type gather does not know: slices
  return [new arrow.RecordBatch(batch.schema, data as arrow.Data<arrow.Struct>)];
}

function gatherValidity(
  d: arrow.Data,
  ranges: Range[],
  length: number,
): { nullBitmap?: Uint8Array; nullCount: number } {
  if (d.nullCount === 0 || !d.nullBitmap || d.nullBitmap.byteLength === 0) return { nullCount: 0 };
  const bitmap = new Uint8Array((length + 7) >> 3);
  const kept = copyBits(d.nullBitmap, d.offset, ranges, bitmap);
  const nulls = length - kept;
  return nulls === 0 ? { nullCount: 0 } : { nullBitmap: bitmap, nullCount: nulls };
}

/**
 * Copies the bits of `ranges` (rows; bit `offset + row` of `bits`) to `out` from bit 0 on, returning how
 * many were set. Straight off the bitmap: a getValid() call per row cost more than the rest of the gather.
 */
function copyBits(bits: Uint8Array, offset: number, ranges: Range[], out: Uint8Array): number {
  let o = 0;
  let set = 0;
  for (let r = 0; r < ranges.length; r++) {
    const range = ranges[r]!;
    const end = range[1] + offset;
    for (let at = range[0] + offset; at < end; at++, o++) {
      if ((bits[at >> 3]! >> (at & 7)) & 1) {
        out[o >> 3]! |= 1 << (o & 7);
        set++;
      }
    }
  }
  return set;
}

type Offsets = Int32Array | BigInt64Array;

function newOffsets(like: Offsets, length: number): Offsets {
  return like instanceof BigInt64Array ? new BigInt64Array(length + 1) : new Int32Array(length + 1);
}

/** Ranges of at most this many elements are copied by a loop: a subarray per range costs more. */
const SHORT_COPY = 64;

/**
 * The elements of `values` as 32-bit words when they are a whole number of them (ints, floats, int64 and
 * decimals alike: bits, never boxed bigints), else bytes; with the words per element.
 */
function wordsOf(values: AnyTypedArray): { words: Int32Array | Uint8Array; per: number } {
  const b = values.BYTES_PER_ELEMENT;
  if (b % 4 === 0 && values.byteOffset % 4 === 0)
    return { words: new Int32Array(values.buffer, values.byteOffset, (values.byteLength / 4) | 0), per: b / 4 };
  return { words: new Uint8Array(values.buffer, values.byteOffset, values.byteLength), per: b };
}

/** Copies rows' values of a fixed-width buffer (`stride` elements per row; row 0 at element 0). */
function gatherFixed<T extends AnyTypedArray>(values: T, stride: number, ranges: Range[], length: number): T {
  const Ctor = values.constructor as new (n: number) => T;
  const out = new Ctor(length * stride);
  const src = wordsOf(values);
  const dst = wordsOf(out).words;
  const w = src.per * stride; // words per row
  let o = 0;
  for (let r = 0; r < ranges.length; r++) {
    const range = ranges[r]!;
    const from = range[0] * w;
    const to = range[1] * w;
    if (to - from <= SHORT_COPY) for (let i = from; i < to; i++) dst[o++] = src.words[i]!;
    else {
      dst.set(src.words.subarray(from, to), o);
      o += to - from;
    }
  }
  return out;
}

/** Variable-width values with 32-bit offsets: the bytes of each range, its offsets shifted by one delta. */
function gatherStrings32(
  offs: Int32Array,
  values: Uint8Array,
  ranges: Range[],
  outOffs: Int32Array,
  out: Uint8Array,
): void {
  let o = 0;
  let at = 0;
  for (let r = 0; r < ranges.length; r++) {
    const range = ranges[r]!;
    const e = range[1];
    const from = offs[range[0]]!;
    const to = offs[e]!;
    if (to - from <= SHORT_COPY) for (let i = from, j = at; i < to; i++, j++) out[j] = values[i]!;
    else out.set(values.subarray(from, to), at);
    const delta = at - from;
    for (let i = range[0]; i < e; i++) outOffs[++o] = offs[i + 1]! + delta;
    at += to - from;
  }
}

/** The same column holding only the rows in `ranges` (row indexes of `d`), or undefined for a type it does not know. */
function gather(d: arrow.Data, ranges: Range[], length: number): arrow.Data | undefined {
  const type = d.type as arrow.DataType;
  const validity = gatherValidity(d, ranges, length);
  const base = {
    length,
    nullCount: validity.nullCount,
    ...(validity.nullBitmap ? { nullBitmap: validity.nullBitmap } : {}),
  };
  switch (type.typeId) {
    case arrow.Type.Null:
      return arrow.makeData({ type: type as arrow.Null, length, nullCount: length });
    case arrow.Type.Bool: {
      // boolean values stay bit-packed at the data's offset when sliced
      const out = new Uint8Array((length + 7) >> 3);
      copyBits(d.values as Uint8Array, d.offset, ranges, out);
      return arrow.makeData({ type: type as arrow.Bool, ...base, data: out });
    }
    case arrow.Type.Utf8:
    case arrow.Type.Binary:
    case arrow.Type.LargeUtf8:
    case arrow.Type.LargeBinary: {
      const offs = d.valueOffsets as Offsets;
      const values = d.values as Uint8Array;
      const outOffs = newOffsets(offs, length);
      let bytes = 0;
      for (const [s, e] of ranges) bytes += Number(offs[e]!) - Number(offs[s]!);
      const out = new Uint8Array(bytes);
      if (offs instanceof Int32Array) gatherStrings32(offs, values, ranges, outOffs as Int32Array, out);
      else {
        let o = 0;
        let at = 0;
        for (const [s, e] of ranges) {
          const from = Number(offs[s]!);
          const to = Number(offs[e]!);
          out.set(values.subarray(from, to), at);
          for (let i = s; i < e; i++, o++) outOffs[o + 1] = BigInt(at + Number(offs[i + 1]!) - from);
          at += to - from;
        }
      }
      return arrow.makeData({ type: type as arrow.Utf8, ...base, valueOffsets: outOffs as Int32Array, data: out });
    }
    case arrow.Type.Struct: {
      const children: arrow.Data[] = [];
      for (const c of d.children) {
        const g = gather(c, ranges, length);
        if (!g) return undefined;
        children.push(g);
      }
      return arrow.makeData({ type: type as arrow.Struct, ...base, children });
    }
    case arrow.Type.List:
    case arrow.Type.Map: {
      // list offsets index the (unsliced) child: gather the child's ranges, rebase the offsets
      const offs = d.valueOffsets as Int32Array;
      const childRanges: Range[] = [];
      let childLength = 0;
      const outOffs = new Int32Array(length + 1);
      let o = 0;
      for (const [s, e] of ranges) {
        const from = offs[s]!;
        const to = offs[e]!;
        if (to > from) childRanges.push([from, to]);
        for (let i = s; i < e; i++, o++) outOffs[o + 1] = childLength + offs[i + 1]! - from;
        childLength += to - from;
      }
      const child = gather(d.children[0]!, childRanges, childLength);
      if (!child) return undefined;
      return arrow.makeData({ type: type as arrow.List, ...base, valueOffsets: outOffs, child });
    }
    case arrow.Type.FixedSizeList: {
      const size = (type as arrow.FixedSizeList).listSize;
      const child = gather(
        d.children[0]!,
        ranges.map(([s, e]) => [s * size, e * size] as Range),
        length * size,
      );
      if (!child) return undefined;
      return arrow.makeData({ type: type as arrow.FixedSizeList, ...base, child });
    }
    case arrow.Type.Dictionary: {
      const indices = gatherFixed(d.values as AnyTypedArray, d.stride, ranges, length);
      return arrow.makeData({
        type: type as arrow.Dictionary,
        ...base,
        data: indices as never,
        dictionary: d.dictionary!,
      });
    }
    default: {
      // fixed-width: ints, floats, dates, times, timestamps, decimals, fixed-size binary, intervals, durations
      if (d.children.length > 0 || d.valueOffsets || !ArrayBuffer.isView(d.values)) return undefined;
      const values = gatherFixed(d.values as AnyTypedArray, d.stride, ranges, length);
      return arrow.makeData({ type: type as arrow.Int, ...base, data: values as never });
    }
  }
}
