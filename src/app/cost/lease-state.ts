/**
 * Whether a table's lease file is there already (a released lease from an earlier job): a dry run's estimate
 * of the real run's lease requests depends on it. One HEAD, after the dry run's meter stopped (it is the
 * estimate's request, not the run's); a table named through a catalog is asked nothing (assumed absent).
 */
import path from 'node:path';
import { fileIOFromEnv } from '../../../connectors/storage/env.js';
import { leaseLocation } from '../../lease/table-lease.js';
import { conditionalProbeDue as probeDue } from '../../../connectors/storage/conditional-writes.js';

export async function leaseFileExists(ref: string, o: { catalog?: string; locationMap?: string[] }): Promise<boolean> {
  if (o.catalog) return false;
  const table = /\.metadata\.json$/.test(ref) ? path.posix.dirname(path.posix.dirname(ref)) : ref;
  const io = fileIOFromEnv(o.locationMap);
  try {
    return await io.exists(leaseLocation(table));
  } catch {
    return false;
  } finally {
    io.destroy();
  }
}

/**
 * Whether the run's first commit (or lease) on this table's store probes its conditional writes first
 * (conditional-writes.ts): an S3 store in probe mode not yet probed in this process. Asked before the run.
 */
export function conditionalProbeDue(ref: string, o: { catalog?: string; locationMap?: string[] }): boolean {
  if (!/^s3[an]?:\/\//.test(ref)) return false;
  const table = /\.metadata\.json$/.test(ref) ? path.posix.dirname(path.posix.dirname(ref)) : ref;
  const io = fileIOFromEnv(o.locationMap);
  try {
    return probeDue(io.resolve(table));
  } catch {
    return false;
  } finally {
    io.destroy();
  }
}
