/**
 * A Paimon table named `<database>.<table>` in `--catalog paimon-jdbc:…`: its location under the catalog's
 * warehouse, and the catalog lock its commits must take (connectors/catalog/paimon-jdbc.ts). The catalog
 * stays open while `fn` runs (the lock is a row in it), and is closed after.
 */
import type { PaimonCommitLock } from '../../connectors/paimon/commit-lock.js';
import type { AccessOptions } from '../../connectors/iceberg/open-for-write.js';

export { isPaimonCatalogSpec } from '../../connectors/catalog/paimon-catalog.js';

export interface PaimonCatalogAccess extends Pick<AccessOptions, 'catalog' | 'catalogName' | 'warehouse'> {
  /** Java's catalog options by their Java names (`lock.enabled`, `lock-acquire-timeout`, …). */
  catalogOptions?: Readonly<Record<string, string>>;
}

/** Java catalog option keys floe reads from `-o` when the table is reached through a Paimon catalog. */
export const PAIMON_CATALOG_OPTION_KEYS = ['lock.enabled', 'lock-acquire-timeout', 'lock-check-max-sleep'] as const;

/** The `-o` entries that are Java catalog options (see PAIMON_CATALOG_OPTION_KEYS), split from the table's. */
export function splitCatalogOptions(options: Record<string, string> = {}): {
  catalog: Record<string, string>;
  table: Record<string, string>;
} {
  const catalog: Record<string, string> = {};
  const table: Record<string, string> = {};
  for (const [k, v] of Object.entries(options))
    ((PAIMON_CATALOG_OPTION_KEYS as readonly string[]).includes(k) ? catalog : table)[k] = v;
  return { catalog, table };
}

export async function withPaimonCatalogTable<T>(
  ref: string,
  o: PaimonCatalogAccess & { catalog: string },
  fn: (table: { location: string; lock?: PaimonCommitLock; catalog: string }) => Promise<T>,
): Promise<T> {
  const { openPaimonCatalog } = await import('../../connectors/catalog/paimon-catalog.js');
  const catalog = await openPaimonCatalog(o.catalog, {
    ...(o.warehouse ? { warehouse: o.warehouse } : {}),
    ...(o.catalogName ? { catalogKey: o.catalogName } : {}),
    ...(o.catalogOptions ? { options: o.catalogOptions } : {}),
  });
  try {
    const t = await catalog.loadTable(ref);
    return await fn({ location: t.location, ...(t.lock ? { lock: t.lock } : {}), catalog: catalog.description });
  } finally {
    await catalog.close();
  }
}
