/**
 * A job from its start to the end of its run: the schedule state and the budget charge at the start, the
 * wall-clock limit, the replica lease with shared state (replica-lease.ts), the run itself with its
 * progress logged, and the hand-over to job-finish.ts. A run that cannot start here after all is deferred.
 */
import type { JobConfig } from './config.js';
import type { Spend } from './budget.js';
import { finishJob } from './job-finish.js';
import { jobSpecFor } from './job-spec.js';
import { LEASE_RETRY_MS, leaseForRun, releaseLease } from './replica-lease.js';
import { iso } from './run-record.js';
import type { Running, ServiceCore, StartedJob, StartReason, TableRuntime } from './service-core.js';
import type { JobState } from './state.js';
import type { ProgressEvent } from '../../core/execution/events.js';
import type { JobKind, MaintenanceJobResult, MaintenanceJobSpec } from '../../orchestration/job-types.js';

export function startJob(
  core: ServiceCore,
  t: TableRuntime,
  j: JobConfig,
  reason: StartReason,
  now: number,
  charge?: Spend,
): void {
  const name = t.cfg.name;
  const forced = t.forced.get(j.kind);
  t.forced.delete(j.kind);
  if (core.mode === 'once') core.once.started.add(`${name}/${j.kind}`);
  const s: JobState = (t.state.jobs[j.kind] ??= { consecutiveFailures: 0 });
  const dryRun = forced?.dryRun ?? j.dryRun;
  const dryRunOverride = dryRun && !j.dryRun;
  if (!dryRunOverride) s.lastStartMs = now;
  const abort = new AbortController();
  const spec = { ...jobSpecFor(t.cfg, j, t.state.tiered), dryRun };
  const running: Running = {
    job: j.kind,
    startedAtMs: now,
    reason,
    dryRunOverride,
    abort,
    done: Promise.resolve(),
    why: t.ranBecause.get(j.kind) ?? reason,
  };
  // the estimate holds its place in the budget while it runs; a dry run spends nothing worth budgeting
  const charged = core.budget.charge(name, now, charge, dryRun);
  if (charged !== undefined) running.charge = charged;
  t.running = running;
  if (t.cfg.jobTimeoutMs !== undefined) {
    running.timeoutTimer = core.clock.setTimer(() => {
      running.timedOut = true;
      core.emit('warn', 'job-timeout', {
        table: name,
        job: j.kind,
        limitMs: t.cfg.jobTimeoutMs,
        reason: 'wall-clock limit reached; cancelling (a commit in flight finishes or leaves only unreferenced files)',
      });
      abort.abort(new Error(`${j.kind} of ${name} exceeded its wall-clock limit of ${t.cfg.jobTimeoutMs} ms`));
    }, t.cfg.jobTimeoutMs);
  }
  core.metrics.setRunning(name, j.kind, true);
  const done = execute(core, { t, j, r: running, forced }, spec);
  running.done = done;
  core.inFlight.add(done);
  // the derived promise only; a rejection of `done` itself reaches its awaiters as before
  done.finally(() => core.inFlight.delete(done)).catch(() => undefined);
}

/**
 * Runs one started job to its end. With a shared (PostgreSQL) state database the table is leased first,
 * so two replicas never work on one table at once; the lease holder re-reads the shared state and runs
 * only what is still due. The lease is released before the next job is picked.
 */
async function execute(core: ServiceCore, start: StartedJob, spec: MaintenanceJobSpec): Promise<void> {
  const { t, j, r } = start;
  const name = t.cfg.name;
  const db = core.leased ? core.db : undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  if (db) {
    const lease = await leaseForRun(core, db, start, spec);
    if (!lease.ok) return defer(core, start, lease.keepForced, lease.why);
    spec = lease.spec;
    heartbeat = lease.heartbeat;
  }
  const s = t.state.jobs[j.kind]!;
  core.emit('info', 'job-start', {
    table: name,
    location: t.cfg.table,
    job: j.kind,
    reason: r.reason,
    attempt: s.consecutiveFailures + 1,
    dryRun: spec.dryRun,
  });
  const onProgress = (e: ProgressEvent) => logProgress(core, name, j.kind, e);
  let result: MaintenanceJobResult | undefined;
  let error: unknown;
  try {
    result = await core.runJob(spec, { signal: r.abort.signal, onProgress });
  } catch (e) {
    error = e;
  }
  if (heartbeat) clearInterval(heartbeat);
  // state and history land before the lease goes, so the next holder never reads a stale schedule;
  // if this replica already started the table's next job, that job holds the lease on
  await finishJob(core, t, j, r, result, error);
  if (db && !t.running) await releaseLease(db, name);
}

/** A job that did not start after all (leased elsewhere, or already done there): tried again later. */
function defer(core: ServiceCore, { t, j, r, forced }: StartedJob, keepForced: boolean, why: string): void {
  if (r.timeoutTimer !== undefined) core.clock.clearTimer(r.timeoutTimer);
  core.budget.refund(r.charge, r.startedAtMs);
  core.metrics.setRunning(t.cfg.name, j.kind, false);
  t.running = undefined;
  t.leaseBlockedUntilMs = core.clock.now() + LEASE_RETRY_MS;
  if (forced && keepForced) t.forced.set(j.kind, forced);
  core.emit('info', 'job-deferred', {
    table: t.cfg.name,
    job: j.kind,
    reason: why,
    retryAt: iso(t.leaseBlockedUntilMs),
  });
  if (core.mode === 'serving') core.tick();
}

function logProgress(core: ServiceCore, table: string, job: JobKind, e: ProgressEvent): void {
  // commits and warnings are worth a line; per-file events would drown the log
  if (e.type === 'commit')
    core.emit('info', 'job-commit', { table, job, snapshotId: e.snapshotId, attempt: e.attempt, groups: e.groups });
  else if (e.type === 'commit-retry')
    core.emit('warn', 'job-commit-retry', { table, job, attempt: e.attempt, reason: e.reason });
  else if (e.type === 'message' && e.level === 'warn') core.emit('warn', 'job-warning', { table, job, text: e.text });
}
