/**
 * Puffin files (format/puffin-spec.md) and the `deletion-vector-v1` blob (spec §Deletion Vectors):
 *   blob = 4-byte BE length of (magic+vector) | magic D1 D3 39 64 | 64-bit portable Roaring | CRC-32 (BE) of magic+vector.
 * The 64-bit portable layout: 8-byte LE count of 32-bit bitmaps, then per bitmap a 4-byte LE key (the high
 * 32 bits) followed by a standard portable 32-bit Roaring bitmap (RoaringFormatSpec).
 */
import { crc32 } from '../formats/compression.js';
import { FloeError } from '../../util/errors.js';

const PUFFIN_MAGIC = [0x50, 0x46, 0x41, 0x31]; // "PFA1"
const DV_MAGIC = [0xd1, 0xd3, 0x39, 0x64];

export interface PuffinBlobMetadata {
  type: string;
  fields: number[];
  snapshotId: bigint;
  sequenceNumber: bigint;
  offset: number;
  length: number;
  compressionCodec?: string;
  properties: Record<string, string>;
}

export interface PuffinFooter {
  blobs: PuffinBlobMetadata[];
  properties: Record<string, string>;
}

function corrupt(file: string, msg: string): FloeError {
  return new FloeError('Corrupt', `corrupt Puffin file ${file}: ${msg}`, { context: { file } });
}

/** Parses the footer of a whole Puffin file. */
export function readPuffinFooter(bytes: Uint8Array, file: string): PuffinFooter {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 4 + 4 + 12 || !magicAt(buf, 0)) throw corrupt(file, 'missing PFA1 magic');
  const { footerStart, payloadSize, flags } = footerFrame(buf.subarray(buf.length - 12), buf.length, file);
  if (!magicAt(buf, footerStart)) throw corrupt(file, 'bad footer length');
  return parseFooterPayload(buf.subarray(footerStart + 4, footerStart + 4 + payloadSize), flags, footerStart, file);
}

/**
 * The footer read with three small ranged reads (head magic, 12-byte tail, footer), for readers that only
 * need a blob or two: `size` is the file size the manifest records.
 */
export async function readPuffinFooterRanged(
  read: (offset: number, length: number) => Promise<Uint8Array>,
  size: number,
  file: string,
): Promise<PuffinFooter> {
  if (size < 4 + 4 + 12) throw corrupt(file, `${size} bytes is too short for a Puffin file`);
  if (!magicAt(Buffer.from(await read(0, 4)), 0)) throw corrupt(file, 'missing PFA1 magic');
  const { footerStart, payloadSize, flags } = footerFrame(Buffer.from(await read(size - 12, 12)), size, file);
  const footer = Buffer.from(await read(footerStart, payloadSize + 4));
  if (!magicAt(footer, 0)) throw corrupt(file, 'bad footer length');
  return parseFooterPayload(footer.subarray(4), flags, footerStart, file);
}

function magicAt(buf: Buffer, off: number): boolean {
  return PUFFIN_MAGIC.every((m, i) => buf[off + i] === m);
}

/** From the last 12 bytes (payload size, flags, magic): where the footer starts. */
function footerFrame(
  tail: Buffer,
  size: number,
  file: string,
): { footerStart: number; payloadSize: number; flags: number } {
  if (tail.length !== 12 || !magicAt(tail, 8)) throw corrupt(file, 'missing PFA1 magic');
  const payloadSize = tail.readInt32LE(0);
  const flags = tail.readUInt32LE(4);
  const footerStart = size - 12 - payloadSize - 4;
  if (payloadSize < 0 || footerStart < 4) throw corrupt(file, 'bad footer length');
  if (flags & 1) {
    throw new FloeError('Unsupported', `Puffin file ${file}: LZ4-compressed footers are not supported`, {
      context: { file },
    });
  }
  return { footerStart, payloadSize, flags };
}

function parseFooterPayload(payload: Buffer, _flags: number, footerStart: number, file: string): PuffinFooter {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(payload.toString('utf8'));
  } catch (e) {
    throw corrupt(file, `footer is not JSON (${(e as Error).message})`);
  }
  if (!json || typeof json !== 'object' || (json.blobs !== undefined && !Array.isArray(json.blobs)))
    throw corrupt(file, 'footer has no blob list');
  const blobs = ((json.blobs as Record<string, unknown>[]) ?? []).map((b) => {
    const m: PuffinBlobMetadata = {
      type: String(b.type),
      fields: ((b.fields as unknown[]) ?? []).map(Number),
      snapshotId: BigInt(b['snapshot-id'] as number),
      sequenceNumber: BigInt(b['sequence-number'] as number),
      offset: Number(b.offset),
      length: Number(b.length),
      properties: (b.properties as Record<string, string>) ?? {},
    };
    // blobs lie between the leading magic and the footer
    if (
      !Number.isSafeInteger(m.offset) ||
      !Number.isSafeInteger(m.length) ||
      m.offset < 4 ||
      m.length < 0 ||
      m.offset + m.length > footerStart
    ) {
      throw corrupt(
        file,
        `blob at offset ${String(b.offset)} (length ${String(b.length)}) lies outside the blob area (4–${footerStart})`,
      );
    }
    if (typeof b['compression-codec'] === 'string') m.compressionCodec = b['compression-codec'];
    return m;
  });
  return { blobs, properties: (json.properties as Record<string, string>) ?? {} };
}

