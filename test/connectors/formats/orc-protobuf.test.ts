/**
 * The tiny protobuf decoder behind the ORC tail, and ORC's compression chunk framing. Wire bytes come from the
 * protobuf encoding guide's examples (150 = 08 96 01; "testing"; packed [3, 270, 86942]) and the ORC spec's
 * chunk-header examples; the rest are built by hand from the wire format.
 */
import { describe, expect, it } from 'vitest';
import { deflateRawSync } from 'node:zlib';
import { isFloeError } from '../../../util/errors.js';
import { Proto, parseMessage, readVarint } from '../../../connectors/formats/orc/protobuf.js';
import { CompressionKind, decompressOrc, lz4BlockDecompress } from '../../../connectors/formats/orc/compression.js';
import { parsePostScript } from '../../../connectors/formats/orc/tail.js';
import { ensureZstdEncoder, snappyCompress, zstdCompress } from '../../../connectors/formats/compression.js';

const u8 = (...b: number[]) => Uint8Array.from(b);
const ascii = (s: string) => Array.from(Buffer.from(s, 'latin1'));

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('protobuf wire decoding', () => {
  it('varints per the spec table', () => {
    const cases: [number[], bigint][] = [
      [[0x00], 0n],
      [[0x01], 1n],
      [[0x7f], 127n],
      [[0x80, 0x01], 128n],
      [[0xff, 0x7f], 16383n],
      [[0x80, 0x80, 0x01], 16384n],
    ];
    for (const [bytes, v] of cases) expect(readVarint(Uint8Array.from(bytes), 0, 'f', 'x')).toEqual([v, bytes.length]);
    const max = u8(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    expect(readVarint(max, 0, 'f', 'x')[0]).toBe(2n ** 64n - 1n);
  });

  it('field 1 = 150 is 08 96 01; field 2 = "testing" is 12 07 …', () => {
    const p = new Proto(u8(0x08, 0x96, 0x01, 0x12, 0x07, ...ascii('testing')), 'f.orc', 'msg');
    expect(p.uint(1)).toBe(150);
    expect(p.string(2)).toBe('testing');
    expect(p.uint(3)).toBeUndefined();
    expect(p.uint(3, 7)).toBe(7);
  });

  it('packed repeated [3, 270, 86942] is 22 06 03 8E 02 9E A7 05; unpacked reads the same', () => {
    const packed = new Proto(u8(0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05), 'f.orc', 'msg');
    expect(packed.repeatedUints(4)).toEqual([3, 270, 86942]);
    const unpacked = new Proto(u8(0x20, 0x03, 0x20, 0x8e, 0x02, 0x20, 0x9e, 0xa7, 0x05), 'f.orc', 'msg');
    expect(unpacked.repeatedUints(4)).toEqual([3, 270, 86942]);
  });

  it('nested and repeated messages, sint64 zig-zag, skipped fixed32/fixed64 fields, last value wins', () => {
    // field 3 (msg){field 1 = 5}, field 3 (msg){field 1 = 6}, field 9 fixed64, field 10 fixed32, field 2 sint 3 (-2), field 2 again 4 (2)
    const bytes = u8(
      0x1a,
      0x02,
      0x08,
      0x05,
      0x1a,
      0x02,
      0x08,
      0x06,
      0x49,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      0x55,
      1,
      2,
      3,
      4,
      0x10,
      0x03,
      0x10,
      0x04,
    );
    const p = new Proto(bytes, 'f.orc', 'msg');
    expect(p.repeatedMessages(3, 'inner').map((m) => m.uint(1))).toEqual([5, 6]);
    expect(p.sint64(2)).toBe(2n);
    expect(parseMessage(bytes, 'f.orc', 'msg').get(9)![0]).toMatchObject({ wire: 1 });
  });

  it('malformed messages are Corrupt naming the file', () => {
    for (const bad of [
      u8(0x12, 0x07, 0x61),
      u8(0x08),
      u8(0x08, 0x80),
      u8(0x0b, 0x00),
      u8(0x49, 1, 2),
      u8(0x00, 0x01),
    ]) {
      const err = thrown(() => parseMessage(bad, 'broken.orc', 'footer'));
      expect(isFloeError(err, 'Corrupt'), Buffer.from(bad).toString('hex')).toBe(true);
      expect((err as Error).message).toMatch(/broken\.orc/);
    }
    // a string where a varint belongs
    expect(
      isFloeError(
        thrown(() => new Proto(u8(0x0a, 0x00), 'broken.orc', 'ps').uint(1)),
        'Corrupt',
      ),
    ).toBe(true);
  });

  it('parses a hand-encoded postscript', () => {
    // footerLength 300 (08 ac 02), compression ZSTD (10 05), block 262144 (18 80 80 10), version [0,12] packed (22 02 00 0c),
    // metadataLength 0 (28 00), magic "ORC" as field 8000 (key 8000<<3|2 = 64002 = 82 f4 03)
    const ps = u8(
      0x08,
      0xac,
      0x02,
      0x10,
      0x05,
      0x18,
      0x80,
      0x80,
      0x10,
      0x22,
      0x02,
      0x00,
      0x0c,
      0x28,
      0x00,
      0x82,
      0xf4,
      0x03,
      0x03,
      ...ascii('ORC'),
    );
    expect(parsePostScript(ps, 'p.orc')).toEqual({
      footerLength: 300,
      compression: 5,
      compressionBlockSize: 262144,
      version: [0, 12],
      metadataLength: 0,
    });
    const noMagic = ps.subarray(0, ps.length - 6);
    expect(
      isFloeError(
        thrown(() => parsePostScript(noMagic, 'p.orc')),
        'Corrupt',
      ),
    ).toBe(true);
  });
});

describe('ORC compression chunks', () => {
  const text = Buffer.from('Paimon manifests in ORC, Paimon manifests in ORC, Paimon manifests in ORC!');
  const chunk = (body: Uint8Array, original = false) => {
    const h = body.length * 2 + (original ? 1 : 0);
    return Buffer.concat([u8(h & 0xff, (h >> 8) & 0xff, h >> 16), body]);
  };

  it('spec header examples: 5 original bytes = [0x0b, 0x00, 0x00]; 100000 compressed = [0x40, 0x0d, 0x03]', () => {
    const original = u8(0x0b, 0x00, 0x00, 1, 2, 3, 4, 5);
    expect(Array.from(decompressOrc(CompressionKind.ZLIB, original, 262144, 'c.orc', 'footer'))).toEqual([
      1, 2, 3, 4, 5,
    ]);
    const err = thrown(() =>
      decompressOrc(CompressionKind.ZLIB, u8(0x40, 0x0d, 0x03, 0x00), 262144, 'c.orc', 'footer'),
    );
    expect(isFloeError(err, 'Corrupt')).toBe(true);
    expect((err as Error).message).toMatch(/c\.orc.*100000 bytes/);
  });

  it('NONE passes bytes through; ZLIB is raw deflate; SNAPPY; ZSTD; chunks concatenate', async () => {
    expect(decompressOrc(CompressionKind.NONE, text, 0, 'c.orc', 's')).toBe(text);
    const half = text.length >> 1;
    const zlib = Buffer.concat([
      chunk(deflateRawSync(text.subarray(0, half))),
      chunk(deflateRawSync(text.subarray(half))),
    ]);
    expect(Buffer.from(decompressOrc(CompressionKind.ZLIB, zlib, 262144, 'c.orc', 's'))).toEqual(text);
    expect(
      Buffer.from(decompressOrc(CompressionKind.SNAPPY, chunk(snappyCompress(text)), 262144, 'c.orc', 's')),
    ).toEqual(text);
    await ensureZstdEncoder();
    const mixed = Buffer.concat([chunk(zstdCompress(text.subarray(0, half))), chunk(text.subarray(half), true)]);
    expect(Buffer.from(decompressOrc(CompressionKind.ZSTD, mixed, 262144, 'c.orc', 's'))).toEqual(text);
  });

  it('LZ4 block: literals, an overlapping match, trailing literals (hand-built per the LZ4 block format)', () => {
    // token 0x35: 3 literals "abc", match length 5+4 = 9 at offset 3; then token 0x10: 1 literal "x"
    const block = u8(0x35, ...ascii('abc'), 0x03, 0x00, 0x10, ...ascii('x'));
    expect(Buffer.from(lz4BlockDecompress(block, 64)).toString('latin1')).toBe('abcabcabcabcx');
    expect(Buffer.from(decompressOrc(CompressionKind.LZ4, chunk(block), 64, 'c.orc', 's')).toString('latin1')).toBe(
      'abcabcabcabcx',
    );
    // literal length 15 + extension byte 5 = 20
    const long = u8(0xf0, 0x05, ...ascii('abcdefghijklmnopqrst'));
    expect(Buffer.from(lz4BlockDecompress(long, 64)).toString('latin1')).toBe('abcdefghijklmnopqrst');
  });

  it('bad chunks are Corrupt naming the file; LZO is Unsupported', () => {
    const cases: [number, Uint8Array][] = [
      [CompressionKind.ZLIB, chunk(u8(0xff, 0xff, 0xff))],
      [CompressionKind.ZSTD, chunk(u8(1, 2, 3, 4, 5))],
      [CompressionKind.SNAPPY, chunk(u8(0xff, 0xff, 0xff, 0xff, 0xff, 0x0f))],
      [CompressionKind.LZ4, chunk(u8(0x05, 0x61, 0x09, 0x00))], // match offset before the start
      [CompressionKind.ZLIB, u8(0x0b, 0x00)], // truncated header
    ];
    for (const [kind, data] of cases) {
      const err = thrown(() => decompressOrc(kind, data, 64, 'bad.orc', 'stripe 0 footer'));
      expect(isFloeError(err, 'Corrupt'), `kind ${kind}`).toBe(true);
      expect((err as Error).message).toMatch(/bad\.orc/);
    }
    const lzo = thrown(() => decompressOrc(CompressionKind.LZO, chunk(u8(1)), 64, 'lzo.orc', 'footer'));
    expect(isFloeError(lzo, 'Unsupported')).toBe(true);
    expect((lzo as Error).message).toMatch(/lzo\.orc.*LZO/);
  });
});
