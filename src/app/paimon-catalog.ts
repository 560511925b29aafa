/**
 * A Paimon table named `<database>.<table>` in `--catalog paimon-jdbc:…` or `paimon-rest:…`: its location
 * (under the JDBC catalog's warehouse, or as the REST catalog gives it), and how its commits are
 * serialised — the JDBC catalog's lock (connectors/catalog/paimon-jdbc.ts), or the REST catalog publishing
 * the snapshot (connectors/catalog/paimon-rest.ts). The catalog stays open while `fn` runs (the lock is a
 * row in it), and is closed after.
 */
import type { PaimonCommitLock, PaimonSnapshotCommitter } from '../../connectors/paimon/commit-lock.js';
import type { AccessOptions } from '../../connectors/iceberg/open-for-write.js';

export { isPaimonCatalogSpec } from '../../connectors/catalog/paimon-catalog.js';

export interface PaimonCatalogAccess extends Pick<
  AccessOptions,
  'catalog' | 'catalogName' | 'warehouse' | 'token' | 'catalogProperties' | 'catalogPropertyValues'
> {
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
  fn: (table: {
    location: string;
    lock?: PaimonCommitLock;
    committer?: PaimonSnapshotCommitter;
    catalog: string;
  }) => Promise<T>,
): Promise<T> {
  const catalog = await openPaimonCatalogOf(o);
  try {
    const t = await catalog.loadTable(ref);
    return await fn({
      location: t.location,
      ...(t.lock ? { lock: t.lock } : {}),
      ...(t.committer ? { committer: t.committer } : {}),
      catalog: catalog.description,
    });
  } finally {
    await catalog.close();
  }
}

/** Opens the Paimon catalog of `o.catalog` with the access options' warehouse, key and properties. */
export async function openPaimonCatalogOf(o: PaimonCatalogAccess & { catalog: string }) {
  const { openPaimonCatalog } = await import('../../connectors/catalog/paimon-catalog.js');
  return openPaimonCatalog(o.catalog, {
    ...(o.warehouse ? { warehouse: o.warehouse } : {}),
    ...(o.catalogName ? { catalogKey: o.catalogName } : {}),
    ...(o.catalogOptions ? { options: o.catalogOptions } : {}),
    ...(o.token !== undefined && o.catalog.startsWith('paimon-rest:') ? { token: o.token } : {}),
    ...(o.catalogProperties ? { catalogPropertiesFile: o.catalogProperties } : {}),
    ...(o.catalogPropertyValues ? { catalogPropertyValues: o.catalogPropertyValues } : {}),
  });
}
