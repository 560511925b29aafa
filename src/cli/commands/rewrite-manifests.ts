/** `floe rewrite-manifests <table>` — merge small Iceberg manifests into target-sized, partition-clustered ones. */
import type { Command } from 'commander';
import { collectOption, newStoreIO, openMaintainedViaCatalog, parseNonNegativeInt, printReport, type TableAccessCli } from '../../maintenance/cli-support.js';
import type { MaintenanceReport } from '../../maintenance/report.js';
import { openForMaintenance } from '../../../connectors/iceberg/expire-table.js';
import { rewriteManifests } from '../../../connectors/iceberg/rewrite-manifests.js';

export interface RewriteManifestsCliOptions extends TableAccessCli {
  specId?: string;
  targetSize?: string;
}

export async function rewriteManifestsAction(ref: string, o: RewriteManifestsCliOptions): Promise<MaintenanceReport> {
  const opts = {
    dryRun: !!o.dryRun,
    ...(o.specId !== undefined ? { specId: parseNonNegativeInt(o.specId, '--spec-id') } : {}),
    ...(o.targetSize !== undefined ? { targetSizeBytes: parseNonNegativeInt(o.targetSize, '--target-size') } : {}),
  };
  if (o.catalog) {
    const { table, close } = await openMaintainedViaCatalog(ref, o);
    try {
      return await rewriteManifests(table, opts);
    } finally {
      close();
    }
  }
  const io = newStoreIO(o);
  try {
    return await rewriteManifests(await openForMaintenance(ref, { fileIO: io.fileIO }), opts);
  } finally {
    io.fileIO.destroy();
  }
}

export function register(program: Command): void {
  program
    .command('rewrite-manifests <table>')
    .description('Iceberg: rewrite the data manifests of one partition spec into target-sized manifests clustered by partition (a replace snapshot)')
    .option('--spec-id <id>', 'partition spec whose manifests are rewritten (default: the current spec)')
    .option('--target-size <bytes>', 'target manifest size (default commit.manifest.target-size-bytes, 8 MiB)')
    .option('--dry-run', 'report what would be rewritten; write nothing')
    .option('--json', 'print the report as JSON')
    .option('--location-map <FROM=TO>', 'read and write locations under FROM at TO (repeatable)', collectOption, [])
    .option('--catalog <spec>', 'Iceberg: sql:<sqlite-path|postgresql-url> or rest:<url>; the table is then <ns>.<table> and commits go through the catalog')
    .option('--catalog-name <name>', 'SQL catalog: the catalog_name to use when the file holds several catalogs')
    .action(async (ref: string, o: RewriteManifestsCliOptions) => {
      printReport(await rewriteManifestsAction(ref, o), o.json);
    });
}
