/**
 * The scheduler behind `floe serve`. It starts due jobs, at most `concurrency` tables at a time and one job
 * per table at a time (a table's jobs are serialised: they all commit to the same table); backs off after
 * failures (initial · 2^(n−1), capped); persists each table's state after every job; and logs one JSON line
 * per job start, finish, failure and skipped occurrence.
 *
 * Time comes from an injected clock and jobs from an injected runner, so the policy is testable without
 * waiting or touching tables; the defaults are the system clock and `runMaintenanceJob`.
 */
import { isFloeError } from '../errors.js';
import type { ProgressEvent } from '../execution/events.js';
import type { JobConfig, ServiceConfig, TableConfig } from './config.js';
import type { JobKind, MaintenanceJobResult, MaintenanceJobSpec, RunJobOptions } from './job-types.js';
import { backoffMs, nextDueMs } from './schedule.js';
import { emptyTableState, StateStore, type JobOutcome, type JobState, type TableState } from './state.js';
import { MetricsRegistry } from './metrics.js';

export interface Clock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
};

export type RunJob = (spec: MaintenanceJobSpec, opts: RunJobOptions) => Promise<MaintenanceJobResult>;
export type LogEntry = { time: string; level: 'info' | 'warn' | 'error'; event: string } & Record<string, unknown>;
export type LogSink = (entry: LogEntry) => void;

export const stdoutLog: LogSink = (entry) => {
  process.stdout.write(`${JSON.stringify(entry, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}\n`);
};

export interface ServiceOptions {
  clock?: Clock;
  runJob?: RunJob;
  log?: LogSink;
  store?: StateStore;
  /** Longest sleep between checks (default 60 s); due times are also woken for exactly. */
  maxSleepMs?: number;
}

export type StartReason = 'scheduled' | 'retry' | 'manual';

interface Running {
  job: JobKind;
  startedAtMs: number;
  reason: StartReason;
  abort: AbortController;
  done: Promise<void>;
  /** Latest schedule occurrence that passed while this run was going (and was therefore skipped). */
  skippedThroughMs?: number;
}

interface TableRuntime {
  cfg: TableConfig;
  state: TableState;
  running?: Running;
  /** Jobs asked for by `POST /run`, started ahead of the schedule. */
  forced: Set<JobKind>;
}

export type TriggerOutcome =
  | { status: 'accepted'; started: boolean }
  | { status: 'unknown-table' | 'unknown-job' | 'running' | 'queued' | 'stopping'; reason: string };

export interface OnceSummary {
  ran: number;
  failed: number;
  outcomes: JobOutcome[];
}

export class MaintenanceService {
  readonly metrics = new MetricsRegistry();
  private readonly clock: Clock;
  private readonly runJob: RunJob;
  private readonly log: LogSink;
  private readonly store: StateStore;
  private readonly maxSleepMs: number;
  private readonly tables = new Map<string, TableRuntime>();
  private timer: unknown;
  private mode: 'new' | 'ready' | 'serving' | 'once' | 'stopping' | 'stopped' = 'new';
  /** In a `--once` pass: jobs already started, so none runs twice. */
  private onceStarted = new Set<string>();
  private onceOutcomes: JobOutcome[] = [];
  private startedAtMs = 0;

  constructor(
    readonly config: ServiceConfig,
    options: ServiceOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    // loaded on first use: the compaction engine is heavy, and tests with a fake runner never need it
    this.runJob = options.runJob ?? (async (spec, o) => (await import('./job.js')).runMaintenanceJob(spec, o));
    this.log = options.log ?? stdoutLog;
    this.store = options.store ?? new StateStore(config.stateDir);
    this.maxSleepMs = options.maxSleepMs ?? 60_000;
  }

  /** Reads every table's persisted state; call once before `start` or `runOnce`. */
  async init(): Promise<void> {
    for (const cfg of this.config.tables) {
      const state = (await this.store.load(cfg.name)) ?? emptyTableState(cfg.table);
      this.tables.set(cfg.name, { cfg, state, forced: new Set() });
      for (const j of cfg.jobs) this.metrics.declare(cfg.name, j.kind, state.jobs[j.kind]);
    }
    this.startedAtMs = this.clock.now();
    this.mode = 'ready';
  }

  /** Long-running mode: checks now and then whenever something can next become due. */
  start(): void {
    this.mode = 'serving';
    this.emit('info', 'service-start', { tables: this.config.tables.map((t) => t.name), concurrency: this.config.concurrency, stateDir: this.config.stateDir });
    this.tick();
  }

  /** Starts what is due and re-arms the timer. Public so tests can step a fake clock. */
  tick(): void {
    this.pump();
    this.arm();
  }

