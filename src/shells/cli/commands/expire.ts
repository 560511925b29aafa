/**
 * `floe expire <table>` — expire snapshots and delete the files only they reached. The job is
 * src/app/expire.ts; this module parses the command line and prints the report.
 */
import type { Command } from 'commander';
import { PRICES_HELP } from '../../../app/cost/index.js';
import { expireTable, type ExpireTableOptions } from '../../../app/expire.js';
import { maintenanceAccessOptions, runMaintenanceCommand, type MaintenanceCliOptions } from '../maintenance-command.js';

export { expireTable as expireAction } from '../../../app/expire.js';

export type ExpireCliOptions = ExpireTableOptions & MaintenanceCliOptions;

export function register(program: Command): void {
  maintenanceAccessOptions(
    program
      .command('expire <table>')
      .description("Expire old snapshots by the table's retention settings, then delete files only they referenced")
      .option(
        '--older-than <time>',
        'expire snapshots older than this: a duration back from now (5d, 36h, 1d12h), an ISO time or epoch ms; a bare number is refused',
      )
      .option(
        '--retain-last <n>',
        'keep at least n snapshots per branch (Iceberg) / snapshot.num-retained.min (Paimon)',
      )
      .option(
        '--snapshot-ids <ids>',
        'Iceberg: also expire these snapshot ids (comma-separated); ref heads are refused',
      )
      .option(
        '--no-clean-files',
        'Iceberg: only remove snapshots from the metadata; leave their files (remove-orphans collects them)',
      )
      .option('--max-concurrent-deletes <n>', 'delete batches in flight at once', '4')
      .option(
        '--allow-outside-table-location',
        "also delete files the metadata places outside the table's locations (default: skip and list them)",
      )
      .option('--prices <sheet|file>', PRICES_HELP)
      .option('--dry-run', 'list what would be expired and deleted; change nothing'),
    'delete',
  ).action(async (ref: string, o: ExpireCliOptions) =>
    runMaintenanceCommand('expire', o, (progressSink) => expireTable(ref, { ...o, progressSink })),
  );
}
