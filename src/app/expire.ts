/**
 * The expire job: expire snapshots (Iceberg: history.expire.* and per-ref retention; Paimon:
 * snapshot.num-retained.* / snapshot.time-retained) and delete the files only they reached. `floe expire`,
 * `floe serve` and the bindings run this function; maintenanceResult() turns its report into the result document.
 */
import { isPaimonCatalogSpec, withPaimonCatalogTable } from './paimon-catalog.js';
import { FloeError } from '../../util/errors.js';
import { parseCutoff } from '../../util/cutoff.js';
import { parseNonNegativeInt, parseSnapshotIds, type JobAccessOptions } from './job-arguments.js';
import { observedFileIO, onCatalogTable } from './maintenance-access.js';
import { detectTableFormat, refuseFlags } from './table-format.js';
import { observeStoreIO, type StoreProgress } from './store-progress.js';
import { sized } from './maintenance-result.js';
import type { CostOptions } from './cost/meter.js';
import { armAtFirstDelete, meteredMaintenance, planned, type Meter } from './cost/metered-maintenance.js';
import type { MaintenanceReport } from './maintenance-report.js';
import { openForMaintenance } from '../../connectors/iceberg/expire-table.js';
import { expireSnapshots } from '../../connectors/iceberg/expire.js';
import { withJobLease, type JobLeaseOptions } from '../lease/job-lease.js';
import type { ExpireSpec } from '../orchestration/job-types.js';

export interface ExpireTableOptions extends ExpireSpec, JobAccessOptions, JobLeaseOptions, CostOptions {
  /** Counts reads and deletes (the CLI's progress bar). */
  progressSink?: StoreProgress;
}
/** Metered (src/app/cost/metered-maintenance.ts): the report carries its estimate and measured figures. */
export async function expireTable(ref: string, o: ExpireTableOptions): Promise<MaintenanceReport> {
  return meteredMaintenance(ref, o, (meter) => expireUnmetered(ref, o, meter));
}

async function expireUnmetered(ref: string, o: ExpireTableOptions, meter?: Meter): Promise<MaintenanceReport> {
  const now = Date.now();
  const concurrency =
    o.maxConcurrentDeletes !== undefined
      ? parseNonNegativeInt(o.maxConcurrentDeletes, '--max-concurrent-deletes')
      : undefined;
  const icebergOptions = () => ({
    nowMs: now,
    dryRun: !!o.dryRun,
    ...(o.olderThan !== undefined ? { olderThanMs: parseCutoff(o.olderThan, now) } : {}),
    ...(o.retainLast !== undefined ? { retainLast: parseNonNegativeInt(o.retainLast, '--retain-last') } : {}),
    ...(o.snapshotIds ? { snapshotIds: parseSnapshotIds(o.snapshotIds) } : {}),
    ...(o.cleanFiles === false ? { cleanFiles: false } : {}),
    ...(concurrency ? { deleteConcurrency: concurrency } : {}),
    ...(o.allowOutsideTableLocation ? { allowOutsideTableLocation: true } : {}),
  });
  // every argument is checked before the table is read
  const checked = icebergOptions();
  // the table lease (src/lease/job-lease.ts): a table another floe job holds is refused (exit 75)
  return withJobLease(ref, o, 'expire', () => {
    armAtFirstDelete(meter, o.dryRun);
    return expireChecked(ref, o, now, concurrency, checked, meter);
  });
}

async function expireChecked(
  ref: string,
  o: ExpireTableOptions,
  now: number,
  concurrency: number | undefined,
  checked: Parameters<typeof expireSnapshots>[1],
  meter: Meter | undefined,
): Promise<MaintenanceReport> {
  // a Paimon catalog only says where the table is (expiry and orphan removal publish no snapshot)
  if (isPaimonCatalogSpec(o.catalog))
    return withPaimonCatalogTable(ref, { ...o, catalog: o.catalog }, (t) =>
      expireChecked(t.location, { ...o, catalog: undefined }, now, concurrency, checked, meter),
    );
  if (o.catalog) {
    // a catalog names Iceberg tables only; reads and the commit go through it
    const opts = checked;
    return onCatalogTable(ref, o, async (table) => planned(await expireSnapshots(table, opts), o, meter));
  }
  const io = observedFileIO(o);
  try {
    const format = await detectTableFormat(ref, io);
    if (format === 'paimon') meter?.counter.markOpened();
    if (format === 'paimon') {
      const { expirePaimonSnapshots } = await import('../../connectors/paimon/expire.js');
      if (o.snapshotIds)
        throw new FloeError(
          'InvalidArgument',
          '--snapshot-ids is not supported for Paimon tables (Paimon expires a contiguous range from the earliest snapshot)',
        );
      refuseFlags(
        'paimon',
        ref,
        [['--no-clean-files', o.cleanFiles === false]],
        'Paimon expiry always deletes the files only expired snapshots reached',
      );
      return await sized(
        planned(
          await expirePaimonSnapshots(io, ref, {
            nowMs: now,
            dryRun: !!o.dryRun,
            ...(o.olderThan !== undefined ? { olderThanMs: parseCutoff(o.olderThan, now) } : {}),
            ...(o.retainLast !== undefined ? { retainMin: parseNonNegativeInt(o.retainLast, '--retain-last') } : {}),
            ...(concurrency ? { deleteConcurrency: concurrency } : {}),
            ...(o.allowOutsideTableLocation ? { allowOutsideTableLocation: true } : {}),
          }),
          o,
          meter,
        ),
        io,
      );
    }
    const table = await openForMaintenance(ref, { fileIO: io });
    meter?.counter.markOpened();
    if (o.progressSink && table.io !== io) observeStoreIO(table.io, o.progressSink);
    return await sized(planned(await expireSnapshots(table, checked), o, meter), table.io);
  } finally {
    io.destroy();
  }
}
