/**
 * The remove-orphans job: delete files under the table's locations that no snapshot, tag, branch or metadata
 * file references and that are older than the safety window (default 3 days, at least 24 h).
 */
import { isPaimonCatalogSpec, withPaimonCatalogTable } from './paimon-catalog.js';
import { FloeError } from '../errors.js';
import { parseCutoff } from '../maintenance/duration.js';
import { parseNonNegativeInt, type TableAccessCli } from '../maintenance/cli-support.js';
import { observedFileIO, onCatalogTable } from './maintenance-access.js';
import { detectTableFormat, refuseFlags } from './table-format.js';
import { observeStoreIO, type StoreProgress } from './store-progress.js';
import { sized } from './maintenance-result.js';
import type { PrefixMismatchMode } from '../../connectors/storage/orphan-scan.js';
import type { MaintenanceReport } from '../maintenance/report.js';
import { openForMaintenance } from '../../connectors/iceberg/expire-table.js';
import { removeOrphanFiles } from '../../connectors/iceberg/orphans.js';
import { withCliLease, type LeaseCliOptions } from '../distributed/cli-lease.js';

export interface RemoveOrphansTableOptions extends TableAccessCli, LeaseCliOptions {
  olderThan?: string;
  force?: boolean;
  /** error (default), ignore or delete. */
  prefixMismatch?: string;
  /** Iceberg: scan only these locations inside the table. */
  location?: string[];
  /** Delete batches in flight at once (a number; the command line's text is accepted too). */
  maxConcurrentDeletes?: number | string;
  /** Counts reads, listings and deletes (the CLI's progress bar). */
  progressSink?: StoreProgress;
}
export async function removeTableOrphans(ref: string, o: RemoveOrphansTableOptions): Promise<MaintenanceReport> {
  const now = Date.now();
  const mode = (o.prefixMismatch ?? 'error').toLowerCase();
  if (!['error', 'ignore', 'delete'].includes(mode)) {
    throw new FloeError(
      'InvalidArgument',
      `--prefix-mismatch must be error, ignore or delete, got "${o.prefixMismatch}"`,
    );
  }
  const common = {
    nowMs: now,
    dryRun: !!o.dryRun,
    force: !!o.force,
    ...(o.olderThan !== undefined ? { olderThanMs: parseCutoff(o.olderThan, now) } : {}),
    ...(o.maxConcurrentDeletes !== undefined
      ? { deleteConcurrency: parseNonNegativeInt(o.maxConcurrentDeletes, '--max-concurrent-deletes') || 1 }
      : {}),
  };
  // a Paimon catalog only says where the table is (expiry and orphan removal publish no snapshot)
  if (isPaimonCatalogSpec(o.catalog))
    return withPaimonCatalogTable(ref, { ...o, catalog: o.catalog }, (t) =>
      removeTableOrphans(t.location, { ...o, catalog: undefined }),
    );
  // the table lease: no compaction can be writing (not yet referenced) files while orphans are removed
  if (o.lease !== false && !o.dryRun)
    return withCliLease(ref, o, 'remove-orphans', () => removeTableOrphans(ref, { ...o, lease: false }));
  const icebergOptions = {
    ...common,
    prefixMismatch: mode as PrefixMismatchMode,
    ...(o.location && o.location.length > 0 ? { locations: o.location } : {}),
  };
  if (o.catalog) {
    // the valid set comes from the metadata the catalog points at now (and its metadata-log)
    return onCatalogTable(ref, o, (table) => removeOrphanFiles(table, icebergOptions));
  }
  const io = observedFileIO(o);
  try {
    if ((await detectTableFormat(ref, io)) === 'paimon') {
      const { removePaimonOrphanFiles } = await import('../../connectors/paimon/orphans.js');
      refuseFlags('paimon', ref, [
        ['--location', (o.location ?? []).length > 0],
        ['--prefix-mismatch', o.prefixMismatch !== undefined && mode !== 'error'],
      ]);
      return await sized(await removePaimonOrphanFiles(io, ref, common), io);
    }
    const table = await openForMaintenance(ref, { fileIO: io });
    if (o.progressSink && table.io !== io) observeStoreIO(table.io, o.progressSink);
    return await sized(await removeOrphanFiles(table, icebergOptions), table.io);
  } finally {
    io.destroy();
  }
}
