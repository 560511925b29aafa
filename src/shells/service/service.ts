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
 * This class is the coordinator and the API the shell and the HTTP layer see; the work is in its parts,
 * which share one ServiceCore (service-core.ts): table-sync.ts, scheduling.ts, job-timing.ts, job-run.ts,
 * replica-lease.ts, job-finish.ts, estimates.ts, trigger.ts, table-view.ts, first-start.ts.
 *
 * Time comes from an injected clock and jobs from an injected runner, so the policy is testable without
 * waiting or touching tables; the defaults are the system clock and `runMaintenanceJob`.
 */
import { FloeError } from '../../../util/errors.js';
import type { Spend } from './budget.js';
import type { ServiceConfig, TableConfig } from './config.js';
import type { JobKind, MaintenanceJobSpec } from '../../orchestration/job-types.js';
import { pendingEstimates } from './estimates.js';
import { announceFirstStart } from './first-start.js';
import { jobSpecFor } from './job-spec.js';
import { reconcileRuns } from './reconcile-runs.js';
import { ServiceCore, type FinishedRun, type LogEntry, type ServiceOptions } from './service-core.js';
import type { JobOutcome, TableState } from './state.js';
import { DbStateStore, type RunRecord } from './state-db.js';
import { budgetMetricLines, type MetricsRegistry } from './metrics.js';
import { syncTables, type OptedOut } from './table-sync.js';
import { healthOf, waitingCodes, whyOf } from './table-view.js';
import { trigger, type TriggerOutcome } from './trigger.js';
import type { Why } from './why.js';

export { systemClock, stdoutLog } from './service-core.js';
export type { Clock, FinishedRun, LogEntry, LogSink, RunJob, ServiceOptions, StartReason } from './service-core.js';
export type { TriggerOutcome } from './trigger.js';

export interface OnceSummary {
  ran: number;
  failed: number;
  outcomes: JobOutcome[];
}

export class MaintenanceService {
  private readonly core: ServiceCore;
  private startedAtMs = 0;
  /** The state database had no table when this process opened it: nothing has run, every job is due. */
  private firstStart = false;

  constructor(
    readonly config: ServiceConfig,
    private readonly options: ServiceOptions = {},
  ) {
    this.core = new ServiceCore(config, options);
  }

  get metrics(): MetricsRegistry {
    return this.core.metrics;
  }

  /** Listeners told about every finished run (the HTTP layer drops its cached health). */
  get onRunFinished(): Set<(r: FinishedRun) => void> {
    return this.core.onRunFinished;
  }

  /** The state database, when the store is one (run history, pause, tables under management). */
  get db(): DbStateStore | undefined {
    return this.core.db;
  }

  /**
   * Opens the state database (migrating a legacy JSON state folder on first start) and reads every listed
   * table's persisted state; call once before `start` or `runOnce`.
   */
  async init(): Promise<void> {
    const core = this.core;
    this.startedAtMs = core.clock.now();
    if (!core.store) {
      const db = await DbStateStore.open(this.config.state);
      core.store = db;
      if (this.config.stateDir) {
        const imported = await db.importJsonDir(this.config.stateDir);
        if (imported.length)
          core.emit('info', 'state-migrated', { from: this.config.stateDir, to: db.description, tables: imported });
      }
    }
    core.leased = core.db?.sql.dialect === 'postgres';
    this.firstStart = core.db !== undefined && (await core.db.tableRows()).length === 0;
    await this.syncTables(this.config.tables);
    if (core.db && this.options.reconcile !== false) {
      // floe snapshots the state database lacks (a process killed mid-run) get their run rows back
      await reconcileRuns(
        core.db,
        [...core.tables.values()].map((t) => ({ cfg: t.cfg, state: t.state })),
        (level, event, fields) => core.emit(level, event, fields),
        this.startedAtMs,
      ).catch((e: unknown) =>
        core.emit('warn', 'reconcile-failed', { error: e instanceof Error ? e.message : String(e) }),
      );
    }
    await core.budget.seed(core.db, core.tables.keys(), core.clock.now());
    core.mode = 'ready';
  }