  /** Runs every job that is due now, once each (failures are not retried), and resolves when all ended. */
  async runOnce(): Promise<OnceSummary> {
    this.mode = 'once';
    this.onceStarted = new Set();
    this.onceOutcomes = [];
    for (;;) {
      this.pump();
      const running = this.runningJobs();
      if (running.length === 0) break;
      await Promise.race(running.map((r) => r.done));
    }
    await this.store.flush();
    this.mode = 'ready';
    const outcomes = this.onceOutcomes;
    return { ran: outcomes.length, failed: outcomes.filter((o) => !o.ok).length, outcomes };
  }

  /** `POST /run/<table>/<job>`: run it as soon as the table (and a concurrency slot) is free. */
  trigger(tableName: string, kind: string): TriggerOutcome {
    if (this.mode === 'stopping' || this.mode === 'stopped') return { status: 'stopping', reason: 'the service is shutting down' };
    const t = this.tables.get(tableName);
    if (!t) return { status: 'unknown-table', reason: `no table named "${tableName}" (known: ${[...this.tables.keys()].join(', ')})` };
    if (!t.cfg.jobs.some((j) => j.kind === kind)) {
      return { status: 'unknown-job', reason: `table ${tableName} has no ${kind} job (configured: ${t.cfg.jobs.map((j) => j.kind).join(', ')})` };
    }
    const job = kind as JobKind;
    if (t.running?.job === job) return { status: 'running', reason: `${job} of ${tableName} is running since ${iso(t.running.startedAtMs)}` };
    if (t.forced.has(job)) return { status: 'queued', reason: `${job} of ${tableName} is already queued` };
    t.forced.add(job);
    this.pump();
    this.arm();
    return { status: 'accepted', started: t.running?.job === job };
  }

  /** Stops starting jobs, waits up to `timeoutMs` for running ones (then signals them to stop), flushes state. */
  async stop(timeoutMs = this.config.shutdownTimeoutMs): Promise<{ unfinished: string[] }> {
    if (this.mode === 'stopped') return { unfinished: [] };
    this.mode = 'stopping';
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    const running = [...this.tables.values()].filter((t) => t.running);
    this.emit('info', 'service-stopping', { running: running.map((t) => `${t.cfg.name}/${t.running!.job}`), timeoutMs });
    let timeout: unknown;
    const timedOut = await Promise.race([
      Promise.all(running.map((t) => t.running!.done)).then(() => false),
      new Promise<boolean>((resolve) => (timeout = this.clock.setTimer(() => resolve(true), timeoutMs))),
    ]);
    this.clock.clearTimer(timeout);
    const unfinished = [...this.tables.values()].filter((t) => t.running).map((t) => `${t.cfg.name}/${t.running!.job}`);
    if (timedOut && unfinished.length) {
      // jobs check the signal between phases; a rewrite in flight leaves only unreferenced files behind
      for (const t of this.tables.values()) t.running?.abort.abort();
      this.emit('warn', 'shutdown-timeout', { unfinished, timeoutMs });
    }
    await this.store.flush();
    this.mode = 'stopped';
    this.emit('info', 'service-stop', { unfinished });
    return { unfinished };
  }

  /** Resolves when no job is running (tests; shutdown uses `stop`). */
  async idle(): Promise<void> {
    for (let r = this.runningJobs(); r.length; r = this.runningJobs()) await Promise.all(r.map((x) => x.done));
  }

  /** `GET /health`. */
  health(): Record<string, unknown> {
    const now = this.clock.now();
    return {
      ok: this.mode !== 'stopping' && this.mode !== 'stopped',
      status: this.mode,
      startedAt: iso(this.startedAtMs),
      now: iso(now),
      tables: [...this.tables.values()].map((t) => ({
        name: t.cfg.name,
        table: t.cfg.table,
        running: t.running ? { job: t.running.job, since: iso(t.running.startedAtMs), reason: t.running.reason } : null,
        jobs: Object.fromEntries(
          t.cfg.jobs.map((j) => {
            const s = t.state.jobs[j.kind];
            return [
              j.kind,
              {
                schedule: j.schedule.text,
                nextDueAt: t.running?.job === j.kind ? null : iso(this.dueAt(t, j, now)),
                consecutiveFailures: s?.consecutiveFailures ?? 0,
                lastSuccessAt: s?.lastSuccessStartMs !== undefined ? iso(s.lastSuccessStartMs) : null,
                lastResult: s?.lastResult ?? null,
              },
            ];
          }),
        ),
      })),
    };
  }

