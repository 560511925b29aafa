/**
 * The service's memory in a database (state-sql.ts: SQLite by default, PostgreSQL for shared replicas):
 *   floe_tables          tables under management (where from, format, paused, retired)
 *   floe_runs            one row per finished job: plan summary, files/bytes before and after, rows,
 *                        duration, outcome, error
 *   floe_planner_state   the tiered planner's memory per table (JSON, snapshot ids as decimal strings)
 *   floe_schedule_state  per table and job: first seen, last start/finish/success, failure streak, retry time
 *   floe_leases          which replica works on a table now (shared PostgreSQL state)
 * Writes are queued one after another, so a newer state never lands under an older one.
 */
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { hostname } from 'node:os';
import { migrate, openStateSql, type SqlParam, type StateSql } from './state-sql.js';
import {
  StateStore,
  STATE_VERSION,
  type JobOutcome,
  type JobState,
  type TableState,
  type TableStateStore,
} from './state.js';
import { JOB_KINDS, type JobKind, type PlanSummary } from '../../orchestration/job-types.js';

/** `busy`: skipped because another floe job held the table's lease (not a failure: no backoff, no webhook). */
export type RunOutcome = 'ok' | 'partial' | 'failed' | 'cancelled' | 'busy';

export interface RunRecord {
  id?: number;
  table: string;
  job: JobKind;
  /** scheduled | retry | manual */
  reason: string;
  dryRun: boolean;
  startedAtMs: number;
  finishedAtMs: number;
  durationMs: number;
  outcome: RunOutcome;
  error?: string;
  format?: string;
  filesBefore?: number;
  filesAfter?: number;
  bytesBefore?: number;
  bytesAfter?: number;
  deleteFilesBefore?: number;
  deleteFilesAfter?: number;
  rowsIn?: number;
  rowsOut?: number;
  bytesRead?: number;
  bytesWritten?: number;
  bytesDeleted?: number;
  filesDeleted?: number;
  snapshotIds: string[];
  plan?: PlanSummary;
  warnings?: string[];
  replica?: string;
}

export interface ManagedTable {
  name: string;
  location: string;
  format?: string;
  source: string;
  status: 'active' | 'retired' | 'opted-out';
  statusReason?: string;
  paused: boolean;
  pausedAtMs?: number;
  firstSeenMs: number;
  lastSeenMs: number;
  retiredAtMs?: number;
}

const num = (x: unknown): number | undefined => (x === null || x === undefined ? undefined : Number(x));

/** Copies the non-null columns of `row` named in `columns` (field → column) onto `out`, as numbers. */
function numberColumns<T extends object>(
  row: Record<string, unknown>,
  out: T,
  columns: { [K in keyof T]?: T[K] extends number | undefined ? string : never },
): void {
  for (const [field, col] of Object.entries(columns) as [string, string][]) {
    const v = num(row[col]);
    if (v !== undefined) (out as Record<string, unknown>)[field] = v;
  }
}

export class DbStateStore implements TableStateStore {
  private queue: Promise<unknown> = Promise.resolve();
  /** Names this process's rows in floe_runs (host:pid), so shared history says which replica ran what. */
  readonly replica = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;

  private constructor(readonly sql: StateSql) {}

  static async open(target: string): Promise<DbStateStore> {
    const sql = await openStateSql(target);
    try {
      await migrate(sql);
    } catch (e) {
      await sql.close();
      throw e;
    }
    return new DbStateStore(sql);
  }

  get description(): string {
    return this.sql.description;
  }

