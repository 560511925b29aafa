/**
 * A table's current state as floe's neutral model (src/model), whatever its format: what the health score,
 * the planners and `floe serve`'s table pages read. Each format's reader loads only for a table of that format.
 */
import type { TableModel } from '../../model/index.js';
import type { AccessOptions } from '../../connectors/iceberg/open-for-write.js';
import { fileIOFromEnv } from '../../connectors/storage/env.js';
import { detectTableFormat } from './table-format.js';
import { isPaimonCatalogSpec, withPaimonCatalogTable } from './paimon-catalog.js';

/** The model of the table's current snapshot (a catalog names Iceberg tables; a location is detected). */
export async function loadCurrentModel(ref: string, access: AccessOptions = {}): Promise<TableModel> {
  if (isPaimonCatalogSpec(access.catalog)) {
    // `<database>.<table>` in a Paimon catalog: the model of the table at its location
    return withPaimonCatalogTable(ref, { ...access, catalog: access.catalog }, (t) =>
      loadCurrentModel(t.location, { ...access, catalog: undefined }),
    );
  }
  if (!access.catalog) {
    const files = fileIOFromEnv(access.locationMap);
    try {
      if ((await detectTableFormat(ref, files)) === 'paimon') {
        const { loadPaimonTable } = await import('../../connectors/paimon/table.js');
        return await loadPaimonTable(ref, { fileIO: files });
      }
    } finally {
      files.destroy();
    }
  }
  const { openTableForRead } = await import('./open-table.js');
  const { loadTableModel } = await import('../../connectors/iceberg/table.js');
  const table = await openTableForRead(ref, access);
  return loadTableModel(table, table.metadata.currentSnapshotId);
}
