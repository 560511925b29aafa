/** `floe rewrite-manifests <table>` — merge small Iceberg manifests into target-sized, partition-clustered ones. */
import type { Command } from 'commander';
import { FloeError } from '../../errors.js';
import { collectOption, newStoreIO, parseNonNegativeInt, printReport, type TableAccessCli } from '../../maintenance/cli-support.js';
import type { MaintenanceReport } from '../../maintenance/report.js';
import { openForMaintenance } from '../../../connectors/iceberg/expire-table.js';
import { rewriteManifests } from '../../../connectors/iceberg/rewrite-manifests.js';

export interface RewriteManifestsCliOptions extends TableAccessCli {
  specId?: string;
  targetSize?: string;
}

export async function rewriteManifestsAction(ref: string, o: RewriteManifestsCliOptions): Promise<MaintenanceReport> {
  if (o.catalog) throw new FloeError('Unsupported', 'rewrite-manifests through a catalog is not supported yet; open the table by its location');
  const io = newStoreIO(o);
  try {
    const table = await openForMaintenance(ref, { fileIO: io.fileIO });
    return await rewriteManifests(table, {
      dryRun: !!o.dryRun,
      ...(o.specId !== undefined ? { specId: parseNonNegativeInt(o.specId, '--spec-id') } : {}),
      ...(o.targetSize !== undefined ? { targetSizeBytes: parseNonNegativeInt(o.targetSize, '--target-size') } : {}),
    });
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
    .action(async (ref: string, o: RewriteManifestsCliOptions) => {
      printReport(await rewriteManifestsAction(ref, o), o.json);
    });
}
