/**
 * The first start against a new state database runs every job at once (none has a last run to count
 * from): the log says so before it happens, with the jobs that will change tables, and how to look first.
 */
import { dueAt } from './job-timing.js';
import type { ServiceCore } from './service-core.js';

export function announceFirstStart(core: ServiceCore): void {
  const now = core.clock.now();
  const due = [...core.tables.values()].flatMap((t) =>
    t.paused ? [] : t.cfg.jobs.filter((j) => dueAt(t, j, now) <= now).map((j) => ({ table: t.cfg.name, job: j })),
  );
  const live = due.filter((d) => !d.job.dryRun).map((d) => `${d.job.kind} ${d.table}`);
  const dry = due.length - live.length;
  core.emit(live.length ? 'warn' : 'info', 'first-start', {
    state: core.db?.description,
    message:
      `first start with a new state database: no job has run yet, so ${due.length} job(s) are due and start now` +
      (live.length
        ? ` — ${live.length} will change tables (${live.slice(0, 20).join(', ')}${live.length > 20 ? ', …' : ''})` +
          `${dry ? `, ${dry} are dry runs` : ''}. To only look, stop (Ctrl-C) and set dryRun: true on the jobs (defaults.jobs), or run floe serve --once with it first`
        : ' — all of them dry runs: nothing is committed or deleted'),
    dueNow: due.map((d) => ({ table: d.table, job: d.job.kind, dryRun: d.job.dryRun })),
  });
}
