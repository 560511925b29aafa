/**
 * The data behind `/api/*` and the dashboard: the scheduler's view of each table (jobs, schedule, pause)
 * joined with what the table looks like (health, read from the table and cached for a minute) and its run
 * history (from the state database). Reading a table is the expensive part: at most two at once, and a
 * finished run drops that table's cache so the next look is fresh.
 */
import pLimit from 'p-limit';
import type { MaintenanceService } from './service.js';
import type { RunRecord } from './state-db.js';
import {
  buildDetail,
  gaugesOf,
  healthSummary,
  loadModel,
  type TableDetail,
  type TableHealthSummary,
} from './table-detail.js';
import type { MaintenanceJobResult } from '../../orchestration/job-types.js';
import type { Why } from './why.js';
import { runValues, type RunValues } from './run-history-value.js';

export interface TableListEntry {
  name: string;
  location: string;
  source: string;
  format?: string;
  paused: boolean;
  running: { job: string; since: string; reason: string } | null;
  jobs: Record<
    string,
    {
      schedule: string;
      nextDueAt: string | null;
      consecutiveFailures: number;
      lastSuccessAt: string | null;
      lastOk: boolean | null;
      lastError: string | null;
      /** Start of the last run (any outcome), and when the next is due. */
      lastRunAt?: string | null;
      nextRunAt?: string | null;
      /** Why it is or is not running now. */
      why?: Why | null;
      /** Why its last run started (this process). */
      ranBecause?: string | null;
    }
  >;
  health: TableHealthSummary | null;
  healthError?: string;
}

type RunDryJob = (
  spec: Parameters<typeof import('../../app/maintenance-job.js').runMaintenanceJob>[0],
) => Promise<MaintenanceJobResult>;

export class ServiceApi {
  private readonly health = new Map<string, { at: number; value?: TableHealthSummary; error?: string }>();
  private readonly details = new Map<string, { at: number; value: Promise<TableDetail> }>();
  private readonly limit = pLimit(2);

  constructor(
    readonly service: MaintenanceService,
    private readonly ttlMs = 60_000,
    private readonly dryRun: RunDryJob = async (spec) =>
      (await import('../../app/maintenance-job.js')).runMaintenanceJob(spec),
  ) {
    service.onRunFinished.add(({ table, record }) => {
      this.health.delete(table);
      for (const k of [...this.details.keys()]) if (k.startsWith(`${table}\u0000`)) this.details.delete(k);
      // the health gauges follow a committed compaction without waiting for someone to look
      if (record.job === 'compact' && !record.dryRun) void this.healthOf(table);
    });
  }

  /** Reads every table's health in the background, so /metrics has its gauges from the start. */
  warm(): void {
    for (const n of this.service.tableNames()) void this.healthOf(n);
  }

  async listTables(): Promise<TableListEntry[]> {
    const h = this.service.health() as { tables: Record<string, unknown>[] };
    const names = this.service.tableNames();
    await Promise.all(names.map((n) => this.healthOf(n)));
    return h.tables.map((t) => {
      const name = String(t.name);
      const cfg = this.service.tableConfig(name);
      const jobs = t.jobs as Record<
        string,
        {
          schedule: string;
          nextDueAt: string | null;
          consecutiveFailures: number;
          lastSuccessAt: string | null;
          lastResult: { ok: boolean; error?: string } | null;
          lastRunAt: string | null;
          nextRunAt: string | null;
          why?: Why;
          ranBecause?: string;
        }
      >;
      const cached = this.health.get(name);
      return {
        name,
        location: listedLocation(String(t.table), cfg, cached?.value),
        source: String(t.source),
        ...(cfg?.format ? { format: cfg.format } : {}),
        paused: !!t.paused,
        running: (t.running as TableListEntry['running']) ?? null,
        jobs: Object.fromEntries(
          Object.entries(jobs).map(([k, j]) => [
            k,
            {
              schedule: j.schedule,
              nextDueAt: j.nextDueAt,
              consecutiveFailures: j.consecutiveFailures,
              lastSuccessAt: j.lastSuccessAt,
              lastOk: j.lastResult ? j.lastResult.ok : null,
              lastError: j.lastResult?.error ?? null,
              lastRunAt: j.lastRunAt,
              nextRunAt: j.nextRunAt,
              why: j.why ?? null,
              ranBecause: j.ranBecause ?? null,
            },
          ]),
        ),
        health: cached?.value ?? null,
        ...(cached?.error ? { healthError: cached.error } : {}),
      };
    });
  }

  private async healthOf(name: string): Promise<void> {
    const c = this.health.get(name);
    if (c && Date.now() - c.at < this.ttlMs) return;
    const cfg = this.service.tableConfig(name);
    if (!cfg) return;
    await this.limit(async () => {
      try {
        const model = await loadModel(cfg);
        const value = healthSummary(model, Date.now());
        this.health.set(name, { at: Date.now(), value });
        this.service.metrics.setTableGauges(name, gaugesOf(value));
      } catch (e) {
        this.health.set(name, { at: Date.now(), error: e instanceof Error ? e.message : String(e) });
      }
    });
  }

  /** Undefined for a table not under management. `plan: false` skips the dry-run plan. */
  async tableDetail(
    name: string,
    opts: { plan?: boolean } = {},
  ): Promise<(TableDetail & { paused: boolean; source: string }) | undefined> {
    const cfg = this.service.tableConfig(name);
    if (!cfg) return undefined;
    const withPlan = opts.plan ?? true;
    const cacheKey = `${name}\u0000${withPlan}`;
    let c = this.details.get(cacheKey);
    if (!c || Date.now() - c.at >= this.ttlMs) {
      const value = this.limit(async () => {
        const model = await loadModel(cfg);
        const detail = buildDetail(cfg, model, Date.now());
        this.health.set(name, { at: Date.now(), value: detail.health });
        this.service.metrics.setTableGauges(name, gaugesOf(detail.health));
        if (withPlan && cfg.jobs.some((j) => j.kind === 'compact')) {
          try {
            const r = await this.dryRun({ ...this.service.specFor(name, 'compact'), dryRun: true });
            if (r.plan) detail.pendingPlan = r.plan;
          } catch (e) {
            detail.pendingPlanError = e instanceof Error ? e.message : String(e);
          }
        }
        return detail;
      });
      c = { at: Date.now(), value };
      this.details.set(cacheKey, c);
      value.catch(() => this.details.delete(cacheKey));
    }
    const detail = await c.value;
    return { ...detail, paused: this.service.isPaused(name) ?? false, source: cfg.source };
  }

  /** Cost and benefit of the table's runs over time, and totals per day (from the run history). */
  async values(name: string, limit = 500): Promise<RunValues | undefined> {
    const runs = await this.runs(name, limit);
    if (!runs) return undefined;
    return runValues(runs, (r) => this.service.spendOfRun(r), this.service.config.budget?.prices.currency ?? 'USD');
  }

  async runs(name: string, limit: number): Promise<RunRecord[] | undefined> {
    const db = this.service.db;
    if (!db) return undefined;
    return db.runs(name, limit);
  }
}

/**
 * Where a listed table is: its metadata's location once its health was read; before that a catalog table
 * is named by its catalog (its `ns.table` is a name, not a location), a listed one by its configured location.
 */
export function listedLocation(
  table: string,
  cfg: { access: { catalog?: string }; source: string } | undefined,
  health: TableHealthSummary | undefined,
): string {
  if (health?.location) return health.location;
  return cfg?.access.catalog ? `${table} in catalog ${cfg.source}` : table;
}