  /** What a recorded or finished run spent, priced like the budget. */
  spendOfRun(r: Pick<RunRecord, 'bytesRead' | 'bytesWritten' | 'durationMs'>): Spend {
    return this.core.budget.spendOfRun(r);
  }

  /** Closes the state database (after `stop`). */
  async close(): Promise<void> {
    await this.core.webhook?.drain();
    if (this.core.db) await this.core.db.close();
  }

  /**
   * Makes `cfgs` the tables under management: new ones are added (their state loaded), changed ones get
   * the new configuration, and ones no longer listed are retired (after their running job, if any).
   * `optedOut` tables are retired with that reason recorded.
   */
  async syncTables(cfgs: readonly TableConfig[], optedOut: OptedOut = new Map()): Promise<void> {
    await syncTables(this.core, cfgs, optedOut);
  }

  /** Names of the tables under management, in order. */
  tableNames(): string[] {
    return [...this.core.tables.keys()];
  }

  tableConfig(name: string): TableConfig | undefined {
    return this.core.tables.get(name)?.cfg;
  }

  isPaused(name: string): boolean | undefined {
    return this.core.tables.get(name)?.paused;
  }

  /** Pause (no scheduled or retried runs) or resume a table; persisted, so it survives restarts and reaches replicas. */
  async setPaused(name: string, paused: boolean): Promise<boolean> {
    const core = this.core;
    const t = core.tables.get(name);
    if (!t) return false;
    if (t.paused !== paused) {
      t.paused = paused;
      core.emit('info', paused ? 'table-paused' : 'table-resumed', { table: name });
    }
    core.metrics.setPaused(name, paused);
    await core.db?.setPaused(name, paused, core.clock.now());
    if (!paused && core.mode === 'serving') core.tick();
    return true;
  }

  /** Long-running mode: checks now and then whenever something can next become due. */
  start(): void {
    this.core.mode = 'serving';
    // every table under management: the config's `tables:` and what the catalogs' discovery found
    this.core.emit('info', 'service-start', {
      tables: this.tableNames(),
      concurrency: this.config.concurrency,
      stateDir: this.config.stateDir,
    });
    this.announceFirstStart();
    this.tick();
  }

  private announceFirstStart(): void {
    if (!this.firstStart) return;
    this.firstStart = false;
    announceFirstStart(this.core);
  }

  /** Starts what is due and re-arms the timer. Public so tests can step a fake clock. */
  tick(): void {
    this.core.tick();
  }

  /** Runs every job that is due now, once each (failures are not retried), and resolves when all ended. */
  async runOnce(): Promise<OnceSummary> {
    const core = this.core;
    core.mode = 'once';
    this.announceFirstStart();
    core.once = { started: new Set(), outcomes: [] };
    for (;;) {
      core.tick(); // arms no timer outside `serving`
      const waits = [...core.runningJobs().map((r) => r.done), ...pendingEstimates(core)];
      if (waits.length === 0) break;
      await Promise.race(waits);
    }
    await core.store!.flush();
    core.mode = 'ready';
    const outcomes = core.once.outcomes;
    return { ran: outcomes.length, failed: outcomes.filter((o) => !o.ok).length, outcomes };
  }

  /**
   * `POST /run/<table>/<job>`: run it as soon as the table (and a concurrency slot) is free. `dryRun`
   * (default: the job's configured mode) plans and reports without committing or deleting anything.
   */
  trigger(tableName: string, kind: string, opts: { dryRun?: boolean } = {}): TriggerOutcome {
    return trigger(this.core, tableName, kind, opts);
  }

