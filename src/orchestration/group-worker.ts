/**
 * Worker-thread side of a single-process run's rewrite step (loaded by src/core/execution/worker-pool.ts):
 * `rewriteGroup(job)` opens the table, plans again from the run's base metadata file, checks the task
 * against the caller's, rewrites it with the same step the distributed seam uses (rewritePlannedTask) and
 * returns the files it wrote as JSON. Progress events go back through the pool; a cancel from the caller
 * aborts the step between row groups, and the step removes what it wrote.
 *
 * One worker keeps the table, plan and rewrite context of the last run it served, so its tasks share the
 * manifest reading, planning and the delete-file cache.
 */
import { FloeError } from '../../util/errors.js';
import type { JobContext, Json } from '../core/execution/worker-pool.js';
import type { ProgressEvent } from '../core/execution/events.js';
import type { Plan } from '../core/planning/plan.js';
import { planIceberg } from './iceberg-plan.js';
import { openIcebergForWrite, type OpenedIcebergTable } from '../../connectors/iceberg/open-for-write.js';
import { loadTableModel } from '../../connectors/iceberg/table.js';
import { parseMetadataBytes } from '../../connectors/iceberg/metadata.js';
import { rewriteContext, rewritePlannedTask, type RewriteContext } from './iceberg-steps.js';
import { encodeContentFile } from './content-file-json.js';
import { compactOptionsOf, type GroupJob } from './group-job.js';
import { emptyFigures, subtractFigures, type StorageFigures } from '../../connectors/storage/request-counter.js';

interface Served {
  key: string;
  opened: OpenedIcebergTable;
  plan: Plan;
  ctx: RewriteContext;
}
let served: Served | undefined;
/** What this worker's FileIO had counted when it last reported (each task reports the requests since). */
let reported: StorageFigures = emptyFigures();

async function runOf(job: GroupJob): Promise<Served> {
  const key = JSON.stringify([job.source, job.metadataLocation, job.plan, job.outputPrefix]);
  if (served?.key === key) return served;
  served?.opened.files.destroy();
  served = undefined;
  reported = emptyFigures();
  const opened = await openIcebergForWrite(job.source.table, job.source.access);
  try {
    const metadata = parseMetadataBytes(await opened.io.read(job.metadataLocation), job.metadataLocation);
    const table = { ...opened.table, metadata, metadataLocation: job.metadataLocation };
    const model = await loadTableModel(table);
    const opts = compactOptionsOf(job.plan);
    const plan = planIceberg(model, opts, job.plan.nowMs);
    const ctx = rewriteContext(table, model, opened.io, {
      outputPrefix: job.outputPrefix,
      ...(opts.options ? { propertyOverrides: opts.options } : {}),
    });
    served = { key, opened, plan, ctx };
    return served;
  } catch (e) {
    opened.files.destroy();
    throw e;
  }
}

/** The job function the pool calls: one planned data task, rewritten in this worker. */
export async function rewriteGroup(payload: Json, jc: JobContext): Promise<Json> {
  const job = payload as unknown as GroupJob;
  const run = await runOf(job);
  const task = run.plan.tasks.find((t) => t.id === job.taskId);
  if (!task || task.inputs.map((f) => f.path).join('\n') !== job.inputs.join('\n')) {
    throw new FloeError(
      'Internal',
      `worker ${jc.workerIndex}: task ${job.taskId} could not be planned again from ${job.metadataLocation} as the caller planned it; nothing was written`,
      { context: { file: job.metadataLocation, taskId: job.taskId } },
    );
  }
  const out = await rewritePlannedTask(run.ctx, task, {
    onProgress: (e: ProgressEvent) => jc.progress(e as unknown as Json),
    signal: jc.signal,
  });
  const now = run.opened.files.requests.snapshot();
  const storage = subtractFigures(now, reported); // the caller adds them to its run's count
  reported = now;
  return {
    taskId: out.taskId,
    files: out.files.map(encodeContentFile) as Json[],
    storage: storage as unknown as Json,
    bytesRead: out.bytesRead,
    bytesWritten: out.bytesWritten,
    rowsIn: out.rowsIn,
    rowsOut: out.rowsOut,
  };
}
