/**
 * `floe expire-partitions <paimon-table>` — drop the partitions whose time (read from their values) is older
 * than `partition.expiration-time`, in one OVERWRITE snapshot, as Paimon's PartitionExpire does
 * (connectors/paimon/expire-partitions.ts). Files stay until `floe expire` finds no snapshot reading them.
 */
import type { Command } from 'commander';
import { collectOption, newStoreIO, type TableAccessCli } from '../../maintenance/cli-support.js';
import { detectTableFormat, requireFormat } from '../table-format.js';
import { EXIT } from '../exit-codes.js';
import { renderResult, resultDocument, writeStdout } from '../result.js';
import { withCliLease, NO_LEASE_HELP, type LeaseCliOptions } from '../../distributed/cli-lease.js';
import type { ExpirePartitionsReport } from '../../../connectors/paimon/expire-partitions.js';

export interface ExpirePartitionsCliOptions extends TableAccessCli, LeaseCliOptions {
  expirationTime?: string;
  json?: boolean;
  /** Tests: local wall-clock now (epoch ms read as UTC). */
  nowMs?: number;
}

export async function expirePartitionsAction(
  ref: string,
  o: ExpirePartitionsCliOptions,
): Promise<ExpirePartitionsReport> {
  if (o.lease !== false && !o.dryRun)
    return withCliLease(ref, o, 'expire-partitions', () => expirePartitionsAction(ref, { ...o, lease: false }));
  const io = newStoreIO(o);
  try {
    requireFormat(
      'expire-partitions',
      'paimon',
      await detectTableFormat(ref, io.fileIO),
      ref,
      'Iceberg tables expire data by their own delete/overwrite operations',
    );
    const { paimonIOFromFileIO } = await import('../../../connectors/paimon/io.js');
    const { openPaimonTable } = await import('../../../connectors/paimon/table.js');
    const { paimonStorageFromFileIO } = await import('../../../connectors/paimon/write-data-file.js');
    const { expirePaimonPartitions } = await import('../../../connectors/paimon/expire-partitions.js');
    const table = await openPaimonTable(ref, { io: paimonIOFromFileIO(io.fileIO) });
    return await expirePaimonPartitions(table, paimonStorageFromFileIO(io.fileIO), {
      dryRun: !!o.dryRun,
      ...(o.expirationTime !== undefined ? { expirationTime: o.expirationTime } : {}),
      ...(o.nowMs !== undefined ? { nowMs: o.nowMs } : {}),
    });
  } finally {
    io.fileIO.destroy();
  }
}

export function register(program: Command): void {
  program
    .command('expire-partitions <table>')
    .description(
      'Paimon: drop partitions older than partition.expiration-time (time read from the partition values) in one OVERWRITE snapshot',
    )
    .option('--expiration-time <duration>', 'override the table\'s partition.expiration-time, e.g. "7 d"')
    .option('--dry-run', 'list the partitions that would be dropped; commit nothing')
    .option('--no-lease', NO_LEASE_HELP)
    .option('--json', 'print one JSON result document (schema/floe-result.schema.json)')
    .option('--location-map <FROM=TO>', 'read and write locations under FROM at TO (repeatable)', collectOption, [])
    .action(async (ref: string, o: ExpirePartitionsCliOptions) => {
      const report = await expirePartitionsAction(ref, o);
      if (o.json) writeStdout(renderResult(resultDocument('expire-partitions', EXIT.ok, { ...report })));
      else {
        const { renderExpirePartitions } = await import('../../../connectors/paimon/expire-partitions.js');
        writeStdout(`${renderExpirePartitions(report)}\n`);
      }
    });
}
