/**
 * ORC's generic compression: every stream and the footer/metadata (never the postscript) is cut into chunks,
 * each led by a 3-byte little-endian header holding (chunkLength * 2 + isOriginal). Each chunk is compressed
 * on its own, so chunks are decompressed one by one and concatenated.
 */
import { inflateRawSync } from 'node:zlib';
import { FloeError } from '../../../util/errors.js';
import { snappyUncompress, zstdDecompress } from '../compression.js';

/** `CompressionKind` from the ORC postscript. */
export const CompressionKind = { NONE: 0, ZLIB: 1, SNAPPY: 2, LZO: 3, LZ4: 4, ZSTD: 5 } as const;
const KIND_NAMES = ['NONE', 'ZLIB', 'SNAPPY', 'LZO', 'LZ4', 'ZSTD'];

export function compressionName(kind: number): string {
  return KIND_NAMES[kind] ?? `kind ${kind}`;
}

/** Throws Unsupported for kinds this reader cannot decompress (LZO, unknown). */
export function checkCompression(kind: number, file: string): void {
  if (kind === CompressionKind.LZO || kind < 0 || kind > 5) {
    throw new FloeError(
      'Unsupported',
      `ORC file ${file} uses compression ${compressionName(kind)}, which this reader cannot decompress`,
      {
        context: { file, compression: compressionName(kind) },
      },
    );
  }
}

function corrupt(file: string, what: string, msg: string, cause?: unknown): never {
  throw new FloeError('Corrupt', `corrupt ORC file ${file}: ${what}: ${msg}`, { context: { file }, cause });
}

/** Undoes the chunking and compression of one stream (or footer/metadata section). */
export function decompressOrc(
  kind: number,
  data: Uint8Array,
  blockSize: number,
  file: string,
  what: string,
): Uint8Array {
  if (kind === CompressionKind.NONE) return data;
  checkCompression(kind, file);
  const parts: Uint8Array[] = [];
  let total = 0;
  let pos = 0;
  while (pos < data.length) {
    if (pos + 3 > data.length) corrupt(file, what, 'truncated compression chunk header');
    const header = data[pos]! | (data[pos + 1]! << 8) | (data[pos + 2]! << 16);
    pos += 3;
    const len = header >>> 1;
    const original = (header & 1) === 1;
    if (pos + len > data.length) corrupt(file, what, `compression chunk of ${len} bytes runs past the end`);
    const chunk = data.subarray(pos, pos + len);
    pos += len;
    let out: Uint8Array;
    if (original) out = chunk;
    else {
      try {
        out = decompressChunk(kind, chunk, blockSize);
      } catch (e) {
        corrupt(
          file,
          what,
          `${compressionName(kind)} chunk does not decompress (${e instanceof Error ? e.message : String(e)})`,
          e,
        );
      }
    }
    parts.push(out);
    total += out.length;
  }
  if (parts.length === 1) return parts[0]!;
  const joined = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    joined.set(p, off);
    off += p.length;
  }
  return joined;
}

function decompressChunk(kind: number, chunk: Uint8Array, blockSize: number): Uint8Array {
  switch (kind) {
    case CompressionKind.ZLIB:
      return inflateRawSync(chunk); // raw deflate, no zlib header
    case CompressionKind.SNAPPY:
      return snappyUncompress(chunk);
    case CompressionKind.ZSTD:
      return zstdDecompress(chunk);
    case CompressionKind.LZ4:
      return lz4BlockDecompress(chunk, blockSize);
    default:
      throw new Error(`compression ${compressionName(kind)} not supported`);
  }
}

/**
 * LZ4 block format (no frame): sequences of [token][literal-length ext][literals][offset LE16][match-length ext].
 * ORC guarantees a chunk never expands past the compression block size, which bounds the output.
 */
export function lz4BlockDecompress(src: Uint8Array, maxOut: number): Uint8Array {
  const out = new Uint8Array(Math.max(maxOut, 0));
  let ip = 0;
  let op = 0;
  const extLength = (start: number): number => {
    let len = start;
    if (start === 15) {
      for (;;) {
        if (ip >= src.length) throw new Error('lz4: truncated length');
        const b = src[ip++]!;
        len += b;
        if (b !== 255) break;
      }
    }
    return len;
  };
  while (ip < src.length) {
    const token = src[ip++]!;
    const litLen = extLength(token >>> 4);
    if (ip + litLen > src.length) throw new Error('lz4: literals run past the input');
    if (op + litLen > out.length) throw new Error('lz4: output exceeds the compression block size');
    out.set(src.subarray(ip, ip + litLen), op);
    ip += litLen;
    op += litLen;
    if (ip >= src.length) break; // the last sequence has literals only
    if (ip + 2 > src.length) throw new Error('lz4: truncated match offset');
    const offset = src[ip]! | (src[ip + 1]! << 8);
    ip += 2;
    if (offset === 0 || offset > op) throw new Error('lz4: match offset out of range');
    const matchLen = extLength(token & 15) + 4;
    if (op + matchLen > out.length) throw new Error('lz4: output exceeds the compression block size');
    // byte by byte: a match may overlap the bytes it is producing
    for (let i = 0; i < matchLen; i++, op++) out[op] = out[op - offset]!;
  }
  return out.subarray(0, op);
}
