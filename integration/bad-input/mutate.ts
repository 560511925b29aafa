/**
 * Deterministic ways of breaking a file: bytes (truncate, flip, overwrite), JSON documents (edit a parsed
 * copy), Avro containers (header, sync marker, blocks, or re-encoded records). All randomness comes from a
 * seeded generator, so a seed always yields the same corpus.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { readAvroContainer, writeAvroContainer } from '../../connectors/formats/avro.js';
import { parseJsonLossless, stringifyJsonLossless } from '../../util/json.js';

/** mulberry32: small, fast, good enough to pick offsets. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Mutation = (file: string) => void | Promise<void>;

export const truncateTo =
  (fraction: number): Mutation =>
  (file) => {
    const b = readFileSync(file);
    writeFileSync(file, b.subarray(0, Math.floor(b.length * fraction)));
  };
export const truncateBytes =
  (keep: number): Mutation =>
  (file) => {
    writeFileSync(file, readFileSync(file).subarray(0, keep));
  };
export const dropTail =
  (n: number): Mutation =>
  (file) => {
    const b = readFileSync(file);
    writeFileSync(file, b.subarray(0, Math.max(0, b.length - n)));
  };
export const replaceWith =
  (bytes: Uint8Array | string): Mutation =>
  (file) => {
    writeFileSync(file, bytes);
  };
/** Overwrites `bytes` at `offset` (negative: from the end). */
export const patchAt =
  (offset: number, bytes: number[]): Mutation =>
  (file) => {
    const b = Buffer.from(readFileSync(file));
    const at = offset < 0 ? b.length + offset : offset;
    for (let i = 0; i < bytes.length; i++) if (at + i >= 0 && at + i < b.length) b[at + i] = bytes[i]!;
    writeFileSync(file, b);
  };
/** XORs `count` bytes at seeded positions within [from, to) of the file (fractions of its length). */
export const flipBytes =
  (seed: number, count: number, from = 0, to = 1): Mutation =>
  (file) => {
    const b = Buffer.from(readFileSync(file));
    const r = rng(seed);
    const lo = Math.floor(b.length * from);
    const hi = Math.max(lo + 1, Math.floor(b.length * to));
    for (let i = 0; i < count; i++) {
      const at = lo + Math.floor(r() * (hi - lo));
      if (at < b.length) b[at] = b[at]! ^ (1 + Math.floor(r() * 255));
    }
    writeFileSync(file, b);
  };

// ------------------------------------------------------------------------------------------ JSON

export type Json = Record<string, unknown>;

/** Edits a parsed (lossless) copy of a JSON document and writes it back. */
export const editJson =
  (edit: (doc: Json) => void): Mutation =>
  (file) => {
    const doc = parseJsonLossless(readFileSync(file, 'utf8')) as Json;
    edit(doc);
    writeFileSync(file, stringifyJsonLossless(doc, 2));
  };
/** Replaces the text of the document (for values JSON.stringify cannot produce, e.g. 1e400). */
export const editText =
  (edit: (text: string) => string): Mutation =>
  (file) => {
    const before = readFileSync(file, 'utf8');
    const after = edit(before);
    if (after === before) throw new Error(`mutation did not change ${file}`);
    writeFileSync(file, after);
  };

// ------------------------------------------------------------------------------------------ Avro

const AVRO_MAGIC = [0x4f, 0x62, 0x6a, 0x01];

/** Byte range of the header's sync marker and of the first data block (after its two varints). */
function avroLayout(b: Buffer): { syncAt: number; firstBlockAt: number } {
  let pos = 4;
  const long = (): number => {
    let shift = 0;
    let result = 0;
    for (;;) {
      const x = b[pos++]!;
      result += (x & 0x7f) * 2 ** shift;
      if ((x & 0x80) === 0) break;
      shift += 7;
    }
    return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
  };
  for (;;) {
    let count = long();
    if (count === 0) break;
    if (count < 0) {
      count = -count;
      long();
    }
    for (let i = 0; i < count; i++) {
      const keyLength = long(); // (not `pos += long()`: that reads pos before long() moves it)
      pos += keyLength;
      const valueLength = long();
      pos += valueLength;
    }
  }
  return { syncAt: pos, firstBlockAt: pos + 16 };
}

