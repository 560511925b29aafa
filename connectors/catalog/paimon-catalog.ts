/**
 * `--catalog` specs that name Paimon catalogs (the Iceberg ones are catalog.ts's `sql:` / `rest:`):
 * - `paimon-jdbc:<sqlite-path | postgresql-url>` — Paimon's JDBC catalog (paimon-jdbc.ts); `--warehouse`
 *   is the Java catalog's warehouse, `--catalog-name` its catalog-key;
 * - `paimon-rest:<url>?warehouse=<name>` — Paimon's REST catalog (paimon-rest.ts), its token from the
 *   catalog properties (`token`) or $FLOE_PAIMON_REST_TOKEN.
 * Tables are then `<database>.<table>`. A Paimon filesystem catalog needs no spec: its tables are opened by
 * location, as before.
 */
import { FloeError } from '../../util/errors.js';
import { parseCatalogSpec, resolveCatalogProperties } from './catalog-spec.js';
import type { PaimonCommitLock, PaimonSnapshotCommitter } from '../paimon/commit-lock.js';
import type { TableIdentifier } from './catalog.js';
import type { PaimonJdbcOptions } from './paimon-jdbc.js';

export const PAIMON_CATALOG_KINDS = ['paimon-jdbc', 'paimon-rest'] as const;

/** A table found through a Paimon catalog: its directory, and how its commits are serialised. */
export interface PaimonCatalogTableRef {
  location: string;
  /** The catalog lock to publish under (JDBC catalog with the lock on). */
  lock?: PaimonCommitLock;
  /** The catalog publishes the snapshot itself (REST catalog). */
  committer?: PaimonSnapshotCommitter;
}

/** What floe asks of any Paimon catalog. */
export interface PaimonCatalog {
  readonly description: string;
  listTables(): Promise<TableIdentifier[]>;
  loadTable(ref: string): Promise<PaimonCatalogTableRef>;
  close(): Promise<void>;
}

export interface PaimonCatalogOpenOptions extends PaimonJdbcOptions {
  /** REST: a catalog properties file (`--catalog-properties`, else $FLOE_CATALOG_PROPERTIES). */
  catalogPropertiesFile?: string;
  /** REST: properties given inline (`floe serve`'s `catalogProperties:`). */
  catalogPropertyValues?: Record<string, string>;
  /** `--token`: refused for a REST catalog (a command line shows it). */
  token?: string;
}

/** Whether a `--catalog` spec names a Paimon catalog. */
export function isPaimonCatalogSpec(spec: string | undefined): spec is string {
  return spec !== undefined && /^paimon-[a-z]+:/.test(spec);
}

/**
 * A Paimon REST catalog's properties, lowest first: the spec's query string, the properties file,
 * `floe serve`'s map, `--warehouse`. The token only from there or $FLOE_PAIMON_REST_TOKEN (paimon-rest.ts):
 * not from --token, which a command line shows, nor from the Iceberg catalogs' $FLOE_REST_TOKEN.
 */
function restPropertiesOfSpec(spec: string, o: PaimonCatalogOpenOptions): Record<string, string> {
  if (o.token !== undefined)
    throw new FloeError(
      'InvalidArgument',
      `--catalog ${spec.replace(/\?.*$/, '')}: give the Paimon REST catalog's token in $FLOE_PAIMON_REST_TOKEN or as the token catalog property (--catalog-properties), not --token`,
    );
  const { FLOE_REST_TOKEN: _t, FLOE_REST_CREDENTIAL: _c, ...env } = process.env;
  return resolveCatalogProperties(
    parseCatalogSpec(spec), // refuses a token in the spec
    {
      ...(o.catalogPropertiesFile ? { catalogPropertiesFile: o.catalogPropertiesFile } : {}),
      ...(o.catalogPropertyValues ? { catalogPropertyValues: o.catalogPropertyValues } : {}),
      ...(o.warehouse !== undefined ? { warehouse: o.warehouse } : {}),
    },
    env,
  );
}

export async function openPaimonCatalog(spec: string, o: PaimonCatalogOpenOptions = {}): Promise<PaimonCatalog> {
  const i = spec.indexOf(':');
  const kind = spec.slice(0, i);
  const target = spec.slice(i + 1);
  if (kind === 'paimon-rest') {
    const { PaimonRestCatalog } = await import('./paimon-rest.js');
    return PaimonRestCatalog.open(
      spec.replace(/^paimon-rest:/, '').replace(/\?.*$/, ''),
      restPropertiesOfSpec(spec, o),
    );
  }
  if (kind !== 'paimon-jdbc')
    throw new FloeError(
      'InvalidArgument',
      `--catalog "${spec}": unknown Paimon catalog kind "${kind}" (paimon-jdbc:<sqlite-path|postgresql-url> or paimon-rest:<url>?warehouse=<name>)`,
    );
  if (!target)
    throw new FloeError('InvalidArgument', `--catalog "${spec}": expected paimon-jdbc:<sqlite-path|postgresql-url>`);
  const { PaimonJdbcCatalog: Catalog } = await import('./paimon-jdbc.js');
  return Catalog.open(target, o);
}
