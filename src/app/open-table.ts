/**
 * Opening a table from a path, a metadata file, a URI (s3://, file://) or `<ns>.<table>` in a catalog, with
 * storage from the environment — what every shell (the CLI, `floe serve`, the framework bindings) and library
 * users call.
 *
 * The Iceberg and storage plumbing itself lives in the connectors (connectors/iceberg/open-for-write.ts,
 * connectors/storage/env.ts) because src/distributed opens tables too and may only import downward; modules
 * below src/app import it from there, never from here.
 */
import type { JobAccessOptions } from './job-arguments.js';
import { parseLocationMapSpec, type LocationMapping } from '../../connectors/storage/location.js';
import { storageConfigFromEnv } from '../../connectors/storage/env.js';
import { openIcebergTable, type IcebergTable, type OpenOptions } from '../../connectors/iceberg/table.js';
import type { MaintainedTable } from '../../connectors/iceberg/expire-table.js';
import { catalogOptionsOf, type AccessOptions } from '../../connectors/iceberg/open-for-write.js';

export {
  openIcebergForWrite,
  requireCommitOps,
  type AccessOptions,
  type OpenedIcebergTable,
} from '../../connectors/iceberg/open-for-write.js';
export { storageConfigFromEnv, storageConfigFromSpecs, fileIOFromEnv } from '../../connectors/storage/env.js';

/** How a read-only job reaches a table: the same access options as every other job. */
export type TableReadOptions = AccessOptions;

/**
 * An Iceberg table named `ns.table` in `--catalog sql:<file>|rest:<url>`, opened for maintenance: it is read
 * and committed through the catalog (SQL compare-and-swap of metadata_location, or a REST commit), exactly
 * as `floe compact --catalog` does. Call `close()` when done.
 */
export async function openMaintainedViaCatalog(
  ref: string,
  o: JobAccessOptions,
): Promise<{ table: MaintainedTable; close: () => void }> {
  const { openIcebergForWrite, requireCommitOps } = await import('../../connectors/iceberg/open-for-write.js');
  const opened = await openIcebergForWrite(ref, o);
  try {
    const ops = requireCommitOps(opened);
    const table: MaintainedTable = {
      io: opened.files,
      tableLocation: opened.table.metadata.location,
      metadataLocation: opened.table.metadataLocation,
      metadata: opened.table.metadata,
      ops,
    };
    return { table, close: () => opened.files.destroy() };
  } catch (e) {
    opened.files.destroy();
    throw e;
  }
}

/** Iceberg open options for reading: location maps, S3 from the environment, the catalog. */
export function openOptionsFrom(opts: TableReadOptions): OpenOptions {
  const remap: LocationMapping[] = (opts.locationMap ?? []).map((spec) => parseLocationMapSpec(spec));
  // S3 endpoint/path style from the environment (FLOE_S3_ENDPOINT …), as every other command reads it
  const { locationMap: _rules, ...storage } = storageConfigFromEnv([]);
  const o: OpenOptions = { remap, storage };
  if (opts.catalog) {
    o.catalog = opts.catalog;
    o.catalogOptions = catalogOptionsOf(opts);
  }
  return o;
}

/** An Iceberg table opened for reading (inspect, scan, the service's table pages). */
export async function openTableForRead(ref: string, opts: TableReadOptions): Promise<IcebergTable> {
  return openIcebergTable(ref, openOptionsFrom(opts));
}
