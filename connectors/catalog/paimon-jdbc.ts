/**
 * Paimon's JDBC catalog (Java `org.apache.paimon.jdbc.JdbcCatalog`), on SQLite or PostgreSQL:
 * - `paimon_tables(catalog_key, database_name, table_name)` registers a table; its files live at
 *   `<warehouse>/<database>.db/<table>` (AbstractCatalog.getTableLocation), so the warehouse is needed.
 * - `paimon_distributed_locks(lock_id, acquired_at, expire_time_seconds)` is the catalog lock of writers
 *   with `lock.enabled=true` (JdbcCatalogLock): lock id `<catalog-key>.<database>.<table>`; acquiring
 *   deletes that id's row when it is older than its own expire_time_seconds, then INSERTs it (the primary
 *   key refuses a second holder); a refused INSERT is retried with sleeps 100 ms, 200 ms, … capped at
 *   `lock-check-max-sleep` (8 s) until `lock-acquire-timeout` (8 min) has passed; the row's expiry is the
 *   acquire timeout in whole seconds; releasing deletes the row.
 * floe follows that protocol exactly, and is stricter in two places: it releases only its own row (the
 * acquired_at it inserted), and before publishing it checks that its row is still there and not expired,
 * since a holder past its expiry can be displaced by the next acquirer.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FloeError } from '../../util/errors.js';
import { parseDurationMs } from '../../util/units.js';
import type { HeldCommitLock, PaimonCommitLock } from '../paimon/commit-lock.js';
import { parseTableIdentifier, type TableIdentifier } from './catalog.js';
import { openSqlConnection, parseSqlTarget, type SqlConnection } from './sql-connection.js';

export const PAIMON_TABLES = 'paimon_tables';
export const PAIMON_LOCKS = 'paimon_distributed_locks';

export interface PaimonJdbcOptions {
  /** Java's catalog `warehouse`: the root of `<database>.db/<table>`. */
  warehouse?: string;
  /** Java's `catalog-key` (default "jdbc"): the catalog_key column and the lock id's first part. */
  catalogKey?: string;
  /**
   * Java's catalog options that shape the lock, by their Java names: `lock.enabled` (true: take the
   * lock, creating its table as Java does; false: never; unset: take it when the catalog has the lock
   * table, i.e. some writer runs with the lock on), `lock-acquire-timeout`, `lock-check-max-sleep`,
   * `lock-key-max-length`.
   */
  options?: Readonly<Record<string, string>>;
}

export interface PaimonCatalogTable {
  database: string;
  table: string;
  location: string;
  /** The catalog lock to publish under, when the catalog uses one. */
  lock?: PaimonCommitLock;
}

const DEFAULT_ACQUIRE_TIMEOUT_MS = 8 * 60_000;
const DEFAULT_CHECK_MAX_SLEEP_MS = 8_000;

/** `<dialect>` → the dialect's SQL for "seconds since acquired_at" (Sql­Lite/Postgresql­DistributedLockDialect). */
const AGE_SECONDS = {
  sqlite: `strftime('%s', 'now') - strftime('%s', acquired_at)`,
  postgres: `EXTRACT(EPOCH FROM AGE(NOW(), acquired_at))`,
} as const;

export class PaimonJdbcCatalog {
  readonly description: string;
  private readonly catalogKey: string;
  private readonly acquireTimeoutMs: number;
  private readonly checkMaxSleepMs: number;

  private constructor(
    private readonly conn: SqlConnection,
    private readonly o: PaimonJdbcOptions,
    private readonly lockTable: boolean,
  ) {
    this.description = `paimon-jdbc:${conn.description.replace(/^sql:/, '')}`;
    this.catalogKey = o.catalogKey ?? 'jdbc';
    const opt = o.options ?? {};
    const duration = (key: string, d: number) =>
      opt[key] === undefined
        ? d
        : parseDurationMs(opt[key]!, { bare: 'ms', what: `Paimon catalog ${this.description}: option ${key}` });
    this.acquireTimeoutMs = duration('lock-acquire-timeout', DEFAULT_ACQUIRE_TIMEOUT_MS);
    this.checkMaxSleepMs = duration('lock-check-max-sleep', DEFAULT_CHECK_MAX_SLEEP_MS);
  }

