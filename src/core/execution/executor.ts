/**
 * Runs a plan's rewrite tasks with bounded concurrency and bounded memory. Format specifics (how live
 * rows are read, where outputs go, how they are described to the committer) come from an adapter; this
 * module owns scheduling, rolling outputs at the target size, progress, and cleaning up after failures.
 *
 * Memory: a task holds at most one input file's bytes, one decoded row group and the row group being
 * encoded. With an adapter that streams outputs (`openOutput`, [stream]) each encoded row group leaves for
 * the store as the next one starts, so the output file is never held whole: peak memory per task is about
 * one row group (write.parquet.row-group-size-bytes) plus the upload's parts in flight, whatever the
 * target file size. Without it the output file is buffered until it is complete (≤ the target size).
 * A sort / z-order task (task.order) also holds up to its sort memory budget of rows (external-sort.ts,
 * 256 MiB by default); beyond that it spills sorted runs to a temporary directory and merges them.
 */
import type * as arrow from 'apache-arrow';
import pLimit from 'p-limit';
import type { RewriteTask } from '../planning/plan.js';
import { safeEmitter, type ProgressListener } from './events.js';
import { externalSort } from './external-sort.js';

export interface LiveBatch {
  table: arrow.Table;
  /** Estimated compressed bytes these rows will take in the output (input bytes × share of rows kept). */
  estimatedBytes: number;
  /**
   * Where the batch's rows come from, in order: input file and position ranges. With it on every batch of an
   * order-keeping task, each output knows the input position of each of its rows (TaskResult.outputRows),
   * which lets a commit carry deletes that landed meanwhile over to the outputs.
   */
  rows?: readonly RowSpan[];
}

/**
 * [rewrite] Live rows the adapter's encoder reads itself (e.g. a row group decoded, filtered and aligned inside
 * a native codec): the executor only counts and rolls them, and hands `direct` to `OutputEncoder.writeDirect`.
 */
export interface DirectBatch {
  direct: unknown;
  numRows: number;
  estimatedBytes: number;
  rows?: readonly RowSpan[];
}

/**
 * Input rows [start, end) of data file `path`, in the order they were written, less the positions in `skip`
 * (ascending, inside the range: rows the rewrite dropped). One span per file and output even when deletes
 * leave a row out every few rows: a list of kept runs cost ~56 bytes a run, ~50 MiB of heap over the
 * bench's equality-delete table (issue 27).
 */
export interface RowSpan {
  path: string;
  start: number;
  end: number;
  skip?: readonly number[];
}

/**
 * An output file being encoded. The adapter makes it (the Parquet writer of connectors/formats/parquet, with
 * the table's write options): the executor decides when a file is full, not how it is encoded.
 */
export interface OutputEncoder<W extends EncodedFile = EncodedFile, S extends EncodedFile = EncodedFile> {
  readonly rowCount: number;
  write(table: arrow.Table): Promise<void>;
  /** [rewrite] Writes a DirectBatch's payload (present when the adapter yields DirectBatches). */
  writeDirect?(direct: unknown): Promise<void>;
  /** The whole file, held in memory, for `storeOutput`. */
  finish(): Promise<W>;
  /** [stream] Everything but the bytes, which went to the sink row group by row group. */
  finishStreamed(): Promise<S>;
}

/**
 * What the executor reads of a finished output. The adapter's encoder returns its own richer description (W
 * whole in memory, S streamed), which the executor hands back to the adapter untouched.
 */
export interface EncodedFile {
  rowCount: number;
}

export interface RewriteAdapter<Out, W extends EncodedFile = EncodedFile, S extends EncodedFile = EncodedFile> {
  outputSchema: arrow.Schema;
  /**
   * A new output encoder. `expectedRows` bounds the rows it will get (the task's input rows); with `sink` each
   * encoded row group goes there as soon as it is produced ([stream]).
   */
  newEncoder(location: string, expectedRows: number, sink?: (chunk: Uint8Array) => Promise<void>): OutputEncoder<W, S>;
  /** Live rows of the task's inputs, already in the output schema, a row group (or merge batch) at a time. */
  batches(task: RewriteTask, stats: ReadStats): AsyncIterable<LiveBatch>;
  /** Stores one finished output file; returns what the committer needs. */
  storeOutput(task: RewriteTask, index: number, file: W): Promise<{ out: Out; location: string; bytes: number }>;
  /** Deletes an output that will never be committed (best effort). */
  discardOutput(out: Out): Promise<void>;
  /**
   * [stream] Optional: opens output `index` of the task as a stream. The executor writes each encoded row
   * group to it as soon as it is produced, then `complete()`s it (publish create-if-absent, describe for the
   * committer), or `abort()`s it on failure. Without it, outputs are buffered whole and go to storeOutput.
   */
  openOutput?(task: RewriteTask, index: number): OutputStream<Out, S>;
  /**
   * [stitch] Optional fast path: writes the task's outputs through `store` by copying whole Parquet row
   * groups (connectors/formats/parquet/stitch-task.ts). When it says `stitched: false` the executor
   * discards whatever was stored and runs the decode/encode path; `explain` asks for the reason to be shown.
   */
  stitch?(task: RewriteTask, stats: ReadStats, store: (file: W) => Promise<void>): Promise<StitchResult>;
  /**
   * [rewrite] Optional: `batches` for a task that keeps its rows' order, where the adapter may yield
   * DirectBatches its encoder writes itself; the same rows in the same order, and the same estimates.
   */
  directBatches?(task: RewriteTask, stats: ReadStats): AsyncIterable<LiveBatch | DirectBatch>;
}

