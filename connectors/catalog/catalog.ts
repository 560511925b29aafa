/**
 * What floe needs from an Iceberg catalog to read a table: the current metadata location (and, for REST,
 * the metadata itself). Identifiers on the CLI are `ns.table` (multi-level namespaces: `a.b.table`).
 */
import { FloeError } from '../../src/errors.js';

export interface TableIdentifier {
  namespace: string[];
  name: string;
}

export interface LoadedTable {
  identifier: TableIdentifier;
  metadataLocation: string;
  /** REST catalogs return the metadata JSON (already parsed losslessly); SQL catalogs don't. */
  metadata?: unknown;
  /** Catalog-provided config (REST `config`), e.g. storage credentials. */
  config?: Record<string, string>;
}

export interface IcebergCatalog {
  /** "sql:/path/catalog.db", "rest:https://…" — for messages. */
  readonly description: string;
  loadTable(id: TableIdentifier): Promise<LoadedTable>;
  close(): Promise<void>;
}

export function parseTableIdentifier(text: string): TableIdentifier {
  const parts = text.split('.').filter((p) => p.length > 0);
  if (parts.length < 2) {
    throw new FloeError('InvalidArgument', `table identifier "${text}" must be <namespace>.<table>`);
  }
  return { namespace: parts.slice(0, -1), name: parts[parts.length - 1]! };
}

export function identifierToString(id: TableIdentifier): string {
  return [...id.namespace, id.name].join('.');
}

export interface CatalogOptions {
  /** SQL catalogs: the catalog_name column (JdbcCatalog/SqlCatalog "name"); inferred when unambiguous. */
  catalogName?: string;
  /** REST: bearer token (else env FLOE_REST_TOKEN). */
  token?: string;
  /** REST: warehouse passed to /v1/config. */
  warehouse?: string;
  fetch?: typeof fetch;
}

/** `sql:<sqlite path | postgres URL>` or `rest:<url>`. */
export async function openCatalog(spec: string, options: CatalogOptions = {}): Promise<IcebergCatalog> {
  const i = spec.indexOf(':');
  const kind = i > 0 ? spec.slice(0, i) : '';
  const target = i > 0 ? spec.slice(i + 1) : '';
  if (!target) throw new FloeError('InvalidArgument', `--catalog "${spec}": expected sql:<path-or-url> or rest:<url>`);
  if (kind === 'sql') {
    const { SqlCatalog } = await import('./sql.js');
    return SqlCatalog.open(target, options);
  }
  if (kind === 'rest') {
    const { RestCatalog } = await import('./rest.js');
    return new RestCatalog(target, options);
  }
  throw new FloeError('InvalidArgument', `--catalog "${spec}": unknown catalog kind "${kind}" (sql or rest)`);
}
