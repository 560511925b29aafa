/**
 * How the maintenance jobs (expire, remove-orphans, rewrite-manifests) reach their table: through a catalog,
 * or through a FileIO from the environment; either way the caller's progress display counts what they read,
 * list and delete.
 */
import type { JobAccessOptions } from './job-arguments.js';
import { fileIOFromEnv } from '../../connectors/storage/env.js';
import type { MaintenanceReport } from './maintenance-report.js';
import type { FileIO } from '../../connectors/storage/file-io.js';
import type { MaintainedTable } from '../../connectors/iceberg/expire-table.js';
import { openMaintainedViaCatalog } from './open-table.js';
import { observeStoreIO, type StoreProgress } from './store-progress.js';
import { sized } from './maintenance-result.js';

type JobAccess = JobAccessOptions & { progressSink?: StoreProgress };

/** Runs `job` on the Iceberg table `ref` names in `o.catalog` (reads and the commit go through the catalog). */
export async function onCatalogTable(
  ref: string,
  o: JobAccess,
  job: (table: MaintainedTable) => Promise<MaintenanceReport>,
): Promise<MaintenanceReport> {
  const { table, close } = await openMaintainedViaCatalog(ref, o);
  try {
    if (o.progressSink) observeStoreIO(table.io, o.progressSink);
    return await sized(await job(table), table.io);
  } finally {
    close();
  }
}

/** A FileIO over storage from the environment and `o.locationMap`, counted by `o.progressSink`. */
export function observedFileIO(o: JobAccess): FileIO {
  const io = fileIOFromEnv(o.locationMap);
  if (o.progressSink) observeStoreIO(io, o.progressSink);
  return io;
}
