/**
 * The arguments the maintenance jobs share, checked the same way whether they come from the command line
 * (text) or from the library and job specs (numbers).
 */
import { FloeError } from '../../util/errors.js';
import type { AccessOptions } from '../../connectors/iceberg/open-for-write.js';

/** A job's table access options (connectors/iceberg/open-for-write.ts) plus the flags every job shares. */
export interface JobAccessOptions extends AccessOptions {
  json?: boolean;
  dryRun?: boolean;
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
