/**
 * The service's Prometheus metrics, rendered in the text exposition format (version 0.0.4): `# HELP` /
 * `# TYPE` lines, then one sample per label set. Names follow the Prometheus conventions: counters end in
 * `_total`, durations are `_seconds`, sizes `_bytes`. Counters count this process's runs (Prometheus
 * handles restarts); gauges reflect the last result, which survives restarts in the state database.
 */
import type { JobKind } from '../../orchestration/job-types.js';
import type { JobOutcome, JobState } from './state.js';
import type { Limits, Spend } from './budget.js';
import type { WhyCode } from './why.js';

/** Run-duration histogram buckets in seconds: 1 s … 6 h (compactions take seconds to hours). */
export const DURATION_BUCKETS_S = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 7200, 21600];

interface JobCounters {
  runs: number;
  failures: number;
  bytesRead: number;
  bytesWritten: number;
  bytesDeleted: number;
  filesDeleted: number;
  /** Cumulative counts per DURATION_BUCKETS_S bound, plus the sum. */
  durationBuckets: number[];
  durationSum: number;
  lastDurationMs?: number;
  lastSuccessStartMs?: number;
  consecutiveFailures: number;
  filesBefore?: number;
  filesAfter?: number;
  running: boolean;
}

/** What the HTTP layer learns when it reads a table (health score, live files). */
export interface TableGauges {
  healthScore: number;
  dataFiles: number;
  dataBytes: number;
  deleteFiles: number;
  smallFiles: number;
}

interface TableSeries {
  paused: boolean;
  gauges?: TableGauges;
  spend?: Spend & { opensSaved: number };
}

const key = (table: string, job: string) => `${table}\u0000${job}`;

export class MetricsRegistry {
  private readonly jobs = new Map<string, { table: string; job: JobKind; c: JobCounters }>();
  private readonly tables = new Map<string, TableSeries>();
  private currency = 'USD';

  /**
   * Registers a configured job so its series exist (at 0) before it first runs; seeds gauges from state.
   * `keep`: a job already registered keeps its counters (re-discovery).
   */
  declare(table: string, job: JobKind, state?: JobState, keep = false): void {
    if (keep && this.jobs.has(key(table, job))) return;
    const c: JobCounters = {
      runs: 0,
      failures: 0,
      bytesRead: 0,
      bytesWritten: 0,
      bytesDeleted: 0,
      filesDeleted: 0,
      durationBuckets: DURATION_BUCKETS_S.map(() => 0),
      durationSum: 0,
      consecutiveFailures: state?.consecutiveFailures ?? 0,
      running: false,
    };
    if (state?.lastSuccessStartMs !== undefined) c.lastSuccessStartMs = state.lastSuccessStartMs;
    if (state?.lastResult) gaugesFrom(c, state.lastResult);
    this.jobs.set(key(table, job), { table, job, c });
    if (!this.tables.has(table)) this.tables.set(table, { paused: false });
  }

  /** A retired table's series disappear. */
  forget(table: string): void {
    for (const [k, s] of this.jobs) if (s.table === table) this.jobs.delete(k);
    this.tables.delete(table);
  }

  setPaused(table: string, paused: boolean): void {
    const t = this.tables.get(table) ?? { paused };
    t.paused = paused;
    this.tables.set(table, t);
  }

  setRunning(table: string, job: JobKind, running: boolean): void {
    const s = this.jobs.get(key(table, job));
    if (s) s.c.running = running;
  }

  /** What a finished run spent and the full-scan file opens it saved (budgeted services). */
  recordSpend(table: string, spend: Spend, opensSaved: number): void {
    const t = this.tables.get(table) ?? { paused: false };
    const s = (t.spend ??= { bytes: 0, cpuSeconds: 0, money: 0, opensSaved: 0 });
    s.bytes += spend.bytes;
    s.cpuSeconds += spend.cpuSeconds;
    s.money += spend.money;
    s.opensSaved += opensSaved;
    this.tables.set(table, t);
  }

  setCurrency(currency: string): void {
    this.currency = currency;
  }