export const avroBadMagic: Mutation = patchAt(0, [0x4f, 0x62, 0x6a, 0x02]);
export const avroNotAvro: Mutation = patchAt(0, [0x50, 0x41, 0x52, 0x31]);
/** The trailing sync marker (after the last block) no longer matches the header's. */
export const avroBadTrailingSync: Mutation = (file) => {
  const b = Buffer.from(readFileSync(file));
  b[b.length - 1] = b[b.length - 1]! ^ 0xff;
  writeFileSync(file, b);
};
/** The header's sync marker changed: every block's marker now mismatches. */
export const avroBadHeaderSync: Mutation = (file) => {
  const b = Buffer.from(readFileSync(file));
  const { syncAt } = avroLayout(b);
  b[syncAt + 3] = b[syncAt + 3]! ^ 0x5a;
  writeFileSync(file, b);
};
/** Only the header survives. */
export const avroHeaderOnlyPlusGarbage: Mutation = (file) => {
  const b = Buffer.from(readFileSync(file));
  const { firstBlockAt } = avroLayout(b);
  writeFileSync(file, Buffer.concat([b.subarray(0, firstBlockAt), Buffer.from([0x7f, 0x7f, 0x7f])]));
};
/** Flips bytes inside the first data block. */
export const avroCorruptBlock =
  (seed: number): Mutation =>
  (file) => {
    const b = Buffer.from(readFileSync(file));
    const { firstBlockAt } = avroLayout(b);
    const r = rng(seed);
    const span = b.length - 16 - firstBlockAt;
    for (let i = 0; i < 6; i++) {
      const at = firstBlockAt + 2 + Math.floor(r() * Math.max(1, span - 2));
      b[at] = b[at]! ^ (1 + Math.floor(r() * 255));
    }
    writeFileSync(file, b);
  };
/** The block's record count says far more records than the block holds. */
export const avroHugeBlockCount: Mutation = (file) => {
  const b = Buffer.from(readFileSync(file));
  const { firstBlockAt } = avroLayout(b);
  // count varint replaced by zig-zag(2^40): 9 bytes would shift the block; write it in place of count+size
  // by rebuilding: huge count, then the original size and the rest
  let pos = firstBlockAt;
  while (b[pos]! & 0x80) pos++;
  pos++;
  const huge = Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x40]); // zig-zag of 2^40 (varint 2^41)
  writeFileSync(file, Buffer.concat([b.subarray(0, firstBlockAt), huge, b.subarray(pos)]));
};
/** Renames the header's codec to one no reader knows (same length, so the layout stays). */
export const avroBadCodec: Mutation = (file) => {
  const b = Buffer.from(readFileSync(file));
  const key = Buffer.from('avro.codec');
  const at = b.indexOf(key);
  if (at < 0) throw new Error(`${file} has no avro.codec key`);
  const lenAt = at + key.length;
  const len = b[lenAt]! / 2;
  for (let i = 0; i < len; i++) b[lenAt + 1 + i] = 'qwertyuiop'.charCodeAt(i % 10);
  writeFileSync(file, b);
};
/** Re-encodes the container with edited records (same schema, header metadata and codec). */
export const editAvroRecords =
  (edit: (records: Json[]) => void): Mutation =>
  async (file) => {
    const c = readAvroContainer<Json>(readFileSync(file), file);
    edit(c.records);
    const codec = (['null', 'deflate', 'snappy', 'zstandard'].includes(c.codec) ? c.codec : 'deflate') as
      'null' | 'deflate';
    writeFileSync(file, await writeAvroContainer(c.schemaText, c.records, { codec, metadata: c.metadata }));
  };
export const AVRO = { magic: AVRO_MAGIC };
