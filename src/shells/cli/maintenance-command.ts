/**
 * What the maintenance commands (expire, remove-orphans, rewrite-manifests) share on the command line: the
 * table-access and output flags, and the action that runs the job with progress on stderr and prints its
 * report with the exit code it calls for.
 */
import type { Command } from 'commander';
import { collectOption } from './collect-option.js';
import type { MaintenanceReport } from '../../app/maintenance-report.js';
import { NO_LEASE_HELP } from '../../lease/job-lease.js';
import { createProgress, parseProgressMode, PROGRESS_HELP, type Progress } from './progress.js';
import { printMaintenance } from './maintenance-output.js';

/** The flags every maintenance command adds to its job's options. */
export interface MaintenanceCliOptions {
  progress?: string;
  json?: boolean;
  /** Set by the command line: counts what the job reads, lists and deletes, on stderr. */
  progressSink?: Progress;
}

/** `--no-lease`, `--json`, `--progress`, `--location-map` (what the job does there: delete or write), `--catalog…`. */
export function maintenanceAccessOptions(command: Command, locationMapVerb: 'delete' | 'write'): Command {
  return command
    .option('--no-lease', NO_LEASE_HELP)
    .option('--json', 'print one JSON result document (schema/floe-result.schema.json)')
    .option('--progress <mode>', PROGRESS_HELP, 'auto')
    .option(
      '--location-map <FROM=TO>',
      `read and ${locationMapVerb} locations under FROM at TO (repeatable)`,
      collectOption,
      [],
    )
    .option(
      '--catalog <spec>',
      'Iceberg: sql:<sqlite-path|postgresql-url>, rest:<url>[?property=value…] or glue:<catalog-id>; Paimon: paimon-jdbc:<sqlite-path|postgresql-url> (with --warehouse) or paimon-rest:<url>?warehouse=<name> (token in $FLOE_PAIMON_REST_TOKEN); the table is then <ns>.<table> and commits go through the catalog',
    )
    .option('--catalog-name <name>', 'SQL catalog: the catalog_name to use when the file holds several catalogs')
    .option('--warehouse <name>', 'REST catalog warehouse; Paimon JDBC catalog: the warehouse location of its tables')
    .option(
      '--catalog-properties <file>',
      'catalog properties (credential, scope, rest.sigv4-enabled …): a JSON/YAML map or key=value lines; default $FLOE_CATALOG_PROPERTIES (secrets belong here or in $FLOE_REST_CREDENTIAL, never on the command line)',
    );
}

/** Runs a maintenance job with a progress display on stderr, prints its report and sets the exit code. */
export async function runMaintenanceCommand(
  command: string,
  o: MaintenanceCliOptions,
  job: (progressSink: Progress) => Promise<MaintenanceReport>,
): Promise<void> {
  const progress = createProgress(process.stderr, { mode: parseProgressMode(o.progress), command });
  let report;
  try {
    report = await job(progress);
  } catch (e) {
    progress.abort();
    throw e;
  }
  progress.finish();
  const exitCode = printMaintenance(report, o.json);
  if (exitCode !== 0) process.exitCode = exitCode;
}
