/**
 * [stream] Streamed Parquet output: a writer with a sink hands each encoded row group on as soon as it is
 * encoded, holds back only the footer, and produces exactly the bytes the buffering writer produces.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import {
  ParquetWriter,
  arrowSchemaForIceberg,
  parquetCodec,
  readParquetFooter,
  readParquetTable,
  rowsFromArrow,
  tableFromRows,
  type StreamedParquet,
  type WrittenParquet,
} from '../../../connectors/formats/parquet/index.js';
import { LocalObjectStore } from '../../../connectors/storage/local-store.js';
import { MemoryObjectStore } from '../../../connectors/storage/memory-store.js';
import { openUploadWriter } from '../../../connectors/storage/object-store.js';
import { executeTasks, type OutputStream, type RewriteAdapter } from '../../../src/core/execution/executor.js';
import type { RewriteTask } from '../../../src/core/planning/plan.js';
import type { Field } from '../../../model/index.js';
import { isFloeError } from '../../../util/errors.js';

const fields: Field[] = [
  { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'u', required: false, type: { kind: 'primitive', name: 'uuid' } },
  { id: 3, name: 's', required: false, type: { kind: 'primitive', name: 'string' } },
];
const schema = arrowSchemaForIceberg(fields);
const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const rows = (from: number, n: number) =>
  Array.from({ length: n }, (_, k) => ({ id: BigInt(from + k), u: uuid(from + k), s: `value ${(from + k) % 977}` }));
const batch = (from: number, n: number) => tableFromRows(schema, rows(from, n)) as arrow.Table;
const opts = { maxRowGroupRows: 5_000 };

describe('ParquetWriter with a sink', () => {
  it('streams row groups before the file is finished and writes the same bytes as the buffering writer', async () => {
    const chunks: Uint8Array[] = [];
    const streamed = new ParquetWriter(schema, 'streamed.parquet', opts, async (c) => void chunks.push(c.slice()));
    const buffered = new ParquetWriter(schema, 'buffered.parquet', opts);
    for (let b = 0; b < 6; b++) {
      await streamed.write(batch(b * 5_000, 5_000));
      await buffered.write(batch(b * 5_000, 5_000));
    }
    const beforeFinish = chunks.length;
    expect(beforeFinish).toBeGreaterThanOrEqual(4); // row groups left while later ones were still being written
    const s = await streamed.finishStreamed();
    const b = await buffered.finish();
    const bytes = Buffer.concat(chunks);
    expect(s.byteLength).toBe(bytes.byteLength);
    expect(Buffer.compare(bytes, Buffer.from(b.bytes))).toBe(0);
    expect(s.rowCount).toBe(30_000);
    expect(s.footer.rowGroups.length).toBe(6);
    expect(s.footer).toEqual({ ...readParquetFooter(b.bytes, 'streamed.parquet') });
    // (the buffered writer's bytes carry the UUID annotation, so identical bytes carry it too)
    const last = [...rowsFromArrow((await readParquetTable(bytes, 'x')).slice(29_999), fields)];
    expect(last).toEqual([{ id: 29_999n, u: uuid(29_999), s: `value ${29_999 % 977}` }]);
  });

  it('holds no closed row group back: the sink has every byte encoded so far, in chunks of at most 4 MiB', async () => {
    // issue 27's memory: a row group kept until the next one closes doubles a task's output memory
    const sizes: number[] = [];
    const big = { maxRowGroupRows: 100_000 };
    const w = new ParquetWriter(schema, 'big.parquet', big, async (c) => void sizes.push(c.byteLength));
    const noise = randomBytes(72 * 200_000).toString('base64'); // 96 incompressible characters a row
    const wide = (from: number, n: number) =>
      tableFromRows(
        schema,
        Array.from({ length: n }, (_, k) => ({
          id: BigInt(from + k),
          s: noise.slice((from + k) * 96, (from + k + 1) * 96),
        })),
      ) as arrow.Table;
    for (let b = 0; b < 4; b++) await w.write(wide(b * 50_000, 50_000)); // two row groups of 100,000 rows
    const sent = sizes.reduce((a, n) => a + n, 0);
    expect(sent).toBe(w.writtenBytes); // nothing encoded is waiting in the writer
    expect(sent).toBeGreaterThan(8 * 1024 * 1024); // the row groups are big enough to need segments
    // the native addon's drain segments (lib.rs DRAIN_SEGMENT); parquet-wasm chunks as it likes
    if (parquetCodec().name === 'native') expect(Math.max(...sizes)).toBeLessThanOrEqual(4 * 1024 * 1024);
    const s = await w.finishStreamed();
    expect(s.footer.rowGroups.length).toBe(2);
  });

  it('writes a valid empty file through the sink', async () => {
    const chunks: Uint8Array[] = [];
    const w = new ParquetWriter(schema, 'empty.parquet', opts, async (c) => void chunks.push(c));
    const s = await w.finishStreamed();
    const bytes = Buffer.concat(chunks);
    expect(s.rowCount).toBe(0);
    expect(readParquetFooter(bytes, 'empty.parquet').numRows).toBe(0);
  });

  it('fails the write (naming the file) when the sink fails', async () => {
    const w = new ParquetWriter(schema, 's3://b/t/data/x.parquet', opts, async () => {
      throw new Error('disk full');
    });
    const run = async () => {
      for (let b = 0; b < 6; b++) await w.write(batch(b * 5_000, 5_000));
      await w.finishStreamed();
    };
    await expect(run()).rejects.toThrow(/s3:\/\/b\/t\/data\/x\.parquet.*disk full/);
  });
});

const task: RewriteTask = {
  id: 't',
  kind: 'major',
  specId: 0,
  partition: [],
  inputs: [],
  deletes: [],
  removableDeletes: [],
  targetFileSizeBytes: 1 << 30,
  inputBytes: 0,
  trail: [],
};

/** An adapter whose outputs stream into `store` create-if-absent, like the Iceberg adapter's. */
function streamingAdapter(
  store: LocalObjectStore | MemoryObjectStore,
  batches: () => AsyncIterable<arrow.Table>,
  seen: { chunksBeforeComplete: number[] },
) {
  const a: RewriteAdapter<string, WrittenParquet, StreamedParquet> = {
    outputSchema: schema,
    newEncoder: (location, expectedRows, sink) => new ParquetWriter(schema, location, { expectedRows, ...opts }, sink),
    async *batches() {
      for await (const t of batches()) yield { table: t, estimatedBytes: 1 };
    },
    async storeOutput() {
      throw new Error('not used: the adapter streams');
    },
    async discardOutput(out) {
      await store.delete(out);
    },
    openOutput(_t, index): OutputStream<string, StreamedParquet> {
      const key = `data/out-${index}.parquet`;
      const up = openUploadWriter(store, key, { ifNoneMatch: '*' });
      let chunks = 0;
      return {
        location: key,
        write: (c) => {
          chunks++;
          return up.write(c);
        },
        complete: async (file) => {
          seen.chunksBeforeComplete.push(chunks);
          await up.close();
          return { out: key, bytes: file.byteLength };
        },
        abort: () => up.abort(),
      };
    },
  };
  return a;
}