  /** Opens the catalog database (read-write: the lock is a row); checks it holds Paimon's tables. */
  static async open(target: string, o: PaimonJdbcOptions = {}): Promise<PaimonJdbcCatalog> {
    const conn = await openSqlConnection(parseSqlTarget(target), { readonly: false });
    try {
      const where = `paimon-jdbc:${conn.description.replace(/^sql:/, '')}`;
      if ((await conn.columns(PAIMON_TABLES)).length === 0)
        throw new FloeError(
          'NotFound',
          `Paimon catalog ${where}: it has no ${PAIMON_TABLES} table (not a Paimon JDBC catalog)`,
          {
            context: { catalog: where },
          },
        );
      const enabled = lockEnabled(o.options?.['lock.enabled'], where);
      let lockTable = (await conn.columns(PAIMON_LOCKS)).length > 0;
      if (enabled === true && !lockTable) {
        // lock.enabled=true: Java's JdbcCatalog creates the table on open; so does floe (same DDL)
        const keyLength = Number(o.options?.['lock-key-max-length'] ?? 255);
        await conn.execute(
          `CREATE TABLE ${PAIMON_LOCKS}(lock_id VARCHAR(${keyLength}) NOT NULL,acquired_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,expire_time_seconds BIGINT DEFAULT 0 NOT NULL,PRIMARY KEY (lock_id))`,
        );
        lockTable = true;
      }
      return new PaimonJdbcCatalog(conn, o, enabled !== false && lockTable);
    } catch (e) {
      await conn.close();
      throw e;
    }
  }

  /** Whether commits through this catalog take its lock. */
  get locking(): boolean {
    return this.lockTable;
  }

  async listTables(): Promise<TableIdentifier[]> {
    const rows = await this.conn.query<{ database_name: string; table_name: string }>(
      `SELECT database_name, table_name FROM ${PAIMON_TABLES} WHERE catalog_key = ? ORDER BY database_name, table_name`,
      [this.catalogKey],
    );
    return rows.map((r) => ({ namespace: [r.database_name], name: r.table_name }));
  }

  /** `<database>.<table>` → its location under the warehouse and the lock its commits take. */
  async loadTable(ref: string): Promise<PaimonCatalogTable> {
    const id = parseTableIdentifier(ref);
    if (id.namespace.length !== 1)
      throw new FloeError('InvalidArgument', `Paimon table "${ref}" must be <database>.<table>`, {
        context: { catalog: this.description },
      });
    const [database, table] = [id.namespace[0]!, id.name];
    const rows = await this.conn.query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM ${PAIMON_TABLES} WHERE catalog_key = ? AND database_name = ? AND table_name = ?`,
      [this.catalogKey, database, table],
    );
    if (!rows.length || Number(rows[0]!.n) === 0)
      throw new FloeError(
        'NotFound',
        `table ${database}.${table} not found in Paimon catalog ${this.description} (catalog-key ${this.catalogKey})`,
        {
          context: { catalog: this.description, table: ref },
        },
      );
    const warehouse = this.o.warehouse?.replace(/\/+$/, '');
    if (!warehouse)
      throw new FloeError(
        'InvalidArgument',
        `Paimon catalog ${this.description}: give --warehouse (the Java catalog's warehouse) to locate ${ref}`,
        {
          context: { catalog: this.description },
        },
      );
    const out: PaimonCatalogTable = { database, table, location: `${warehouse}/${database}.db/${table}` };
    if (this.lockTable) out.lock = this.lockFor(database, table);
    return out;
  }

  /** The JdbcCatalogLock of one table. */
  lockFor(database: string, table: string): PaimonCommitLock {
    return new JdbcCommitLock(this.conn, this.description, `${this.catalogKey}.${database}.${table}`, {
      acquireTimeoutMs: this.acquireTimeoutMs,
      checkMaxSleepMs: this.checkMaxSleepMs,
    });
  }

  async close(): Promise<void> {
    await this.conn.close();
  }
}

function lockEnabled(raw: string | undefined, where: string): boolean | undefined {
  if (raw === undefined) return undefined;
  const v = raw.trim().toLowerCase();
  if (v === 'true' || v === 'false') return v === 'true';
  throw new FloeError(
    'InvalidArgument',
    `Paimon catalog ${where}: lock.enabled=${JSON.stringify(raw)} must be true or false`,
    {
      context: { catalog: where, option: 'lock.enabled' },
    },
  );
}

interface LockTimes {
  acquireTimeoutMs: number;
  checkMaxSleepMs: number;
}

class JdbcCommitLock implements PaimonCommitLock {
  readonly description: string;

  constructor(
    private readonly conn: SqlConnection,
    private readonly catalog: string,
    private readonly lockId: string,
    private readonly times: LockTimes,
  ) {
    this.description = `${catalog} lock ${lockId}`;
  }

