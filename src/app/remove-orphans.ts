/**
 * The remove-orphans job: delete files under the table's locations that no snapshot, tag, branch or metadata
 * file references and that are older than the safety window (default 3 days, at least 24 h).
 */
import { isPaimonCatalogSpec, withPaimonCatalogTable } from './paimon-catalog.js';
import { FloeError } from '../../util/errors.js';
import { parseCutoff } from '../../util/cutoff.js';
import { parseNonNegativeInt, type JobAccessOptions } from './job-arguments.js';
import { observedFileIO, onCatalogTable } from './maintenance-access.js';
import { detectTableFormat, refuseFlags } from './table-format.js';
import { observeStoreIO, type StoreProgress } from './store-progress.js';
import { sized } from './maintenance-result.js';
import type { CostOptions } from './cost/meter.js';
import { armAtFirstDelete, meteredMaintenance, planned, type Meter } from './cost/metered-maintenance.js';
import type { PrefixMismatchMode } from '../../connectors/storage/orphan-scan.js';
import type { MaintenanceReport } from './maintenance-report.js';
import { openForMaintenance } from '../../connectors/iceberg/expire-table.js';
import { removeOrphanFiles } from '../../connectors/iceberg/orphans.js';
import { withJobLease, type JobLeaseOptions } from '../lease/job-lease.js';
import type { RemoveOrphansSpec } from '../orchestration/job-types.js';

export interface RemoveOrphansTableOptions extends RemoveOrphansSpec, JobAccessOptions, JobLeaseOptions, CostOptions {
  /** Counts reads, listings and deletes (the CLI's progress bar). */
  progressSink?: StoreProgress;
}
/** What both formats' orphan removal take, checked before the table is read. */
interface CommonOptions {
  nowMs: number;
  dryRun: boolean;
  force: boolean;
  olderThanMs?: number;
  deleteConcurrency?: number;
}

/** Metered (src/app/cost/metered-maintenance.ts): the report carries its estimate and measured figures. */
export async function removeTableOrphans(ref: string, o: RemoveOrphansTableOptions): Promise<MaintenanceReport> {
  return meteredMaintenance(ref, o, (meter) => removeOrphansUnmetered(ref, o, meter));
}

async function removeOrphansUnmetered(
  ref: string,
  o: RemoveOrphansTableOptions,
  meter?: Meter,
): Promise<MaintenanceReport> {
  const now = Date.now();
  const mode = (o.prefixMismatch ?? 'error').toLowerCase();
  if (!['error', 'ignore', 'delete'].includes(mode)) {
    throw new FloeError(
      'InvalidArgument',
      `--prefix-mismatch must be error, ignore or delete, got "${o.prefixMismatch}"`,
    );
  }
  const common: CommonOptions = {
    nowMs: now,
    dryRun: !!o.dryRun,
    force: !!o.force,
    ...(o.olderThan !== undefined ? { olderThanMs: parseCutoff(o.olderThan, now) } : {}),
    ...(o.maxConcurrentDeletes !== undefined
      ? { deleteConcurrency: parseNonNegativeInt(o.maxConcurrentDeletes, '--max-concurrent-deletes') || 1 }
      : {}),
  };
  // the table lease: no compaction can be writing (not yet referenced) files while orphans are removed
  return withJobLease(ref, o, 'remove-orphans', () => {
    armAtFirstDelete(meter, o.dryRun);
    return removeChecked(ref, o, mode, common, meter);
  });
}

async function removeChecked(
  ref: string,
  o: RemoveOrphansTableOptions,
  mode: string,
  common: CommonOptions,
  meter: Meter | undefined,
): Promise<MaintenanceReport> {
  // a Paimon catalog only says where the table is (expiry and orphan removal publish no snapshot)
  if (isPaimonCatalogSpec(o.catalog))
    return withPaimonCatalogTable(ref, { ...o, catalog: o.catalog }, (t) =>
      removeChecked(t.location, { ...o, catalog: undefined }, mode, common, meter),
    );
  const icebergOptions = {
    ...common,
    prefixMismatch: mode as PrefixMismatchMode,
    ...(o.location && o.location.length > 0 ? { locations: o.location } : {}),
  };
  if (o.catalog) {
    // the valid set comes from the metadata the catalog points at now (and its metadata-log)
    return onCatalogTable(ref, o, async (table) => planned(await removeOrphanFiles(table, icebergOptions), o, meter));
  }
  const io = observedFileIO(o);
  try {
    if ((await detectTableFormat(ref, io)) === 'paimon') {
      meter?.counter.markOpened();
      const { removePaimonOrphanFiles } = await import('../../connectors/paimon/orphans.js');
      refuseFlags('paimon', ref, [
        ['--location', (o.location ?? []).length > 0],
        ['--prefix-mismatch', o.prefixMismatch !== undefined && mode !== 'error'],
      ]);
      return await sized(planned(await removePaimonOrphanFiles(io, ref, common), o, meter), io);
    }
    const table = await openForMaintenance(ref, { fileIO: io });
    meter?.counter.markOpened();
    if (o.progressSink && table.io !== io) observeStoreIO(table.io, o.progressSink);
    return await sized(planned(await removeOrphanFiles(table, icebergOptions), o, meter), table.io);
  } finally {
    io.destroy();
  }
}