  private write<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.catch(() => undefined).then(fn);
    this.queue = next;
    return next;
  }

  async flush(): Promise<void> {
    await this.queue.catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.flush();
    await this.sql.close();
  }

  // ---------------------------------------------------------------- schedule + planner state

  async load(name: string): Promise<TableState | undefined> {
    const rows = await this.sql.all<Record<string, unknown>>('SELECT * FROM floe_schedule_state WHERE table_name = ?', [
      name,
    ]);
    const planner = await this.sql.all<{ state_json: string }>(
      'SELECT state_json FROM floe_planner_state WHERE table_name = ?',
      [name],
    );
    const tables = await this.sql.all<{ location: string }>('SELECT location FROM floe_tables WHERE name = ?', [name]);
    if (rows.length === 0 && planner.length === 0) return undefined;
    const state: TableState = { version: STATE_VERSION, table: tables[0]?.location ?? name, jobs: {} };
    if (planner[0]) state.tiered = JSON.parse(planner[0].state_json);
    for (const r of rows) {
      const job = r.job as JobKind;
      if (!JOB_KINDS.includes(job)) continue;
      const s: JobState = { consecutiveFailures: Number(r.consecutive_failures ?? 0) };
      numberColumns(r, s, {
        firstSeenMs: 'first_seen_ms',
        lastStartMs: 'last_start_ms',
        lastFinishMs: 'last_finish_ms',
        lastSuccessStartMs: 'last_success_start_ms',
        skippedThroughMs: 'skipped_through_ms',
        retryAtMs: 'retry_at_ms',
      });
      if (typeof r.last_result_json === 'string') s.lastResult = JSON.parse(r.last_result_json) as JobOutcome;
      state.jobs[job] = s;
    }
    return state;
  }

  save(name: string, state: TableState): Promise<void> {
    // the snapshot taken now is what lands, whatever the caller changes afterwards
    const copy = structuredClone(state);
    return this.write(() => this.sql.transaction((tx) => saveState(tx, name, copy, Date.now())));
  }

  // ---------------------------------------------------------------- run history

  recordRun(run: RunRecord): Promise<number> {
    return this.write(async () => {
      const cols: [string, SqlParam][] = [
        ['table_name', run.table],
        ['job', run.job],
        ['reason', run.reason],
        ['dry_run', run.dryRun ? 1 : 0],
        ['started_ms', run.startedAtMs],
        ['finished_ms', run.finishedAtMs],
        ['duration_ms', Math.round(run.durationMs)],
        ['outcome', run.outcome],
        ['error', run.error ?? null],
        ['format', run.format ?? null],
        ['files_before', run.filesBefore ?? null],
        ['files_after', run.filesAfter ?? null],
        ['bytes_before', run.bytesBefore ?? null],
        ['bytes_after', run.bytesAfter ?? null],
        ['delete_files_before', run.deleteFilesBefore ?? null],
        ['delete_files_after', run.deleteFilesAfter ?? null],
        ['rows_in', run.rowsIn ?? null],
        ['rows_out', run.rowsOut ?? null],
        ['bytes_read', run.bytesRead ?? null],
        ['bytes_written', run.bytesWritten ?? null],
        ['bytes_deleted', run.bytesDeleted ?? null],
        ['files_deleted', run.filesDeleted ?? null],
        ['snapshot_ids', JSON.stringify(run.snapshotIds)],
        ['plan_json', run.plan ? JSON.stringify(run.plan) : null],
        ['warnings_json', run.warnings?.length ? JSON.stringify(run.warnings.slice(0, 50)) : null],
        ['replica', run.replica ?? this.replica],
      ];
      const q = `INSERT INTO floe_runs (${cols.map((c) => c[0]).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`;
      const ret = this.sql.dialect === 'postgres' ? ' RETURNING id' : '';
      if (ret) {
        const rows = await this.sql.all<{ id: string | number }>(
          q + ret,
          cols.map((c) => c[1]),
        );
        return Number(rows[0]!.id);
      }
      await this.sql.run(
        q,
        cols.map((c) => c[1]),
      );
      const rows = await this.sql.all<{ id: number }>('SELECT last_insert_rowid() AS id');
      return Number(rows[0]!.id);
    });
  }

  /** Newest first. */
  async runs(table: string, limit = 100): Promise<RunRecord[]> {
    const rows = await this.sql.all<Record<string, unknown>>(
      'SELECT * FROM floe_runs WHERE table_name = ? ORDER BY started_ms DESC, id DESC LIMIT ?',
      [table, limit],
    );
    return rows.map(runFromRow);
  }

  /** Every snapshot id a recorded run of `table` committed (reconcile-runs.ts compares them with the table). */
  async recordedSnapshotIds(table: string): Promise<Set<string>> {
    const rows = await this.sql.all<{ snapshot_ids: string | null }>(
      "SELECT snapshot_ids FROM floe_runs WHERE table_name = ? AND snapshot_ids IS NOT NULL AND snapshot_ids <> '[]'",
      [table],
    );
    return new Set(rows.flatMap((r) => JSON.parse(String(r.snapshot_ids ?? '[]')) as string[]));
  }

  // ---------------------------------------------------------------- leases (replicas sharing the database)

  /**
   * Takes (or renews) `owner`'s lease on a table until `nowMs + ttlMs`. Returns undefined when it holds
   * the lease, else the current holder. A lease past its expiry (a replica that died) is taken over.
   */
  async acquireLease(table: string, owner: string, nowMs: number, ttlMs: number): Promise<string | undefined> {
    const changed = await this.sql.run(
      `INSERT INTO floe_leases (table_name, owner, acquired_ms, expires_ms) VALUES (?, ?, ?, ?)
       ON CONFLICT (table_name) DO UPDATE SET owner = excluded.owner, acquired_ms = excluded.acquired_ms, expires_ms = excluded.expires_ms
       WHERE floe_leases.expires_ms < ? OR floe_leases.owner = ?`,
      [table, owner, nowMs, nowMs + ttlMs, nowMs, owner],
    );
    if (changed > 0) return undefined;
    const rows = await this.sql.all<{ owner: string; expires_ms: string | number }>(
      'SELECT owner, expires_ms FROM floe_leases WHERE table_name = ?',
      [table],
    );
    return rows[0] ? `${rows[0].owner} until ${new Date(Number(rows[0].expires_ms)).toISOString()}` : 'another replica';
  }

  async releaseLease(table: string, owner: string): Promise<void> {
    await this.sql.run('DELETE FROM floe_leases WHERE table_name = ? AND owner = ?', [table, owner]);
  }

  // ---------------------------------------------------------------- tables under management

  upsertTable(t: Omit<ManagedTable, 'paused' | 'firstSeenMs' | 'pausedAtMs'>): Promise<void> {
    return this.write(async () => {
      await this.sql.run(
        `INSERT INTO floe_tables (name, location, format, source, status, status_reason, paused, first_seen_ms, last_seen_ms, retired_at_ms)
         VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET location = excluded.location, format = COALESCE(excluded.format, floe_tables.format),
           source = excluded.source, status = excluded.status, status_reason = excluded.status_reason,
           last_seen_ms = excluded.last_seen_ms, retired_at_ms = excluded.retired_at_ms`,
        [
          t.name,
          t.location,
          t.format ?? null,
          t.source,
          t.status,
          t.statusReason ?? null,
          t.lastSeenMs,
          t.lastSeenMs,
          t.retiredAtMs ?? null,
        ],
      );
    });
  }

  setPaused(name: string, paused: boolean, atMs: number): Promise<void> {
    return this.write(async () => {
      await this.sql.run('UPDATE floe_tables SET paused = ?, paused_at_ms = ? WHERE name = ?', [
        paused ? 1 : 0,
        paused ? atMs : null,
        name,
      ]);
    });
  }

  async isPaused(name: string): Promise<boolean> {
    const rows = await this.sql.all<{ paused: number | string }>('SELECT paused FROM floe_tables WHERE name = ?', [
      name,
    ]);
    return rows.length > 0 && Number(rows[0]!.paused) === 1;
  }

  async tableRows(): Promise<ManagedTable[]> {
    const rows = await this.sql.all<Record<string, unknown>>('SELECT * FROM floe_tables ORDER BY name');
    return rows.map((r) => ({
      name: String(r.name),
      location: String(r.location),
      ...(r.format ? { format: String(r.format) } : {}),
      source: String(r.source),
      status: String(r.status) as ManagedTable['status'],
      ...(r.status_reason ? { statusReason: String(r.status_reason) } : {}),
      paused: Number(r.paused) === 1,
      ...(num(r.paused_at_ms) !== undefined ? { pausedAtMs: num(r.paused_at_ms)! } : {}),
      firstSeenMs: num(r.first_seen_ms)!,
      lastSeenMs: num(r.last_seen_ms)!,
      ...(num(r.retired_at_ms) !== undefined ? { retiredAtMs: num(r.retired_at_ms)! } : {}),
    }));
  }

  // ---------------------------------------------------------------- migration from the JSON state folder

  /**
   * Imports `<dir>/<table>.json` files (the pre-database state) once: a table that already has state in the
   * database keeps it. The folder is remembered in floe_meta, so a later start does not import it again;
   * the JSON files are left where they are (an older floe can still read them). Returns the tables imported.
   */
  async importJsonDir(dir: string): Promise<string[]> {
    const key = `json-state-imported:${path.resolve(dir)}`;
    const done = await this.sql.all('SELECT value FROM floe_meta WHERE key = ?', [key]);
    if (done.length > 0) return [];
    let names: string[];
    try {
      names = (await readdir(dir)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') names = [];
      else throw e;
    }
    const legacy = new StateStore(dir);
    const imported: string[] = [];
    for (const name of names.sort()) {
      const state = await legacy.load(name); // a corrupt file fails here, naming itself
      if (!state || (await this.load(name))) continue;
      await this.save(name, state);
      imported.push(name);
    }
    await this.write(() =>
      this.sql.run('INSERT INTO floe_meta (key, value) VALUES (?, ?)', [
        key,
        JSON.stringify({ atMs: Date.now(), tables: imported }),
      ]),
    );
    return imported;
  }
}

