/** `floe rewrite-manifests <table>` — merge small Iceberg manifests into target-sized, partition-clustered ones. */
import type { Command } from 'commander';
import {
  collectOption,
  newStoreIO,
  openMaintainedViaCatalog,
  parseNonNegativeInt,
  type TableAccessCli,
} from '../../maintenance/cli-support.js';
import { detectTableFormat, requireFormat } from '../table-format.js';
import { createProgress, parseProgressMode, type Progress } from '../progress.js';
import { observeStoreIO } from '../store-progress.js';
import { sized, printMaintenance } from '../maintenance-output.js';
import { parseSizeBytes } from '../../util/units.js';
import type { MaintenanceReport } from '../../maintenance/report.js';
import { openForMaintenance } from '../../../connectors/iceberg/expire-table.js';
import { rewriteManifests } from '../../../connectors/iceberg/rewrite-manifests.js';
import { withCliLease, NO_LEASE_HELP, type LeaseCliOptions } from '../../distributed/cli-lease.js';

export interface RewriteManifestsCliOptions extends TableAccessCli, LeaseCliOptions {
  specId?: string;
  targetSize?: string;
  progress?: string;
  /** Set by the command line: counts reads on stderr. */
  progressSink?: Progress;
}

export async function rewriteManifestsAction(ref: string, o: RewriteManifestsCliOptions): Promise<MaintenanceReport> {
  const opts = {
    dryRun: !!o.dryRun,
    ...(o.specId !== undefined ? { specId: parseNonNegativeInt(o.specId, '--spec-id') } : {}),
    ...(o.targetSize !== undefined ? { targetSizeBytes: parseSizeBytes(o.targetSize, { what: '--target-size' }) } : {}),
  };
  if (o.lease !== false && !o.dryRun)
    return withCliLease(ref, o, 'rewrite-manifests', () => rewriteManifestsAction(ref, { ...o, lease: false }));
  if (o.catalog) {
    const { table, close } = await openMaintainedViaCatalog(ref, o);
    try {
      if (o.progressSink) observeStoreIO(table.io, o.progressSink);
      return await sized(await rewriteManifests(table, opts), table.io);
    } finally {
      close();
    }
  }
  const io = newStoreIO(o);
  if (o.progressSink) observeStoreIO(io, o.progressSink);
  try {
    requireFormat(
      'rewrite-manifests',
      'iceberg',
      await detectTableFormat(ref, io.fileIO),
      ref,
      "Paimon manifests are merged by Paimon's own commits (manifest.merge-min-count)",
    );
    const table = await openForMaintenance(ref, { fileIO: io.fileIO });
    if (o.progressSink && table.io !== io) observeStoreIO(table.io, o.progressSink);
    return await sized(await rewriteManifests(table, opts), table.io);
  } finally {
    io.fileIO.destroy();
  }
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
        report = await rewriteManifestsAction(ref, { ...o, progressSink: progress });
      } finally {
        progress.finish();
      }
      const exitCode = printMaintenance(report, o.json);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}
