/**
 * The executor's side of stitching: a stitched task stores the adapter's files and never decodes; a task
 * the adapter gives up on halfway has what it stored discarded and is rewritten by decode/encode.
 */
import { describe, expect, it } from 'vitest';
import type * as arrow from 'apache-arrow';
import { executeTasks, type RewriteAdapter, type StitchResult } from '../../../src/core/execution/executor.js';
import type { RewriteTask } from '../../../src/core/planning/plan.js';
import {
  ParquetWriter,
  arrowSchemaForIceberg,
  tableFromRows,
  writeParquet,
  type StreamedParquet,
  type WrittenParquet,
} from '../../../connectors/formats/parquet/index.js';
import type { ProgressEvent } from '../../../src/core/execution/events.js';

const schema = arrowSchemaForIceberg([{ id: 1, name: 'a', required: true, type: { kind: 'primitive', name: 'long' } }]);
const task: RewriteTask = {
  id: 't',
  kind: 'binpack',
  specId: 0,
  partition: [],
  inputs: [],
  deletes: [],
  removableDeletes: [],
  targetFileSizeBytes: 1 << 30,
  inputBytes: 0,
  trail: [],
};

function adapter(stitch: (store: (f: WrittenParquet) => Promise<void>) => Promise<StitchResult>) {
  const stored: string[] = [];
  const discarded: string[] = [];
  let batchesRead = 0;
  const a: RewriteAdapter<string, WrittenParquet, StreamedParquet> = {
    outputSchema: schema,
    newEncoder: (location, expectedRows, sink) => new ParquetWriter(schema, location, { expectedRows }, sink),
    async *batches() {
      batchesRead++;
      yield { table: tableFromRows(schema, [{ a: 1n }, { a: 2n }]) as arrow.Table, estimatedBytes: 16 };
    },
    async storeOutput(_t, index, file) {
      const name = `out-${index}-${file.rowCount}`;
      stored.push(name);
      return { out: name, location: name, bytes: file.bytes.byteLength };
    },
    async discardOutput(out) {
      discarded.push(out);
    },
    stitch: (_t, _s, store) => stitch(store),
  };
  return { a, stored, discarded, batches: () => batchesRead };
}

describe('executor with a stitching adapter', () => {
  it('uses the stitched outputs and says so', async () => {
    const file = await writeParquet(tableFromRows(schema, [{ a: 5n }]), 'x');
    const x = adapter(async (store) => {
      await store(file);
      return { stitched: true, rowGroups: 1 };
    });
    const events: ProgressEvent[] = [];
    const r = await executeTasks([task], x.a, { onProgress: (e) => events.push(e) });
    expect(r.failed).toEqual([]);
    expect(r.done[0]!.stitched).toBe(true);
    expect(r.done[0]!.outputs).toEqual(['out-0-1']);
    expect(x.batches()).toBe(0);
    expect(events.some((e) => e.type === 'message' && /stitched 1 row group/.test(e.text))).toBe(true);
  });

  it('discards what a failed attempt stored and rewrites, under fresh output names', async () => {
    const file = await writeParquet(tableFromRows(schema, [{ a: 5n }]), 'x');
    const x = adapter(async (store) => {
      await store(file);
      return { stitched: false, reason: 'pages do not match', explain: true };
    });
    const events: ProgressEvent[] = [];
    const r = await executeTasks([task], x.a, { onProgress: (e) => events.push(e) });
    expect(r.failed).toEqual([]);
    expect(x.discarded).toEqual(['out-0-1']);
    expect(r.done[0]!.stitched).toBeUndefined();
    expect(r.done[0]!.outputs).toEqual(['out-1-2']); // the decode/encode output, not reusing index 0
    expect(r.done[0]!.rowsOut).toBe(2);
    expect(x.batches()).toBe(1);
    expect(events.some((e) => e.type === 'message' && /not stitched \(pages do not match\)/.test(e.text))).toBe(true);
  });
});
