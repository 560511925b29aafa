/**
 * The service state database's connection: an embedded SQLite file (better-sqlite3, created on first use,
 * WAL journal) or a PostgreSQL server (node-postgres pool) that several `floe serve` replicas share.
 * Callers write SQL with `?` placeholders in the dialect both accept; the Postgres side renumbers them
 * (the SQL catalog's own `numberPlaceholders`). Versioned schema migrations run at open, inside one
 * transaction, under an advisory lock on Postgres so two replicas starting together do not race.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { FloeError } from '../../../util/errors.js';
import {
  describeSqlTarget,
  parseSqlTarget,
  pgClientConfig,
  pgStatements,
  postgresError,
  type PgQueryable,
  type SqlParam,
} from '../../../connectors/catalog/sql-connection.js';

export type { SqlParam };

export interface StateSql {
  readonly dialect: 'sqlite' | 'postgres';
  /** For messages; never holds a password. */
  readonly description: string;
  all<T extends object>(sql: string, params?: readonly SqlParam[]): Promise<T[]>;
  run(sql: string, params?: readonly SqlParam[]): Promise<number>;
  /** Runs `fn` in one transaction (committed when it resolves, rolled back when it throws). */
  transaction<T>(fn: (tx: StateSql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export const isPostgresUrl = (s: string) => /^(postgres|postgresql):\/\//i.test(s);

export async function openStateSql(target: string): Promise<StateSql> {
  return isPostgresUrl(target) ? openPostgres(target) : openSqlite(target);
}

function openSqlite(file: string): StateSql {
  let db: Database.Database;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    db = new Database(file, { timeout: 5000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  } catch (e) {
    throw new FloeError('AccessDenied', `cannot open service state database ${file}: ${(e as Error).message}`, {
      context: { file },
      cause: e,
    });
  }
  const wrap = (e: unknown) =>
    new FloeError('Corrupt', `service state database ${file}: ${(e as Error).message}`, {
      context: { file },
      cause: e,
    });
  const sql: StateSql = {
    dialect: 'sqlite',
    description: file,
    async all<T extends object>(q: string, params: readonly SqlParam[] = []) {
      try {
        return db.prepare(q).all(...params) as T[];
      } catch (e) {
        throw wrap(e);
      }
    },
    async run(q: string, params: readonly SqlParam[] = []) {
      try {
        return db.prepare(q).run(...params).changes;
      } catch (e) {
        throw wrap(e);
      }
    },
    async transaction<T>(fn: (tx: StateSql) => Promise<T>) {
      // one connection: callers serialise their writes (the store queues them), so nesting cannot happen
      db.exec('BEGIN IMMEDIATE');
      try {
        const r = await fn(sql);
        db.exec('COMMIT');
        return r;
      } catch (e) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw e;
      }
    },
    async close() {
      if (db.open) db.close();
    },
  };
  return sql;
}

async function openPostgres(url: string): Promise<StateSql> {
  const { default: pg } = await import('pg');
  const t = parseSqlTarget(url);
  if (t.dialect !== 'postgres') throw new FloeError('InvalidArgument', `state: "${url}" is not a postgresql:// URL`);
  const description = describeSqlTarget(t).replace(/^sql:/, '');
  const pool = new pg.Pool({ ...pgClientConfig(t, 'floe-serve'), max: 4 });
  // an idle client dropped by the server emits 'error' on the pool; without a listener it would crash
  pool.on('error', () => undefined);
  const wrap = (e: unknown) => {
    const f = e instanceof FloeError ? e : postgresError(e, description, t.host, t.port);
    return new FloeError(f.kind, f.message.replace(/^SQL catalog /, 'service state database '), {
      cause: e,
      retryable: f.retryable,
    });
  };
  const over = (c: PgQueryable): Omit<StateSql, 'transaction' | 'close'> => {
    const st = pgStatements(c, wrap);
    return { dialect: 'postgres', description, all: st.query, run: st.execute };
  };
  const sql: StateSql = {
    ...over(pool),
    async transaction<T>(fn: (tx: StateSql) => Promise<T>) {
      let client: import('pg').PoolClient;
      try {
        client = await pool.connect();
      } catch (e) {
        throw wrap(e);
      }
      const tx: StateSql = {
        ...over(client),
        transaction: () => Promise.reject(new Error('nested transaction')),
        close: async () => undefined,
      };
      try {
        await client.query('BEGIN');
        const r = await fn(tx);
        await client.query('COMMIT');
        return r;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e instanceof FloeError ? e : wrap(e);
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end().catch(() => undefined);
    },
  };
  // fail at start-up, with a clear message, when the server cannot be reached
  await sql.all('SELECT 1 AS one');
  return sql;
}

// ------------------------------------------------------------------ migrations

interface Migration {
  version: number;
  description: string;
  statements: (dialect: StateSql['dialect']) => string[];
}

/** Append-only: a released migration is never edited; changes come as a new version. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'tables, runs, planner state, schedule state',
    statements: (d) => [
      `CREATE TABLE floe_tables (
         name TEXT PRIMARY KEY,
         location TEXT NOT NULL,
         format TEXT,
         source TEXT NOT NULL,
         status TEXT NOT NULL,
         status_reason TEXT,
         paused INTEGER NOT NULL DEFAULT 0,
         paused_at_ms BIGINT,
         first_seen_ms BIGINT NOT NULL,
         last_seen_ms BIGINT NOT NULL,
         retired_at_ms BIGINT)`,
      `CREATE TABLE floe_runs (
         id ${d === 'postgres' ? 'BIGSERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT'},
         table_name TEXT NOT NULL,
         job TEXT NOT NULL,
         reason TEXT NOT NULL,
         dry_run INTEGER NOT NULL,
         started_ms BIGINT NOT NULL,
         finished_ms BIGINT NOT NULL,
         duration_ms BIGINT NOT NULL,
         outcome TEXT NOT NULL,
         error TEXT,
         format TEXT,
         files_before BIGINT,
         files_after BIGINT,
         bytes_before BIGINT,
         bytes_after BIGINT,
         delete_files_before BIGINT,
         delete_files_after BIGINT,
         rows_in BIGINT,
         rows_out BIGINT,
         bytes_read BIGINT,
         bytes_written BIGINT,
         bytes_deleted BIGINT,
         files_deleted BIGINT,
         snapshot_ids TEXT NOT NULL,
         plan_json TEXT,
         warnings_json TEXT,
         replica TEXT)`,
      `CREATE INDEX floe_runs_by_table ON floe_runs (table_name, started_ms)`,
      `CREATE TABLE floe_planner_state (
         table_name TEXT PRIMARY KEY,
         state_json TEXT NOT NULL,
         updated_ms BIGINT NOT NULL)`,
      `CREATE TABLE floe_schedule_state (
         table_name TEXT NOT NULL,
         job TEXT NOT NULL,
         first_seen_ms BIGINT,
         last_start_ms BIGINT,
         last_finish_ms BIGINT,
         last_success_start_ms BIGINT,
         skipped_through_ms BIGINT,
         consecutive_failures INTEGER NOT NULL DEFAULT 0,
         retry_at_ms BIGINT,
         last_result_json TEXT,
         PRIMARY KEY (table_name, job))`,
      `CREATE TABLE floe_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    ],
  },
  {
    version: 2,
    description: 'table leases (replicas sharing a database)',
    statements: () => [
      `CREATE TABLE floe_leases (
         table_name TEXT PRIMARY KEY,
         owner TEXT NOT NULL,
         acquired_ms BIGINT NOT NULL,
         expires_ms BIGINT NOT NULL)`,
    ],
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Brings the schema to SCHEMA_VERSION; refuses a database written by a newer floe. Returns the versions applied. */
export async function migrate(sql: StateSql, nowMs = Date.now()): Promise<number[]> {
  return sql.transaction(async (tx) => {
    // a fixed key: every replica of every floe serializes its migrations on it
    if (tx.dialect === 'postgres') await tx.all('SELECT pg_advisory_xact_lock(727465001) AS locked');
    await tx.run(
      `CREATE TABLE IF NOT EXISTS floe_schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)`,
    );
    const rows = await tx.all<{ v: number | string | null }>('SELECT MAX(version) AS v FROM floe_schema_version');
    const current = rows[0]?.v === null || rows[0]?.v === undefined ? 0 : Number(rows[0].v);
    if (current > SCHEMA_VERSION) {
      throw new FloeError(
        'Unsupported',
        `service state database ${sql.description} has schema version ${current}, written by a newer floe (this one knows up to ${SCHEMA_VERSION})`,
      );
    }
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      for (const st of m.statements(tx.dialect)) await tx.run(st);
      await tx.run('INSERT INTO floe_schema_version (version, description, applied_at_ms) VALUES (?, ?, ?)', [
        m.version,
        m.description,
        nowMs,
      ]);
      applied.push(m.version);
    }
    return applied;
  });
}