async function saveState(tx: StateSql, name: string, state: TableState, nowMs: number): Promise<void> {
  if (state.tiered) {
    await tx.run(
      `INSERT INTO floe_planner_state (table_name, state_json, updated_ms) VALUES (?, ?, ?)
       ON CONFLICT (table_name) DO UPDATE SET state_json = excluded.state_json, updated_ms = excluded.updated_ms`,
      [name, JSON.stringify(state.tiered), nowMs],
    );
  }
  for (const [job, s] of Object.entries(state.jobs) as [JobKind, JobState][]) {
    await tx.run(
      `INSERT INTO floe_schedule_state (table_name, job, first_seen_ms, last_start_ms, last_finish_ms, last_success_start_ms, skipped_through_ms, consecutive_failures, retry_at_ms, last_result_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (table_name, job) DO UPDATE SET first_seen_ms = excluded.first_seen_ms, last_start_ms = excluded.last_start_ms,
         last_finish_ms = excluded.last_finish_ms, last_success_start_ms = excluded.last_success_start_ms,
         skipped_through_ms = excluded.skipped_through_ms, consecutive_failures = excluded.consecutive_failures,
         retry_at_ms = excluded.retry_at_ms, last_result_json = excluded.last_result_json`,
      [
        name,
        job,
        s.firstSeenMs ?? null,
        s.lastStartMs ?? null,
        s.lastFinishMs ?? null,
        s.lastSuccessStartMs ?? null,
        s.skippedThroughMs ?? null,
        s.consecutiveFailures,
        s.retryAtMs ?? null,
        s.lastResult ? JSON.stringify(s.lastResult) : null,
      ],
    );
  }
}

