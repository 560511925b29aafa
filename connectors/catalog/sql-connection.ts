/**
 * The one seam between the SQL catalog code and a database: SQLite files through better-sqlite3, PostgreSQL
 * through node-postgres (`pg`). Callers write SQL with `?` placeholders; the Postgres side renumbers them to
 * `$1, $2, …`. Only the few statements the catalog needs are issued (SELECT / UPDATE on iceberg_tables).
 *
 * Accepted targets (after `sql:`):
 * - a SQLite path, `sqlite:///abs/path` (SQLAlchemy), `sqlite:path`, `jdbc:sqlite:path` (JdbcCatalog)
 * - `postgresql://user:pass@host:port/db`, `postgres://…` (libpq / SQLAlchemy without the driver suffix,
 *   `postgresql+psycopg2://…` too), `jdbc:postgresql://host:port/db?user=…&password=…` (JdbcCatalog's uri)
 * A password missing from the URL comes from PGPASSWORD or ~/.pgpass (node-postgres' own lookup), a
 * missing user from PGUSER.
 */
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { FloeError } from '../../util/errors.js';

export type SqlParam = string | number | bigint | null;

export interface SqlConnection {
  /** `sql:/path/catalog.db` or `sql:postgresql://user@host:port/db` (never the password) — for messages. */
  readonly description: string;
  readonly dialect: 'sqlite' | 'postgres';
  /** Rows of a SELECT; `?` placeholders. */
  query<T extends object>(sql: string, params?: readonly SqlParam[]): Promise<T[]>;
  /** Number of rows an INSERT / UPDATE / DELETE changed; `?` placeholders. */
  execute(sql: string, params?: readonly SqlParam[]): Promise<number>;
  /** Column names of `table` (empty when the table does not exist). */
  columns(table: string): Promise<string[]>;
  close(): Promise<void>;
}

export type SqlTarget =
  | { dialect: 'sqlite'; path: string }
  | {
      dialect: 'postgres';
      host: string;
      port: number;
      database: string;
      user?: string;
      password?: string;
      ssl?: boolean;
      searchPath?: string;
    };

const POSTGRES_URL = /^(jdbc:)?(postgres|postgresql)(\+[a-z0-9]+)?:\/\//i;

/** Parses what follows `sql:` in `--catalog sql:…`. */
export function parseSqlTarget(target: string): SqlTarget {
  if (POSTGRES_URL.test(target)) return parsePostgresUrl(target);
  if (/^(jdbc:)?(mysql|mariadb|oracle|sqlserver|db2)/i.test(target)) {
    throw new FloeError('Unsupported', `SQL catalog ${target}: only SQLite and PostgreSQL catalogs are supported`);
  }
  // SQLAlchemy style sqlite:////abs/path or sqlite:///rel/path; JDBC style jdbc:sqlite:path
  const m = /^(?:jdbc:)?sqlite:\/\/\/(.*)$/.exec(target) ?? /^(?:jdbc:)?sqlite:(.*)$/.exec(target);
  return { dialect: 'sqlite', path: m ? m[1]! : target };
}

function parsePostgresUrl(text: string): SqlTarget {
  const jdbc = /^jdbc:/i.test(text);
  let url: URL;
  try {
    // WHATWG URL parses only special schemes' hosts reliably; postgres URLs parse as generic ones, which is enough
    url = new URL(text.replace(/^(jdbc:)?(postgres|postgresql)(\+[a-z0-9]+)?:/i, 'postgresql:'));
  } catch {
    throw new FloeError('InvalidArgument', `SQL catalog URL ${redactUrl(text)} is not a valid postgresql:// URL`);
  }
  const q = url.searchParams;
  const user = decodeURIComponent(url.username) || q.get('user') || undefined;
  const password = url.password ? decodeURIComponent(url.password) : (q.get('password') ?? undefined);
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || q.get('dbname') || user || 'postgres';
  const sslmode = q.get('sslmode');
  const ssl = q.get('ssl') === 'true' || (sslmode !== null && !['disable', 'allow', 'prefer'].includes(sslmode));
  const searchPath = q.get('currentSchema') ?? undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '') || q.get('host') || 'localhost';
  if (jdbc && !user && !process.env.PGUSER) {
    // JdbcCatalog passes jdbc.user separately; without it the server would see the OS user name
    throw new FloeError(
      'InvalidArgument',
      `SQL catalog ${redactUrl(text)}: no user; add ?user=…&password=… (or set PGUSER / PGPASSWORD)`,
    );
  }
  return {
    dialect: 'postgres',
    host,
    port: url.port ? Number(url.port) : 5432,
    database,
    ...(user ? { user } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(ssl ? { ssl } : {}),
    ...(searchPath ? { searchPath } : {}),
  };
}

