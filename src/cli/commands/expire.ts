/**
 * `floe expire <table>` — expire snapshots (Iceberg: history.expire.* and per-ref retention; Paimon:
 * snapshot.num-retained.* / snapshot.time-retained) and delete the files only they reached.
 */
import type { Command } from 'commander';
import { FloeError } from '../../errors.js';
import { parseCutoff } from '../../maintenance/duration.js';
import {
  collectOption,
  newStoreIO,
  openMaintainedViaCatalog,
  parseNonNegativeInt,
  parseSnapshotIds,
  type TableAccessCli,
} from '../../maintenance/cli-support.js';
import { detectTableFormat, refuseFlags } from '../table-format.js';
import { createProgress, parseProgressMode, type Progress } from '../progress.js';
import { observeStoreIO } from '../store-progress.js';
import { sized, printMaintenance } from '../maintenance-output.js';
import type { MaintenanceReport } from '../../maintenance/report.js';
import { openForMaintenance } from '../../../connectors/iceberg/expire-table.js';
import { expireSnapshots } from '../../../connectors/iceberg/expire.js';
import { withCliLease, NO_LEASE_HELP, type LeaseCliOptions } from '../../distributed/cli-lease.js';

export interface ExpireCliOptions extends TableAccessCli, LeaseCliOptions {
  olderThan?: string;
  retainLast?: string;
  snapshotIds?: string;
  cleanFiles?: boolean;
  maxConcurrentDeletes?: string;
  allowOutsideTableLocation?: boolean;
  progress?: string;
  /** Set by the command line: counts reads and deletes on stderr. */
  progressSink?: Progress;
}

export async function expireAction(ref: string, o: ExpireCliOptions): Promise<MaintenanceReport> {
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
  // the table lease (src/distributed/cli-lease.ts): a table another floe job holds is refused (exit 75)
  if (o.lease !== false && !o.dryRun)
    return withCliLease(ref, o, 'expire', () => expireAction(ref, { ...o, lease: false }));
  if (o.catalog) {
    // a catalog names Iceberg tables only; reads and the commit go through it
    const opts = checked;
    const { table, close } = await openMaintainedViaCatalog(ref, o);
    try {
      if (o.progressSink) observeStoreIO(table.io, o.progressSink);
      return await sized(await expireSnapshots(table, opts), table.io);
    } finally {
      close();
    }
  }
  const io = newStoreIO(o);
  if (o.progressSink) observeStoreIO(io, o.progressSink);
  try {
    const format = await detectTableFormat(ref, io.fileIO);
    if (format === 'paimon') {
      const { expirePaimonSnapshots } = await import('../../../connectors/paimon/expire.js');
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
        await expirePaimonSnapshots(io, ref, {
          nowMs: now,
          dryRun: !!o.dryRun,
          ...(o.olderThan !== undefined ? { olderThanMs: parseCutoff(o.olderThan, now) } : {}),
          ...(o.retainLast !== undefined ? { retainMin: parseNonNegativeInt(o.retainLast, '--retain-last') } : {}),
          ...(concurrency ? { deleteConcurrency: concurrency } : {}),
          ...(o.allowOutsideTableLocation ? { allowOutsideTableLocation: true } : {}),
        }),
        io,
      );
    }
    const table = await openForMaintenance(ref, { fileIO: io.fileIO });
    if (o.progressSink && table.io !== io) observeStoreIO(table.io, o.progressSink);
    return await sized(await expireSnapshots(table, checked), table.io);
  } finally {
    io.fileIO.destroy();
  }
}

export function register(program: Command): void {
  program
    .command('expire <table>')
    .description("Expire old snapshots by the table's retention settings, then delete files only they referenced")
    .option(
      '--older-than <time>',
      'expire snapshots older than this: a duration back from now (5d, 36h, 1d12h), an ISO time or epoch ms; a bare number is refused',
    )
    .option('--retain-last <n>', 'keep at least n snapshots per branch (Iceberg) / snapshot.num-retained.min (Paimon)')
    .option('--snapshot-ids <ids>', 'Iceberg: also expire these snapshot ids (comma-separated); ref heads are refused')
    .option(
      '--no-clean-files',
      'Iceberg: only remove snapshots from the metadata; leave their files (remove-orphans collects them)',
    )
    .option('--max-concurrent-deletes <n>', 'delete batches in flight at once', '4')
    .option(
      '--allow-outside-table-location',
      "also delete files the metadata places outside the table's locations (default: skip and list them)",
    )
    .option('--dry-run', 'list what would be expired and deleted; change nothing')
    .option('--no-lease', NO_LEASE_HELP)
    .option('--json', 'print one JSON result document (schema/floe-result.schema.json)')
    .option('--progress <mode>', 'progress on stderr: auto, bar, json or none', 'auto')
    .option('--location-map <FROM=TO>', 'read and delete locations under FROM at TO (repeatable)', collectOption, [])
    .option(
      '--catalog <spec>',
      'Iceberg: sql:<sqlite-path|postgresql-url> or rest:<url>; the table is then <ns>.<table> and commits go through the catalog',
    )
    .option('--catalog-name <name>', 'SQL catalog: the catalog_name to use when the file holds several catalogs')
    .action(async (ref: string, o: ExpireCliOptions) => {
      const progress = createProgress(process.stderr, { mode: parseProgressMode(o.progress), command: 'expire' });
      let report;
      try {
        report = await expireAction(ref, { ...o, progressSink: progress });
      } finally {
        progress.finish();
      }
      const exitCode = printMaintenance(report, o.json);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}