  /** `GET /metrics` (Prometheus text exposition format). */
  metricsText(): string {
    const running = new Set([...this.tables.values()].filter((t) => t.running).map((t) => `${t.cfg.name}\u0000${t.running!.job}`));
    return this.metrics.render(running);
  }

  /** The table's state as held in memory (tests, `/health`). */
  stateOf(tableName: string): TableState | undefined {
    return this.tables.get(tableName)?.state;
  }

  // ---------------------------------------------------------------------------------------------------

  /** When job `j` of `t` is next due: its schedule from the last success (or the last skipped occurrence), gated by backoff. */
  private dueAt(t: TableRuntime, j: JobConfig, now: number): number {
    const s = t.state.jobs[j.kind];
    const base = s?.lastSuccessStartMs === undefined ? undefined : Math.max(s.lastSuccessStartMs, s.skippedThroughMs ?? -Infinity);
    let due = nextDueMs(j.schedule, base, now);
    if (s && s.consecutiveFailures > 0 && s.retryAtMs !== undefined) due = Math.max(due, s.retryAtMs);
    return due;
  }

  private runningJobs(): Running[] {
    return [...this.tables.values()].flatMap((t) => (t.running ? [t.running] : []));
  }

  private pump(): void {
    if (this.mode !== 'serving' && this.mode !== 'once') return;
    const now = this.clock.now();
    this.noteSkips(now);
    const candidates: { t: TableRuntime; j: JobConfig; dueAt: number; reason: StartReason }[] = [];
    for (const t of this.tables.values()) {
      if (t.running) continue;
      let best: (typeof candidates)[number] | undefined;
      for (const j of t.cfg.jobs) {
        if (this.mode === 'once' && this.onceStarted.has(`${t.cfg.name}/${j.kind}`)) continue;
        const forced = t.forced.has(j.kind);
        const dueAt = forced ? -Infinity : this.dueAt(t, j, now);
        if (dueAt > now) continue;
        const reason: StartReason = forced ? 'manual' : (t.state.jobs[j.kind]?.consecutiveFailures ?? 0) > 0 ? 'retry' : 'scheduled';
        if (!best || dueAt < best.dueAt) best = { t, j, dueAt, reason };
      }
      if (best) candidates.push(best);
    }
    // most overdue first (manual triggers before all); ties keep config order
    candidates.sort((a, b) => a.dueAt - b.dueAt);
    let free = this.config.concurrency - this.runningJobs().length;
    for (const c of candidates) {
      if (free <= 0) break;
      this.startJob(c.t, c.j, c.reason, now);
      free--;
    }
  }

  /** A running job whose next occurrence has come: that occurrence is skipped, and logged once. */
  private noteSkips(now: number): void {
    for (const t of this.tables.values()) {
      const r = t.running;
      if (!r) continue;
      const j = t.cfg.jobs.find((x) => x.kind === r.job)!;
      let passed: number | undefined;
      let count = 0;
      for (let next = nextDueMs(j.schedule, r.skippedThroughMs ?? r.startedAtMs, now); next <= now && count < 10_000; next = nextDueMs(j.schedule, next, now)) {
        passed = next;
        count++;
      }
      if (passed === undefined) continue;
      r.skippedThroughMs = passed;
      this.emit('warn', 'job-skipped', {
        table: t.cfg.name,
        job: r.job,
        dueAt: iso(passed),
        occurrences: count,
        reason: `still running since ${iso(r.startedAtMs)}; the table's jobs never overlap`,
      });
    }
  }

  private startJob(t: TableRuntime, j: JobConfig, reason: StartReason, now: number): void {
    const name = t.cfg.name;
    t.forced.delete(j.kind);
    if (this.mode === 'once') this.onceStarted.add(`${name}/${j.kind}`);
    const s: JobState = (t.state.jobs[j.kind] ??= { consecutiveFailures: 0 });
    s.lastStartMs = now;
    const abort = new AbortController();
    const spec = this.specFor(t, j);
    const running: Running = { job: j.kind, startedAtMs: now, reason, abort, done: Promise.resolve() };
    t.running = running;
    this.emit('info', 'job-start', { table: name, location: t.cfg.table, job: j.kind, reason, attempt: s.consecutiveFailures + 1, dryRun: j.dryRun });
    const onProgress = (e: ProgressEvent) => this.onProgress(name, j.kind, e);
    running.done = this.runJob(spec, { signal: abort.signal, onProgress }).then(
      (result) => this.finishJob(t, j, running, result, undefined),
      (error: unknown) => this.finishJob(t, j, running, undefined, error),
    );
  }

