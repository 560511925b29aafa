/**
 * [stitch] What merging small row groups without a full decode could save, measured on a real table: for
 * every column chunk, whether it is dictionary-encoded (then a merge must rebuild one dictionary and
 * re-encode every page's indices: decompress, remap, recompress), and the time of just decompressing and
 * recompressing every page (zstd level 3) — the floor of such a merge — against floe's decode/encode
 * rewrite of the same files (parquet-wasm read + write, one output).
 *
 *   npx tsx scripts/stitch-merge-cost.ts <table data dir>
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js';
import { ensureZstdEncoder, zstdCompress, zstdDecompress } from '../connectors/formats/compression.js';
import { ParquetWriter, iterateRowGroups, readParquetFooter } from '../connectors/formats/parquet/index.js';

const walk = (d: string): string[] =>
  readdirSync(d).flatMap((n) => {
    const p = path.join(d, n);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.parquet') ? [p] : [];
  });
const files = walk(process.argv[2]!);
await ensureZstdEncoder();
let chunks = 0;
let dictChunks = 0;
let pages = 0;
let compressedBytes = 0;
let rowGroups = 0;
let rgBytes = 0;
const cpu = () => process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000;
let recompressMs = 0;
for (const f of files) {
  const bytes = new Uint8Array(readFileSync(f));
  const footer = readParquetFooter(bytes, f);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const rg of footer.rowGroups) {
    rowGroups++;
    rgBytes += rg.totalCompressedSize;
    for (const col of rg.columns) {
      chunks++;
      if (col.dictionaryPageOffset !== undefined || col.encodings.includes('RLE_DICTIONARY')) dictChunks++;
      const reader = { view, offset: col.startOffset };
      const end = col.startOffset + col.totalCompressedSize;
      while (reader.offset < end) {
        const h = deserializeTCompactProtocol(reader) as Record<string, unknown>;
        const size = Number(h.field_3);
        const body = bytes.subarray(reader.offset, reader.offset + size);
        reader.offset += size;
        pages++;
        compressedBytes += size;
        const t0 = cpu();
        zstdCompress(zstdDecompress(body), 3);
        recompressMs += cpu() - t0;
      }
    }
  }
}
// floe's decode/encode of the same files into one output
const t0 = cpu();
let writer: ParquetWriter | undefined;
for (const f of files) {
  const bytes = new Uint8Array(readFileSync(f));
  for await (const rg of iterateRowGroups(bytes, f)) {
    writer ??= new ParquetWriter(rg.table.schema, 'out.parquet', { codec: 'zstd' });
    await writer.write(rg.table);
  }
}
const out = await writer!.finish();
const rewriteMs = cpu() - t0;
console.log(
  JSON.stringify({
    files: files.length,
    rowGroups,
    meanRowGroupMiB: +(rgBytes / rowGroups / 2 ** 20).toFixed(2),
    chunks,
    dictionaryChunks: dictChunks,
    dictionaryShare: +(dictChunks / chunks).toFixed(3),
    pages,
    compressedMiB: +(compressedBytes / 2 ** 20).toFixed(1),
    zstdDecompressRecompressCpuMs: Math.round(recompressMs),
    decodeEncodeRewriteCpuMs: Math.round(rewriteMs),
    floorShareOfRewrite: +(recompressMs / rewriteMs).toFixed(2),
    outputMiB: +(out.bytes.byteLength / 2 ** 20).toFixed(1),
  }),
);
