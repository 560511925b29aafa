/**
 * `floe remove-orphans <table>` — delete files under the table's locations that no snapshot, tag, branch
 * or metadata file references and that are older than the safety window (default 3 days, at least 24 h).
 */
import type { Command } from 'commander';
import { FloeError } from '../../errors.js';
import { parseCutoff } from '../../maintenance/duration.js';
import {
  collectOption,
  newStoreIO,
  openMaintainedViaCatalog,
  parseNonNegativeInt,
  type TableAccessCli,
} from '../../maintenance/cli-support.js';
import { detectTableFormat, refuseFlags } from '../table-format.js';
import { createProgress, parseProgressMode, type Progress } from '../progress.js';
import { observeStoreIO } from '../store-progress.js';
import { sized, printMaintenance } from '../maintenance-output.js';
import type { PrefixMismatchMode } from '../../maintenance/orphan-scan.js';
import type { MaintenanceReport } from '../../maintenance/report.js';
import { openForMaintenance } from '../../../connectors/iceberg/expire-table.js';
import { removeOrphanFiles } from '../../../connectors/iceberg/orphans.js';
import { withCliLease, NO_LEASE_HELP, type LeaseCliOptions } from '../../distributed/cli-lease.js';

export interface RemoveOrphansCliOptions extends TableAccessCli, LeaseCliOptions {
  olderThan?: string;
  force?: boolean;
  prefixMismatch?: string;
  location?: string[];
  maxConcurrentDeletes?: string;
  progress?: string;
  /** Set by the command line: counts reads, listings and deletes on stderr. */
  progressSink?: Progress;
}

export async function removeOrphansAction(ref: string, o: RemoveOrphansCliOptions): Promise<MaintenanceReport> {
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
  // the table lease: no compaction can be writing (not yet referenced) files while orphans are removed
  if (o.lease !== false && !o.dryRun)
    return withCliLease(ref, o, 'remove-orphans', () => removeOrphansAction(ref, { ...o, lease: false }));
  const icebergOptions = {
    ...common,
    prefixMismatch: mode as PrefixMismatchMode,
    ...(o.location && o.location.length > 0 ? { locations: o.location } : {}),
  };
  if (o.catalog) {
    // the valid set comes from the metadata the catalog points at now (and its metadata-log)
    const { table, close } = await openMaintainedViaCatalog(ref, o);
    try {
      if (o.progressSink) observeStoreIO(table.io, o.progressSink);
      return await sized(await removeOrphanFiles(table, icebergOptions), table.io);
    } finally {
      close();
    }
  }
  const io = newStoreIO(o);
  if (o.progressSink) observeStoreIO(io, o.progressSink);
  try {
    if ((await detectTableFormat(ref, io.fileIO)) === 'paimon') {
      const { removePaimonOrphanFiles } = await import('../../../connectors/paimon/orphans.js');
      refuseFlags('paimon', ref, [
        ['--location', (o.location ?? []).length > 0],
        ['--prefix-mismatch', o.prefixMismatch !== undefined && mode !== 'error'],
      ]);
      return await sized(await removePaimonOrphanFiles(io, ref, common), io);
    }
    const table = await openForMaintenance(ref, { fileIO: io.fileIO });
    if (o.progressSink && table.io !== io) observeStoreIO(table.io, o.progressSink);
    return await sized(await removeOrphanFiles(table, icebergOptions), table.io);
  } finally {
    io.fileIO.destroy();
  }
}

export function register(program: Command): void {
  program
    .command('remove-orphans <table>')
    .description(
      "Delete files in the table's locations that nothing references and that are older than the safety window",
    )
    .option(
      '--older-than <time>',
      'only files modified before this: a duration back from now (3d, 36h), an ISO time or epoch ms (default 3d; less than 24h needs --force; a bare number is refused)',
    )
    .option('--force', 'allow a window shorter than 24 hours (only when no writer can be running)')
    .option(
      '--prefix-mismatch <mode>',
      'a file whose path matches a referenced file under another scheme/authority: error (default), ignore or delete',
      'error',
    )
    .option('--location <loc>', 'Iceberg: scan only this location inside the table (repeatable)', collectOption, [])
    .option('--max-concurrent-deletes <n>', 'delete batches in flight at once', '4')
    .option('--dry-run', 'list what would be deleted; change nothing')
    .option('--no-lease', NO_LEASE_HELP)
    .option('--json', 'print one JSON result document (schema/floe-result.schema.json)')
    .option('--progress <mode>', 'progress on stderr: auto, bar, json or none', 'auto')
    .option('--location-map <FROM=TO>', 'read and delete locations under FROM at TO (repeatable)', collectOption, [])
    .option(
      '--catalog <spec>',
      'Iceberg: sql:<sqlite-path|postgresql-url> or rest:<url>; the table is then <ns>.<table> and commits go through the catalog',
    )
    .option('--catalog-name <name>', 'SQL catalog: the catalog_name to use when the file holds several catalogs')
    .action(async (ref: string, o: RemoveOrphansCliOptions) => {
      const progress = createProgress(process.stderr, {
        mode: parseProgressMode(o.progress),
        command: 'remove-orphans',
      });
      let report;
      try {
        report = await removeOrphansAction(ref, { ...o, progressSink: progress });
      } finally {
        progress.finish();
      }
      const exitCode = printMaintenance(report, o.json);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}