describe('executor with a streaming adapter', () => {
  it('streams each output to the store and publishes it create-if-absent', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-stream-'));
    const store = new LocalObjectStore(dir, { fsync: false });
    const seen = { chunksBeforeComplete: [] as number[] };
    const r = await executeTasks(
      [task],
      streamingAdapter(
        store,
        async function* () {
          for (let b = 0; b < 4; b++) yield batch(b * 5_000, 5_000);
        },
        seen,
      ),
    );
    expect(r.failed).toEqual([]);
    expect(r.done[0]!.outputs).toEqual(['data/out-0.parquet']);
    expect(seen.chunksBeforeComplete[0]).toBeGreaterThanOrEqual(3); // row groups went out before the footer
    const bytes = readFileSync(path.join(dir, 'data/out-0.parquet'));
    expect(readParquetFooter(bytes, 'out').numRows).toBe(20_000);
    expect(r.done[0]!.bytesWritten).toBe(bytes.byteLength);
  });

  it('never replaces an object someone else created at the output key, and leaves no temp file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-stream-'));
    const store = new LocalObjectStore(dir, { fsync: false });
    await store.put('data/out-0.parquet', 'someone else');
    const r = await executeTasks(
      [task],
      streamingAdapter(
        store,
        async function* () {
          yield batch(0, 10_000);
        },
        { chunksBeforeComplete: [] },
      ),
    );
    expect(r.done).toEqual([]);
    expect(isFloeError(r.failed[0]!.error, 'PreconditionFailed')).toBe(true);
    expect(readFileSync(path.join(dir, 'data/out-0.parquet'), 'utf8')).toBe('someone else');
    expect(readdirSync(path.join(dir, 'data'))).toEqual(['out-0.parquet']);
  });

  it('aborts the open stream when the task fails: nothing is published', async () => {
    const store = new MemoryObjectStore();
    const r = await executeTasks(
      [task],
      streamingAdapter(
        store,
        async function* () {
          yield batch(0, 5_000);
          yield batch(5_000, 5_000);
          throw new Error('input file vanished');
        },
        { chunksBeforeComplete: [] },
      ),
    );
    expect(String(r.failed[0]!.error)).toMatch(/input file vanished/);
    expect(await store.exists('data/out-0.parquet')).toBe(false);
  });
});
