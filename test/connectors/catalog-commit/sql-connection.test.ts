/**
 * The SqlConnection seam without a Postgres server: how `--catalog sql:…` targets are understood (SQLite
 * paths and the libpq / SQLAlchemy / JDBC spellings of a Postgres URL), that passwords never reach messages,
 * `?` → `$n` renumbering, how server and socket errors map to floe error kinds, the SQLite implementation,
 * and that a Postgres commit that cannot connect fails plainly before any metadata file is written.
 */
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqlTableOperations } from '../../../connectors/iceberg/commit-catalog.js';
import { isCommitStateUnknown } from '../../../connectors/commit-state.js';
import {
  describeSqlTarget,
  numberPlaceholders,
  openSqlConnection,
  parseSqlTarget,
  postgresError,
  redactUrl,
} from '../../../connectors/catalog/sql-connection.js';
import { isFloeError, type FloeError } from '../../../util/errors.js';
import { localCommitIO } from '../iceberg-write/synthetic-table.js';
import { catalogTable, createCatalogDb, insertRow, tmp } from './support.js';

const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as FloeError,
  );

describe('parseSqlTarget', () => {
  it('SQLite: plain paths, SQLAlchemy sqlite:///, sqlite:, JDBC jdbc:sqlite:', () => {
    expect(parseSqlTarget('/tmp/c.db')).toEqual({ dialect: 'sqlite', path: '/tmp/c.db' });
    expect(parseSqlTarget('sqlite:////tmp/c.db')).toEqual({ dialect: 'sqlite', path: '/tmp/c.db' });
    expect(parseSqlTarget('sqlite:///rel/c.db')).toEqual({ dialect: 'sqlite', path: 'rel/c.db' });
    expect(parseSqlTarget('sqlite:/tmp/c.db')).toEqual({ dialect: 'sqlite', path: '/tmp/c.db' });
    expect(parseSqlTarget('jdbc:sqlite:/tmp/c.db')).toEqual({ dialect: 'sqlite', path: '/tmp/c.db' });
  });

  it('postgresql:// and postgres:// with user, password, port, database', () => {
    const want = {
      dialect: 'postgres',
      host: 'db.example',
      port: 6543,
      database: 'cat',
      user: 'ice',
      password: 'p@ss:w/rd',
    };
    expect(parseSqlTarget('postgresql://ice:p%40ss%3Aw%2Frd@db.example:6543/cat')).toEqual(want);
    expect(parseSqlTarget('postgres://ice:p%40ss%3Aw%2Frd@db.example:6543/cat')).toEqual(want);
    // SQLAlchemy URLs name the driver: PyIceberg SqlCatalog configs
    expect(parseSqlTarget('postgresql+psycopg2://ice:p%40ss%3Aw%2Frd@db.example:6543/cat')).toEqual(want);
  });

  it('defaults: port 5432, database = user name (libpq), no password', () => {
    expect(parseSqlTarget('postgresql://ice@h')).toEqual({
      dialect: 'postgres',
      host: 'h',
      port: 5432,
      database: 'ice',
      user: 'ice',
    });
  });

  it('JDBC: jdbc:postgresql://host:port/db?user=…&password=…&currentSchema=…&sslmode=require', () => {
    expect(
      parseSqlTarget('jdbc:postgresql://h:5433/cat?user=ice&password=s3cret&currentSchema=iceberg&sslmode=require'),
    ).toEqual({
      dialect: 'postgres',
      host: 'h',
      port: 5433,
      database: 'cat',
      user: 'ice',
      password: 's3cret',
      ssl: true,
      searchPath: 'iceberg',
    });
  });

  it('JDBC without a user is refused (JdbcCatalog passes jdbc.user separately)', () => {
    const saved = process.env.PGUSER;
    delete process.env.PGUSER;
    try {
      expect(() => parseSqlTarget('jdbc:postgresql://h/cat')).toThrow(/no user/);
    } finally {
      if (saved !== undefined) process.env.PGUSER = saved;
    }
  });

  it('other databases are Unsupported', () => {
    for (const t of ['mysql://u@h/db', 'jdbc:mysql://h/db', 'jdbc:oracle:thin:@h:1521:x']) {
      expect(() => parseSqlTarget(t)).toThrow(expect.objectContaining({ kind: 'Unsupported' }));
    }
  });
});

describe('messages never carry the password', () => {
  it('describeSqlTarget keeps user, host, port and database only', () => {
    expect(describeSqlTarget(parseSqlTarget('postgresql://ice:hunter2@h:6543/cat'))).toBe(
      'sql:postgresql://ice@h:6543/cat',
    );
    expect(describeSqlTarget(parseSqlTarget('jdbc:postgresql://h/cat?user=ice&password=hunter2'))).toBe(
      'sql:postgresql://ice@h:5432/cat',
    );
    expect(describeSqlTarget(parseSqlTarget('/tmp/c.db'))).toBe('sql:/tmp/c.db');
  });

  it('redactUrl masks user-info and ?password= passwords', () => {
    expect(redactUrl('postgresql://ice:hunter2@h/cat')).toBe('postgresql://ice:***@h/cat');
    expect(redactUrl('jdbc:postgresql://h/cat?user=ice&password=hunter2&ssl=true')).toBe(
      'jdbc:postgresql://h/cat?user=ice&password=***&ssl=true',
    );
  });
});