function runFromRow(r: Record<string, unknown>): RunRecord {
  const out: RunRecord = {
    id: Number(r.id),
    table: String(r.table_name),
    job: String(r.job) as JobKind,
    reason: String(r.reason),
    dryRun: Number(r.dry_run) === 1,
    startedAtMs: num(r.started_ms)!,
    finishedAtMs: num(r.finished_ms)!,
    durationMs: num(r.duration_ms)!,
    outcome: String(r.outcome) as RunOutcome,
    snapshotIds: JSON.parse(String(r.snapshot_ids ?? '[]')) as string[],
  };
  numberColumns(r, out, {
    filesBefore: 'files_before',
    filesAfter: 'files_after',
    bytesBefore: 'bytes_before',
    bytesAfter: 'bytes_after',
    deleteFilesBefore: 'delete_files_before',
    deleteFilesAfter: 'delete_files_after',
    rowsIn: 'rows_in',
    rowsOut: 'rows_out',
    bytesRead: 'bytes_read',
    bytesWritten: 'bytes_written',
    bytesDeleted: 'bytes_deleted',
    filesDeleted: 'files_deleted',
  });
  if (r.error) out.error = String(r.error);
  if (r.format) out.format = String(r.format);
  if (r.plan_json) out.plan = JSON.parse(String(r.plan_json)) as PlanSummary;
  if (r.warnings_json) out.warnings = JSON.parse(String(r.warnings_json)) as string[];
  if (r.replica) out.replica = String(r.replica);
  return out;
}
