/**
 * What floe needs from an Iceberg catalog to read a table: the current metadata location (and, for REST,
 * the metadata itself). Identifiers on the CLI are `ns.table` (multi-level namespaces: `a.b.table`).
 */
import { FloeError } from '../../util/errors.js';
import { parseCatalogSpec, resolveCatalogProperties, type CatalogPropertySources } from './catalog-spec.js';

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
  /** REST `storage-credentials`: per location prefix, the storage config that reaches it. */
  storageCredentials?: { prefix: string; config: Record<string, string> }[];
  /** Fetches this table's storage credentials again (REST `…/credentials`, else a fresh loadTable). */
  refreshCredentials?: () => Promise<VendedCredentials>;
}

export interface VendedCredentials {
  config: Record<string, string>;
  storageCredentials: { prefix: string; config: Record<string, string> }[];
}

export interface IcebergCatalog {
  /** "sql:/path/catalog.db", "rest:https://…" — for messages. */
  readonly description: string;
  loadTable(id: TableIdentifier): Promise<LoadedTable>;
  /** Every table the catalog holds (discovery); SQL catalogs are listed by list-tables.ts. */
  listTables?(maxTables?: number): Promise<TableIdentifier[]>;
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

export interface CatalogOptions extends CatalogPropertySources {
  /** SQL catalogs: the catalog_name column (JdbcCatalog/SqlCatalog "name"); inferred when unambiguous. */
  catalogName?: string;
  fetch?: typeof fetch;
}

/** `sql:<sqlite path | postgres URL>`, `rest:<url>[?props]` or `glue:<catalog-id>[?props]` (catalog-spec.ts). */
export async function openCatalog(spec: string, options: CatalogOptions = {}): Promise<IcebergCatalog> {
  const parsed = parseCatalogSpec(spec);
  if (parsed.kind === 'sql') {
    const { SqlCatalog } = await import('./sql.js');
    return SqlCatalog.open(parsed.target, options);
  }
  const props = resolveCatalogProperties(parsed, options);
  if (parsed.kind === 'glue') {
    const { GlueCatalog } = await import('./glue.js');
    return new GlueCatalog(parsed.target, props);
  }
  const { RestCatalog } = await import('./rest.js');
  return new RestCatalog(parsed.target, props, options.fetch ? { fetch: options.fetch } : {});
}
