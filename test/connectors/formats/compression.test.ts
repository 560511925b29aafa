/**
 * connectors/formats/compression.ts, the one block-codec module (Avro containers, ORC chunks): its snappy and
 * zstd decoders read streams written by hand from the format specs (not by the library under test), refuse
 * corrupt input with an error rather than garbage or a huge allocation, and the encoders round-trip.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  compressAvroBlock,
  decompressAvroBlock,
  ensureZstdEncoder,
  snappyCompress,
  snappyUncompress,
  zstdCompress,
  zstdDecompress,
} from '../../../connectors/formats/compression.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('snappy (raw format)', () => {
  // preamble 12, literal of 4 ("abcd"), copy-1 of length 8 at offset 4 → "abcd" three times
  const handWritten = Uint8Array.from([0x0c, 0x0c, 0x61, 0x62, 0x63, 0x64, 0x11, 0x04]);

  it('decodes a stream written by hand from the format description', () => {
    expect(Buffer.from(snappyUncompress(handWritten)).toString()).toBe('abcdabcdabcd');
  });

  it('round-trips, empty input included', () => {
    const data = text('floe compacts tables; '.repeat(5000));
    expect(Buffer.from(snappyUncompress(snappyCompress(data))).equals(Buffer.from(data))).toBe(true);
    expect(snappyUncompress(snappyCompress(new Uint8Array(0))).length).toBe(0);
  });

  it('refuses a length preamble no stream of that size can expand to, before reserving memory', () => {
    // preamble 0xffffffff (5 bytes) followed by 3 bytes of data
    const bogus = Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, 0x61, 0x62]);
    expect(() => snappyUncompress(bogus)).toThrow(/impossible/);
    expect(() => snappyUncompress(Uint8Array.from([0x80, 0x80]))).toThrow(/preamble/);
  });

  it('refuses a stream that ends before its preamble says', () => {
    expect(() => snappyUncompress(handWritten.subarray(0, 5))).toThrow();
  });

  it("Avro's snappy framing checks the CRC of the plain bytes", () => {
    const block = compressAvroBlock('snappy', text('hello avro'));
    expect(Buffer.from(decompressAvroBlock('snappy', block)).toString()).toBe('hello avro');
    block[block.length - 1] ^= 0xff;
    expect(() => decompressAvroBlock('snappy', block)).toThrow(/CRC/);
  });
});

describe('zstd', () => {
  beforeAll(ensureZstdEncoder);

  it('round-trips through the encoder and the decoder', () => {
    const data = text('manifest entry '.repeat(10_000));
    expect(Buffer.from(zstdDecompress(zstdCompress(data))).equals(Buffer.from(data))).toBe(true);
  });

  it('decodes a frame without a content size larger than 1 MiB (as Java stream writers produce)', () => {
    // zstd frame: magic, descriptor 0 (no content size, not single-segment), window 2^17, then raw blocks
    // of 128 KiB (header: size << 3 | type raw (0) << 1 | last), no checksum
    const blockSize = 128 * 1024;
    const blocks = 12;
    const plain = new Uint8Array(blockSize * blocks).map((_, i) => (i * 7) % 256);
    const parts: Uint8Array[] = [Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38])];
    for (let b = 0; b < blocks; b++) {
      const h = (blockSize << 3) | (b === blocks - 1 ? 1 : 0);
      parts.push(Uint8Array.from([h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff]));
      parts.push(plain.subarray(b * blockSize, (b + 1) * blockSize));
    }
    const frame = Buffer.concat(parts);
    expect(Buffer.from(zstdDecompress(frame)).equals(Buffer.from(plain))).toBe(true);
  });

  it('refuses a truncated frame', () => {
    const frame = zstdCompress(text('x'.repeat(1000) + 'y'.repeat(1000)));
    expect(() => zstdDecompress(frame.subarray(0, frame.length - 3))).toThrow();
  });
});
