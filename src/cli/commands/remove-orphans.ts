/**
 * `floe remove-orphans <table>` — delete unreferenced files older than the safety window. The job is
 * src/app/remove-orphans.ts; this module parses the command line and prints the report.
 */
import type { Command } from 'commander';
import { collectOption } from '../../maintenance/cli-support.js';
import { removeTableOrphans, type RemoveOrphansTableOptions } from '../../app/remove-orphans.js';
import { createProgress, parseProgressMode, type Progress } from '../progress.js';
import { printMaintenance } from '../maintenance-output.js';
import { NO_LEASE_HELP } from '../../distributed/cli-lease.js';

export { removeTableOrphans as removeOrphansAction } from '../../app/remove-orphans.js';

export interface RemoveOrphansCliOptions extends RemoveOrphansTableOptions {
  progress?: string;
  json?: boolean;
  /** Set by the command line: counts reads, listings and deletes on stderr. */
  progressSink?: Progress;
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
        report = await removeTableOrphans(ref, { ...o, progressSink: progress });
      } finally {
        progress.finish();
      }
      const exitCode = printMaintenance(report, o.json);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}
