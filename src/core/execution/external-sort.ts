/**
 * Sorting a task's live rows in bounded memory (the sort and z-order strategies).
 *
 * Rows are buffered until they pass the memory budget; the buffer is then sorted and written to a
 * temporary file as one sorted run (Arrow IPC frames, exact for every type and cheap to write) and
 * dropped. At the end, a task that never spilled is sorted in memory; otherwise the last buffer becomes a
 * run too and the runs are k-way merged, reading one frame of each run at a time. Ties keep input order
 * (runs are merged in the order they were written), so the result equals an in-memory stable sort.
 *
 * The temporary directory is removed however the generator ends: finished, failed, or abandoned by its
 * consumer (a cancel), since a for-await loop that stops early calls the generator's `return`. A process
 * killed outright (SIGKILL, the OOM killer) cannot remove it: each directory names its process in
 * `owner.json`, and the next sort on this host removes the directories of processes that are gone.
 */
import { mkdir, mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as arrow from 'apache-arrow';
import { faultPoint } from '../../../util/fault-points.js';
import { removeDeadSpillDirs, SPILL_DIR_PREFIX, writeSpillOwner } from './spill-dirs.js';
import { buildData } from '../../../model/arrow/build.js';
import { valueFromArrow } from '../../../model/arrow/rows.js';
import type { RowOrder } from '../planning/sort-order.js';
import { rowComparator, type BatchKeys, type RowComparator } from './sort-keys.js';

export const DEFAULT_SORT_MEMORY_BYTES = 256 * 1024 * 1024;
/** Rows per output batch and per spilled frame. */
const CHUNK_ROWS = 8192;

export interface SortInput {
  table: arrow.Table;
  estimatedBytes: number;
}

export interface ExternalSortOptions {
  memoryBytes?: number;
  spillDir?: string;
  signal?: AbortSignal;
  /** Rows per output batch and spilled frame (tests make it small). */
  chunkRows?: number;
  /**
   * The output file size the consumer rolls at: output batches are cut small enough (≤ 1/16 of it) that
   * files end close to the target, since the consumer can only roll between batches.
   */
  targetBytes?: number;
  /** Told when a sorted run was spilled. */
  onSpill?: (info: { dir: string; runs: number; rows: number; bytes: number }) => void;
  /** Told the temporary directory once it is created (tests check it is gone afterwards). */
  onSpillDir?: (dir: string) => void;
}

/** Approximate bytes held by a batch (its buffers; shared slices count in full, erring high). */
export function batchBytes(data: arrow.Data): number {
  let n = 0;
  for (const b of [data.values, data.valueOffsets, data.nullBitmap, data.typeIds] as (ArrayBufferView | undefined)[])
    n += b?.byteLength ?? 0;
  for (const c of data.children) n += batchBytes(c);
  return n;
}

interface Pick {
  batch: arrow.RecordBatch;
  row: number;
}

/** One batch of `schema` holding the picked rows in order (values copied exactly). */
function materialize(schema: arrow.Schema, picks: readonly Pick[]): arrow.RecordBatch {
  const children = schema.fields.map((f, c) =>
    buildData(
      f.type,
      picks.map((p) => valueFromArrow(p.batch.data.children[c]!, p.row)),
      f.name,
    ),
  );
  const data = arrow.makeData({ type: new arrow.Struct(schema.fields), length: picks.length, nullCount: 0, children });
  return new arrow.RecordBatch(schema, data);
}

function aborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Error('sort aborted');
}

/** The buffered batches' rows in order, as picks (sorted as plain integer indexes: no object per row while sorting). */
function sortBuffer(batches: readonly arrow.RecordBatch[], cmp: RowComparator): Pick[] {
  const keys: BatchKeys[] = batches.map((b) => cmp.keysOf(b));
  let n = 0;
  for (const b of batches) n += b.numRows;
  const batchOf = new Int32Array(n);
  const rowOf = new Int32Array(n);
  const order: number[] = new Array<number>(n);
  let g = 0;
  batches.forEach((batch, b) => {
    for (let row = 0; row < batch.numRows; row++, g++) {
      batchOf[g] = b;
      rowOf[g] = row;
      order[g] = g;
    }
  });
  // the index breaks ties: input order, so the sort is stable whatever the engine's sort does
  order.sort((x, y) => cmp.compare(keys[batchOf[x]!]!, rowOf[x]!, keys[batchOf[y]!]!, rowOf[y]!) || x - y);
  return order.map((x) => ({ batch: batches[batchOf[x]!]!, row: rowOf[x]! }));
}

/** Bytes a buffered row costs beyond its Arrow data while it is sorted (keys, indexes, its pick). */
function keyOverheadPerRow(order: RowOrder): number {
  return order.kind === 'zorder' ? 96 + order.terms.length * 8 : 96 + order.terms.length * 40;
}

class RunWriter {
  rows = 0;
  bytes = 0;
  private pos = 0;
  private constructor(private readonly fh: FileHandle) {}
  static async create(path: string): Promise<RunWriter> {
    return new RunWriter(await open(path, 'wx'));
  }
  async append(batch: arrow.RecordBatch): Promise<void> {
    const ipc = arrow.tableToIPC(new arrow.Table([batch]), 'stream');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(ipc.byteLength);
    await this.fh.write(len, 0, 4, this.pos);
    await this.fh.write(ipc, 0, ipc.byteLength, this.pos + 4);
    this.pos += 4 + ipc.byteLength;
    this.rows += batch.numRows;
    this.bytes = this.pos;
  }
  async close(): Promise<void> {
    await this.fh.close();
  }
}

