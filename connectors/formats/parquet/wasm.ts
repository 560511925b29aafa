/** The hand-off between Arrow JS and parquet-wasm (arrow-rs): Arrow IPC streams in both directions. */
import * as arrow from 'apache-arrow';
import * as pw from 'parquet-wasm';

export { pw };

export function toWasmTable(table: arrow.Table): pw.Table {
  return pw.Table.fromIPCStream(arrow.tableToIPC(table, 'stream'));
}

export function fromWasmTable(table: pw.Table): arrow.Table {
  return arrow.tableFromIPC(table.intoIPCStream());
}

/** Opens bytes with parquet-wasm's async reader, the one that honours column projection. */
export async function openWasmFile(bytes: Uint8Array): Promise<pw.ParquetFile> {
  return pw.ParquetFile.fromFile(new Blob([bytes]));
}
