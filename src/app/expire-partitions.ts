/**
 * The expire-partitions job (Paimon): drop the partitions whose time (read from their values) is older than
 * `partition.expiration-time`, in one OVERWRITE snapshot, as Paimon's PartitionExpire does
 * (connectors/paimon/expire-partitions.ts). Files stay until expire finds no snapshot reading them.
 */
import type { JobAccessOptions } from './job-arguments.js';
import { fileIOFromEnv } from '../../connectors/storage/env.js';
import { detectTableFormat, requireFormat } from './table-format.js';
import { EXIT } from './exit-codes.js';
import { resultDocument, type ResultDocument } from './result.js';
import { withJobLease, type JobLeaseOptions } from '../lease/job-lease.js';
import type { ExpirePartitionsSpec } from '../orchestration/job-types.js';
import type { ExpirePartitionsReport } from '../../connectors/paimon/expire-partitions.js';

export interface ExpirePartitionsTableOptions extends ExpirePartitionsSpec, JobAccessOptions, JobLeaseOptions {
  json?: boolean;
  /** Tests: local wall-clock now (epoch ms read as UTC). */
  nowMs?: number;
}

/** The floe-result/1 document of an expire-partitions report. */
export function expirePartitionsResult(report: ExpirePartitionsReport): ResultDocument {
  return resultDocument('expire-partitions', EXIT.ok, { ...report });
}
export async function expireTablePartitions(
  ref: string,
  o: ExpirePartitionsTableOptions,
): Promise<ExpirePartitionsReport> {
  return withJobLease(ref, o, 'expire-partitions', () => expirePartitionsLeased(ref, o));
}

async function expirePartitionsLeased(ref: string, o: ExpirePartitionsTableOptions): Promise<ExpirePartitionsReport> {
  const io = fileIOFromEnv(o.locationMap);
  try {
    requireFormat(
      'expire-partitions',
      'paimon',
      await detectTableFormat(ref, io),
      ref,
      'Iceberg tables expire data by their own delete/overwrite operations',
    );
    const { openPaimonTable } = await import('../../connectors/paimon/table.js');
    const { expirePaimonPartitions } = await import('../../connectors/paimon/expire-partitions.js');
    const table = await openPaimonTable(ref, { fileIO: io });
    return await expirePaimonPartitions(table, io, {
      dryRun: !!o.dryRun,
      ...(o.expirationTime !== undefined ? { expirationTime: o.expirationTime } : {}),
      ...(o.nowMs !== undefined ? { nowMs: o.nowMs } : {}),
    });
  } finally {
    io.destroy();
  }
}
