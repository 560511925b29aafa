/**
 * A finished job as the service keeps it: the outcome of an error, the log line's summary and the history
 * row (`floe_runs`). Pure functions of the run and its result.
 */
import { isFloeError, type FloeError } from '../../../util/errors.js';
import type { JobKind } from '../../orchestration/job-types.js';
import type { JobOutcome } from './state.js';
import type { RunOutcome, RunRecord } from './state-db.js';

/** What the record needs of a run: its job, why it started, when, and how it ended. */
export interface RunFacts {
  job: JobKind;
  reason: string;
  startedAtMs: number;
  timedOut?: boolean;
  abort: AbortController;
}

/** The `table busy` error of a table lease held by another job (src/distributed/lease.ts). */
export function isTableBusy(e: unknown): e is FloeError {
  return isFloeError(e) && e.context.busy === true;
}

/** The outcome of a job that ended in an error (a cancellation says so, and a wall-clock limit names itself). */
export function failedOutcome(
  table: string,
  job: JobKind,
  r: RunFacts,
  now: number,
  error: unknown,
  jobTimeoutMs: number | undefined,
): JobOutcome {
  const cancelled = r.timedOut || r.abort.signal.aborted;
  const message = error instanceof Error ? error.message : String(error);
  return {
    ok: false,
    table,
    job,
    startedAtMs: r.startedAtMs,
    durationMs: now - r.startedAtMs,
    error: r.timedOut
      ? `cancelled: exceeded the wall-clock limit of ${jobTimeoutMs} ms (${message})`
      : cancelled
        ? `cancelled (${message})`
        : message,
    ...(isFloeError(error) ? { errorKind: error.kind, retryable: error.retryable } : {}),
  };
}

export function summary(o: JobOutcome): Record<string, unknown> {
  if ('error' in o)
    return { ok: false, durationMs: o.durationMs, error: o.error, ...(o.errorKind ? { errorKind: o.errorKind } : {}) };
  return {
    ok: o.ok,
    format: o.format,
    dryRun: o.dryRun,
    durationMs: o.durationMs,
    bytesRead: o.bytesRead,
    bytesWritten: o.bytesWritten,
    bytesDeleted: o.bytesDeleted,
    filesDeleted: o.filesDeleted,
    ...(o.filesBefore !== undefined ? { filesBefore: o.filesBefore } : {}),
    ...(o.filesAfter !== undefined ? { filesAfter: o.filesAfter } : {}),
    snapshotIds: o.snapshotIds,
    ...(o.expiredSnapshotIds.length ? { expiredSnapshotIds: o.expiredSnapshotIds } : {}),
    ...(o.failures.length ? { failures: o.failures.slice(0, 20) } : {}),
    ...(o.warnings.length ? { warnings: o.warnings.slice(0, 20) } : {}),
  };
}

export function runRecord(table: string, r: RunFacts, o: JobOutcome, finishedAtMs: number, dryRun: boolean): RunRecord {
  const base = {
    table,
    job: r.job,
    reason: r.reason,
    dryRun,
    startedAtMs: r.startedAtMs,
    finishedAtMs,
    durationMs: o.durationMs,
  };
  if ('error' in o) {
    const outcome: RunOutcome = r.timedOut || r.abort.signal.aborted ? 'cancelled' : 'failed';
    return { ...base, outcome, error: o.error, snapshotIds: [] };
  }
  const rec: RunRecord = {
    ...base,
    outcome: o.ok ? 'ok' : 'partial',
    format: o.format,
    bytesRead: o.bytesRead,
    bytesWritten: o.bytesWritten,
    bytesDeleted: o.bytesDeleted,
    filesDeleted: o.filesDeleted,
    snapshotIds: o.snapshotIds,
    ...(o.failures.length ? { error: o.failures.slice(0, 5).join('; ') } : {}),
    ...(o.warnings.length ? { warnings: o.warnings } : {}),
  };
  for (const k of [
    'filesBefore',
    'filesAfter',
    'bytesBefore',
    'bytesAfter',
    'deleteFilesBefore',
    'deleteFilesAfter',
    'rowsIn',
    'rowsOut',
  ] as const) {
    if (o[k] !== undefined) rec[k] = o[k];
  }
  if (o.plan) rec.plan = o.plan;
  return rec;
}

export function iso(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : 'never';
}