/** [stream] An output file being streamed to its store. */
export interface OutputStream<Out, S extends EncodedFile = EncodedFile> {
  location: string;
  write(chunk: Uint8Array): Promise<void>;
  /** Publishes the file (nothing is visible before) and returns what the committer needs. */
  complete(file: S): Promise<{ out: Out; bytes: number }>;
  /** Leaves nothing behind (best effort). */
  abort(): Promise<void>;
}

/** [stitch] What an adapter's stitch attempt did. */
export type StitchResult =
  { stitched: true; rowGroups: number } | { stitched: false; reason: string; explain?: boolean };

export interface ReadStats {
  fileRead(path: string, bytes: number, rows: number): void;
}

export interface TaskResult<Out> {
  task: RewriteTask;
  outputs: Out[];
  bytesRead: number;
  bytesWritten: number;
  rowsIn: number;
  rowsOut: number;
  /** [stitch] Outputs were made by copying row groups, without decoding. */
  stitched?: boolean;
  /**
   * Per output (same order as `outputs`), the input rows it holds in its row order; absent when the task
   * does not keep its rows' order (sort / z-order, stitching) or the adapter does not say where rows come from.
   */
  outputRows?: RowSpan[][];
}

export interface ExecuteOptions {
  concurrency?: number;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}

export interface ExecuteResult<Out> {
  done: TaskResult<Out>[];
  failed: { task: RewriteTask; error: unknown }[];
}

export async function executeTasks<Out, W extends EncodedFile, S extends EncodedFile>(
  tasks: readonly RewriteTask[],
  adapter: RewriteAdapter<Out, W, S>,
  options: ExecuteOptions = {},
): Promise<ExecuteResult<Out>> {
  const emit = safeEmitter(options.onProgress);
  const limit = pLimit(Math.max(1, options.concurrency ?? 2));
  const done: TaskResult<Out>[] = [];
  const failed: { task: RewriteTask; error: unknown }[] = [];
  await Promise.all(
    tasks.map((task) =>
      limit(async () => {
        if (options.signal?.aborted) {
          failed.push({ task, error: new Error('aborted before start') });
          return;
        }
        emit({ type: 'task-start', taskId: task.id, inputFiles: task.inputs.length, inputBytes: task.inputBytes });
        try {
          const r = await runTask(task, adapter, options.signal, emit);
          done.push(r);
          emit({
            type: 'task-done',
            taskId: task.id,
            outputFiles: r.outputs.length,
            bytesRead: r.bytesRead,
            bytesWritten: r.bytesWritten,
            rowsIn: r.rowsIn,
            rowsOut: r.rowsOut,
          });
        } catch (error) {
          failed.push({ task, error });
          emit({ type: 'task-failed', taskId: task.id, error: error instanceof Error ? error.message : String(error) });
        }
      }),
    ),
  );
  return { done, failed };
}