  /** Stops starting jobs, waits up to `timeoutMs` for running ones (then signals them to stop), flushes state. */
  async stop(timeoutMs = this.config.shutdownTimeoutMs): Promise<{ unfinished: string[] }> {
    const core = this.core;
    if (core.mode === 'stopped') return { unfinished: [] };
    core.mode = 'stopping';
    if (core.timer !== undefined) core.clock.clearTimer(core.timer);
    core.timer = undefined;
    const running = [...core.tables.values()].filter((t) => t.running);
    core.emit('info', 'service-stopping', {
      running: running.map((t) => `${t.cfg.name}/${t.running!.job}`),
      timeoutMs,
    });
    let timeout: unknown;
    const timedOut = await Promise.race([
      // every started run until its history row is written, not only those still marked running
      Promise.allSettled([...running.map((t) => t.running!.done), ...core.inFlight]).then(() => false),
      new Promise<boolean>((resolve) => (timeout = core.clock.setTimer(() => resolve(true), timeoutMs))),
    ]);
    core.clock.clearTimer(timeout);
    const unfinished = [...core.tables.values()].filter((t) => t.running).map((t) => `${t.cfg.name}/${t.running!.job}`);
    if (timedOut && unfinished.length) {
      // jobs check the signal between phases; a rewrite in flight leaves only unreferenced files behind
      for (const t of core.tables.values()) t.running?.abort.abort();
      core.emit('warn', 'shutdown-timeout', { unfinished, timeoutMs });
    }
    await core.store?.flush();
    core.mode = 'stopped';
    core.emit('info', 'service-stop', { unfinished });
    return { unfinished };
  }

  /** Resolves when no job is running and every ended one is recorded (tests; shutdown uses `stop`). */
  async idle(): Promise<void> {
    const core = this.core;
    while (core.inFlight.size || core.runningJobs().length)
      await Promise.all([...core.inFlight, ...core.runningJobs().map((x) => x.done)]);
  }

  /** `GET /health`. */
  health(): Record<string, unknown> {
    return healthOf(this.core, this.startedAtMs);
  }

  /** `GET /metrics` (Prometheus text exposition format). */
  metricsText(): string {
    const now = this.core.clock.now();
    return this.core.metrics.render() + budgetMetricLines(this.core.budget.metricsView(now), waitingCodes(this.core));
  }

  /** `GET /api/budget`: the window, its limits, what was spent and what is left (undefined without `budget:`). */
  budgetStatus(): Record<string, unknown> | undefined {
    return this.core.budget.status(
      this.core.clock.now(),
      [...this.core.tables.values()].map((t) => ({ name: t.cfg.name, ...(t.cfg.cap ? { cap: t.cfg.cap } : {}) })),
    );
  }

  /** The table's state as held in memory (tests, `/health`). */
  stateOf(tableName: string): TableState | undefined {
    return this.core.tables.get(tableName)?.state;
  }

  /** The job as `runMaintenanceJob` takes it (the HTTP layer asks for a pending plan with it, as a dry run). */
  specFor(tableName: string, kind: JobKind): MaintenanceJobSpec {
    const t = this.core.tables.get(tableName);
    if (!t) throw new FloeError('NotFound', `no table named "${tableName}" is under management`);
    const j = t.cfg.jobs.find((x) => x.kind === kind) ?? { kind, dryRun: true, schedule: t.cfg.jobs[0]!.schedule };
    return jobSpecFor(t.cfg, j, t.state.tiered);
  }

  /** Why a job of a table is or is not running now (`/api/tables`, the dashboard, `floe_job_waiting`). */
  whyOf(tableName: string, kind: JobKind): Why | undefined {
    const t = this.core.tables.get(tableName);
    const j = t?.cfg.jobs.find((x) => x.kind === kind);
    return t && j ? whyOf(t, j, this.core.clock.now()) : undefined;
  }

  /** Why the job's last run (in this process) started. */
  ranBecause(tableName: string, kind: JobKind): string | undefined {
    return this.core.tables.get(tableName)?.ranBecause.get(kind);
  }

  /** One JSON log line (discovery and the HTTP layer log through the service's sink). */
  logEvent(level: LogEntry['level'], event: string, fields: Record<string, unknown>): void {
    this.core.emit(level, event, fields);
  }
}
