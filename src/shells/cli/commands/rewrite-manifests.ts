/**
 * `floe rewrite-manifests <table>` — merge small Iceberg manifests into target-sized, partition-clustered ones.
 * The job is src/app/rewrite-manifests.ts; this module parses the command line and prints the report.
 */
import type { Command } from 'commander';
import { rewriteTableManifests, type RewriteManifestsTableOptions } from '../../../app/rewrite-manifests.js';
import { maintenanceAccessOptions, runMaintenanceCommand, type MaintenanceCliOptions } from '../maintenance-command.js';

export { rewriteTableManifests as rewriteManifestsAction } from '../../../app/rewrite-manifests.js';

export type RewriteManifestsCliOptions = RewriteManifestsTableOptions & MaintenanceCliOptions;

export function register(program: Command): void {
  maintenanceAccessOptions(
    program
      .command('rewrite-manifests <table>')
      .description(
        'Iceberg: rewrite the data manifests of one partition spec into target-sized manifests clustered by partition (a replace snapshot)',
      )
      .option('--spec-id <id>', 'partition spec whose manifests are rewritten (default: the current spec)')
      .option(
        '--target-size <size>',
        'target manifest size with a unit, e.g. 8MB (default commit.manifest.target-size-bytes, 8 MiB)',
      )
      .option('--dry-run', 'report what would be rewritten; write nothing'),
    'write',
  ).action(async (ref: string, o: RewriteManifestsCliOptions) =>
    runMaintenanceCommand('rewrite-manifests', o, (progressSink) => rewriteTableManifests(ref, { ...o, progressSink })),
  );
}
