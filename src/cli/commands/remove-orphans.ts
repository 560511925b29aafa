/**
 * `floe remove-orphans <table>` — delete files under the table's locations that no snapshot, tag, branch
 * or metadata file references and that are older than the safety window (default 3 days, at least 24 h).
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
  printReport,
  type TableAccessCli,
} from '../../maintenance/cli-support.js';
import type { PrefixMismatchMode } from '../../maintenance/orphan-scan.js';
import type { MaintenanceReport } from '../../maintenance/report.js';
import { openForMaintenance } from '../../../connectors/iceberg/expire-table.js';
import { removeOrphanFiles } from '../../../connectors/iceberg/orphans.js';

export interface RemoveOrphansCliOptions extends TableAccessCli {
  olderThan?: string;
  force?: boolean;
  prefixMismatch?: string;
  location?: string[];
  maxConcurrentDeletes?: string;
}

export async function removeOrphansAction(ref: string, o: RemoveOrphansCliOptions): Promise<MaintenanceReport> {
  const now = Date.now();
  const mode = (o.prefixMismatch ?? 'error').toLowerCase();
  if (!['error', 'ignore', 'delete'].includes(mode)) {
    throw new FloeError('InvalidArgument', `--prefix-mismatch must be error, ignore or delete, got "${o.prefixMismatch}"`);
  }
  const common = {
    nowMs: now,
    dryRun: !!o.dryRun,
    force: !!o.force,
    ...(o.olderThan !== undefined ? { olderThanMs: parseCutoff(o.olderThan, now) } : {}),
    ...(o.maxConcurrentDeletes !== undefined ? { deleteConcurrency: parseNonNegativeInt(o.maxConcurrentDeletes, '--max-concurrent-deletes') || 1 } : {}),
  };
  const icebergOptions = {
    ...common,
    prefixMismatch: mode as PrefixMismatchMode,
    ...(o.location && o.location.length > 0 ? { locations: o.location } : {}),
  };
  if (o.catalog) {
    // the valid set comes from the metadata the catalog points at now (and its metadata-log)
    const { table, close } = await openMaintainedViaCatalog(ref, o);
    try {
      return await removeOrphanFiles(table, icebergOptions);
    } finally {
      close();
    }
  }
  const io = newStoreIO(o);
  try {
    if ((await detectFormat(io, ref)) === 'paimon') {
      const { removePaimonOrphanFiles } = await import('../../../connectors/paimon/orphans.js');
      return await removePaimonOrphanFiles(io, ref, common);
    }
    const table = await openForMaintenance(ref, { fileIO: io.fileIO });
    return await removeOrphanFiles(table, icebergOptions);
  } finally {
    io.fileIO.destroy();
  }
}

export function register(program: Command): void {
  program
    .command('remove-orphans <table>')
    .description('Delete files in the table\'s locations that nothing references and that are older than the safety window')
    .option('--older-than <time>', 'only files modified before this: ISO time, epoch ms or a duration back from now (default 3d; less than 24h needs --force)')
    .option('--force', 'allow a window shorter than 24 hours (only when no writer can be running)')
    .option('--prefix-mismatch <mode>', 'a file whose path matches a referenced file under another scheme/authority: error (default), ignore or delete', 'error')
    .option('--location <loc>', 'Iceberg: scan only this location inside the table (repeatable)', collectOption, [])
    .option('--max-concurrent-deletes <n>', 'delete batches in flight at once', '4')
    .option('--dry-run', 'list what would be deleted; change nothing')
    .option('--json', 'print the report as JSON')
    .option('--location-map <FROM=TO>', 'read and delete locations under FROM at TO (repeatable)', collectOption, [])
    .option('--catalog <spec>', 'Iceberg: sql:<sqlite-path|postgresql-url> or rest:<url>; the table is then <ns>.<table> and commits go through the catalog')
    .option('--catalog-name <name>', 'SQL catalog: the catalog_name to use when the file holds several catalogs')
    .action(async (ref: string, o: RemoveOrphansCliOptions) => {
      printReport(await removeOrphansAction(ref, o), o.json);
    });
}
