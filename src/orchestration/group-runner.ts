/**
 * Caller side of in-process parallelism: the rewrite step of a single-process run on worker threads
 * (src/core/execution/worker-pool.ts running group-worker.ts), one task per worker at a time. compactIceberg
 * uses it when `parallelism` > 1 and it knows how to open the table again (`source`).
 */
import { WorkerPool } from '../core/execution/worker-pool.js';
import type { ProgressEvent } from '../core/execution/events.js';
import { decodeContentFile, type ContentFileJson } from './content-file-json.js';
import type { GroupJob, PlanInputsJson, TableSource } from './group-job.js';
import type { TaskOutput } from './iceberg-steps.js';
import type { TaskRunner } from './compact-iceberg.js';
import { activeRequestCounter, type StorageFigures } from '../../connectors/storage/request-counter.js';

const workerModule = () =>
  new URL(/\.ts$/.test(import.meta.url) ? './group-worker.ts' : './group-worker.js', import.meta.url);

/**
 * The rewrite workers' young generation, MiB. Their JS allocates little (the codec decodes and encodes in
 * native memory), and V8's default let each worker commit ~30 MiB of semispaces: on the 1 GB bench table a
 * 128 MiB tiered round at --parallelism 2 peaked ~90 MiB lower with 3 (bench/RESULTS.md, issue 27).
 * FLOE_WORKER_YOUNG_GENERATION_MB overrides it (0: V8's default).
 */
const REWRITE_WORKER_YOUNG_GENERATION_MB = 3;

function youngGenerationMb(): number | undefined {
  const v = process.env.FLOE_WORKER_YOUNG_GENERATION_MB;
  const n = v === undefined || v === '' ? REWRITE_WORKER_YOUNG_GENERATION_MB : Number(v);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

export interface GroupPool {
  runner: TaskRunner;
  threads: number;
  close(): Promise<void>;
}

/**
 * A pool of `parallelism` worker threads running the run's data tasks. The workers start when the first
 * task is submitted; close() stops them (after their tasks ended).
 */
export function groupPool(parallelism: number, source: TableSource, plan: PlanInputsJson): GroupPool {
  const pool = new WorkerPool({
    module: workerModule(),
    size: parallelism,
    name: 'rewrite workers',
    youngGenerationMb: youngGenerationMb(),
  });
  const runner: TaskRunner = async (task, o) => {
    const job: GroupJob = {
      source,
      metadataLocation: o.ctx.table.metadataLocation,
      plan,
      taskId: task.id,
      inputs: task.inputs.map((f) => f.path),
      outputPrefix: o.ctx.outputPrefix,
    };
    const r = (await pool.run('rewriteGroup', job, {
      ...(o.signal ? { signal: o.signal } : {}),
      onProgress: (e) => o.onProgress(e as unknown as ProgressEvent),
    })) as unknown as Omit<TaskOutput, 'files'> & { files: ContentFileJson[]; storage?: StorageFigures };
    const { storage, ...out } = r;
    // the worker thread's requests belong to this run's count (its FileIO is the worker's own)
    if (storage) activeRequestCounter()?.add(storage);
    return { ...out, files: out.files.map(decodeContentFile) };
  };
  return { runner, threads: pool.size, close: () => pool.close() };
}