class RunReader {
  private pos = 0;
  private constructor(private readonly fh: FileHandle) {}
  static async open(path: string): Promise<RunReader> {
    return new RunReader(await open(path, 'r'));
  }
  async next(): Promise<arrow.RecordBatch | undefined> {
    const len = Buffer.alloc(4);
    const { bytesRead } = await this.fh.read(len, 0, 4, this.pos);
    if (bytesRead === 0) return undefined;
    const n = len.readUInt32LE();
    const buf = Buffer.alloc(n);
    await this.fh.read(buf, 0, n, this.pos + 4);
    this.pos += 4 + n;
    return arrow.tableFromIPC(buf).batches[0];
  }
  async close(): Promise<void> {
    await this.fh.close().catch(() => undefined);
  }
}

interface Cursor {
  run: number;
  reader: RunReader;
  batch: arrow.RecordBatch;
  keys: BatchKeys;
  row: number;
}

/**
 * `source`'s rows sorted by `order`, in batches of `schema`, each with its share of the source's estimated
 * output bytes (for rolling output files at the target size).
 */
export async function* externalSort(
  order: RowOrder,
  schema: arrow.Schema,
  source: AsyncIterable<SortInput>,
  opts: ExternalSortOptions = {},
): AsyncGenerator<SortInput> {
  const memory = opts.memoryBytes ?? order.memoryBytes ?? DEFAULT_SORT_MEMORY_BYTES;
  const chunk = Math.max(1, opts.chunkRows ?? CHUNK_ROWS);
  const cmp = rowComparator(order);
  let buffer: arrow.RecordBatch[] = [];
  let buffered = 0;
  let rows = 0;
  let estimated = 0;
  let dir: string | undefined;
  const runs: string[] = [];
  const readers: RunReader[] = [];

  const base = opts.spillDir ?? order.spillDir ?? tmpdir();
  const spill = async () => {
    if (buffer.length === 0) return;
    if (!dir) {
      await mkdir(base, { recursive: true });
      dir = await mkdtemp(join(base, SPILL_DIR_PREFIX));
      await writeSpillOwner(dir);
      opts.onSpillDir?.(dir);
    }
    const path = join(dir, `run-${String(runs.length).padStart(5, '0')}.arrows`);
    runs.push(path);
    const picks = sortBuffer(buffer, cmp);
    const w = await RunWriter.create(path);
    try {
      for (let i = 0; i < picks.length; i += chunk) {
        aborted(opts.signal);
        await w.append(materialize(schema, picks.slice(i, i + chunk)));
      }
    } finally {
      await w.close();
    }
    opts.onSpill?.({ dir, runs: runs.length, rows: w.rows, bytes: w.bytes });
    faultPoint('sort.spill.after-first-run');
    buffer = [];
    buffered = 0;
  };

  // what killed runs on this host left behind (once per process and directory)
  for (const r of await removeDeadSpillDirs(base))
    process.stderr.write(`floe: removed the spill directory ${r.dir} of a killed run (${r.why})\n`);
  try {
    for await (const input of source) {
      aborted(opts.signal);
      rows += input.table.numRows;
      estimated += input.estimatedBytes;
      for (const b of input.table.batches) {
        if (b.numRows === 0) continue;
        buffer.push(b);
        // keys are built at sort time; count what they and the sort's bookkeeping will take
        buffered += batchBytes(b.data) + b.numRows * keyOverheadPerRow(order);
      }
      if (buffered >= memory) await spill();
    }
    if (rows === 0) return;
    const perRow = estimated / rows;
    // output batches: small enough for the consumer to roll files near the target size
    const outChunk =
      opts.targetBytes && perRow > 0 ? Math.max(1, Math.min(chunk, Math.floor(opts.targetBytes / 16 / perRow))) : chunk;
    const out = (b: arrow.RecordBatch): SortInput => ({
      table: new arrow.Table([b]),
      estimatedBytes: b.numRows * perRow,
    });

    if (runs.length === 0) {
      const picks = sortBuffer(buffer, cmp);
      buffer = [];
      for (let i = 0; i < picks.length; i += outChunk) {
        aborted(opts.signal);
        yield out(materialize(schema, picks.slice(i, i + outChunk)));
      }
      return;
    }

    await spill();
    // k-way merge: a binary heap of one cursor per run, ties broken by run order (= input order)
    const heap: Cursor[] = [];
    const less = (a: Cursor, b: Cursor) => {
      const c = cmp.compare(a.keys, a.row, b.keys, b.row);
      return c < 0 || (c === 0 && a.run < b.run);
    };
    const up = (i: number) => {
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!less(heap[i]!, heap[p]!)) break;
        [heap[i], heap[p]] = [heap[p]!, heap[i]!];
        i = p;
      }
    };
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && less(heap[r]!, heap[m]!)) m = r;
        if (m === i) return;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    };
    for (const [run, path] of runs.entries()) {
      const reader = await RunReader.open(path);
      readers.push(reader);
      const batch = await reader.next();
      if (!batch) continue;
      heap.push({ run, reader, batch, keys: cmp.keysOf(batch), row: 0 });
      up(heap.length - 1);
    }
    let picks: Pick[] = [];
    while (heap.length > 0) {
      const top = heap[0]!;
      picks.push({ batch: top.batch, row: top.row });
      top.row++;
      if (top.row >= top.batch.numRows) {
        const next = await top.reader.next();
        if (next) {
          top.batch = next;
          top.keys = cmp.keysOf(next);
          top.row = 0;
        } else {
          const last = heap.pop()!;
          if (heap.length > 0 && last !== top) heap[0] = last;
        }
      }
      if (heap.length > 0) down(0);
      if (picks.length >= outChunk) {
        aborted(opts.signal);
        yield out(materialize(schema, picks));
        picks = [];
      }
    }
    if (picks.length > 0) yield out(materialize(schema, picks));
  } finally {
    await Promise.all(readers.map((r) => r.close()));
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}
