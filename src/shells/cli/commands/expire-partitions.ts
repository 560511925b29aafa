/**
 * `floe expire-partitions <paimon-table>` — drop partitions older than `partition.expiration-time` in one
 * OVERWRITE snapshot. The job is src/app/expire-partitions.ts; this module parses and prints.
 */
import type { Command } from 'commander';
import { collectOption } from '../collect-option.js';
import {
  expirePartitionsResult,
  expireTablePartitions,
  type ExpirePartitionsTableOptions,
} from '../../../app/expire-partitions.js';
import { renderResult, writeStdout } from '../result.js';
import { NO_LEASE_HELP } from '../../../lease/job-lease.js';

export { expireTablePartitions as expirePartitionsAction } from '../../../app/expire-partitions.js';

export type ExpirePartitionsCliOptions = ExpirePartitionsTableOptions;

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
      const report = await expireTablePartitions(ref, o);
      if (o.json) writeStdout(renderResult(expirePartitionsResult(report)));
      else {
        const { renderExpirePartitions } = await import('../../../../connectors/paimon/expire-partitions.js');
        writeStdout(`${renderExpirePartitions(report)}\n`);
      }
    });
}
