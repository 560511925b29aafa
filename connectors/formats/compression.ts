/**
 * Block codecs shared by the Avro container reader/writer and the ORC reader: deflate (Iceberg Java's default
 * manifest codec), zstandard (Paimon's default), snappy (Avro framing: raw snappy + big-endian CRC32 of the
 * plain bytes). One implementation per codec: the zstd decoder (fzstd) and the snappy codec (hysnappy) are the
 * ones hyparquet-compressors bundles for Parquet pages; only the zstd encoder is separate (@bokuweb/zstd-wasm),
 * because fzstd cannot compress and Node 20's zlib has no zstd.
 */
import { deflateRawSync, inflateRawSync, crc32 as zlibCrc32 } from 'node:zlib';
import { createRequire } from 'node:module';
import { decompress as fzstdDecompress } from 'fzstd';
import { snappyCompressor, snappyUncompressor } from 'hysnappy';

const require = createRequire(import.meta.url);

interface ZstdWasm {
  init(): Promise<void>;
  compress(buf: Uint8Array, level?: number): Uint8Array;
}
let zstdWasm: ZstdWasm | undefined;

/** The zstd encoder is WASM and needs one async initialisation per process. */
export async function ensureZstdEncoder(): Promise<void> {
  if (zstdWasm) return;
  const mod = require('@bokuweb/zstd-wasm') as ZstdWasm;
  await mod.init();
  zstdWasm = mod;
}

export function zstdCompress(data: Uint8Array, level = 3): Uint8Array {
  if (!zstdWasm) throw new Error('zstd encoder not initialised: call ensureZstdEncoder() first');
  return zstdWasm.compress(data, level);
}

/** fzstd streams, so it also reads frames without a content size (what Java's ZstdOutputStream writes). */
export function zstdDecompress(data: Uint8Array): Uint8Array {
  return fzstdDecompress(data);
}

// hysnappy compiles its WASM synchronously; one instance each way per process.
let snappyEncoder: ((input: Uint8Array) => Uint8Array) | undefined;
let snappyDecoder: ((input: Uint8Array, outputLength: number) => Uint8Array) | undefined;

/** Raw snappy (no framing). */
export function snappyCompress(data: Uint8Array): Uint8Array {
  return (snappyEncoder ??= snappyCompressor())(data);
}

/**
 * Raw snappy: the varint preamble gives the plain length, which hysnappy needs up front (it does not check it
 * itself). A tag expands 3 input bytes to at most 64, so a preamble far beyond that is corruption, refused
 * before any memory is reserved for it.
 */
export function snappyUncompress(data: Uint8Array): Uint8Array {
  let length = 0;
  let i = 0;
  for (let shift = 0; ; shift += 7, i++) {
    if (i >= data.length || i >= 5) throw new Error('snappy: bad length preamble');
    const b = data[i]!;
    length += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) break;
  }
  if (length > 0xffffffff || length > (data.length - i) * 22 + 64) {
    throw new Error(`snappy: length preamble ${length} is impossible for ${data.length} compressed bytes`);
  }
  return (snappyDecoder ??= snappyUncompressor())(data, length);
}

/** CRC-32 (IEEE), as Avro's snappy framing requires. */
export function crc32(data: Uint8Array): number {
  if (typeof zlibCrc32 === 'function') return zlibCrc32(data) >>> 0;
  return crc32Table(data);
}

let table: Uint32Array | undefined;
function crc32Table(data: Uint8Array): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export type AvroCodec = 'null' | 'deflate' | 'zstandard' | 'snappy';

export function decompressAvroBlock(codec: string, data: Uint8Array): Uint8Array {
  switch (codec) {
    case 'null':
      return data;
    case 'deflate':
      return inflateRawSync(data);
    case 'zstandard':
      return zstdDecompress(data);
    case 'snappy': {
      if (data.length < 4) throw new Error('snappy block shorter than its CRC');
      const body = snappyUncompress(data.subarray(0, data.length - 4));
      const view = new DataView(data.buffer, data.byteOffset + data.length - 4, 4);
      if (view.getUint32(0, false) !== crc32(body)) throw new Error('snappy block CRC mismatch');
      return body;
    }
    default:
      throw new Error(`unsupported Avro codec '${codec}'`);
  }
}

export function compressAvroBlock(codec: AvroCodec, data: Uint8Array, level?: number): Uint8Array {
  switch (codec) {
    case 'null':
      return data;
    case 'deflate':
      return deflateRawSync(data, level === undefined ? {} : { level });
    case 'zstandard':
      return zstdCompress(data, level);
    case 'snappy': {
      const body = snappyCompress(data);
      const out = new Uint8Array(body.length + 4);
      out.set(body, 0);
      new DataView(out.buffer).setUint32(body.length, crc32(data), false);
      return out;
    }
  }
}