  private get expireSeconds(): number {
    return Math.floor(this.times.acquireTimeoutMs / 1000);
  }

  /** One try (JdbcUtils.acquire): clear this id's expired row, then INSERT; the acquired_at we got, or undefined. */
  private async tryAcquire(): Promise<string | undefined> {
    const age = AGE_SECONDS[this.conn.dialect];
    await this.conn.execute(`DELETE FROM ${PAIMON_LOCKS} WHERE ${age} > expire_time_seconds AND lock_id = ?`, [
      this.lockId,
    ]);
    try {
      const n = await this.conn.execute(`INSERT INTO ${PAIMON_LOCKS} (lock_id, expire_time_seconds) VALUES (?, ?)`, [
        this.lockId,
        this.expireSeconds,
      ]);
      if (n === 0) return undefined;
    } catch (e) {
      // the primary key refused a second holder (Java treats every SQLException here the same way);
      // a connection-level failure is not "held by another" and keeps its kind
      if (e instanceof FloeError && e.kind !== 'Corrupt' && e.kind !== 'InvalidArgument') throw e;
      return undefined;
    }
    const rows = await this.conn.query<{ at: string }>(
      `SELECT CAST(acquired_at AS TEXT) AS at FROM ${PAIMON_LOCKS} WHERE lock_id = ?`,
      [this.lockId],
    );
    return rows[0]?.at ?? undefined;
  }

  private async acquire(): Promise<{ at: string; sinceMs: number }> {
    const start = Date.now();
    let wait = 50;
    for (;;) {
      const at = await this.tryAcquire();
      if (at !== undefined) return { at, sinceMs: Date.now() };
      if (Date.now() - start > this.times.acquireTimeoutMs) break;
      wait = Math.min(wait * 2, this.times.checkMaxSleepMs);
      await sleep(wait);
    }
    const holder = await this.conn
      .query<{ at: string; expire: number }>(
        `SELECT CAST(acquired_at AS TEXT) AS at, expire_time_seconds AS expire FROM ${PAIMON_LOCKS} WHERE lock_id = ?`,
        [this.lockId],
      )
      .catch(() => []);
    const by = holder[0] ? ` (held since ${holder[0].at} UTC, expiring after ${holder[0].expire} s)` : '';
    throw new FloeError(
      'CommitConflict',
      `Paimon catalog ${this.catalog}: could not acquire lock ${this.lockId} within ${this.times.acquireTimeoutMs} ms (lock-acquire-timeout)${by}; nothing was committed`,
      { context: { catalog: this.catalog, lock: this.lockId }, retryable: false },
    );
  }

  async runWithLock<T>(fn: (held: HeldCommitLock) => Promise<T>): Promise<T> {
    const mine = await this.acquire();
    const held: HeldCommitLock = { assertHeld: () => this.assertHeld(mine) };
    try {
      return await fn(held);
    } finally {
      await this.conn
        .execute(`DELETE FROM ${PAIMON_LOCKS} WHERE lock_id = ? AND CAST(acquired_at AS TEXT) = ?`, [
          this.lockId,
          mine.at,
        ])
        .catch(() => undefined); // an expired row is cleared by the next acquirer
    }
  }

  /**
   * Our row is still there and at least one second from expiry, by the database's clock (the one the
   * next acquirer's expiry check uses, in whole seconds) and by ours.
   */
  private async assertHeld(mine: { at: string; sinceMs: number }): Promise<void> {
    const age = AGE_SECONDS[this.conn.dialect];
    const rows = await this.conn.query<{ age: number | string }>(
      `SELECT ${age} AS age FROM ${PAIMON_LOCKS} WHERE lock_id = ? AND CAST(acquired_at AS TEXT) = ?`,
      [this.lockId, mine.at],
    );
    const heldMs = Date.now() - mine.sinceMs;
    const limit = this.expireSeconds - 1;
    const fail = (why: string) =>
      new FloeError(
        'CommitConflict',
        `Paimon catalog ${this.catalog}: lock ${this.lockId} ${why}; floe did not publish its snapshot`,
        { context: { catalog: this.catalog, lock: this.lockId }, retryable: false },
      );
    if (!rows.length) throw fail('was released or taken by another writer while floe held it (it had expired)');
    if (Number(rows[0]!.age) >= limit || heldMs >= limit * 1000)
      throw fail(`expired: held ${heldMs} ms, its expiry is ${this.expireSeconds} s (lock-acquire-timeout)`);
  }
}