  setTableGauges(table: string, g: TableGauges): void {
    const t = this.tables.get(table);
    if (t) t.gauges = g;
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
    const seconds = o.durationMs / 1000;
    c.durationSum += seconds;
    DURATION_BUCKETS_S.forEach((le, i) => {
      if (seconds <= le) c.durationBuckets[i]! += 1;
    });
    gaugesFrom(c, o);
    c.consecutiveFailures = state.consecutiveFailures;
    if (state.lastSuccessStartMs !== undefined) c.lastSuccessStartMs = state.lastSuccessStartMs;
  }

  render(): string {
    const out: string[] = [];
    const series = [...this.jobs.values()];
    const head = (name: string, type: 'counter' | 'gauge' | 'histogram', help: string) =>
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    const family = (
      name: string,
      type: 'counter' | 'gauge',
      help: string,
      value: (c: JobCounters) => number | undefined,
      compactOnly = false,
    ) => {
      head(name, type, help);
      for (const s of series) {
        if (compactOnly && s.job !== 'compact') continue;
        const v = value(s.c);
        if (v === undefined) continue;
        const labels = compactOnly ? `table="${esc(s.table)}"` : `table="${esc(s.table)}",job="${esc(s.job)}"`;
        out.push(`${name}{${labels}} ${v}`);
      }
    };
    family(
      'floe_job_runs_total',
      'counter',
      'Maintenance jobs finished since the service started, successful or not.',
      (c) => c.runs,
    );
    family(
      'floe_job_failures_total',
      'counter',
      'Maintenance jobs that failed (fully or in part) since the service started.',
      (c) => c.failures,
    );
    family('floe_bytes_read_total', 'counter', 'Bytes of data files read by compaction.', (c) => c.bytesRead);
    family(
      'floe_bytes_rewritten_total',
      'counter',
      'Bytes of data files written by compaction.',
      (c) => c.bytesWritten,
    );
    family(
      'floe_bytes_deleted_total',
      'counter',
      'Bytes of files deleted by expire and remove-orphans.',
      (c) => c.bytesDeleted,
    );
    family('floe_files_deleted_total', 'counter', 'Files deleted by expire and remove-orphans.', (c) => c.filesDeleted);
    family('floe_job_running', 'gauge', '1 while the job runs.', (c) => (c.running ? 1 : 0));
    family(
      'floe_job_consecutive_failures',
      'gauge',
      'Failures since the last success (drives the backoff).',
      (c) => c.consecutiveFailures,
    );
    family('floe_job_last_duration_seconds', 'gauge', 'Duration of the last run.', (c) =>
      c.lastDurationMs === undefined ? undefined : c.lastDurationMs / 1000,
    );
    family('floe_job_last_success_timestamp_seconds', 'gauge', 'Start of the last successful run, Unix time.', (c) =>
      c.lastSuccessStartMs === undefined ? undefined : c.lastSuccessStartMs / 1000,
    );
    head('floe_job_duration_seconds', 'histogram', 'Duration of finished maintenance jobs.');
    for (const s of series) {
      const l = `table="${esc(s.table)}",job="${esc(s.job)}"`;
      DURATION_BUCKETS_S.forEach((le, i) =>
        out.push(`floe_job_duration_seconds_bucket{${l},le="${le}"} ${s.c.durationBuckets[i]}`),
      );
      out.push(`floe_job_duration_seconds_bucket{${l},le="+Inf"} ${s.c.runs}`);
      out.push(`floe_job_duration_seconds_sum{${l}} ${round(s.c.durationSum)}`);
      out.push(`floe_job_duration_seconds_count{${l}} ${s.c.runs}`);
    }
    family(
      'floe_data_files_before',
      'gauge',
      'Live data files before the last compaction.',
      (c) => c.filesBefore,
      true,
    );
    family('floe_data_files_after', 'gauge', 'Live data files after the last compaction.', (c) => c.filesAfter, true);
    const tableFamily = (name: string, help: string, value: (t: TableSeries) => number | undefined) => {
      head(name, 'gauge', help);
      for (const [table, t] of this.tables) {
        const v = value(t);
        if (v !== undefined) out.push(`${name}{table="${esc(table)}"} ${v}`);
      }
    };
    tableFamily('floe_table_paused', '1 while the table is paused (no scheduled runs).', (t) => (t.paused ? 1 : 0));
    tableFamily(
      'floe_table_health_score',
      'Health score of the table (0-100, 100 = nothing to compact), as last read.',
      (t) => t.gauges?.healthScore,
    );
    tableFamily('floe_table_data_files', 'Live data files, as last read.', (t) => t.gauges?.dataFiles);
    tableFamily('floe_table_data_bytes', 'Bytes of live data files, as last read.', (t) => t.gauges?.dataBytes);
    tableFamily(
      'floe_table_delete_files',
      'Live delete files (position, equality, deletion vectors), as last read.',
      (t) => t.gauges?.deleteFiles,
    );
    tableFamily(
      'floe_table_small_files',
      'Live data files below the undersized threshold, as last read.',
      (t) => t.gauges?.smallFiles,
    );
    tableFamily(
      'floe_spend_bytes_total',
      'Bytes read and written by budgeted runs since start.',
      (t) => t.spend?.bytes,
    );
    tableFamily(
      'floe_spend_cpu_seconds_total',
      'CPU-seconds of budgeted runs since start (wall time, one core).',
      (t) => (t.spend === undefined ? undefined : round(t.spend.cpuSeconds)),
    );
    head('floe_spend_money_total', 'counter', 'Money budgeted runs cost since start, at the configured prices.');
    for (const [table, t] of this.tables)
      if (t.spend)
        out.push(`floe_spend_money_total{table="${esc(table)}",currency="${esc(this.currency)}"} ${t.spend.money}`);
    tableFamily(
      'floe_savings_file_opens_total',
      'Full-scan file opens compactions saved since start.',
      (t) => t.spend?.opensSaved,
    );
    return `${out.join('\n')}\n`;
  }
}

