/**
 * The scheduler behind `floe serve`. It starts due jobs, at most `concurrency` tables at a time and one job
 * per table at a time (a table's jobs are serialised: they all commit to the same table); backs off after
 * failures (initial · 2^(n−1), capped) and notifies a webhook on failure and recovery; skips paused tables;
 * cancels a job at its wall-clock limit; persists each table's state and a history row after every job in
 * the state database (state-db.ts), where replicas sharing PostgreSQL lease a table before working on it;
 * and logs one JSON line per job start, finish, failure and skipped occurrence. Tables come from the config
 * and from discovery (discovery.ts), which calls `syncTables`. With `budget:` each pass estimates due
 * compactions by a dry-run plan, ranks them by benefit per cost with aging and admits what the budget and
 * the table caps allow (dispatch.ts, budget-keeper.ts); every job can say why it runs or waits (why.ts).
 *
 * Time comes from an injected clock and jobs from an injected runner, so the policy is testable without
 * waiting or touching tables; the defaults are the system clock and `runMaintenanceJob`.
 */
import { FloeError } from '../../../util/errors.js';
import { failedOutcome, isTableBusy, iso, runRecord, summary } from './run-record.js';
import { BUDGET_DEFAULTS, type PriceOf, type Spend } from './budget.js';
import { BudgetKeeper } from './budget-keeper.js';
import { estimateFromPlan, type RunEstimate } from './run-value.js';
import { dispatch, type DueJob } from './dispatch.js';
import { whyNow, type Why, type WhyCode } from './why.js';
import type { ProgressEvent } from '../../core/execution/events.js';
import type { JobConfig, ServiceConfig, TableConfig } from './config.js';
import type {
  JobKind,
  MaintenanceJobResult,
  MaintenanceJobSpec,
  RunJobOptions,
} from '../../orchestration/job-types.js';
import { backoffMs, nextDueMs } from './schedule.js';
import { emptyTableState, type JobOutcome, type JobState, type TableState, type TableStateStore } from './state.js';
import { DbStateStore, type RunRecord } from './state-db.js';
import { budgetMetricLines, MetricsRegistry } from './metrics.js';
import { WebhookNotifier } from './webhook.js';
import { reconcileRuns } from './reconcile-runs.js';
import { jobSpecFor } from './job-spec.js';

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
  /** Default: the database named by `config.state` (opened by `init`). */
  store?: TableStateStore;
  /** Webhook delivery (tests inject one). */
  fetch?: typeof fetch;
  /** Longest sleep between checks (default 60 s); due times are also woken for exactly. */
  maxSleepMs?: number;
  /** false: do not add run rows for floe snapshots the state database lacks at start (reconcile-runs.ts). */
  reconcile?: boolean;
  /**
   * Prices a run's usage for `budget.money` (a price sheet, src/app/cost, plugs in here); default: the
   * config's flat `budget.prices`.
   */
  priceOf?: PriceOf;
}

export type StartReason = 'scheduled' | 'retry' | 'manual';

interface Running {
  job: JobKind;
  startedAtMs: number;
  reason: StartReason;
  /** A manual dry run of a job that normally commits: it leaves the schedule state alone. */
  dryRunOverride: boolean;
  abort: AbortController;
  /** Set when the wall-clock limit fired. */
  timedOut?: boolean;
  timeoutTimer?: unknown;
  done: Promise<void>;
  /** The ledger entry charged with this run's estimate while it runs (budget). */
  charge?: number;
  /** Why it started, in words (shown until the next run). */
  why: string;
  /** Latest schedule occurrence that passed while this run was going (and was therefore skipped). */
  skippedThroughMs?: number;
}

interface TableRuntime {
  cfg: TableConfig;
  state: TableState;
  running?: Running;
  /** Jobs asked for by `POST /run`, started ahead of the schedule, and whether as a dry run. */
  forced: Map<JobKind, { dryRun: boolean }>;
  /** Paused tables get no scheduled or retried runs (manual dry runs still work). */
  paused: boolean;
  /** Dropped from its catalog (or opted out) while a job ran: removed when the job ends. */
  retiring?: boolean;
  /** Another replica holds the table's lease: not before this time. */
  leaseBlockedUntilMs?: number;
  /** The compaction's cost and benefit from a dry-run plan (budget); dropped when a run of the table ends. */
  estimate?: RunEstimate;
  estimating?: Promise<void>;
  /** Why each job did not start at the last scheduling pass (budget spent, below trigger, …). */
  held: Map<JobKind, { code: WhyCode; reason: string; atMs: number; untilMs?: number }>;
  /** Why each job's last run started. */
  ranBecause: Map<JobKind, string>;
}

/** A plan that found nothing is looked at again after this long (or at the job's next occurrence, if later). */
const BELOW_TRIGGER_RECHECK_MS = 15 * 60_000;
/** An estimate older than this is planned again before it is trusted. */
const ESTIMATE_TTL_MS = 15 * 60_000;

/** A replica's hold on a table (shared PostgreSQL state): renewed every third of it while a job runs. */
const LEASE_TTL_MS = 120_000;
const LEASE_RETRY_MS = 30_000;

