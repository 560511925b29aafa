/**
 * `floe expire <table>` — expire snapshots (Iceberg: history.expire.* and per-ref retention; Paimon:
 * snapshot.num-retained.* / snapshot.time-retained) and delete the files only they reached.
 */
import type { Command } from 'commander';
import { FloeError } from '../../errors.js';
import { parseCutoff } from '../../maintenance/duration.js';
import {
  collectOption,
  detectFormat,
  newStoreIO,
  openMaintainedViaCatalog,
  parseNonNegativeInt,
  parseSnapshotIds,
  printReport,
  type TableAccessCli,
} from '../../maintenance/cli-support.js';
import type { MaintenanceReport } from '../../maintenance/report.js';
import { openForMaintenance } from '../../../connectors/iceberg/expire-table.js';
import { expireSnapshots } from '../../../connectors/iceberg/expire.js';

export interface ExpireCliOptions extends TableAccessCli {
  olderThan?: string;
  retainLast?: string;
  snapshotIds?: string;
  cleanFiles?: boolean;
  maxConcurrentDeletes?: string;
}

export async function expireAction(ref: string, o: ExpireCliOptions): Promise<MaintenanceReport> {
  const now = Date.now();
  const concurrency = o.maxConcurrentDeletes !== undefined ? parseNonNegativeInt(o.maxConcurrentDeletes, '--max-concurrent-deletes') : undefined;
  const icebergOptions = () => ({
    nowMs: now,
    dryRun: !!o.dryRun,
    ...(o.olderThan !== undefined ? { olderThanMs: parseCutoff(o.olderThan, now) } : {}),
    ...(o.retainLast !== undefined ? { retainLast: parseNonNegativeInt(o.retainLast, '--retain-last') } : {}),
    ...(o.snapshotIds ? { snapshotIds: parseSnapshotIds(o.snapshotIds) } : {}),
    ...(o.cleanFiles === false ? { cleanFiles: false } : {}),
    ...(concurrency ? { deleteConcurrency: concurrency } : {}),
  });
  if (o.catalog) {
    // a catalog names Iceberg tables only; reads and the commit go through it
    const opts = icebergOptions();
    const { table, close } = await openMaintainedViaCatalog(ref, o);
    try {
      return await expireSnapshots(table, opts);
    } finally {
      close();
    }
  }
  const io = newStoreIO(o);
  try {
    const format = await detectFormat(io, ref);
    if (format === 'paimon') {
      const { expirePaimonSnapshots } = await import('../../../connectors/paimon/expire.js');
      if (o.snapshotIds) throw new FloeError('InvalidArgument', '--snapshot-ids is not supported for Paimon tables (Paimon expires a contiguous range from the earliest snapshot)');
      return await expirePaimonSnapshots(io, ref, {
        nowMs: now,
        dryRun: !!o.dryRun,
        ...(o.olderThan !== undefined ? { olderThanMs: parseCutoff(o.olderThan, now) } : {}),
        ...(o.retainLast !== undefined ? { retainMin: parseNonNegativeInt(o.retainLast, '--retain-last') } : {}),
        ...(concurrency ? { deleteConcurrency: concurrency } : {}),
      });
    }
    const table = await openForMaintenance(ref, { fileIO: io.fileIO });
    return await expireSnapshots(table, icebergOptions());
  } finally {
    io.fileIO.destroy();
  }
}

export function register(program: Command): void {
  program
    .command('expire <table>')
    .description('Expire old snapshots by the table\'s retention settings, then delete files only they referenced')
    .option('--older-than <time>', 'expire snapshots older than this: ISO time, epoch ms, or a duration back from now (5d, 36h)')
    .option('--retain-last <n>', 'keep at least n snapshots per branch (Iceberg) / snapshot.num-retained.min (Paimon)')
    .option('--snapshot-ids <ids>', 'Iceberg: also expire these snapshot ids (comma-separated); ref heads are refused')
    .option('--no-clean-files', 'Iceberg: only remove snapshots from the metadata; leave their files (remove-orphans collects them)')
    .option('--max-concurrent-deletes <n>', 'delete batches in flight at once', '4')
    .option('--dry-run', 'list what would be expired and deleted; change nothing')
    .option('--json', 'print the report as JSON')
    .option('--location-map <FROM=TO>', 'read and delete locations under FROM at TO (repeatable)', collectOption, [])
    .option('--catalog <spec>', 'Iceberg: sql:<sqlite-path|postgresql-url> or rest:<url>; the table is then <ns>.<table> and commits go through the catalog')
    .option('--catalog-name <name>', 'SQL catalog: the catalog_name to use when the file holds several catalogs')
    .action(async (ref: string, o: ExpireCliOptions) => {
      printReport(await expireAction(ref, o), o.json);
    });
}
