/**
 * Buffer-level conversions of Arrow's large and view layouts into the plain 32-bit-offset layouts floe
 * writes (Parquet stores all of them as BYTE_ARRAY / LIST, so nothing is lost). pyarrow — and so every
 * PyIceberg-written file, via its embedded ARROW:schema — hands back large_string / large_binary /
 * large_list; these functions touch only offsets and bytes, never build per-value JS strings.
 */
import * as arrow from 'apache-arrow';
import { FloeError } from '../../../util/errors.js';

const MAX_INT32 = 2 ** 31 - 1;

/** 64-bit offsets of rows [0, length] as 32-bit offsets rebased to start at 0, plus the covered range. */
function narrowOffsets(data: arrow.Data, where: string): { offsets: Int32Array; first: number; last: number } {
  const wide = data.valueOffsets as unknown as BigInt64Array | Int32Array;
  const n = data.length;
  const first = Number(wide[0] ?? 0);
  const last = Number(wide[n] ?? 0);
  if (last - first > MAX_INT32) {
    throw new FloeError('Unsupported', `${where}: ${last - first} bytes/values in one batch exceed 32-bit offsets`);
  }
  const offsets = new Int32Array(n + 1);
  if (wide instanceof BigInt64Array && first >= 0 && last <= MAX_INT32) {
    // offsets are non-decreasing, so every one fits in its low 32 bits (little-endian): no BigInt per value
    const low = new Int32Array(wide.buffer, wide.byteOffset, 2 * (n + 1));
    for (let i = 0; i <= n; i++) offsets[i] = low[2 * i]! - first;
  } else if (wide instanceof BigInt64Array) {
    const base = BigInt(first);
    for (let i = 0; i <= n; i++) offsets[i] = Number(wide[i]! - base);
  } else {
    for (let i = 0; i <= n; i++) offsets[i] = wide[i]! - first;
  }
  return { offsets, first, last };
}

/** LargeUtf8 → Utf8, LargeBinary → Binary: new offsets, the value bytes shared (a subarray). */
export function narrowLargeBytes(data: arrow.Data, target: arrow.DataType, where: string): arrow.Data {
  const { offsets, first, last } = narrowOffsets(data, where);
  const bytes = (data.values as Uint8Array).subarray(first, last);
  return new arrow.Data(target, data.offset, data.length, data.nullCount, [offsets, bytes, data.nullBitmap] as never);
}

/** LargeList → List: new offsets, the child sliced to the covered range (zero-copy); `cast` converts the child. */
export function narrowLargeList(
  data: arrow.Data,
  target: arrow.DataType,
  where: string,
  cast: (child: arrow.Data) => arrow.Data,
): arrow.Data {
  const { offsets, first, last } = narrowOffsets(data, where);
  const child = cast(data.children[0]!.slice(first, last - first));
  return new arrow.Data(
    target,
    data.offset,
    data.length,
    data.nullCount,
    [offsets, undefined, data.nullBitmap] as never,
    [child],
  );
}

const VIEW_SIZE = 16;
const VIEW_INLINE = 12;

/** Utf8View → Utf8, BinaryView → Binary: one pass copying bytes out of the views into one contiguous buffer. */
export function viewToContiguous(data: arrow.Data, target: arrow.DataType, where: string): arrow.Data {
  const views = data.values as Uint8Array;
  const dv = new DataView(views.buffer, views.byteOffset, views.byteLength);
  const n = data.length;
  const offsets = new Int32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += Math.max(0, dv.getInt32(i * VIEW_SIZE, true));
    if (total > MAX_INT32) throw new FloeError('Unsupported', `${where}: more than 2 GiB of bytes in one batch`);
    offsets[i + 1] = total;
  }
  const out = new Uint8Array(total);
  const variadic = data.variadicBuffers ?? [];
  for (let i = 0; i < n; i++) {
    const size = offsets[i + 1]! - offsets[i]!;
    if (size === 0) continue;
    const at = i * VIEW_SIZE;
    if (size <= VIEW_INLINE) {
      out.set(views.subarray(at + 4, at + 4 + size), offsets[i]!);
    } else {
      const buffer = variadic[dv.getInt32(at + 8, true)];
      if (!buffer) throw new FloeError('Corrupt', `${where}: view points at a missing data buffer`);
      const off = dv.getInt32(at + 12, true);
      out.set(buffer.subarray(off, off + size), offsets[i]!);
    }
  }
  return new arrow.Data(target, data.offset, n, data.nullCount, [offsets, out, data.nullBitmap] as never);
}

/**
 * Dictionary<int, Utf8|Binary|Large*> → the plain type by gathering value bytes (no JS strings); the
 * dictionary is first brought to 32-bit offsets. Returns undefined for other value types.
 */
export function decodeByteDictionary(data: arrow.Data, target: arrow.DataType, where: string): arrow.Data | undefined {
  const isBytes = (t: arrow.DataType) =>
    arrow.DataType.isUtf8(t) ||
    arrow.DataType.isBinary(t) ||
    arrow.DataType.isLargeUtf8(t) ||
    arrow.DataType.isLargeBinary(t);
  let dict = data.dictionary?.data[0];
  if (
    !dict ||
    data.dictionary!.data.length !== 1 ||
    !isBytes(dict.type) ||
    !(arrow.DataType.isUtf8(target) || arrow.DataType.isBinary(target))
  )
    return undefined;
  if (arrow.DataType.isLargeUtf8(dict.type) || arrow.DataType.isLargeBinary(dict.type))
    dict = narrowLargeBytes(dict, target, where);
  const dOffsets = dict.valueOffsets as Int32Array;
  const dBytes = dict.values as Uint8Array;
  const indices = data.values as ArrayLike<number | bigint>;
  const n = data.length;
  const offsets = new Int32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (data.getValid(i)) {
      const k = Number(indices[i]!);
      total += dOffsets[k + 1]! - dOffsets[k]!;
      if (total > MAX_INT32) throw new FloeError('Unsupported', `${where}: more than 2 GiB of bytes in one batch`);
    }
    offsets[i + 1] = total;
  }
  const out = new Uint8Array(total);
  for (let i = 0; i < n; i++) {
    if (offsets[i + 1] === offsets[i]) continue;
    const k = Number(indices[i]!);
    out.set(dBytes.subarray(dOffsets[k]!, dOffsets[k + 1]!), offsets[i]!);
  }
  return new arrow.Data(target, data.offset, n, data.nullCount, [offsets, out, data.nullBitmap] as never);
}
