/**
 * Write throughput on 1M rows × (long, double, string). Reports numbers only (no timed assertions).
 * Baseline: serialising the same Arrow table to Arrow IPC (no encoding, no compression) — the cost of
 * just moving the bytes, which parquet-wasm's path also pays once.
 */
import { describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import { arrowSchemaForIceberg, readParquetTable, writeParquet } from '../../connectors/formats/parquet/index.js';

const N = 1_000_000;

function buildTable(): arrow.Table {
  const schema = arrowSchemaForIceberg([
    { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
    { id: 2, name: 'value', required: false, type: { kind: 'primitive', name: 'double' } },
    { id: 3, name: 'label', required: false, type: { kind: 'primitive', name: 'string' } },
  ]);
  const ids = new BigInt64Array(N);
  const vals = new Float64Array(N);
  const enc = new TextEncoder();
  const offsets = new Int32Array(N + 1);
  const parts: Uint8Array[] = [];
  let total = 0;
  for (let i = 0; i < N; i++) {
    ids[i] = BigInt(i) * 7919n;
    vals[i] = Math.sin(i) * 1000;
    const b = enc.encode(`label-${i % 5000}-${(i * 2654435761) % 1000003}`);
    parts.push(b);
    total += b.length;
    offsets[i + 1] = total;
  }
  const strBytes = new Uint8Array(total);
  parts.forEach((p, i) => strBytes.set(p, offsets[i]!));
  const children = [
    arrow.makeData({ type: new arrow.Int64(), length: N, data: ids }),
    arrow.makeData({ type: new arrow.Float64(), length: N, data: vals }),
    arrow.makeData({ type: new arrow.Utf8(), length: N, valueOffsets: offsets, data: strBytes }),
  ];
  const data = arrow.makeData({ type: new arrow.Struct(schema.fields), length: N, nullCount: 0, children });
  return new arrow.Table([new arrow.RecordBatch(schema, data)]);
}

describe('Parquet write throughput (report only)', () => {
  it('1M rows × (long, double, string)', async () => {
    const table = buildTable();
    const rawBytes = table.batches.reduce((s, b) => s + b.data.byteLength, 0);
    const mb = rawBytes / 1e6;
    const report: string[] = [`input: ${N} rows, ${mb.toFixed(1)} MB of Arrow buffers`];

    let t = performance.now();
    const ipc = arrow.tableToIPC(table, 'stream');
    let s = (performance.now() - t) / 1000;
    report.push(`baseline Arrow IPC serialise: ${s.toFixed(2)} s, ${(mb / s).toFixed(0)} MB/s, ${(N / s / 1e6).toFixed(2)} M rows/s (${(ipc.length / 1e6).toFixed(1)} MB)`);

    for (const codec of ['zstd', 'snappy'] as const) {
      t = performance.now();
      const out = await writeParquet(table, `bench-${codec}.parquet`, { codec });
      s = (performance.now() - t) / 1000;
      expect(out.rowCount).toBe(N);
      report.push(`parquet-wasm ${codec}: ${s.toFixed(2)} s, ${(mb / s).toFixed(0)} MB/s, ${(N / s / 1e6).toFixed(2)} M rows/s, file ${(out.bytes.length / 1e6).toFixed(1)} MB, ${out.footer.rowGroups.length} row group(s)`);
      if (codec === 'zstd') {
        t = performance.now();
        const back = await readParquetTable(out.bytes, 'bench');
        s = (performance.now() - t) / 1000;
        expect(back.numRows).toBe(N);
        report.push(`read back (zstd) to Arrow JS: ${s.toFixed(2)} s, ${(N / s / 1e6).toFixed(2)} M rows/s`);
      }
    }
    console.log(report.join('\n'));
  }, 120_000);
});
