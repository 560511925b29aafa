/**
 * `floe remove-orphans <table>` — delete unreferenced files older than the safety window. The job is
 * src/app/remove-orphans.ts; this module parses the command line and prints the report.
 */
import type { Command } from 'commander';
import { PRICES_HELP } from '../../../app/cost/index.js';
import { collectOption } from '../collect-option.js';
import { removeTableOrphans, type RemoveOrphansTableOptions } from '../../../app/remove-orphans.js';
import { maintenanceAccessOptions, runMaintenanceCommand, type MaintenanceCliOptions } from '../maintenance-command.js';

export { removeTableOrphans as removeOrphansAction } from '../../../app/remove-orphans.js';

export type RemoveOrphansCliOptions = RemoveOrphansTableOptions & MaintenanceCliOptions;

export function register(program: Command): void {
  maintenanceAccessOptions(
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
      .option('--prices <sheet|file>', PRICES_HELP)
      .option('--dry-run', 'list what would be deleted; change nothing'),
    'delete',
  ).action(async (ref: string, o: RemoveOrphansCliOptions) =>
    runMaintenanceCommand('remove-orphans', o, (progressSink) => removeTableOrphans(ref, { ...o, progressSink })),
  );
}