/** The URL with its password (user-info or ?password=) replaced by `***`. */
export function redactUrl(text: string): string {
  return text.replace(/(\/\/[^/:@]*:)[^@/]*@/, '$1***@').replace(/([?&]password=)[^&]*/i, '$1***');
}

export function describeSqlTarget(t: SqlTarget): string {
  if (t.dialect === 'sqlite') return `sql:${t.path}`;
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return `sql:postgresql://${t.user ? `${t.user}@` : ''}${host}:${t.port}/${t.database}`;
}

export async function openSqlConnection(
  target: SqlTarget | string,
  opts: { readonly?: boolean } = {},
): Promise<SqlConnection> {
  const t = typeof target === 'string' ? parseSqlTarget(target) : target;
  return t.dialect === 'sqlite' ? openSqlite(t.path, opts.readonly ?? false) : openPostgres(t);
}

// ------------------------------------------------------------------ SQLite

async function openSqlite(path: string, readonly: boolean): Promise<SqlConnection> {
  if (!existsSync(path))
    throw new FloeError('NotFound', `SQL catalog file not found: ${path}`, { context: { file: path } });
  // loaded lazily, like pg: commands on tables without a SQL catalog (and rewrite workers) never pay for it
  const { default: BetterSqlite } = await import('better-sqlite3');
  let db: Database.Database;
  try {
    // Writers on the same file (Java's sqlite-jdbc) fail a commit after waiting 3 s for its lock
    // (`UncheckedSQLException: Unknown failure`, issue 22): every statement here is one autocommit statement,
    // so floe holds the lock only while SQLite runs it, never across work; waiting (up to 5 s) holds nothing.
    db = new BetterSqlite(path, { readonly, fileMustExist: true, timeout: 5000 });
  } catch (e) {
    throw new FloeError('Corrupt', `cannot open SQL catalog ${path}: ${(e as Error).message}`, {
      context: { file: path },
      cause: e,
    });
  }
  return {
    description: `sql:${path}`,
    dialect: 'sqlite',
    async query<T extends object>(sql: string, params: readonly SqlParam[] = []) {
      return db.prepare(sql).all(...params) as T[];
    },
    async execute(sql: string, params: readonly SqlParam[] = []) {
      return db.prepare(sql).run(...params).changes;
    },
    async columns(table: string) {
      return (db.prepare(`PRAGMA table_info(${quoteIdent(table)})`).all() as { name: string }[]).map((c) => c.name);
    },
    async close() {
      db.close();
    },
  };
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

// ------------------------------------------------------------------ PostgreSQL

/** `?` → `$n`, leaving `?` inside quoted literals / identifiers alone. */
export function numberPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let quote: string | undefined;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === '?') {
      out += `$${++n}`;
    } else {
      out += ch;
    }
  }
  return out;
}

