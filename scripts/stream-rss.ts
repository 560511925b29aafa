/**
 * [stream] Peak RSS of one bin-pack rewrite (decode/encode path, stitching off) with output files streamed
 * to the store as their row groups are encoded vs buffered whole until finished — at a given target size.
 * Each case runs in its own process; peak RSS is the process's own VmHWM (bench/peak-rss.ts).
 *
 *   npx tsx scripts/stream-rss.ts build <dir> <files> <rowsPerFile>
 *   npx tsx scripts/stream-rss.ts run <dir> stream|buffer <targetBytes> [rowGroupBytes]   (on a fresh copy)
 */
import type { Field } from '../model/index.js';
import { ownPeakRssBytes } from '../bench/peak-rss.js';

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: false, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'region', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 3, name: 'note', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 4, name: 'amount', required: false, type: { kind: 'primitive', name: 'decimal', precision: 18, scale: 2 } },
  { id: 5, name: 'at', required: false, type: { kind: 'primitive', name: 'timestamptz' } },
  { id: 6, name: 'score', required: false, type: { kind: 'primitive', name: 'double' } },
];
const REGIONS = ['eu-west', 'eu-central', 'us-east', 'us-west', 'ap-south', 'ap-east'];

async function build(dir: string, files: number, rowsPerFile: number): Promise<void> {
  const { FileIO } = await import('../connectors/storage/file-io.js');
  const { appendRows, createIcebergTable } = await import('../connectors/iceberg/write-table.js');
  const io = new FileIO();
  await createIcebergTable(io, dir, { formatVersion: 2, fields: FIELDS });
  let seed = 7;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let f = 0; f < files; f++) {
    const rows = Array.from({ length: rowsPerFile }, (_, k) => {
      const id = f * rowsPerFile + k;
      const r = rand();
      return {
        id: BigInt(id),
        region: REGIONS[id % REGIONS.length],
        note: `order ${id} ${Math.floor(r * 1e12).toString(36)} ${Math.floor(rand() * 1e12).toString(36)}`,
        amount: `${Math.floor(r * 1e7)}.${String(id % 100).padStart(2, '0')}`,
        at: 1_700_000_000_000_000n + BigInt(id) * 1_000_003n,
        score: r * 1000,
      };
    });
    await appendRows(io, dir, rows);
  }
  io.destroy();
}

async function run(dir: string, mode: string, target: string, rowGroupBytes?: string): Promise<void> {
  const { openIcebergForWrite } = await import('../connectors/iceberg/open-for-write.js');
  const { compactIceberg } = await import('../src/orchestration/compact-iceberg.js');
  const opened = await openIcebergForWrite(dir, {});
  // the table's write.parquet.row-group-size-bytes for this run only (nothing is written to the table)
  if (rowGroupBytes)
    (opened.table.metadata.properties as Record<string, string>)['write.parquet.row-group-size-bytes'] = rowGroupBytes;
  // buffer: the same FileIO without its streaming upload, so the adapter buffers each output file whole
  const io =
    mode === 'buffer'
      ? (new Proxy(opened.io, {
          get: (t, p) => (p === 'openNew' ? undefined : (Reflect.get(t, p, t) as unknown)),
        }) as typeof opened.io)
      : opened.io;
  const t0 = performance.now();
  const report = await compactIceberg(opened.table, io, opened.ops!, {
    strategy: 'binpack',
    options: { 'min-input-files': '2', 'floe.rewrite.stitch.enabled': 'false', 'target-file-size-bytes': target },
  });
  const ms = performance.now() - t0;
  opened.files.destroy();
  if (report.failedTasks.length) throw new Error(`compaction failed: ${JSON.stringify(report.failedTasks)}`);
  process.stdout.write(
    `${JSON.stringify({ mode, target: Number(target), rowGroupBytes: Number(rowGroupBytes ?? 128 * 2 ** 20), ms: Math.round(ms), rows: report.rowsIn, bytesIn: report.bytesRead, bytesOut: report.bytesWritten, outputs: report.after?.dataFiles, peakRssMiB: +(ownPeakRssBytes() / 2 ** 20).toFixed(1) })}\n`,
  );
}

const [cmd, dir, a, b, c] = process.argv.slice(2);
if (cmd === 'build') await build(dir!, Number(a), Number(b));
else if (cmd === 'run') await run(dir!, a!, b!, c);
else throw new Error('usage: stream-rss.ts build <dir> <files> <rows> | run <dir> stream|buffer <targetBytes>');
