/**
 * A cheap structural check of a Parquet file's pages before its bytes go to parquet-wasm: every column chunk
 * must lie inside the file and be a sequence of readable page headers whose sizes add up to the chunk. A
 * corrupt page header makes arrow-rs trap ("unreachable") inside an async callback, which no caller can catch
 * and which ends the process; this walk turns that into a Corrupt error naming the file. Only headers are
 * parsed (no decompression), so it costs a few bytes per page.
 */
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js';
import { FloeError } from '../../../util/errors.js';
import type { ParquetFooter } from './types.js';

const PAGE_TYPES = 4; // DATA_PAGE, INDEX_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2

function corrupt(file: string, detail: string): FloeError {
  return new FloeError('Corrupt', `Parquet file ${file} is corrupt: ${detail}`, { context: { file } });
}

export function assertPageHeadersReadable(
  bytes: Uint8Array,
  footer: ParquetFooter,
  file: string,
  rowGroups?: readonly number[],
): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const footerStart = bytes.byteLength - 8 - view.getUint32(bytes.byteLength - 8, true);
  const groups = rowGroups ?? footer.rowGroups.map((_, i) => i);
  for (const g of groups) {
    const rg = footer.rowGroups[g];
    if (!rg) continue;
    for (const col of rg.columns) {
      const where = `row group ${g}, column ${col.path.join('.')}`;
      const start = col.startOffset;
      const end = start + col.totalCompressedSize;
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 4 || end > footerStart) {
        throw corrupt(file, `${where} claims bytes ${start}–${end}, outside the data area (4–${footerStart})`);
      }
      const reader = { view, offset: start };
      let pages = 0;
      while (reader.offset < end) {
        let header: Record<string, unknown>;
        try {
          header = deserializeTCompactProtocol(reader) as Record<string, unknown>;
        } catch (e) {
          throw corrupt(file, `unreadable page header at byte ${reader.offset} (${where}): ${(e as Error).message}`);
        }
        const type = Number(header.field_1);
        const uncompressed = Number(header.field_2);
        const compressed = Number(header.field_3);
        if (!Number.isInteger(type) || type < 0 || type >= PAGE_TYPES || !(uncompressed >= 0) || !(compressed >= 0)) {
          throw corrupt(file, `malformed page header before byte ${reader.offset} (${where})`);
        }
        reader.offset += compressed;
        if (reader.offset > end) throw corrupt(file, `a page of ${where} runs past the end of its column chunk`);
        pages++;
      }
      if (pages === 0 && col.numValues > 0) throw corrupt(file, `${where} has values but no pages`);
    }
  }
}