/** A deletion vector a manifest points at must be one of the blobs the file's footer lists. */
export function assertBlobListed(footer: PuffinFooter, offset: number, length: number, file: string): void {
  if (!footer.blobs.some((b) => b.offset === offset && b.length === length)) {
    throw corrupt(
      file,
      `its footer lists no blob at offset ${offset} with length ${length} (the manifest's deletion vector)`,
    );
  }
}

/** Decodes one deletion-vector-v1 blob into its sorted row positions. */
export function decodeDeletionVector(blob: Uint8Array, file: string): number[] {
  const buf = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  if (buf.length < 12) throw corrupt(file, `deletion vector blob of ${buf.length} bytes is too short`);
  const len = buf.readUInt32BE(0);
  if (len + 8 !== buf.length)
    throw corrupt(file, `deletion vector length ${len} does not match blob size ${buf.length}`);
  if (!DV_MAGIC.every((m, i) => buf[4 + i] === m)) throw corrupt(file, 'deletion vector magic D1D33964 missing');
  const body = buf.subarray(4, 4 + len);
  const expectedCrc = buf.readUInt32BE(4 + len);
  if (crc32(body) >>> 0 !== expectedCrc) throw corrupt(file, 'deletion vector CRC-32 mismatch');
  try {
    return decodeRoaring64(buf.subarray(8, 4 + len));
  } catch (e) {
    throw corrupt(file, `deletion vector bitmap: ${(e as Error).message}`);
  }
}

/** Portable 64-bit Roaring (the "Roaring64NavigableMap portable" layout Iceberg uses). */
export function decodeRoaring64(buf: Buffer): number[] {
  if (buf.length < 8) throw new Error('truncated bitmap count');
  const count = buf.readBigUInt64LE(0);
  if (count > 0xffffffffn) throw new Error(`implausible bitmap count ${count}`);
  let off = 8;
  const out: number[] = [];
  for (let i = 0; i < Number(count); i++) {
    if (off + 4 > buf.length) throw new Error('truncated bitmap key');
    const high = buf.readUInt32LE(off);
    off += 4;
    const { values, end } = decodeRoaring32(buf, off);
    off = end;
    const base = high * 2 ** 32;
    for (const v of values) out.push(base + v);
  }
  return out;
}

const SERIAL_COOKIE_NO_RUNCONTAINER = 12346;
const SERIAL_COOKIE = 12347;
const NO_OFFSET_THRESHOLD = 4;

/** Standard portable 32-bit Roaring bitmap starting at `start`; returns the values and the end offset. */
export function decodeRoaring32(buf: Buffer, start: number): { values: number[]; end: number } {
  let off = start;
  const need = (n: number): void => {
    if (off + n > buf.length) throw new Error('truncated 32-bit bitmap');
  };
  need(4);
  const cookie = buf.readUInt32LE(off);
  off += 4;
  let size: number;
  let runBits: Buffer | undefined;
  if ((cookie & 0xffff) === SERIAL_COOKIE) {
    size = (cookie >>> 16) + 1;
    const n = Math.ceil(size / 8);
    need(n);
    runBits = buf.subarray(off, off + n);
    off += n;
  } else if (cookie === SERIAL_COOKIE_NO_RUNCONTAINER) {
    need(4);
    size = buf.readUInt32LE(off);
    off += 4;
  } else {
    throw new Error(`unknown Roaring cookie ${cookie}`);
  }
  need(size * 4);
  const keys: number[] = [];
  const cards: number[] = [];
  for (let i = 0; i < size; i++) {
    keys.push(buf.readUInt16LE(off));
    cards.push(buf.readUInt16LE(off + 2) + 1);
    off += 4;
  }
  if (!runBits || size >= NO_OFFSET_THRESHOLD) {
    need(size * 4);
    off += size * 4; // container offsets: we read sequentially instead
  }
  const values: number[] = [];
  for (let i = 0; i < size; i++) {
    const hi = keys[i]! * 65536;
    const isRun = runBits !== undefined && (runBits[i >> 3]! & (1 << (i & 7))) !== 0;
    if (isRun) {
      need(2);
      const runs = buf.readUInt16LE(off);
      off += 2;
      need(runs * 4);
      for (let r = 0; r < runs; r++) {
        const s = buf.readUInt16LE(off);
        const l = buf.readUInt16LE(off + 2);
        off += 4;
        for (let v = s; v <= s + l; v++) values.push(hi + v);
      }
    } else if (cards[i]! <= 4096) {
      need(cards[i]! * 2);
      for (let k = 0; k < cards[i]!; k++) values.push(hi + buf.readUInt16LE(off + 2 * k));
      off += cards[i]! * 2;
    } else {
      need(8192);
      for (let w = 0; w < 2048; w++) {
        let word = buf.readUInt32LE(off + w * 4);
        while (word !== 0) {
          const bit = 31 - Math.clz32(word & -word);
          values.push(hi + w * 32 + bit);
          word &= word - 1;
        }
      }
      off += 8192;
    }
  }
  return { values, end: off };
}
