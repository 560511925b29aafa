/**
 * Shared plumbing of the destructive maintenance jobs (expire, remove-orphans, rewrite-manifests): storage
 * from the environment and `--location-map`, parsing counts and ids, and
 * printing a report as text or JSON. Opening a table through a catalog is src/app/open-table.ts.
 */
import { FloeError } from '../errors.js';
import { FileIO, type StorageConfig } from '../../connectors/storage/index.js';
import { storageConfigFromSpecs } from '../../connectors/storage/env.js';
import type { AccessOptions } from '../../connectors/iceberg/open-for-write.js';
import { reportToJson, reportToText, type MaintenanceReport } from './report.js';

/** A job's table access options (connectors/iceberg/open-for-write.ts) plus the flags every job shares. */
export interface TableAccessCli extends AccessOptions {
  json?: boolean;
  dryRun?: boolean;
}

export function collectOption(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** S3 endpoint from the environment (FLOE_S3_ENDPOINT / AWS_ENDPOINT_URL[_S3]); AWS SDK credential chain. */
export function storageFromCli(o: TableAccessCli): StorageConfig {
  return storageConfigFromSpecs(o.locationMap);
}

/** A FileIO over storage from the environment and `o.locationMap`; call `destroy()` when done. */
export function newFileIO(o: TableAccessCli): FileIO {
  return new FileIO(storageFromCli(o));
}

/** A count from the command line ("4") or the library (4); both are checked the same way. */
export function parseNonNegativeInt(value: string | number, option: string): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new FloeError('InvalidArgument', `${option}: ${value} is not a non-negative integer`);
    return value;
  }
  if (!/^\d+$/.test(value.trim()))
    throw new FloeError('InvalidArgument', `${option}: "${value}" is not a non-negative integer`);
  return Number(value);
}

export function parseSnapshotIds(text: string): bigint[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      if (!/^\d+$/.test(s)) throw new FloeError('InvalidArgument', `--snapshot-ids: "${s}" is not a snapshot id`);
      return BigInt(s);
    });
}

export function printReport(
  report: MaintenanceReport,
  json: boolean | undefined,
  write: (t: string) => void = (t) => process.stdout.write(t),
): void {
  write(json ? reportToJson(report) : reportToText(report));
  if (report.failed.length > 0) process.exitCode = 3;
}
