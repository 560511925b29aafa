/**
 * The SQL catalog of Java's JdbcCatalog and PyIceberg's SqlCatalog: table `iceberg_tables`
 * (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location
 * [, iceberg_type]), namespace levels joined with '.'. Rows whose iceberg_type is 'VIEW' are views.
 * SQLite files are read with better-sqlite3; Postgres URLs are refused (no pg client is bundled).
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { FloeError } from '../../src/errors.js';
import { identifierToString, type CatalogOptions, type IcebergCatalog, type LoadedTable, type TableIdentifier } from './catalog.js';

interface Row {
  catalog_name: string;
  metadata_location: string | null;
  previous_metadata_location: string | null;
}

function sqlitePath(target: string): string | undefined {
  if (/^(postgres|postgresql|mysql|jdbc:)/i.test(target)) return undefined;
  // SQLAlchemy style sqlite:////abs/path or sqlite:///rel/path; JDBC style jdbc:sqlite:path
  const m = /^sqlite:\/\/\/(.*)$/.exec(target) ?? /^sqlite:(.*)$/.exec(target);
  return m ? m[1]! : target;
}

export class SqlCatalog implements IcebergCatalog {
  private constructor(
    readonly description: string,
    private readonly db: Database.Database,
    private readonly options: CatalogOptions,
  ) {}

  static open(target: string, options: CatalogOptions): SqlCatalog {
    const path = sqlitePath(target);
    if (path === undefined) {
      throw new FloeError('Unsupported', `SQL catalog ${target}: only SQLite catalogs are supported (no Postgres/MySQL client is bundled)`);
    }
    if (!existsSync(path)) throw new FloeError('NotFound', `SQL catalog file not found: ${path}`, { context: { file: path } });
    let db: Database.Database;
    try {
      db = new Database(path, { readonly: true, fileMustExist: true });
    } catch (e) {
      throw new FloeError('Corrupt', `cannot open SQL catalog ${path}: ${(e as Error).message}`, { context: { file: path }, cause: e });
    }
    return new SqlCatalog(`sql:${path}`, db, options);
  }

  async loadTable(id: TableIdentifier): Promise<LoadedTable> {
    const ns = id.namespace.join('.');
    let rows: Row[];
    try {
      const cols = (this.db.prepare(`PRAGMA table_info(iceberg_tables)`).all() as { name: string }[]).map((c) => c.name);
      if (cols.length === 0) throw new Error('it has no iceberg_tables table');
      const typeFilter = cols.includes('iceberg_type') ? ` AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)` : '';
      const byName = this.options.catalogName === undefined ? '' : ' AND catalog_name = ?';
      const params: string[] = [ns, id.name];
      if (this.options.catalogName !== undefined) params.push(this.options.catalogName);
      rows = this.db
        .prepare(
          `SELECT catalog_name, metadata_location, previous_metadata_location FROM iceberg_tables ` +
            `WHERE table_namespace = ? AND table_name = ?${byName}${typeFilter}`,
        )
        .all(...params) as Row[];
    } catch (e) {
      throw new FloeError('Corrupt', `SQL catalog ${this.description}: cannot query iceberg_tables: ${(e as Error).message}`, { cause: e });
    }
    const name = identifierToString(id);
    if (rows.length === 0) throw new FloeError('NotFound', `table ${name} not found in ${this.description}`);
    if (rows.length > 1) {
      throw new FloeError(
        'InvalidArgument',
        `table ${name} exists in several catalogs of ${this.description} (${rows.map((r) => r.catalog_name).join(', ')}); pass --catalog-name`,
      );
    }
    const row = rows[0]!;
    if (!row.metadata_location) throw new FloeError('Corrupt', `table ${name} in ${this.description} has no metadata_location`);
    return { identifier: id, metadataLocation: row.metadata_location };
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