describe('numberPlaceholders', () => {
  it('renumbers ? in order and leaves quoted ? alone', () => {
    expect(numberPlaceholders(`SELECT a FROM t WHERE x = ? AND y = '?' AND "we?ird" = ? AND z = ?`)).toBe(
      `SELECT a FROM t WHERE x = $1 AND y = '?' AND "we?ird" = $2 AND z = $3`,
    );
  });
});

describe('postgresError', () => {
  const kind = (e: object) =>
    postgresError(
      Object.assign(new Error((e as { message?: string }).message ?? 'x'), e),
      'sql:postgresql://u@h:5432/d',
      'h',
      5432,
    );
  it('maps SQLSTATE and socket codes to floe kinds, naming host and port', () => {
    const denied = kind({ code: '28P01', message: 'password authentication failed for user "u"' });
    expect(denied.kind).toBe('AccessDenied');
    expect(denied.message).toContain('h:5432');
    expect(kind({ code: '42501', message: 'permission denied for table iceberg_tables' }).kind).toBe('AccessDenied');
    expect(kind({ code: '3D000', message: 'database "d" does not exist' }).kind).toBe('NotFound');
    const refused = kind({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' });
    expect(refused.kind).toBe('Transient');
    expect(refused.retryable).toBe(true);
    expect(refused.message).toContain('cannot reach PostgreSQL at h:5432');
    expect(kind({ code: '57P01', message: 'terminating connection due to administrator command' }).kind).toBe(
      'Transient',
    );
    expect(kind({ code: '42P01', message: 'relation "iceberg_tables" does not exist' }).kind).toBe('Corrupt');
  });
});

describe('SQLite SqlConnection', () => {
  it('query / execute / columns over a JdbcCatalog-layout file', async () => {
    const db = path.join(tmp(), 'c.db');
    createCatalogDb(db);
    insertRow(db, {
      catalog_name: 'c',
      table_namespace: 'ns',
      table_name: 't',
      metadata_location: 'm1',
      previous_metadata_location: null,
    });
    const conn = await openSqlConnection(`sqlite:///${db}`);
    try {
      expect(conn.description).toBe(`sql:${db}`);
      expect(await conn.columns('iceberg_tables')).toEqual([
        'catalog_name',
        'table_namespace',
        'table_name',
        'metadata_location',
        'previous_metadata_location',
        'iceberg_type',
      ]);
      expect(await conn.columns('nope')).toEqual([]);
      expect(
        await conn.execute('UPDATE iceberg_tables SET metadata_location = ? WHERE metadata_location = ?', ['m2', 'm1']),
      ).toBe(1);
      expect(
        await conn.execute('UPDATE iceberg_tables SET metadata_location = ? WHERE metadata_location = ?', ['m3', 'm1']),
      ).toBe(0);
      expect(
        await conn.query<{ metadata_location: string }>(
          'SELECT metadata_location FROM iceberg_tables WHERE table_name = ?',
          ['t'],
        ),
      ).toEqual([{ metadata_location: 'm2' }]);
    } finally {
      await conn.close();
    }
  });

  it('a missing file is NotFound naming it', async () => {
    const e = await caught(openSqlConnection('/nonexistent/dir/c.db'));
    expect(isFloeError(e, 'NotFound')).toBe(true);
    expect(e!.message).toContain('/nonexistent/dir/c.db');
  });
});

describe('SqlTableOperations on an unreachable Postgres', () => {
  it('refresh and commit fail as Transient (not "state unknown") and no metadata file is written', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const root = tmp();
    const t = await catalogTable(root);
    const io = localCommitIO(root);
    const ops = new SqlTableOperations(
      io,
      `postgresql://ice:hunter2@127.0.0.1:${port}/cat`,
      { namespace: ['db'], name: 't' },
      undefined,
    );
    const r = await caught(ops.refresh());
    expect(isFloeError(r, 'Transient')).toBe(true);
    expect(r!.message).toContain(`127.0.0.1:${port}`);
    expect(r!.message).not.toContain('hunter2');
    const before = readdirSync(path.join(t.loc, 'metadata')).sort();
    const base = { metadata: { location: t.loc, 'format-version': 2 }, location: t.metadataFile };
    const c = await caught(ops.commit(base, { ...base.metadata }));
    expect(isFloeError(c, 'Transient')).toBe(true);
    expect(isCommitStateUnknown(c)).toBe(false);
    expect(readdirSync(path.join(t.loc, 'metadata')).sort()).toEqual(before);
  });
});
