/** The rewrite-manifests job: merge small Iceberg manifests into target-sized, partition-clustered ones. */
import { parseNonNegativeInt, type JobAccessOptions } from './job-arguments.js';
import { observedFileIO, onCatalogTable } from './maintenance-access.js';
import { detectTableFormat, requireFormat } from './table-format.js';
import { observeStoreIO, type StoreProgress } from './store-progress.js';
import { sized } from './maintenance-result.js';
import { parseSizeBytes } from '../../util/units.js';
import type { MaintenanceReport } from './maintenance-report.js';
import { openForMaintenance } from '../../connectors/iceberg/expire-table.js';
import { rewriteManifests } from '../../connectors/iceberg/rewrite-manifests.js';
import { withJobLease, type JobLeaseOptions } from '../lease/job-lease.js';
import type { RewriteManifestsSpec } from '../orchestration/job-types.js';

export interface RewriteManifestsTableOptions extends RewriteManifestsSpec, JobAccessOptions, JobLeaseOptions {
  /** Counts reads (the CLI's progress bar). */
  progressSink?: StoreProgress;
}
export async function rewriteTableManifests(ref: string, o: RewriteManifestsTableOptions): Promise<MaintenanceReport> {
  const opts = {
    dryRun: !!o.dryRun,
    ...(o.specId !== undefined ? { specId: parseNonNegativeInt(o.specId, '--spec-id') } : {}),
    ...(o.targetSize !== undefined ? { targetSizeBytes: parseSizeBytes(o.targetSize, { what: '--target-size' }) } : {}),
  };
  return withJobLease(ref, o, 'rewrite-manifests', () => rewriteChecked(ref, o, opts));
}

async function rewriteChecked(
  ref: string,
  o: RewriteManifestsTableOptions,
  opts: Parameters<typeof rewriteManifests>[1],
): Promise<MaintenanceReport> {
  if (o.catalog) {
    return onCatalogTable(ref, o, (table) => rewriteManifests(table, opts));
  }
  const io = observedFileIO(o);
  try {
    requireFormat(
      'rewrite-manifests',
      'iceberg',
      await detectTableFormat(ref, io),
      ref,
      "Paimon manifests are merged by Paimon's own commits (manifest.merge-min-count)",
    );
    const table = await openForMaintenance(ref, { fileIO: io });
    if (o.progressSink && table.io !== io) observeStoreIO(table.io, o.progressSink);
    return await sized(await rewriteManifests(table, opts), table.io);
  } finally {
    io.destroy();
  }
}
