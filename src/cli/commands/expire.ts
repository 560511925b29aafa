/**
 * `floe expire <table>` — expire snapshots and delete the files only they reached. The job is
 * src/app/expire.ts; this module parses the command line and prints the report.
 */
import type { Command } from 'commander';
import { collectOption } from '../../maintenance/cli-support.js';
import { expireTable, type ExpireTableOptions } from '../../app/expire.js';
import { createProgress, parseProgressMode, type Progress } from '../progress.js';
import { printMaintenance } from '../maintenance-output.js';
import { NO_LEASE_HELP } from '../../distributed/cli-lease.js';

export { expireTable as expireAction } from '../../app/expire.js';

export interface ExpireCliOptions extends ExpireTableOptions {
  progress?: string;
  json?: boolean;
  /** Set by the command line: counts reads and deletes on stderr. */
  progressSink?: Progress;
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
        report = await expireTable(ref, { ...o, progressSink: progress });
      } finally {
        progress.finish();
      }
      const exitCode = printMaintenance(report, o.json);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}
