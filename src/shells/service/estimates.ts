/**
 * What a compaction would cost and gain, learnt by planning it as a dry run (budget only): one plan per
 * table at a time, and the scheduler looks again when it lands. A failed plan leaves a neutral estimate, so
 * the job runs unranked rather than never.
 */
import { BUDGET_DEFAULTS } from './budget.js';
import type { JobConfig } from './config.js';
import { jobSpecFor } from './job-spec.js';
import { estimateFromPlan } from './run-value.js';
import type { ServiceCore, TableRuntime } from './service-core.js';

export function estimate(core: ServiceCore, t: TableRuntime, j: JobConfig): void {
  if (t.estimating) return;
  const spec = { ...jobSpecFor(t.cfg, j, t.state.tiered), dryRun: true };
  const bytesPerCpuSecond = core.config.budget?.bytesPerCpuSecond ?? BUDGET_DEFAULTS.bytesPerCpuSecond;
  t.estimating = core
    .runJob(spec, {})
    .then((r) => {
      t.estimate = estimateFromPlan(r.plan, bytesPerCpuSecond, core.clock.now(), targetBytes(t));
      core.emit('info', 'job-estimated', {
        table: t.cfg.name,
        job: j.kind,
        tasks: t.estimate.tasks,
        bytesRead: t.estimate.usage.bytesRead,
        bytesWritten: t.estimate.usage.bytesWritten,
        cpuSeconds: t.estimate.usage.cpuSeconds,
        fileOpensSaved: t.estimate.fileOpensSaved,
      });
    })
    .catch((e: unknown) => {
      // no estimate: the job runs unranked rather than never (its measured spend still counts)
      t.estimate = {
        usage: { bytesRead: 0, bytesWritten: 0, cpuSeconds: 0 },
        fileOpensSaved: 1,
        tasks: 1,
        atMs: core.clock.now(),
      };
      core.emit('warn', 'job-estimate-failed', {
        table: t.cfg.name,
        job: j.kind,
        error: e instanceof Error ? e.message : String(e),
      });
    })
    .finally(() => {
      t.estimating = undefined;
      if (core.mode === 'serving') core.tick();
    });
}

/** The estimates being planned now (a `--once` pass waits for them). */
export function pendingEstimates(core: ServiceCore): Promise<void>[] {
  return [...core.tables.values()].flatMap((t) => (t.estimating ? [t.estimating] : []));
}

/** The table's target file size when its properties name one (the estimate's count of files written). */
function targetBytes(t: TableRuntime): number | undefined {
  const v = t.cfg.properties['write.target-file-size-bytes'] ?? t.cfg.properties['target-file-size'];
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
