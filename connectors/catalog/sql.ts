/**
 * The SQL catalog of Java's JdbcCatalog and PyIceberg's SqlCatalog: table `iceberg_tables`
 * (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location
 * [, iceberg_type]), namespace levels joined with '.'. Rows whose iceberg_type is 'VIEW' are views.
 * SQLite files and PostgreSQL servers are reached through the SqlConnection seam (sql-connection.ts).
 */
import { FloeError } from '../../util/errors.js';
import {
  identifierToString,
  type CatalogOptions,
  type IcebergCatalog,
  type LoadedTable,
  type TableIdentifier,
} from './catalog.js';
import { openSqlConnection, parseSqlTarget, type SqlConnection } from './sql-connection.js';

interface Row {
  catalog_name: string;
  metadata_location: string | null;
  previous_metadata_location: string | null;
}

export class SqlCatalog implements IcebergCatalog {
  private constructor(
    readonly description: string,
    private readonly conn: SqlConnection,
    private readonly options: CatalogOptions,
  ) {}

  static async open(target: string, options: CatalogOptions): Promise<SqlCatalog> {
    const conn = await openSqlConnection(parseSqlTarget(target), { readonly: true });
    return new SqlCatalog(conn.description, conn, options);
  }

  async loadTable(id: TableIdentifier): Promise<LoadedTable> {
    const ns = id.namespace.join('.');
    let rows: Row[];
    try {
      const cols = await this.conn.columns('iceberg_tables');
      if (cols.length === 0) throw new Error('it has no iceberg_tables table');
      const typeFilter = cols.includes('iceberg_type') ? ` AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)` : '';
      const byName = this.options.catalogName === undefined ? '' : ' AND catalog_name = ?';
      const params: string[] = [ns, id.name];
      if (this.options.catalogName !== undefined) params.push(this.options.catalogName);
      rows = await this.conn.query<Row>(
        `SELECT catalog_name, metadata_location, previous_metadata_location FROM iceberg_tables ` +
          `WHERE table_namespace = ? AND table_name = ?${byName}${typeFilter}`,
        params,
      );
    } catch (e) {
      // connection-level failures (login refused, server gone) keep their own kind
      if (e instanceof FloeError && e.kind !== 'Corrupt') throw e;
      const detail = e instanceof FloeError ? e.message : (e as Error).message;
      throw new FloeError('Corrupt', `SQL catalog ${this.description}: cannot query iceberg_tables: ${detail}`, {
        cause: e,
      });
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
    if (!row.metadata_location)
      throw new FloeError('Corrupt', `table ${name} in ${this.description} has no metadata_location`);
    return { identifier: id, metadataLocation: row.metadata_location };
  }

  async close(): Promise<void> {
    await this.conn.close();
  }
}