export type TriggerOutcome =
  | { status: 'accepted'; started: true; dryRun: boolean }
  | { status: 'accepted'; started: false; dryRun: boolean; reason: string }
  | {
      status: 'unknown-table' | 'unknown-job' | 'running' | 'queued' | 'paused' | 'stopping';
      started: false;
      reason: string;
    };

/** Summary of a finished run as the scheduler hands it to the store, metrics and webhooks. */
export interface FinishedRun {
  table: string;
  record: RunRecord;
}

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
  private store: TableStateStore | undefined;
  /** Shared state (PostgreSQL): tables are leased before a job starts. */
  private leased = false;
  private readonly webhook: WebhookNotifier | undefined;
  /** Listeners told about every finished run (the HTTP layer drops its cached health). */
  readonly onRunFinished = new Set<(r: FinishedRun) => void>();
  private readonly maxSleepMs: number;
  private readonly tables = new Map<string, TableRuntime>();
  private timer: unknown;
  private mode: 'new' | 'ready' | 'serving' | 'once' | 'stopping' | 'stopped' = 'new';
  /** In a `--once` pass: jobs already started, so none runs twice. */
  private onceStarted = new Set<string>();
  private onceOutcomes: JobOutcome[] = [];
  private startedAtMs = 0;
  /** The state database had no table when this process opened it: nothing has run, every job is due. */
  private firstStart = false;
  /** What runs may spend and did (budget-keeper.ts). */
  private readonly budget: BudgetKeeper;

  constructor(
    readonly config: ServiceConfig,
    private readonly options: ServiceOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    // loaded on first use: the compaction engine is heavy, and tests with a fake runner never need it
    this.runJob =
      options.runJob ?? (async (spec, o) => (await import('../../app/maintenance-job.js')).runMaintenanceJob(spec, o));
    this.log = options.log ?? stdoutLog;
    this.store = options.store;
    this.maxSleepMs = options.maxSleepMs ?? 60_000;
    this.budget = new BudgetKeeper(config, this.metrics, options.priceOf);
    this.webhook = config.webhook
      ? new WebhookNotifier(config.webhook, (level, event, fields) => this.emit(level, event, fields), options.fetch)
      : undefined;
  }

  /** The state database, when the store is one (run history, pause, tables under management). */
  get db(): DbStateStore | undefined {
    return this.store instanceof DbStateStore ? this.store : undefined;
  }

  /**
   * Opens the state database (migrating a legacy JSON state folder on first start) and reads every listed
   * table's persisted state; call once before `start` or `runOnce`.
   */
  async init(): Promise<void> {
    this.startedAtMs = this.clock.now();
    if (!this.store) {
      const db = await DbStateStore.open(this.config.state);
      this.store = db;
      if (this.config.stateDir) {
        const imported = await db.importJsonDir(this.config.stateDir);
        if (imported.length)
          this.emit('info', 'state-migrated', { from: this.config.stateDir, to: db.description, tables: imported });
      }
    }
    this.leased = this.db?.sql.dialect === 'postgres';
    this.firstStart = this.db !== undefined && (await this.db.tableRows()).length === 0;
    await this.syncTables(this.config.tables);
    if (this.db && this.options.reconcile !== false) {
      const db = this.db;
      await reconcileRuns(
        db,
        [...this.tables.values()].map((t) => ({ cfg: t.cfg, state: t.state })),
        (level, event, fields) => this.emit(level, event, fields),
        this.startedAtMs,
      ).catch((e: unknown) =>
        this.emit('warn', 'reconcile-failed', { error: e instanceof Error ? e.message : String(e) }),
      );
    }
    await this.budget.seed(this.db, this.tables.keys(), this.clock.now());
    this.mode = 'ready';
  }

  /** What a recorded or finished run spent, priced like the budget. */
  spendOfRun(r: Pick<RunRecord, 'bytesRead' | 'bytesWritten' | 'durationMs'>): Spend {
    return this.budget.spendOfRun(r);
  }

  /** Closes the state database (after `stop`). */
  async close(): Promise<void> {
    await this.webhook?.drain();
    if (this.db) await this.db.close();
  }

  /**
   * Makes `cfgs` the tables under management: new ones are added (their state loaded), changed ones get
   * the new configuration, and ones no longer listed are retired (after their running job, if any).
   * `optedOut` tables are retired with that reason recorded.
   */
  async syncTables(
    cfgs: readonly TableConfig[],
    optedOut: ReadonlyMap<string, { location: string; source: string; reason: string }> = new Map(),
  ): Promise<void> {
    const now = this.clock.now();
    const db = this.db;
    const rows = new Map((db ? await db.tableRows() : []).map((r) => [r.name, r]));
    const wanted = new Set(cfgs.map((c) => c.name));
    for (const cfg of cfgs) {
      let t = this.tables.get(cfg.name);
      if (!t) {
        const state = (await this.store!.load(cfg.name)) ?? emptyTableState(cfg.table);
        t = {
          cfg,
          state,
          forced: new Map(),
          paused: rows.get(cfg.name)?.paused ?? false,
          held: new Map(),
          ranBecause: new Map(),
        };
        this.tables.set(cfg.name, t);
        if (this.mode !== 'new')
          this.emit('info', 'table-added', { table: cfg.name, location: cfg.table, source: cfg.source });
      } else {
        t.cfg = cfg;
        t.retiring = false;
        // another replica may have paused or resumed it
        const row = rows.get(cfg.name);
        if (row) t.paused = row.paused;
      }
      let firstSeen = false;
      for (const j of cfg.jobs) {
        const s = (t.state.jobs[j.kind] ??= { consecutiveFailures: 0 });
        if (s.firstSeenMs === undefined) {
          s.firstSeenMs = now;
          firstSeen = true;
        }
        this.metrics.declare(cfg.name, j.kind, s, true);
      }
      this.metrics.setPaused(cfg.name, t.paused);
      await db?.upsertTable({
        name: cfg.name,
        location: cfg.table,
        ...(cfg.format ? { format: cfg.format } : {}),
        source: cfg.source,
        status: 'active',
        lastSeenMs: now,
      });
      // a schedule seen for the first time is remembered (a cron job's first run counts from it)
      if (firstSeen && !t.running) await this.store!.save(cfg.name, t.state);
    }
    for (const [name, t] of [...this.tables]) {
      if (wanted.has(name)) continue;
      const why = optedOut.get(name)?.reason ?? 'no longer listed by its catalog or the config';
      if (t.running) {
        t.retiring = true;
      } else {
        this.tables.delete(name);
        this.metrics.forget(name);
      }
      this.emit('info', 'table-retired', { table: name, location: t.cfg.table, reason: why });
      await db?.upsertTable({
        name,
        location: t.cfg.table,
        source: t.cfg.source,
        status: optedOut.has(name) ? 'opted-out' : 'retired',
        statusReason: why,
        lastSeenMs: now,
        retiredAtMs: now,
      });
    }
    for (const [name, o] of optedOut) {
      if (this.tables.has(name) || rows.get(name)?.status === 'opted-out') continue;
      await db?.upsertTable({
        name,
        location: o.location,
        source: o.source,
        status: 'opted-out',
        statusReason: o.reason,
        lastSeenMs: now,
        retiredAtMs: now,
      });
    }
    if (this.mode === 'serving') this.tick();
  }

  /** Names of the tables under management, in order. */
  tableNames(): string[] {
    return [...this.tables.keys()];
  }

  tableConfig(name: string): TableConfig | undefined {
    return this.tables.get(name)?.cfg;
  }

  isPaused(name: string): boolean | undefined {
    return this.tables.get(name)?.paused;
  }

  /** Pause (no scheduled or retried runs) or resume a table; persisted, so it survives restarts and reaches replicas. */
  async setPaused(name: string, paused: boolean): Promise<boolean> {
    const t = this.tables.get(name);
    if (!t) return false;
    if (t.paused !== paused) {
      t.paused = paused;
      this.emit('info', paused ? 'table-paused' : 'table-resumed', { table: name });
    }
    this.metrics.setPaused(name, paused);
    await this.db?.setPaused(name, paused, this.clock.now());
    if (!paused && this.mode === 'serving') this.tick();
    return true;
  }

  /** Long-running mode: checks now and then whenever something can next become due. */
  start(): void {
    this.mode = 'serving';
    // every table under management: the config's `tables:` and what the catalogs' discovery found
    this.emit('info', 'service-start', {
      tables: this.tableNames(),
      concurrency: this.config.concurrency,
      stateDir: this.config.stateDir,
    });
    this.announceFirstStart();
    this.tick();
  }

  /**
   * The first start against a new state database runs every job at once (none has a last run to count
   * from): say so before it happens, with the jobs that will change tables, and how to look first.
   */
  private announceFirstStart(): void {
    if (!this.firstStart) return;
    this.firstStart = false;
    const now = this.clock.now();
    const due = [...this.tables.values()].flatMap((t) =>
      t.paused
        ? []
        : t.cfg.jobs.filter((j) => this.dueAt(t, j, now) <= now).map((j) => ({ table: t.cfg.name, job: j })),
    );
    const live = due.filter((d) => !d.job.dryRun).map((d) => `${d.job.kind} ${d.table}`);
    const dry = due.length - live.length;
    this.emit(live.length ? 'warn' : 'info', 'first-start', {
      state: this.db?.description,
      message:
        `first start with a new state database: no job has run yet, so ${due.length} job(s) are due and start now` +
        (live.length
          ? ` — ${live.length} will change tables (${live.slice(0, 20).join(', ')}${live.length > 20 ? ', …' : ''})` +
            `${dry ? `, ${dry} are dry runs` : ''}. To only look, stop (Ctrl-C) and set dryRun: true on the jobs (defaults.jobs), or run floe serve --once with it first`
          : ' — all of them dry runs: nothing is committed or deleted'),
      dueNow: due.map((d) => ({ table: d.table, job: d.job.kind, dryRun: d.job.dryRun })),
    });
  }

  /** Starts what is due and re-arms the timer. Public so tests can step a fake clock. */
  tick(): void {
    this.pump();
    this.arm();
  }

  /** Runs every job that is due now, once each (failures are not retried), and resolves when all ended. */
  async runOnce(): Promise<OnceSummary> {
    this.mode = 'once';
    this.announceFirstStart();
    this.onceStarted = new Set();
    this.onceOutcomes = [];
    for (;;) {
      this.pump();
      const waits = [...this.runningJobs().map((r) => r.done), ...this.pendingEstimates()];
      if (waits.length === 0) break;
      await Promise.race(waits);
    }
    await this.store!.flush();
    this.mode = 'ready';
    const outcomes = this.onceOutcomes;
    return { ran: outcomes.length, failed: outcomes.filter((o) => !o.ok).length, outcomes };
  }

  /**
   * `POST /run/<table>/<job>`: run it as soon as the table (and a concurrency slot) is free. `dryRun`
   * (default: the job's configured mode) plans and reports without committing or deleting anything.
   */
  trigger(tableName: string, kind: string, opts: { dryRun?: boolean } = {}): TriggerOutcome {
    if (this.mode === 'stopping' || this.mode === 'stopped')
      return { status: 'stopping', started: false, reason: 'the service is shutting down' };
    const t = this.tables.get(tableName);
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
    this.pump();
    this.arm();
    if (t.running?.job === job) return { status: 'accepted', started: true, dryRun };
    const busy = this.runningJobs().length;
    const reason = t.running
      ? `queued: ${t.running.job} of ${tableName} is running (a table's jobs never overlap)`
      : this.mode !== 'serving' && this.mode !== 'once'
        ? `queued: the scheduler is not running (${this.mode})`
        : `queued: all ${this.config.concurrency} concurrency slot(s) are busy (${busy} running)`;
    return { status: 'accepted', started: false, dryRun, reason };
  }

  /** Stops starting jobs, waits up to `timeoutMs` for running ones (then signals them to stop), flushes state. */
  async stop(timeoutMs = this.config.shutdownTimeoutMs): Promise<{ unfinished: string[] }> {
    if (this.mode === 'stopped') return { unfinished: [] };
    this.mode = 'stopping';
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    const running = [...this.tables.values()].filter((t) => t.running);
    this.emit('info', 'service-stopping', {
      running: running.map((t) => `${t.cfg.name}/${t.running!.job}`),
      timeoutMs,
    });
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
    await this.store?.flush();
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
        source: t.cfg.source,
        paused: t.paused,
        running: t.running ? { job: t.running.job, since: iso(t.running.startedAtMs), reason: t.running.reason } : null,
        jobs: Object.fromEntries(
          t.cfg.jobs.map((j) => {
            const s = t.state.jobs[j.kind];
            return [
              j.kind,
              {
                schedule: j.schedule.text,
                nextDueAt: t.running?.job === j.kind ? null : iso(this.dueAt(t, j, now)),
                lastRunAt: s?.lastStartMs !== undefined ? iso(s.lastStartMs) : null,
                nextRunAt: t.running?.job === j.kind ? null : iso(this.nextRunAt(t, j, now)),
                why: this.whyOf(t.cfg.name, j.kind),
                ...(t.ranBecause.has(j.kind) ? { ranBecause: t.ranBecause.get(j.kind) } : {}),
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
    const now = this.clock.now();
    const waiting = [...this.tables.values()].flatMap((t) =>
      t.cfg.jobs.map((j) => ({ table: t.cfg.name, job: j.kind, code: this.whyOf(t.cfg.name, j.kind)!.code })),
    );
    return this.metrics.render() + budgetMetricLines(this.budget.metricsView(now), waiting);
  }

  /** `GET /api/budget`: the window, its limits, what was spent and what is left (undefined without `budget:`). */
  budgetStatus(): Record<string, unknown> | undefined {
    return this.budget.status(
      this.clock.now(),
      [...this.tables.values()].map((t) => ({ name: t.cfg.name, ...(t.cfg.cap ? { cap: t.cfg.cap } : {}) })),
    );
  }

  /** The table's state as held in memory (tests, `/health`). */
  stateOf(tableName: string): TableState | undefined {
    return this.tables.get(tableName)?.state;
  }

  // ---------------------------------------------------------------------------------------------------

  /** When job `j` of `t` is next due: its schedule from the last success (or the last skipped occurrence), gated by backoff. */
  private dueAt(t: TableRuntime, j: JobConfig, now: number): number {
    const s = t.state.jobs[j.kind];
    const base =
      s?.lastSuccessStartMs === undefined ? undefined : Math.max(s.lastSuccessStartMs, s.skippedThroughMs ?? -Infinity);
    let due = nextDueMs(j.schedule, base, now, s?.firstSeenMs);
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
    const budget = this.budget.dispatchBudget();
    const decisions = dispatch(this.dueJobs(now), {
      now,
      freeSlots: this.config.concurrency - this.runningJobs().length,
      concurrency: this.config.concurrency,
      running: this.runningJobs().length,
      ...(budget ? { budget } : {}),
    });
    for (const d of decisions) {
      const t = d.job.ref;
      const kind = d.job.kind;
      const j = t.cfg.jobs.find((x) => x.kind === kind)!;
      if (d.start) {
        t.held.delete(kind);
        t.ranBecause.set(kind, d.why);
        this.startJob(t, j, d.job.manual ? 'manual' : this.startReason(t, kind), now, d.spend);
        continue;
      }
      const untilMs =
        d.code === 'below-trigger'
          ? Math.max(now + BELOW_TRIGGER_RECHECK_MS, this.nextOccurrence(t, j, now))
          : d.freesAtMs;
      const before = t.held.get(kind);
      t.held.set(kind, {
        code: d.code,
        reason: d.why,
        atMs: before?.code === d.code ? before.atMs : now,
        ...(untilMs !== undefined ? { untilMs } : {}),
      });
      if (before?.code !== d.code && d.code !== 'estimating')
        this.emit('info', 'job-held', { table: t.cfg.name, job: kind, code: d.code, reason: d.why });
      if (d.code === 'below-trigger') delete t.estimate;
      if (d.needsEstimate) this.estimate(t, j);
    }
  }

  /** Every job that may start now (due or asked for), at most one per table: the most overdue of its jobs. */
  private dueJobs(now: number): DueJob<TableRuntime>[] {
    const out: DueJob<TableRuntime>[] = [];
    for (const t of this.tables.values()) {
      if (t.running || t.retiring || (t.leaseBlockedUntilMs ?? 0) > now) continue;
      let best: DueJob<TableRuntime> | undefined;
      for (const j of t.cfg.jobs) {
        if (this.mode === 'once' && this.onceStarted.has(`${t.cfg.name}/${j.kind}`)) continue;
        const forced = t.forced.has(j.kind);
        // a paused table runs only what an operator asks for
        if (t.paused && !forced) continue;
        const dueAt = forced ? -Infinity : this.dueAt(t, j, now);
        if (dueAt > now) continue;
        // a plan that found nothing waits for its re-check
        const held = t.held.get(j.kind);
        if (!forced && held?.code === 'below-trigger' && (held.untilMs ?? 0) > now) continue;
        if (!best || dueAt < best.dueAt) best = this.dueJob(t, j, dueAt, forced, now);
      }
      if (best) out.push(best);
    }
    return out;
  }

  private dueJob(t: TableRuntime, j: JobConfig, dueAt: number, manual: boolean, now: number): DueJob<TableRuntime> {
    const fresh = t.estimate && now - t.estimate.atMs < ESTIMATE_TTL_MS ? t.estimate : undefined;
    const s = t.state.jobs[j.kind];
    const last = s?.lastResult;
    // a job that never succeeded is "due now" at every look: it has been waiting since it was first seen
    const waitingSinceMs =
      s?.lastSuccessStartMs === undefined && s?.firstSeenMs !== undefined ? Math.min(dueAt, s.firstSeenMs) : dueAt;
    return {
      ref: t,
      table: t.cfg.name,
      kind: j.kind,
      dueAt,
      waitingSinceMs,
      manual,
      ...(j.kind === 'compact' && fresh ? { estimate: fresh } : {}),
      ...(j.kind !== 'compact' && last && !('error' in last) ? { spend: this.spendOfRun(last) } : {}),
      ...(t.cfg.cap ? { cap: t.cfg.cap } : {}),
    };
  }

  private startReason(t: TableRuntime, kind: JobKind): StartReason {
    return (t.state.jobs[kind]?.consecutiveFailures ?? 0) > 0 ? 'retry' : 'scheduled';
  }

  /** The job's next schedule occurrence after now (a below-trigger re-check waits at least for it). */
  private nextOccurrence(t: TableRuntime, j: JobConfig, now: number): number {
    return nextDueMs(j.schedule, now, now);
  }

  /**
   * Plans the table's compaction as a dry run to learn its cost and benefit (budget only); one plan per
   * table at a time. The scheduler looks again when it lands.
   */
  private estimate(t: TableRuntime, j: JobConfig): void {
    if (t.estimating) return;
    const spec = { ...this.buildSpec(t, j), dryRun: true };
    const bytesPerCpuSecond = this.config.budget?.bytesPerCpuSecond ?? BUDGET_DEFAULTS.bytesPerCpuSecond;
    t.estimating = this.runJob(spec, {})
      .then((r) => {
        t.estimate = estimateFromPlan(r.plan, bytesPerCpuSecond, this.clock.now(), targetBytes(t));
        this.emit('info', 'job-estimated', {
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
          atMs: this.clock.now(),
        };
        this.emit('warn', 'job-estimate-failed', {
          table: t.cfg.name,
          job: j.kind,
          error: e instanceof Error ? e.message : String(e),
        });
      })
      .finally(() => {
        t.estimating = undefined;
        if (this.mode === 'serving') this.tick();
      });
  }

  private pendingEstimates(): Promise<void>[] {
    return [...this.tables.values()].flatMap((t) => (t.estimating ? [t.estimating] : []));
  }

  /** Why a job of a table is or is not running now (`/api/tables`, the dashboard, `floe_job_waiting`). */
  whyOf(tableName: string, kind: JobKind): Why | undefined {
    const t = this.tables.get(tableName);
    const j = t?.cfg.jobs.find((x) => x.kind === kind);
    if (!t || !j) return undefined;
    const now = this.clock.now();
    const s = t.state.jobs[kind];
    return whyNow({
      now,
      ...(t.running?.job === kind ? { runningThis: { since: t.running.startedAtMs, reason: t.running.reason } } : {}),
      ...(t.running && t.running.job !== kind ? { runningOther: `${t.running.job} of ${t.cfg.name}` } : {}),
      paused: t.paused,
      failures: s?.consecutiveFailures ?? 0,
      ...(s?.retryAtMs !== undefined ? { retryAtMs: s.retryAtMs } : {}),
      ...(t.leaseBlockedUntilMs !== undefined ? { leaseBlockedUntilMs: t.leaseBlockedUntilMs } : {}),
      ...(t.held.get(kind) ? { held: t.held.get(kind)! } : {}),
      dueAt: this.dueAt(t, j, now),
    });
  }

  /** When the job can next start: its due time, or a below-trigger hold's re-check if that is later. */
  private nextRunAt(t: TableRuntime, j: JobConfig, now: number): number {
    const held = t.held.get(j.kind);
    const due = this.dueAt(t, j, now);
    return held?.code === 'below-trigger' && held.untilMs !== undefined ? Math.max(due, held.untilMs) : due;
  }

  /** Why the job's last run (in this process) started. */
  ranBecause(tableName: string, kind: JobKind): string | undefined {
    return this.tables.get(tableName)?.ranBecause.get(kind);
  }

  /** A running job whose next occurrence has come: that occurrence is skipped, and logged once. */
  private noteSkips(now: number): void {
    for (const t of this.tables.values()) {
      const r = t.running;
      if (!r) continue;
      const j = t.cfg.jobs.find((x) => x.kind === r.job)!;
      let passed: number | undefined;
      let count = 0;
      for (
        let next = nextDueMs(j.schedule, r.skippedThroughMs ?? r.startedAtMs, now);
        next <= now && count < 10_000;
        next = nextDueMs(j.schedule, next, now)
      ) {
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

  private startJob(t: TableRuntime, j: JobConfig, reason: StartReason, now: number, charge?: Spend): void {
    const name = t.cfg.name;
    const forced = t.forced.get(j.kind);
    t.forced.delete(j.kind);
    if (this.mode === 'once') this.onceStarted.add(`${name}/${j.kind}`);
    const s: JobState = (t.state.jobs[j.kind] ??= { consecutiveFailures: 0 });
    const dryRun = forced?.dryRun ?? j.dryRun;
    const dryRunOverride = dryRun && !j.dryRun;
    if (!dryRunOverride) s.lastStartMs = now;
    const abort = new AbortController();
    const spec = { ...this.buildSpec(t, j), dryRun };
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
    const charged = this.budget.charge(name, now, charge, dryRun);
    if (charged !== undefined) running.charge = charged;
    t.running = running;
    if (t.cfg.jobTimeoutMs !== undefined) {
      running.timeoutTimer = this.clock.setTimer(() => {
        running.timedOut = true;
        this.emit('warn', 'job-timeout', {
          table: name,
          job: j.kind,
          limitMs: t.cfg.jobTimeoutMs,
          reason:
            'wall-clock limit reached; cancelling (a commit in flight finishes or leaves only unreferenced files)',
        });
        abort.abort(new Error(`${j.kind} of ${name} exceeded its wall-clock limit of ${t.cfg.jobTimeoutMs} ms`));
      }, t.cfg.jobTimeoutMs);
    }
    this.metrics.setRunning(name, j.kind, true);
    running.done = this.execute(t, j, running, spec, forced);
  }

  /**
   * Runs one started job to its end. With a shared (PostgreSQL) state database the table is leased first,
   * so two replicas never work on one table at once; the lease holder re-reads the shared state and runs
   * only what is still due. The lease is released before the next job is picked.
   */
  private async execute(
    t: TableRuntime,
    j: JobConfig,
    r: Running,
    spec: MaintenanceJobSpec,
    forced: { dryRun: boolean } | undefined,
  ): Promise<void> {
    const name = t.cfg.name;
    const db = this.leased ? this.db : undefined;
    let beat: NodeJS.Timeout | undefined;
    if (db) {
      let holder: string | undefined;
      try {
        holder = await db.acquireLease(name, db.replica, this.clock.now(), LEASE_TTL_MS);
      } catch (e) {
        holder = `(the lease could not be checked: ${e instanceof Error ? e.message : String(e)})`;
      }
      if (holder !== undefined) return this.defer(t, j, r, forced, `table is leased by ${holder}`);
      // another replica may have paused it since this one last looked
      const paused = await db.isPaused(name).catch(() => false);
      if (paused && !t.paused) {
        t.paused = true;
        this.metrics.setPaused(name, true);
      }
      if (paused && !(forced && spec.dryRun)) {
        await db.releaseLease(name, db.replica).catch(() => undefined);
        return this.defer(t, j, r, undefined, 'the table was paused (by another replica)');
      }
      const fresh = await db.load(name).catch(() => undefined);
      if (fresh) {
        for (const [k, v] of Object.entries(fresh.jobs) as [JobKind, JobState][])
          t.state.jobs[k] = { ...v, firstSeenMs: v.firstSeenMs ?? t.state.jobs[k]?.firstSeenMs ?? r.startedAtMs };
        if (fresh.tiered) t.state.tiered = fresh.tiered;
        else delete t.state.tiered;
        spec = { ...spec, ...(t.state.tiered ? { tieredState: t.state.tiered } : {}) };
      }
      if (!forced && this.dueAt(t, j, this.clock.now()) > this.clock.now()) {
        await db.releaseLease(name, db.replica).catch(() => undefined);
        return this.defer(t, j, r, undefined, 'another replica already ran it');
      }
      if (!r.dryRunOverride) t.state.jobs[j.kind]!.lastStartMs = r.startedAtMs;
      beat = setInterval(
        () => void db.acquireLease(name, db.replica, this.clock.now(), LEASE_TTL_MS).catch(() => undefined),
        LEASE_TTL_MS / 3,
      );
      beat.unref();
    }
    const s = t.state.jobs[j.kind]!;
    this.emit('info', 'job-start', {
      table: name,
      location: t.cfg.table,
      job: j.kind,
      reason: r.reason,
      attempt: s.consecutiveFailures + 1,
      dryRun: spec.dryRun,
    });
    const onProgress = (e: ProgressEvent) => this.onProgress(name, j.kind, e);
    let result: MaintenanceJobResult | undefined;
    let error: unknown;
    try {
      result = await this.runJob(spec, { signal: r.abort.signal, onProgress });
    } catch (e) {
      error = e;
    }
    if (beat) clearInterval(beat);
    // state and history land before the lease goes, so the next holder never reads a stale schedule;
    // if this replica already started the table's next job, that job holds the lease on
    await this.finishJob(t, j, r, result, error);
    if (db && !t.running) await db.releaseLease(name, db.replica).catch(() => undefined);
  }

  /** A job that did not start after all (leased elsewhere, or already done there): tried again later. */
  private defer(t: TableRuntime, j: JobConfig, r: Running, forced: { dryRun: boolean } | undefined, why: string): void {
    if (r.timeoutTimer !== undefined) this.clock.clearTimer(r.timeoutTimer);
    this.refund(r);
    this.metrics.setRunning(t.cfg.name, j.kind, false);
    t.running = undefined;
    t.leaseBlockedUntilMs = this.clock.now() + LEASE_RETRY_MS;
    if (forced) t.forced.set(j.kind, forced);
    this.emit('info', 'job-deferred', {
      table: t.cfg.name,
      job: j.kind,
      reason: why,
      retryAt: iso(t.leaseBlockedUntilMs),
    });
    if (this.mode === 'serving') this.tick();
  }

  /** The job as `runMaintenanceJob` takes it (the HTTP layer asks for a pending plan with it, as a dry run). */
  specFor(tableName: string, kind: JobKind): MaintenanceJobSpec {
    const t = this.tables.get(tableName);
    if (!t) throw new FloeError('NotFound', `no table named "${tableName}" is under management`);
    return this.buildSpec(
      t,
      t.cfg.jobs.find((x) => x.kind === kind) ?? { kind, dryRun: true, schedule: t.cfg.jobs[0]!.schedule },
    );
  }

  private buildSpec(t: TableRuntime, j: JobConfig): MaintenanceJobSpec {
    return jobSpecFor(t.cfg, j, t.state.tiered);
  }

  private async finishJob(
    t: TableRuntime,
    j: JobConfig,
    r: Running,
    result: MaintenanceJobResult | undefined,
    error: unknown,
  ): Promise<void> {
    const now = this.clock.now();
    if (r.timeoutTimer !== undefined) this.clock.clearTimer(r.timeoutTimer);
    if (!result && isTableBusy(error) && !r.abort.signal.aborted) return this.skipBusy(t, j, r, error, now);
    this.noteSkips(now); // occurrences that passed during the run are skipped, not run right after it
    const s = t.state.jobs[j.kind]!;
    let outcome: JobOutcome;
    if (result) {
      const { tieredState, ...rest } = result;
      outcome = rest;
      if (tieredState && !r.dryRunOverride) t.state.tiered = tieredState;
    } else outcome = failedOutcome(t.cfg.table, j.kind, r, now, error, t.cfg.jobTimeoutMs);
    this.chargeMeasured(t, r, result, now);
    const fields = { table: t.cfg.name, location: t.cfg.table, job: j.kind, reason: r.reason, ...summary(outcome) };
    const failuresBefore = s.consecutiveFailures;
    // a manual dry run of a committing job is history, not a scheduled run: the schedule state stays
    if (!r.dryRunOverride) this.noteOutcome(s, r, outcome, now);
    if (outcome.ok) this.emit('info', 'job-finish', fields);
    else
      this.emit('error', 'job-failed', {
        ...fields,
        consecutiveFailures: s.consecutiveFailures,
        ...(s.retryAtMs !== undefined ? { retryAt: iso(s.retryAtMs) } : {}),
      });
    this.metrics.record(t.cfg.name, j.kind, outcome, s);
    this.metrics.setRunning(t.cfg.name, j.kind, false);
    if (this.mode === 'once') this.onceOutcomes.push(outcome);
    t.running = undefined;
    const record = runRecord(t.cfg.name, r, outcome, now, !!result?.dryRun || r.dryRunOverride || j.dryRun);
    if (!r.dryRunOverride) this.notifyWebhook(t, j, s, outcome.ok, record, failuresBefore, now);
    await this.recordFinished(t, record, true);
  }

  /** The schedule state after a run: the last result, and the success base or the failure streak with its backoff. */
  private noteOutcome(s: JobState, r: Running, outcome: JobOutcome, now: number): void {
    s.lastFinishMs = now;
    if (r.skippedThroughMs !== undefined) s.skippedThroughMs = r.skippedThroughMs;
    s.lastResult = outcome;
    if (outcome.ok) {
      s.lastSuccessStartMs = r.startedAtMs;
      s.consecutiveFailures = 0;
      delete s.retryAtMs;
    } else {
      s.consecutiveFailures += 1;
      s.retryAtMs = now + backoffMs(s.consecutiveFailures, this.config.backoff.initialMs, this.config.backoff.maxMs);
    }
  }

  /** A failure, or the first success after failures, is POSTed to the webhook. */
  private notifyWebhook(
    t: TableRuntime,
    j: JobConfig,
    s: JobState,
    ok: boolean,
    record: RunRecord,
    failuresBefore: number,
    now: number,
  ): void {
    if (!this.webhook) return;
    const base = { table: t.cfg.name, location: t.cfg.table, job: j.kind, at: iso(now) };
    if (!ok)
      this.webhook.notify({
        event: 'job-failed',
        ...base,
        consecutiveFailures: s.consecutiveFailures,
        error: record.error ?? 'failed',
      });
    else if (failuresBefore > 0)
      this.webhook.notify({ event: 'job-recovered', ...base, consecutiveFailures: 0, failuresBefore });
  }

  /**
   * The last steps of every ended run: state (unless only a busy skip) and the history row land, listeners
   * (the HTTP layer's caches) hear of it, a retiring table goes, and the scheduler looks again.
   */
  private async recordFinished(t: TableRuntime, record: RunRecord, saveState: boolean): Promise<void> {
    try {
      if (saveState) await this.store!.save(t.cfg.name, t.state);
      await this.db?.recordRun(record);
    } catch (e) {
      this.emit('error', 'state-write-failed', {
        table: t.cfg.name,
        error: e instanceof Error ? e.message : String(e),
      });
    }
    for (const l of this.onRunFinished) {
      try {
        l({ table: t.cfg.name, record });
      } catch {
        // listeners are caches; they must not stop the scheduler
      }
    }
    if (t.retiring) {
      this.tables.delete(t.cfg.name);
      this.metrics.forget(t.cfg.name);
    }
    if (this.mode === 'serving') this.tick();
  }

  /** A finished run: its charge settled with what it measured; its table's estimate is stale now. */
  private chargeMeasured(t: TableRuntime, r: Running, result: MaintenanceJobResult | undefined, now: number): void {
    delete t.estimate;
    t.held.delete(r.job);
    this.budget.settle(r.charge, t.cfg.name, r.job, result, now);
  }

  private refund(r: Running): void {
    this.budget.refund(r.charge, r.startedAtMs);
  }

  /**
   * Another floe job holds the table's lease (a CLI run, another service): this occurrence is skipped, not
   * failed — no backoff, no webhook — and recorded as `busy`. The job is tried again when the lease can have
   * ended (its expiry), at most LEASE_RETRY_MS from now.
   */
  private async skipBusy(t: TableRuntime, j: JobConfig, r: Running, error: FloeError, now: number): Promise<void> {
    const name = t.cfg.name;
    const expiresAt = Date.parse(String(error.context.expiresAt ?? ''));
    const wait = Number.isFinite(expiresAt)
      ? Math.min(LEASE_RETRY_MS, Math.max(1_000, expiresAt - now))
      : LEASE_RETRY_MS;
    t.leaseBlockedUntilMs = now + wait;
    this.refund(r);
    this.metrics.setRunning(name, j.kind, false);
    t.running = undefined;
    this.emit('info', 'job-busy', {
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
    await this.recordFinished(t, record, false);
  }

  private onProgress(table: string, job: JobKind, e: ProgressEvent): void {
    // commits and warnings are worth a line; per-file events would drown the log
    if (e.type === 'commit')
      this.emit('info', 'job-commit', { table, job, snapshotId: e.snapshotId, attempt: e.attempt, groups: e.groups });
    else if (e.type === 'commit-retry')
      this.emit('warn', 'job-commit-retry', { table, job, attempt: e.attempt, reason: e.reason });
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
      } else if (slotsFree && !t.paused) {
        // with every slot busy, only a finishing job can start another: it ticks itself
        for (const j of t.cfg.jobs) {
          const heldUntil = t.held.get(j.kind)?.untilMs ?? 0;
          earliest = Math.min(earliest, Math.max(this.dueAt(t, j, now), t.leaseBlockedUntilMs ?? 0, heldUntil));
        }
      }
    }
    // spend leaving the budget's window can admit a held job
    const release = this.budget.nextRelease(now);
    if (release !== undefined && slotsFree) earliest = Math.min(earliest, release);
    const delay = Math.min(this.maxSleepMs, Math.max(50, earliest - now));
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      this.tick();
    }, delay);
  }

  /** One JSON log line (discovery and the HTTP layer log through the service's sink). */
  logEvent(level: LogEntry['level'], event: string, fields: Record<string, unknown>): void {
    this.emit(level, event, fields);
  }

  private emit(level: LogEntry['level'], event: string, fields: Record<string, unknown>): void {
    try {
      this.log({ time: iso(this.clock.now()), level, event, ...fields });
    } catch {
      // a failing log sink must not stop maintenance
    }
  }
}

/** The table's target file size when its properties name one (the estimate's count of files written). */
function targetBytes(t: TableRuntime): number | undefined {
  const v = t.cfg.properties['write.target-file-size-bytes'] ?? t.cfg.properties['target-file-size'];
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