/**
 * The budget's window as gauges (limit, spent, per unit) and, per job, the reason it waits
 * (`floe_job_waiting{reason}` is 1 for the current reason).
 */
export function budgetMetricLines(
  budget: { limits: Limits; spent: Spend } | undefined,
  waiting: { table: string; job: string; code: WhyCode }[],
): string {
  const out: string[] = [];
  if (budget) {
    out.push('# HELP floe_budget_limit What the budget allows per window, by unit (bytes, cpu_seconds, money).');
    out.push('# TYPE floe_budget_limit gauge');
    const units = [
      ['bytes', 'bytes'],
      ['cpuSeconds', 'cpu_seconds'],
      ['money', 'money'],
    ] as const;
    for (const [k, name] of units) {
      const l = budget.limits[k];
      if (l !== undefined) out.push(`floe_budget_limit{unit="${name}"} ${l}`);
    }
    out.push('# HELP floe_budget_spent What runs spent in the current window, by unit.');
    out.push('# TYPE floe_budget_spent gauge');
    for (const [k, name] of units) out.push(`floe_budget_spent{unit="${name}"} ${round(budget.spent[k])}`);
  }
  out.push('# HELP floe_job_waiting 1 for the reason a job is not running (below-trigger, budget-spent, paused, ...).');
  out.push('# TYPE floe_job_waiting gauge');
  for (const w of waiting)
    if (w.code !== 'running')
      out.push(`floe_job_waiting{table="${esc(w.table)}",job="${esc(w.job)}",reason="${w.code}"} 1`);
  return `${out.join('\n')}\n`;
}

function gaugesFrom(c: JobCounters, o: JobOutcome): void {
  c.lastDurationMs = o.durationMs;
  if ('error' in o) return;
  if (o.filesBefore !== undefined) c.filesBefore = o.filesBefore;
  if (o.filesAfter !== undefined) c.filesAfter = o.filesAfter;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Label values escape backslash, double quote and newline. */
function esc(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
