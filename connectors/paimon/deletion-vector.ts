/**
 * Paimon deletion vectors (`deletionvectors/DeletionVector.read`, `BitmapDeletionVector`,
 * `Bitmap64DeletionVector`). An index file of type DELETION_VECTORS is: 1 version byte, then per data file
 * a 4-byte big-endian length, the DV bytes, and a 4-byte CRC. The index manifest's range offset points at
 * the length field; the range length is the DV byte count (magic included).
 *
 *  - 32-bit DV: magic 1581511376 as a big-endian int, then a portable RoaringBitmap.
 *  - 64-bit DV (`deletion-vectors.bitmap64`): magic 1681511377 as a little-endian int, then a
 *    little-endian long bitmap count and per bitmap a little-endian int high key + a portable RoaringBitmap.
 */
import { FloeError } from '../../util/errors.js';

export const DV_MAGIC_32 = 1581511376;
export const DV_MAGIC_64 = 1681511377;

const SERIAL_COOKIE_NO_RUNCONTAINER = 12346;
const SERIAL_COOKIE = 12347;
const NO_OFFSET_THRESHOLD = 4;

function corrupt(file: string, msg: string): never {
  throw new FloeError('Corrupt', `corrupt deletion vector in ${file}: ${msg}`, { context: { file } });
}

/**
 * Decodes a portable 32-bit RoaringBitmap (the format shared by Java/C/Go roaring) into sorted positions.
 * Returns the values and the number of bytes consumed.
 */
export function readPortableRoaring(buf: Uint8Array, file: string, start = 0): { values: number[]; bytesRead: number } {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let pos = start;
  const need = (n: number) => {
    if (pos + n > buf.length) corrupt(file, `roaring bitmap truncated at byte ${pos}`);
  };
  need(4);
  const cookie = view.getUint32(pos, true);
  pos += 4;
  let size: number;
  let runFlags: Uint8Array | undefined;
  if ((cookie & 0xffff) === SERIAL_COOKIE) {
    size = (cookie >>> 16) + 1;
    const n = (size + 7) >> 3;
    need(n);
    runFlags = buf.subarray(pos, pos + n);
    pos += n;
  } else if (cookie === SERIAL_COOKIE_NO_RUNCONTAINER) {
    need(4);
    size = view.getUint32(pos, true);
    pos += 4;
  } else {
    corrupt(file, `bad roaring cookie ${cookie}`);
  }
  if (size > 65536) corrupt(file, `roaring bitmap claims ${size} containers`);
  need(4 * size);
  const keys: number[] = [];
  const cards: number[] = [];
  for (let i = 0; i < size; i++) {
    keys.push(view.getUint16(pos, true));
    cards.push(view.getUint16(pos + 2, true) + 1);
    pos += 4;
  }
  if (!runFlags || size >= NO_OFFSET_THRESHOLD) {
    need(4 * size);
    pos += 4 * size; // container offsets: redundant for a sequential read
  }
  const values: number[] = [];
  for (let i = 0; i < size; i++) {
    const high = keys[i]! * 65536;
    const isRun = runFlags ? (runFlags[i >> 3]! & (1 << (i & 7))) !== 0 : false;
    if (isRun) {
      need(2);
      const runs = view.getUint16(pos, true);
      pos += 2;
      need(4 * runs);
      for (let r = 0; r < runs; r++) {
        const s = view.getUint16(pos, true);
        const len = view.getUint16(pos + 2, true);
        pos += 4;
        for (let v = s; v <= s + len; v++) values.push(high + v);
      }
    } else if (cards[i]! > 4096) {
      need(8192);
      for (let w = 0; w < 1024; w++) {
        let word = view.getUint32(pos + w * 8, true);
        let word2 = view.getUint32(pos + w * 8 + 4, true);
        for (let b = 0; word !== 0 && b < 32; b++, word >>>= 1) if (word & 1) values.push(high + w * 64 + b);
        for (let b = 32; word2 !== 0 && b < 64; b++, word2 >>>= 1) if (word2 & 1) values.push(high + w * 64 + b);
      }
      pos += 8192;
    } else {
      need(2 * cards[i]!);
      for (let k = 0; k < cards[i]!; k++) values.push(high + view.getUint16(pos + 2 * k, true));
      pos += 2 * cards[i]!;
    }
  }
  return { values, bytesRead: pos - start };
}

/**
 * Reads one DV from an index file's bytes: `offset` is the position of the length field, `length` the
 * expected DV byte count (from the index manifest). Returns the deleted row positions, ascending.
 */
export function readDeletionVector(
  indexFile: Uint8Array,
  offset: number,
  length: number | undefined,
  file: string,
): number[] {
  const view = new DataView(indexFile.buffer, indexFile.byteOffset, indexFile.byteLength);
  if (offset + 8 > indexFile.length) corrupt(file, `offset ${offset} is past the end (${indexFile.length} bytes)`);
  const size = view.getInt32(offset, false);
  const magicBE = view.getInt32(offset + 4, false);
  const magicLE = view.getInt32(offset + 4, true);
  const body = offset + 8;
  const bodyEnd = offset + 4 + size;
  if (size < 4 || bodyEnd > indexFile.length) corrupt(file, `DV at ${offset} has length ${size} beyond the file`);
  if (magicBE === DV_MAGIC_32) {
    if (length !== undefined && size !== length)
      corrupt(file, `DV at ${offset}: length ${size}, manifest says ${length}`);
    const { values } = readPortableRoaring(indexFile.subarray(0, bodyEnd), file, body);
    return values;
  }
  if (magicLE === DV_MAGIC_64) {
    // For 64-bit DVs the manifest length also counts the length field and the CRC.
    if (length !== undefined && size !== length - 8)
      corrupt(file, `DV at ${offset}: length ${size}, manifest says ${length}`);
    if (body + 8 > bodyEnd) corrupt(file, `64-bit DV at ${offset} truncated`);
    const count = Number(view.getBigInt64(body, true));
    let pos = body + 8;
    const out: number[] = [];
    for (let i = 0; i < count; i++) {
      if (pos + 4 > bodyEnd) corrupt(file, `64-bit DV at ${offset} truncated`);
      const highKey = view.getUint32(pos, true);
      const { values, bytesRead } = readPortableRoaring(indexFile.subarray(0, bodyEnd), file, pos + 4);
      pos += 4 + bytesRead;
      for (const v of values) out.push(highKey * 2 ** 32 + v);
    }
    return out;
  }
  corrupt(file, `DV at ${offset} has unknown magic ${magicBE}`);
}
