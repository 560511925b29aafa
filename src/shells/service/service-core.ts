/**
 * What the scheduler's parts share: each table's runtime (its state, the running job, why its jobs wait),
 * the service's mode, and what they report through (log, metrics, budget, webhook, state store).
 * `MaintenanceService` owns one and hands it to the parts that keep the table list (table-sync.ts), pick
 * and start jobs (scheduling.ts, job-run.ts), settle them (job-finish.ts) and estimate them (estimates.ts).
 */
import type {
  JobKind,
  MaintenanceJobResult,
  MaintenanceJobSpec,
  RunJobOptions,
} from '../../orchestration/job-types.js';
import type { JobConfig, ServiceConfig, TableConfig } from './config.js';
import type { PriceOf } from './budget.js';
import { BudgetKeeper } from './budget-keeper.js';
import { MetricsRegistry } from './metrics.js';
import type { RunEstimate } from './run-value.js';
import { iso } from './run-record.js';
import { arm, pump } from './scheduling.js';
import type { JobOutcome, TableState, TableStateStore } from './state.js';
import { DbStateStore, type RunRecord } from './state-db.js';
import { WebhookNotifier } from './webhook.js';
import type { WhyCode } from './why.js';

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

export type StartReason = 'scheduled' | 'retry' | 'manual';

export type ServiceMode = 'new' | 'ready' | 'serving' | 'once' | 'stopping' | 'stopped';

/** A job of a table from its start to its end. */
export interface Running {
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

/** A job just started on a table, as its run's steps take it: the table, the job, the run, a manual request. */
export interface StartedJob {
  t: TableRuntime;
  j: JobConfig;
  r: Running;
  /** Asked for by `POST /run` (with its dry-run choice); undefined: scheduled or retried. */
  forced: { dryRun: boolean } | undefined;
}

/** Why a job did not start at the last scheduling pass, since when, and until when it waits (if known). */
export interface Held {
  code: WhyCode;
  reason: string;
  atMs: number;
  untilMs?: number;
}

/** A table under management, as the scheduler holds it in memory. */
export interface TableRuntime {
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
  held: Map<JobKind, Held>;
  /** Why each job's last run started. */
  ranBecause: Map<JobKind, string>;
}

/** Summary of a finished run as the scheduler hands it to the store, metrics and webhooks. */
export interface FinishedRun {
  table: string;
  record: RunRecord;
}

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

export class ServiceCore {
  readonly clock: Clock;
  readonly runJob: RunJob;
  readonly metrics = new MetricsRegistry();
  /** What runs may spend and did (budget-keeper.ts). */
  readonly budget: BudgetKeeper;
  /** Longest sleep between checks; due times are also woken for exactly. */
  readonly maxSleepMs: number;
  readonly webhook: WebhookNotifier | undefined;
  readonly tables = new Map<string, TableRuntime>();
  /** Listeners told about every finished run (the HTTP layer drops its cached health). */
  readonly onRunFinished = new Set<(r: FinishedRun) => void>();
  /** Opened by `MaintenanceService.init` unless injected. */
  store: TableStateStore | undefined;
  /** Shared state (PostgreSQL): tables are leased before a job starts. */
  leased = false;
  mode: ServiceMode = 'new';
  /** In a `--once` pass: jobs already started, so none runs twice, and the outcomes of those ended. */
  once = { started: new Set<string>(), outcomes: [] as JobOutcome[] };
  /**
   * Every started run until its `done` settles: a run clears `TableRuntime.running` before its state and
   * history row are written, so waiting for the running ones alone can return while a row is in flight.
   */
  readonly inFlight = new Set<Promise<void>>();
  /** The wake-up armed by `tick` (scheduling.ts). */
  timer: unknown;
  private readonly log: LogSink;

  constructor(
    readonly config: ServiceConfig,
    options: ServiceOptions,
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

  /** Starts what is due and re-arms the timer. */
  tick(): void {
    pump(this);
    arm(this);
  }

  runningJobs(): Running[] {
    return [...this.tables.values()].flatMap((t) => (t.running ? [t.running] : []));
  }

  /** One JSON log line; a failing log sink must not stop maintenance. */
  emit(level: LogEntry['level'], event: string, fields: Record<string, unknown>): void {
    try {
      this.log({ time: iso(this.clock.now()), level, event, ...fields });
    } catch {
      // swallowed on purpose (see above)
    }
  }
}
