/**
 * Listing the tables of an Iceberg catalog (the catalog readers in this folder only load one table):
 * - SQL catalog (JdbcCatalog / PyIceberg SqlCatalog): the rows of `iceberg_tables` (views excluded),
 *   optionally of one `catalog_name`.
 * - REST and Glue catalogs: their own `listTables` (rest.ts, glue.ts), with the same authentication and
 *   properties as loading a table.
 */
import { FloeError } from '../../util/errors.js';
import { openCatalog, type CatalogOptions, type TableIdentifier } from './catalog.js';
import { parseCatalogSpec } from './catalog-spec.js';
import { openSqlConnection, parseSqlTarget } from './sql-connection.js';

export async function listSqlCatalogTables(target: string, catalogName?: string): Promise<TableIdentifier[]> {
  const conn = await openSqlConnection(parseSqlTarget(target), { readonly: true });
  try {
    const cols = await conn.columns('iceberg_tables');
    if (cols.length === 0)
      throw new FloeError('Corrupt', `SQL catalog ${conn.description}: it has no iceberg_tables table`);
    const where: string[] = [];
    const params: string[] = [];
    if (cols.includes('iceberg_type')) where.push(`(iceberg_type = 'TABLE' OR iceberg_type IS NULL)`);
    if (catalogName !== undefined) {
      where.push('catalog_name = ?');
      params.push(catalogName);
    }
    const rows = await conn.query<{ table_namespace: string; table_name: string }>(
      `SELECT table_namespace, table_name FROM iceberg_tables${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY table_namespace, table_name`,
      params,
    );
    return rows.map((r) => ({ namespace: r.table_namespace.split('.'), name: r.table_name }));
  } finally {
    await conn.close();
  }
}

export interface RestListOptions {
  token?: string;
  warehouse?: string;
  fetch?: typeof fetch;
  /** Safety stop for runaway pagination / namespace trees. */
  maxTables?: number;
}

/** The tables of the REST catalog at `uri` (properties from the environment as for `--catalog rest:<uri>`). */
export async function listRestCatalogTables(uri: string, o: RestListOptions = {}): Promise<TableIdentifier[]> {
  return listCatalogTables(`rest:${uri}`, {
    ...(o.token ? { token: o.token } : {}),
    ...(o.warehouse ? { warehouse: o.warehouse } : {}),
    ...(o.fetch ? { fetch: o.fetch } : {}),
    ...(o.maxTables ? { maxTables: o.maxTables } : {}),
  });
}

/** The tables of any catalog spec floe opens (SQL, REST, Glue), through the same catalog code that loads them. */
export async function listCatalogTables(
  spec: string,
  o: CatalogOptions & { maxTables?: number } = {},
): Promise<TableIdentifier[]> {
  const parsed = parseCatalogSpec(spec);
  if (parsed.kind === 'sql') return listSqlCatalogTables(parsed.target, o.catalogName);
  const catalog = await openCatalog(spec, o);
  try {
    if (!catalog.listTables)
      throw new FloeError('Unsupported', `catalog ${catalog.description} cannot list its tables`);
    return await catalog.listTables(o.maxTables);
  } finally {
    await catalog.close();
  }
}
