/**
 * Writing Puffin files with `deletion-vector-v1` blobs — the inverse of puffin.ts (same layouts, see its
 * header). Java's reader takes the offset, length and `referenced-data-file` from the manifest entry and
 * checks the blob's length prefix, magic and CRC; the footer is what `puffin.ts` and other tools list.
 */
import { crc32 } from '../formats/compression.js';

const PUFFIN_MAGIC = Buffer.from([0x50, 0x46, 0x41, 0x31]); // "PFA1"
const DV_MAGIC = Buffer.from([0xd1, 0xd3, 0x39, 0x64]);
const SERIAL_COOKIE_NO_RUNCONTAINER = 12346;

/** Standard portable 32-bit Roaring bitmap (array and bitmap containers, no run containers). */
function encodeRoaring32(sorted: readonly number[]): Buffer {
  const containers: { key: number; values: number[] }[] = [];
  for (const v of sorted) {
    const key = v >>> 16;
    const last = containers[containers.length - 1];
    if (last && last.key === key) last.values.push(v & 0xffff);
    else containers.push({ key, values: [v & 0xffff] });
  }
  const n = containers.length;
  const header = Buffer.alloc(8 + n * 4 + n * 4);
  header.writeUInt32LE(SERIAL_COOKIE_NO_RUNCONTAINER, 0);
  header.writeUInt32LE(n, 4);
  const bodies: Buffer[] = [];
  let offset = header.length;
  containers.forEach((c, i) => {
    header.writeUInt16LE(c.key, 8 + i * 4);
    header.writeUInt16LE(c.values.length - 1, 8 + i * 4 + 2);
    header.writeUInt32LE(offset, 8 + n * 4 + i * 4);
    let body: Buffer;
    if (c.values.length <= 4096) {
      body = Buffer.alloc(c.values.length * 2);
      c.values.forEach((x, k) => body.writeUInt16LE(x, k * 2));
    } else {
      body = Buffer.alloc(8192);
      for (const x of c.values) body[x >>> 3] = body[x >>> 3]! | (1 << (x & 7));
    }
    bodies.push(body);
    offset += body.length;
  });
  return Buffer.concat([header, ...bodies]);
}

/** The 64-bit portable layout Iceberg uses: LE count of 32-bit bitmaps, then (LE high key, bitmap) pairs. */
function encodeRoaring64(sorted: readonly number[]): Buffer {
  const groups: { high: number; lows: number[] }[] = [];
  for (const v of sorted) {
    const high = Math.floor(v / 2 ** 32);
    const low = v - high * 2 ** 32;
    const last = groups[groups.length - 1];
    if (last && last.high === high) last.lows.push(low);
    else groups.push({ high, lows: [low] });
  }
  const count = Buffer.alloc(8);
  count.writeBigUInt64LE(BigInt(groups.length));
  const parts: Buffer[] = [count];
  for (const g of groups) {
    const key = Buffer.alloc(4);
    key.writeUInt32LE(g.high);
    parts.push(key, encodeRoaring32(g.lows));
  }
  return Buffer.concat(parts);
}

/** One `deletion-vector-v1` blob for these row positions (any order, duplicates ignored). */
export function encodeDeletionVector(positions: Iterable<number>): Buffer {
  const sorted = [...new Set(positions)].sort((a, b) => a - b);
  for (const p of sorted) {
    if (!Number.isSafeInteger(p) || p < 0)
      throw new RangeError(`deletion vector position ${p} is not a non-negative integer`);
  }
  const body = Buffer.concat([DV_MAGIC, encodeRoaring64(sorted)]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([len, body, crc]);
}

export interface DeletionVectorInput {
  referencedDataFile: string;
  positions: Iterable<number>;
}

export interface WrittenDeletionVector {
  referencedDataFile: string;
  /** Byte offset of the blob in the Puffin file (the manifest's `content_offset`). */
  contentOffset: number;
  /** The manifest's `content_size_in_bytes`. */
  contentSizeBytes: number;
  cardinality: number;
}

/** A whole Puffin file holding one DV blob per input, and where each blob lies in it. */
export function writeDeletionVectorPuffin(
  dvs: readonly DeletionVectorInput[],
  createdBy = 'floe',
): { bytes: Buffer; blobs: WrittenDeletionVector[] } {
  const parts: Buffer[] = [PUFFIN_MAGIC];
  let offset = PUFFIN_MAGIC.length;
  const blobs: WrittenDeletionVector[] = [];
  const meta: Record<string, unknown>[] = [];
  for (const dv of dvs) {
    const positions = [...new Set(dv.positions)];
    const blob = encodeDeletionVector(positions);
    blobs.push({
      referencedDataFile: dv.referencedDataFile,
      contentOffset: offset,
      contentSizeBytes: blob.length,
      cardinality: positions.length,
    });
    meta.push({
      type: 'deletion-vector-v1',
      fields: [2147483645], // the reserved _pos field, as Java writes it
      'snapshot-id': -1,
      'sequence-number': -1,
      offset,
      length: blob.length,
      properties: { 'referenced-data-file': dv.referencedDataFile, cardinality: String(positions.length) },
    });
    parts.push(blob);
    offset += blob.length;
  }
  const payload = Buffer.from(JSON.stringify({ blobs: meta, properties: { 'created-by': createdBy } }), 'utf8');
  const tail = Buffer.alloc(8);
  tail.writeInt32LE(payload.length, 0);
  tail.writeUInt32LE(0, 4); // flags: footer not compressed
  parts.push(PUFFIN_MAGIC, payload, tail, PUFFIN_MAGIC);
  return { bytes: Buffer.concat(parts), blobs };
}