/** SQLSTATE classes of node-postgres errors and socket error codes, as floe error kinds. */
export function postgresError(e: unknown, description: string, host: string, port: number): FloeError {
  const err = e as { code?: string; message?: string };
  const code = err.code ?? '';
  const msg = err.message ?? String(e);
  const where = `PostgreSQL at ${host}:${port}`;
  if (code === '28P01' || code === '28000' || /password authentication failed|no pg_hba\.conf entry/i.test(msg)) {
    return new FloeError('AccessDenied', `SQL catalog ${description}: ${where} refused the login: ${msg}`, {
      context: { host, port },
      cause: e,
    });
  }
  if (code === '42501')
    return new FloeError('AccessDenied', `SQL catalog ${description}: ${msg}`, { context: { host, port }, cause: e });
  if (code === '3D000')
    return new FloeError('NotFound', `SQL catalog ${description}: ${msg}`, { context: { host, port }, cause: e });
  if (
    ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH'].includes(
      code,
    ) ||
    /timeout|terminated/i.test(msg)
  ) {
    return new FloeError('Transient', `SQL catalog ${description}: cannot reach ${where}: ${msg || code}`, {
      context: { host, port },
      cause: e,
    });
  }
  if (code.startsWith('08') || code.startsWith('57') || code === '40001' || code === '40P01' || code.startsWith('53')) {
    return new FloeError('Transient', `SQL catalog ${description}: ${where}: ${msg}`, {
      context: { host, port },
      cause: e,
    });
  }
  return new FloeError('Corrupt', `SQL catalog ${description}: ${msg}`, { context: { host, port }, cause: e });
}

/** How `pg` connects to a PostgreSQL target: the catalog's client and the service state database's pool. */
export function pgClientConfig(t: Extract<SqlTarget, { dialect: 'postgres' }>, applicationName: string) {
  return {
    host: t.host,
    port: t.port,
    database: t.database,
    ...(t.user ? { user: t.user } : {}),
    ...(t.password !== undefined ? { password: t.password } : {}),
    ...(t.ssl ? { ssl: true } : {}),
    ...(t.searchPath ? { options: `-c search_path=${t.searchPath}` } : {}),
    connectionTimeoutMillis: 10_000,
    application_name: applicationName,
  };
}

async function openPostgres(t: Extract<SqlTarget, { dialect: 'postgres' }>): Promise<SqlConnection> {
  // loaded lazily: SQLite-only users never pay for it
  const { default: pg } = await import('pg');
  const description = describeSqlTarget(t);
  const client = new pg.Client(pgClientConfig(t, 'floe'));
  // a dropped idle connection emits 'error'; without a listener it would crash the process
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => undefined);
    throw postgresError(e, description, t.host, t.port);
  }
  const wrap = (e: unknown) => (e instanceof FloeError ? e : postgresError(e, description, t.host, t.port));
  return {
    description,
    dialect: 'postgres',
    ...pgStatements(client, wrap),
    async columns(table: string) {
      // unquoted identifiers fold to lower case in Postgres, which is how JdbcCatalog creates iceberg_tables
      const r = await client
        .query(
          `SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = ANY (current_schemas(false))`,
          [table],
        )
        .catch((e: unknown) => {
          throw wrap(e);
        });
      return r.rows.map((row: { column_name: string }) => row.column_name);
    },
    async close() {
      await client.end().catch(() => undefined);
    },
  };
}

function pgParams(params: readonly SqlParam[]): unknown[] {
  return params.map((p) => (typeof p === 'bigint' ? p.toString() : p));
}

/** What node-postgres clients and pools have in common. */
export interface PgQueryable {
  query(sql: string, params: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/**
 * One statement on a node-postgres client or pool, written with `?` placeholders and bigint parameters
 * (sent as decimal strings): its rows (`query`) or its affected-row count (`execute`), errors mapped by `wrap`.
 * The SQL catalog and the service's state database both speak to PostgreSQL through it.
 */
export function pgStatements(c: PgQueryable, wrap: (e: unknown) => Error) {
  return {
    async query<T extends object>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
      try {
        return (await c.query(numberPlaceholders(sql), pgParams(params))).rows as T[];
      } catch (e) {
        throw wrap(e);
      }
    },
    async execute(sql: string, params: readonly SqlParam[] = []): Promise<number> {
      try {
        return (await c.query(numberPlaceholders(sql), pgParams(params))).rowCount ?? 0;
      } catch (e) {
        throw wrap(e);
      }
    },
  };
}
