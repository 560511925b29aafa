/**
 * `floe rewrite-manifests <table>` — merge small Iceberg manifests into target-sized, partition-clustered ones.
 * The job is src/app/rewrite-manifests.ts; this module parses the command line and prints the report.
 */
import type { Command } from 'commander';
import { collectOption } from '../../maintenance/cli-support.js';
import { rewriteTableManifests, type RewriteManifestsTableOptions } from '../../app/rewrite-manifests.js';
import { createProgress, parseProgressMode, type Progress } from '../progress.js';
import { printMaintenance } from '../maintenance-output.js';
import { NO_LEASE_HELP } from '../../distributed/cli-lease.js';

export { rewriteTableManifests as rewriteManifestsAction } from '../../app/rewrite-manifests.js';

export interface RewriteManifestsCliOptions extends RewriteManifestsTableOptions {
  progress?: string;
  json?: boolean;
  /** Set by the command line: counts reads on stderr. */
  progressSink?: Progress;
}

export function register(program: Command): void {
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
    .option('--dry-run', 'report what would be rewritten; write nothing')
    .option('--no-lease', NO_LEASE_HELP)
    .option('--json', 'print one JSON result document (schema/floe-result.schema.json)')
    .option('--progress <mode>', 'progress on stderr: auto, bar, json or none', 'auto')
    .option('--location-map <FROM=TO>', 'read and write locations under FROM at TO (repeatable)', collectOption, [])
    .option(
      '--catalog <spec>',
      'Iceberg: sql:<sqlite-path|postgresql-url> or rest:<url>; the table is then <ns>.<table> and commits go through the catalog',
    )
    .option('--catalog-name <name>', 'SQL catalog: the catalog_name to use when the file holds several catalogs')
    .action(async (ref: string, o: RewriteManifestsCliOptions) => {
      const progress = createProgress(process.stderr, {
        mode: parseProgressMode(o.progress),
        command: 'rewrite-manifests',
      });
      let report;
      try {
        report = await rewriteTableManifests(ref, { ...o, progressSink: progress });
      } finally {
        progress.finish();
      }
      const exitCode = printMaintenance(report, o.json);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}
