/**
 * `--catalog` specs that name Paimon catalogs (the Iceberg ones are catalog.ts's `sql:` / `rest:`):
 * `paimon-jdbc:<sqlite-path | postgresql-url>` — Paimon's JDBC catalog (paimon-jdbc.ts). Tables are then
 * `<database>.<table>`; `--warehouse` is the Java catalog's warehouse, `--catalog-name` its catalog-key.
 * A Paimon filesystem catalog needs no spec: its tables are opened by location, as before.
 */
import { FloeError } from '../../util/errors.js';
import type { PaimonJdbcCatalog, PaimonJdbcOptions } from './paimon-jdbc.js';

export const PAIMON_CATALOG_KINDS = ['paimon-jdbc'] as const;

/** Whether a `--catalog` spec names a Paimon catalog. */
export function isPaimonCatalogSpec(spec: string | undefined): spec is string {
  return spec !== undefined && /^paimon-[a-z]+:/.test(spec);
}

export async function openPaimonCatalog(spec: string, o: PaimonJdbcOptions = {}): Promise<PaimonJdbcCatalog> {
  const i = spec.indexOf(':');
  const kind = spec.slice(0, i);
  const target = spec.slice(i + 1);
  if (kind !== 'paimon-jdbc')
    throw new FloeError(
      'InvalidArgument',
      `--catalog "${spec}": unknown Paimon catalog kind "${kind}" (paimon-jdbc:<sqlite-path|postgresql-url>)`,
    );
  if (!target)
    throw new FloeError('InvalidArgument', `--catalog "${spec}": expected paimon-jdbc:<sqlite-path|postgresql-url>`);
  const { PaimonJdbcCatalog: Catalog } = await import('./paimon-jdbc.js');
  return Catalog.open(target, o);
}
