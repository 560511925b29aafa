/**
 * Counters and gauges per table and job, rendered in the Prometheus text exposition format (version
 * 0.0.4): `# HELP` / `# TYPE` lines, then one sample per label set. Counters count this process's runs
 * (Prometheus handles restarts); gauges reflect the last result, which survives restarts in the state.
 */
import type { JobKind } from './job-types.js';
import type { JobOutcome, JobState } from './state.js';

interface JobCounters {
  runs: number;
  failures: number;
  bytesRead: number;
  bytesWritten: number;
  bytesDeleted: number;
  filesDeleted: number;
  lastDurationMs?: number;
  lastSuccessStartMs?: number;
  consecutiveFailures: number;
  filesBefore?: number;
  filesAfter?: number;
}

const key = (table: string, job: string) => `${table}\u0000${job}`;

export class MetricsRegistry {
  private readonly jobs = new Map<string, { table: string; job: JobKind; c: JobCounters }>();

  /** Registers a configured job so its series exist (at 0) before it first runs; seeds gauges from state. */
  declare(table: string, job: JobKind, state?: JobState): void {
    const c: JobCounters = { runs: 0, failures: 0, bytesRead: 0, bytesWritten: 0, bytesDeleted: 0, filesDeleted: 0, consecutiveFailures: state?.consecutiveFailures ?? 0 };
    if (state?.lastSuccessStartMs !== undefined) c.lastSuccessStartMs = state.lastSuccessStartMs;
    if (state?.lastResult) gaugesFrom(c, state.lastResult);
    this.jobs.set(key(table, job), { table, job, c });
  }

  record(table: string, job: JobKind, o: JobOutcome, state: JobState): void {
    const k = key(table, job);
    if (!this.jobs.has(k)) this.declare(table, job);
    const c = this.jobs.get(k)!.c;
    c.runs++;
    if (!o.ok) c.failures++;
    if (!('error' in o)) {
      c.bytesRead += o.bytesRead;
      c.bytesWritten += o.bytesWritten;
      c.bytesDeleted += o.bytesDeleted;
      c.filesDeleted += o.filesDeleted;
    }
    gaugesFrom(c, o);
    c.consecutiveFailures = state.consecutiveFailures;
    if (state.lastSuccessStartMs !== undefined) c.lastSuccessStartMs = state.lastSuccessStartMs;
  }

  /** `running`: `table\0job` keys of the jobs running now. */
  render(running: ReadonlySet<string>): string {
    const out: string[] = [];
    const series = [...this.jobs.values()];
    const family = (name: string, type: 'counter' | 'gauge', help: string, value: (c: JobCounters, k: string) => number | undefined, perTable = false) => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (const s of series) {
        if (perTable && s.job !== 'compact') continue;
        const v = value(s.c, key(s.table, s.job));
        if (v === undefined) continue;
        const labels = perTable ? `table="${esc(s.table)}"` : `table="${esc(s.table)}",job="${esc(s.job)}"`;
        out.push(`${name}{${labels}} ${v}`);
      }
    };
    family('floe_job_runs_total', 'counter', 'Maintenance jobs finished since the service started, successful or not.', (c) => c.runs);
    family('floe_job_failures_total', 'counter', 'Maintenance jobs that failed (fully or in part) since the service started.', (c) => c.failures);
    family('floe_bytes_read_total', 'counter', 'Bytes of data files read by compaction.', (c) => c.bytesRead);
    family('floe_bytes_rewritten_total', 'counter', 'Bytes of data files written by compaction.', (c) => c.bytesWritten);
    family('floe_bytes_deleted_total', 'counter', 'Bytes of files deleted by expire and remove-orphans.', (c) => c.bytesDeleted);
    family('floe_files_deleted_total', 'counter', 'Files deleted by expire and remove-orphans.', (c) => c.filesDeleted);
    family('floe_job_running', 'gauge', '1 while the job runs.', (_c, k) => (running.has(k) ? 1 : 0));
    family('floe_job_consecutive_failures', 'gauge', 'Failures since the last success (drives the backoff).', (c) => c.consecutiveFailures);
    family('floe_job_last_duration_seconds', 'gauge', 'Duration of the last run.', (c) => (c.lastDurationMs === undefined ? undefined : c.lastDurationMs / 1000));
    family('floe_job_last_success_timestamp_seconds', 'gauge', 'Start of the last successful run, Unix time.', (c) => (c.lastSuccessStartMs === undefined ? undefined : c.lastSuccessStartMs / 1000));
    family('floe_data_files_before', 'gauge', 'Live data files before the last compaction.', (c) => c.filesBefore, true);
    family('floe_data_files_after', 'gauge', 'Live data files after the last compaction.', (c) => c.filesAfter, true);
    return `${out.join('\n')}\n`;
  }
}

function gaugesFrom(c: JobCounters, o: JobOutcome): void {
  c.lastDurationMs = o.durationMs;
  if ('error' in o) return;
  if (o.filesBefore !== undefined) c.filesBefore = o.filesBefore;
  if (o.filesAfter !== undefined) c.filesAfter = o.filesAfter;
}

/** Label values escape backslash, double quote and newline. */
function esc(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
