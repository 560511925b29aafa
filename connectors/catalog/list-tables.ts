/**
 * Listing the tables of an Iceberg catalog (the catalog readers in this folder only load one table):
 * - SQL catalog (JdbcCatalog / PyIceberg SqlCatalog): the rows of `iceberg_tables` (views excluded),
 *   optionally of one `catalog_name`.
 * - REST catalog: `GET /v1/config` for the path prefix, then `GET /v1/{prefix}/namespaces` (recursively,
 *   with `parent=`) and `GET /v1/{prefix}/namespaces/{ns}/tables`, following `next-page-token`.
 *   Namespace levels are joined with the unit separator 0x1F and URL-encoded, as the REST spec says.
 */
import { FloeError } from '../../src/errors.js';
import { identifierToString, type TableIdentifier } from './catalog.js';
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

export async function listRestCatalogTables(uri: string, o: RestListOptions = {}): Promise<TableIdentifier[]> {
  const base = uri.replace(/\/+$/, '');
  const f = o.fetch ?? fetch;
  const token = o.token ?? process.env.FLOE_REST_TOKEN;
  const get = async (p: string): Promise<Record<string, unknown>> => {
    let res: Response;
    try {
      res = await f(`${base}${p}`, {
        headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
    } catch (e) {
      throw new FloeError('Transient', `REST catalog ${base}: GET ${p} failed: ${(e as Error).message}`, { cause: e });
    }
    const text = await res.text();
    if (!res.ok) {
      const kind =
        res.status === 401 || res.status === 403
          ? 'AccessDenied'
          : res.status === 404
            ? 'NotFound'
            : res.status >= 500
              ? 'Transient'
              : 'Corrupt';
      throw new FloeError(kind, `REST catalog ${base}: GET ${p} → HTTP ${res.status}: ${text.slice(0, 300)}`, {
        context: { status: res.status },
      });
    }
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch (e) {
      throw new FloeError('Corrupt', `REST catalog ${base}: GET ${p} returned invalid JSON: ${(e as Error).message}`);
    }
  };
  const config = await get(`/v1/config${o.warehouse ? `?warehouse=${encodeURIComponent(o.warehouse)}` : ''}`);
  const overrides = (config.overrides ?? {}) as Record<string, string>;
  const defaults = (config.defaults ?? {}) as Record<string, string>;
  const prefix = overrides.prefix ?? defaults.prefix;
  const root = `/v1${prefix ? `/${encodeURIComponent(prefix)}` : ''}`;
  const max = o.maxTables ?? 100_000;

  async function paged(p: string, key: 'namespaces' | 'identifiers'): Promise<unknown[]> {
    const out: unknown[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < 10_000; page++) {
      const sep = p.includes('?') ? '&' : '?';
      const body = await get(pageToken === undefined ? p : `${p}${sep}pageToken=${encodeURIComponent(pageToken)}`);
      out.push(...((body[key] as unknown[]) ?? []));
      const next = body['next-page-token'];
      if (typeof next !== 'string' || next === '' || out.length > max) break;
      pageToken = next;
    }
    return out;
  }

  const tables: TableIdentifier[] = [];
  const queue: string[][] = [];
  for (const ns of (await paged(`${root}/namespaces`, 'namespaces')) as string[][]) queue.push(ns);
  const seen = new Set<string>();
  while (queue.length > 0 && tables.length <= max) {
    const ns = queue.shift()!;
    const enc = encodeURIComponent(ns.join('\u001f'));
    if (seen.has(enc)) continue;
    seen.add(enc);
    for (const id of (await paged(`${root}/namespaces/${enc}/tables`, 'identifiers')) as {
      namespace: string[];
      name: string;
    }[]) {
      tables.push({ namespace: id.namespace, name: id.name });
    }
    // nested namespaces (catalogs without them answer with an empty list or ignore `parent`)
    for (const child of (await paged(`${root}/namespaces?parent=${enc}`, 'namespaces')) as string[][]) {
      if (child.length > ns.length) queue.push(child);
    }
  }
  return tables.sort((a, b) => identifierToString(a).localeCompare(identifierToString(b)));
}