  private specFor(t: TableRuntime, j: JobConfig): MaintenanceJobSpec {
    return {
      table: t.cfg.table,
      job: j.kind,
      access: t.cfg.access,
      properties: t.cfg.properties,
      dryRun: j.dryRun,
      ...(j.compact ? { compact: j.compact } : {}),
      ...(j.expire ? { expire: j.expire } : {}),
      ...(j.removeOrphans ? { removeOrphans: j.removeOrphans } : {}),
      ...(t.state.tiered ? { tieredState: t.state.tiered } : {}),
    };
  }

  private async finishJob(t: TableRuntime, j: JobConfig, r: Running, result: MaintenanceJobResult | undefined, error: unknown): Promise<void> {
    const now = this.clock.now();
    this.noteSkips(now); // occurrences that passed during the run are skipped, not run right after it
    const s = t.state.jobs[j.kind]!;
    s.lastFinishMs = now;
    if (r.skippedThroughMs !== undefined) s.skippedThroughMs = r.skippedThroughMs;
    let outcome: JobOutcome;
    if (result) {
      const { tieredState, ...rest } = result;
      outcome = rest;
      if (tieredState) t.state.tiered = tieredState;
    } else {
      outcome = {
        ok: false,
        table: t.cfg.table,
        job: j.kind,
        startedAtMs: r.startedAtMs,
        durationMs: now - r.startedAtMs,
        error: error instanceof Error ? error.message : String(error),
        ...(isFloeError(error) ? { errorKind: error.kind, retryable: error.retryable } : {}),
      };
    }
    s.lastResult = outcome;
    const fields = { table: t.cfg.name, location: t.cfg.table, job: j.kind, reason: r.reason, ...summary(outcome) };
    if (outcome.ok) {
      s.lastSuccessStartMs = r.startedAtMs;
      s.consecutiveFailures = 0;
      delete s.retryAtMs;
      this.emit('info', 'job-finish', fields);
    } else {
      s.consecutiveFailures += 1;
      s.retryAtMs = now + backoffMs(s.consecutiveFailures, this.config.backoff.initialMs, this.config.backoff.maxMs);
      this.emit('error', 'job-failed', { ...fields, consecutiveFailures: s.consecutiveFailures, retryAt: iso(s.retryAtMs) });
    }
    this.metrics.record(t.cfg.name, j.kind, outcome, s);
    if (this.mode === 'once') this.onceOutcomes.push(outcome);
    t.running = undefined;
    try {
      await this.store.save(t.cfg.name, t.state);
    } catch (e) {
      this.emit('error', 'state-write-failed', { table: t.cfg.name, error: e instanceof Error ? e.message : String(e) });
    }
    if (this.mode === 'serving') this.tick();
  }

  private onProgress(table: string, job: JobKind, e: ProgressEvent): void {
    // commits and warnings are worth a line; per-file events would drown the log
    if (e.type === 'commit') this.emit('info', 'job-commit', { table, job, snapshotId: e.snapshotId, attempt: e.attempt, groups: e.groups });
    else if (e.type === 'commit-retry') this.emit('warn', 'job-commit-retry', { table, job, attempt: e.attempt, reason: e.reason });
    else if (e.type === 'message' && e.level === 'warn') this.emit('warn', 'job-warning', { table, job, text: e.text });
  }

  /** Sleeps until the earliest moment something can change (a due time, a skip occurrence), at most maxSleepMs. */
  private arm(): void {
    if (this.mode !== 'serving') return;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    const now = this.clock.now();
    let earliest = now + this.maxSleepMs;
    const slotsFree = this.runningJobs().length < this.config.concurrency;
    for (const t of this.tables.values()) {
      if (t.running) {
        const j = t.cfg.jobs.find((x) => x.kind === t.running!.job)!;
        earliest = Math.min(earliest, nextDueMs(j.schedule, t.running.skippedThroughMs ?? t.running.startedAtMs, now));
      } else if (slotsFree) {
        // with every slot busy, only a finishing job can start another: it ticks itself
        for (const j of t.cfg.jobs) earliest = Math.min(earliest, this.dueAt(t, j, now));
      }
    }
    const delay = Math.min(this.maxSleepMs, Math.max(50, earliest - now));
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      this.tick();
    }, delay);
  }

  private emit(level: LogEntry['level'], event: string, fields: Record<string, unknown>): void {
    try {
      this.log({ time: iso(this.clock.now()), level, event, ...fields });
    } catch {
      // a failing log sink must not stop maintenance
    }
  }
}

function summary(o: JobOutcome): Record<string, unknown> {
  if ('error' in o) return { ok: false, durationMs: o.durationMs, error: o.error, ...(o.errorKind ? { errorKind: o.errorKind } : {}) };
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

function iso(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : 'never';
}
