/**
 * A run's end: its outcome (or the error's), the schedule state after it (success base, or the failure
 * streak and its backoff), the budget settled with what it measured, the log line, metrics, the webhook,
 * the history row and the listeners. A run refused because another floe job holds the table is a busy
 * skip instead: no failure, no backoff, tried again when the lease can have ended.
 */
import type { FloeError } from '../../../util/errors.js';
import type { JobConfig } from './config.js';
import { noteSkips } from './job-timing.js';
import { LEASE_RETRY_MS } from './replica-lease.js';
import { failedOutcome, isTableBusy, iso, runRecord, summary } from './run-record.js';
import { backoffMs } from './schedule.js';
import type { Running, ServiceCore, TableRuntime } from './service-core.js';
import type { JobOutcome, JobState } from './state.js';
import type { RunRecord } from './state-db.js';
import type { MaintenanceJobResult } from '../../orchestration/job-types.js';

export async function finishJob(
  core: ServiceCore,
  t: TableRuntime,
  j: JobConfig,
  r: Running,
  result: MaintenanceJobResult | undefined,
  error: unknown,
): Promise<void> {
  const now = core.clock.now();
  if (r.timeoutTimer !== undefined) core.clock.clearTimer(r.timeoutTimer);
  if (!result && isTableBusy(error) && !r.abort.signal.aborted) return skipBusy(core, t, j, r, error, now);
  noteSkips(core, now); // occurrences that passed during the run are skipped, not run right after it
  const s = t.state.jobs[j.kind]!;
  let outcome: JobOutcome;
  if (result) {
    const { tieredState, ...rest } = result;
    outcome = rest;
    if (tieredState && !r.dryRunOverride) t.state.tiered = tieredState;
  } else outcome = failedOutcome(t.cfg.table, j.kind, r, now, error, t.cfg.jobTimeoutMs);
  // the table's estimate is stale now, and the charge is settled with what the run measured
  delete t.estimate;
  t.held.delete(r.job);
  core.budget.settle(r.charge, t.cfg.name, r.job, result, now);
  const fields = { table: t.cfg.name, location: t.cfg.table, job: j.kind, reason: r.reason, ...summary(outcome) };
  const failuresBefore = s.consecutiveFailures;
  // a manual dry run of a committing job is history, not a scheduled run: the schedule state stays
  if (!r.dryRunOverride) noteOutcome(core, s, r, outcome, now);
  if (outcome.ok) core.emit('info', 'job-finish', fields);
  else
    core.emit('error', 'job-failed', {
      ...fields,
      consecutiveFailures: s.consecutiveFailures,
      ...(s.retryAtMs !== undefined ? { retryAt: iso(s.retryAtMs) } : {}),
    });
  core.metrics.record(t.cfg.name, j.kind, outcome, s);
  core.metrics.setRunning(t.cfg.name, j.kind, false);
  if (core.mode === 'once') core.once.outcomes.push(outcome);
  t.running = undefined;
  const record = runRecord(t.cfg.name, r, outcome, now, !!result?.dryRun || r.dryRunOverride || j.dryRun);
  if (!r.dryRunOverride) notifyWebhook(core, t, j, s, outcome.ok, record, failuresBefore, now);
  await recordFinished(core, t, record, true);
}

/** The schedule state after a run: the last result, and the success base or the failure streak with its backoff. */
function noteOutcome(core: ServiceCore, s: JobState, r: Running, outcome: JobOutcome, now: number): void {
  s.lastFinishMs = now;
  if (r.skippedThroughMs !== undefined) s.skippedThroughMs = r.skippedThroughMs;
  s.lastResult = outcome;
  if (outcome.ok) {
    s.lastSuccessStartMs = r.startedAtMs;
    s.consecutiveFailures = 0;
    delete s.retryAtMs;
  } else {
    s.consecutiveFailures += 1;
    const { initialMs, maxMs } = core.config.backoff;
    s.retryAtMs = now + backoffMs(s.consecutiveFailures, initialMs, maxMs);
  }
}

/** A failure, or the first success after failures, is POSTed to the webhook. */
function notifyWebhook(
  core: ServiceCore,
  t: TableRuntime,
  j: JobConfig,
  s: JobState,
  ok: boolean,
  record: RunRecord,
  failuresBefore: number,
  now: number,
): void {
  if (!core.webhook) return;
  const base = { table: t.cfg.name, location: t.cfg.table, job: j.kind, at: iso(now) };
  if (!ok)
    core.webhook.notify({
      event: 'job-failed',
      ...base,
      consecutiveFailures: s.consecutiveFailures,
      error: record.error ?? 'failed',
    });
  else if (failuresBefore > 0)
    core.webhook.notify({ event: 'job-recovered', ...base, consecutiveFailures: 0, failuresBefore });
}

/**
 * The last steps of every ended run: state (unless only a busy skip) and the history row land, listeners
 * (the HTTP layer's caches) hear of it, a retiring table goes, and the scheduler looks again.
 */
async function recordFinished(
  core: ServiceCore,
  t: TableRuntime,
  record: RunRecord,
  saveState: boolean,
): Promise<void> {
  try {
    if (saveState) await core.store!.save(t.cfg.name, t.state);
    await core.db?.recordRun(record);
  } catch (e) {
    core.emit('error', 'state-write-failed', {
      table: t.cfg.name,
      error: e instanceof Error ? e.message : String(e),
    });
  }
  for (const l of core.onRunFinished) {
    try {
      l({ table: t.cfg.name, record });
    } catch {
      // listeners are caches; they must not stop the scheduler
    }
  }
  if (t.retiring) {
    core.tables.delete(t.cfg.name);
    core.metrics.forget(t.cfg.name);
  }
  if (core.mode === 'serving') core.tick();
}

/**
 * Another floe job holds the table's lease (a CLI run, another service): this occurrence is skipped, not
 * failed — no backoff, no webhook — and recorded as `busy`. The job is tried again when the lease can have
 * ended (its expiry), at most LEASE_RETRY_MS from now.
 */
async function skipBusy(
  core: ServiceCore,
  t: TableRuntime,
  j: JobConfig,
  r: Running,
  error: FloeError,
  now: number,
): Promise<void> {
  const name = t.cfg.name;
  const expiresAt = Date.parse(String(error.context.expiresAt ?? ''));
  const wait = Number.isFinite(expiresAt) ? Math.min(LEASE_RETRY_MS, Math.max(1_000, expiresAt - now)) : LEASE_RETRY_MS;
  t.leaseBlockedUntilMs = now + wait;
  core.budget.refund(r.charge, r.startedAtMs);
  core.metrics.setRunning(name, j.kind, false);
  t.running = undefined;
  core.emit('info', 'job-busy', {
    table: name,
    location: t.cfg.table,
    job: j.kind,
    reason: error.message,
    retryAt: iso(t.leaseBlockedUntilMs),
  });
  const record: RunRecord = {
    table: name,
    job: j.kind,
    reason: r.reason,
    dryRun: r.dryRunOverride || j.dryRun,
    startedAtMs: r.startedAtMs,
    finishedAtMs: now,
    durationMs: now - r.startedAtMs,
    outcome: 'busy',
    error: error.message,
    snapshotIds: [],
  };
  await recordFinished(core, t, record, false);
}
