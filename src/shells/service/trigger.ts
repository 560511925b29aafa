/**
 * `POST /run/<table>/<job>`: an operator's request to run a job ahead of its schedule, checked against
 * the table, its jobs and its pause, queued for the next scheduling pass, and answered with whether it
 * started or why it waits.
 */
import { iso } from './run-record.js';
import type { ServiceCore } from './service-core.js';
import type { JobKind } from '../../orchestration/job-types.js';

export type TriggerOutcome =
  | { status: 'accepted'; started: true; dryRun: boolean }
  | { status: 'accepted'; started: false; dryRun: boolean; reason: string }
  | {
      status: 'unknown-table' | 'unknown-job' | 'running' | 'queued' | 'paused' | 'stopping';
      started: false;
      reason: string;
    };

/** `dryRun` (default: the job's configured mode) plans and reports without committing or deleting anything. */
export function trigger(
  core: ServiceCore,
  tableName: string,
  kind: string,
  opts: { dryRun?: boolean },
): TriggerOutcome {
  if (core.mode === 'stopping' || core.mode === 'stopped')
    return { status: 'stopping', started: false, reason: 'the service is shutting down' };
  const t = core.tables.get(tableName);
  if (!t)
    return { status: 'unknown-table', started: false, reason: `no table named "${tableName}" is under management` };
  const jc = t.cfg.jobs.find((j) => j.kind === kind);
  if (!jc) {
    return {
      status: 'unknown-job',
      started: false,
      reason: `table ${tableName} has no ${kind} job (configured: ${t.cfg.jobs.map((j) => j.kind).join(', ')})`,
    };
  }
  const job = kind as JobKind;
  const dryRun = opts.dryRun ?? jc.dryRun;
  if (t.paused && !dryRun)
    return {
      status: 'paused',
      started: false,
      reason: `table ${tableName} is paused; resume it first (a dry run is allowed)`,
    };
  if (t.running?.job === job)
    return {
      status: 'running',
      started: false,
      reason: `${job} of ${tableName} is already running since ${iso(t.running.startedAtMs)}`,
    };
  if (t.forced.has(job))
    return { status: 'queued', started: false, reason: `${job} of ${tableName} is already queued` };
  t.forced.set(job, { dryRun });
  core.tick();
  if (t.running?.job === job) return { status: 'accepted', started: true, dryRun };
  const busy = core.runningJobs().length;
  const reason = t.running
    ? `queued: ${t.running.job} of ${tableName} is running (a table's jobs never overlap)`
    : core.mode !== 'serving' && core.mode !== 'once'
      ? `queued: the scheduler is not running (${core.mode})`
      : `queued: all ${core.config.concurrency} concurrency slot(s) are busy (${busy} running)`;
  return { status: 'accepted', started: false, dryRun, reason };
}