async function runTask<Out, W extends EncodedFile, S extends EncodedFile>(
  task: RewriteTask,
  adapter: RewriteAdapter<Out, W, S>,
  signal: AbortSignal | undefined,
  emit: ProgressListener,
): Promise<TaskResult<Out>> {
  const outputs: Out[] = [];
  let bytesRead = 0;
  let rowsIn = 0;
  let rowsOut = 0;
  let bytesWritten = 0;
  let writer: OutputEncoder<W, S> | undefined;
  let stream: OutputStream<Out, S> | undefined; // [stream] where `writer` sends its row groups
  let estimated = 0;
  // input rows of the open output, and of each finished one (undefined once a batch does not say)
  let spans: RowSpan[] | undefined = task.order ? undefined : [];
  const outputRows: RowSpan[][] = [];
  const target = task.targetFileSizeBytes;
  const stats: ReadStats = {
    fileRead(path, bytes, rows) {
      bytesRead += bytes;
      rowsIn += rows;
      emit({ type: 'file-read', taskId: task.id, path, bytes, rows });
    },
  };
  let outputIndex = 0; // [stitch] not outputs.length: names of discarded stitched outputs are not reused
  const store = async (file: W) => {
    if (signal?.aborted) throw new Error(`task ${task.id} aborted`); // write nothing more once cancelled
    const stored = await adapter.storeOutput(task, outputIndex++, file);
    outputs.push(stored.out);
    if (spans) outputRows.push(spans.splice(0));
    bytesWritten += stored.bytes;
    rowsOut += file.rowCount;
    emit({ type: 'file-written', taskId: task.id, path: stored.location, bytes: stored.bytes, rows: file.rowCount });
  };
  // an upper bound of any output's rows: lets the writer see that big outputs would overflow dictionaries
  const expectedRows = task.inputs.reduce((n, f) => n + f.recordCount, 0);
  const open = () => {
    if (adapter.openOutput) {
      const s = adapter.openOutput(task, outputIndex++);
      stream = s;
      return adapter.newEncoder(s.location, expectedRows, (c) => s.write(c));
    }
    return adapter.newEncoder(`${task.id}-${outputs.length}`, expectedRows);
  };
  const roll = async () => {
    if (!writer || writer.rowCount === 0) return;
    const w = writer;
    writer = undefined;
    estimated = 0;
    if (!stream) return store(await w.finish());
    const s = stream;
    const file = await w.finishStreamed();
    if (signal?.aborted) throw new Error(`task ${task.id} aborted`); // publish nothing more once cancelled
    const stored = await s.complete(file);
    stream = undefined;
    outputs.push(stored.out);
    if (spans) outputRows.push(spans.splice(0));
    bytesWritten += stored.bytes;
    rowsOut += file.rowCount;
    emit({ type: 'file-written', taskId: task.id, path: s.location, bytes: stored.bytes, rows: file.rowCount });
  };
  try {
    // [stitch] copy row groups without decoding when the adapter finds it safe; otherwise decode/encode below
    if (adapter.stitch && !task.order) {
      // [sort] a sorted task never copies row groups as they are
      const r = await adapter.stitch(task, stats, store);
      if (r.stitched) {
        emit({
          type: 'message',
          level: 'info',
          text: `task ${task.id}: stitched ${r.rowGroups} row group(s) from ${task.inputs.length} file(s) without decoding`,
        });
        return { task, outputs, bytesRead, bytesWritten, rowsIn, rowsOut, stitched: true };
      }
      await Promise.all(outputs.splice(0).map((o) => adapter.discardOutput(o).catch(() => undefined)));
      bytesRead = rowsIn = rowsOut = bytesWritten = 0;
      outputRows.length = 0;
      if (r.explain)
        emit({ type: 'message', level: 'info', text: `task ${task.id}: not stitched (${r.reason}); rewriting` });
    }
    // [sort] sort / z-order tasks: the live rows in order, spilling sorted runs past the memory budget
    const source = task.order
      ? externalSort(task.order, adapter.outputSchema, adapter.batches(task, stats), {
          ...(signal ? { signal } : {}),
          targetBytes: target,
          onSpill: (s) =>
            emit({
              type: 'message',
              level: 'info',
              text: `task ${task.id}: spilled sorted run ${s.runs} (${s.rows} rows, ${s.bytes} bytes) to ${s.dir}`,
            }),
        })
      : adapter.directBatches
        ? adapter.directBatches(task, stats)
        : adapter.batches(task, stats);
    for await (const batch of source) {
      if (signal?.aborted) throw new Error(`task ${task.id} aborted`);
      const direct = 'direct' in batch ? batch : undefined;
      if ((direct ? direct.numRows : (batch as LiveBatch).table.numRows) === 0) continue;
      writer ??= open();
      if (!direct) await writer.write((batch as LiveBatch).table);
      else if (writer.writeDirect) await writer.writeDirect(direct.direct);
      else throw new Error(`task ${task.id}: the adapter's encoder cannot write its direct batches`);
      if (spans && 'rows' in batch && batch.rows) appendSpans(spans, batch.rows);
      else spans = undefined;
      estimated += batch.estimatedBytes;
      if (estimated >= target) await roll();
    }
    await roll();
  } catch (e) {
    await stream?.abort().catch(() => undefined);
    await Promise.all(outputs.map((o) => adapter.discardOutput(o).catch(() => undefined)));
    throw e;
  }
  return { task, outputs, bytesRead, bytesWritten, rowsIn, rowsOut, ...(spans ? { outputRows } : {}) };
}

/** Appends `more` to `into`, joining a span that continues the last one (their skips too). */
function appendSpans(into: RowSpan[], more: readonly RowSpan[]): void {
  for (const s of more) {
    const last = into[into.length - 1] as { path: string; start: number; end: number; skip?: number[] } | undefined;
    if (last && last.path === s.path && last.end === s.start) {
      last.end = s.end;
      if (s.skip?.length) (last.skip ??= []).push(...s.skip);
    } else if (s.end > s.start) {
      into.push({ path: s.path, start: s.start, end: s.end, ...(s.skip?.length ? { skip: [...s.skip] } : {}) });
    }
  }
}
