/**
 * The file access Paimon needs: views of the one FileIO (connectors/storage/file-io.ts), as Iceberg's
 * IcebergIO and CommitIO are. Local tables go through the same FileIO, over the local ObjectStore.
 */
import type { FileIO } from '../storage/file-io.js';

/** What the reader needs. */
export type PaimonIO = Pick<FileIO, 'read' | 'exists' | 'listNames'>;

/**
 * What Paimon's writers need: create-if-absent for every new file (data, manifests, index files, the
 * snapshot itself: S3 If-None-Match, a hard link locally), overwrite for the LATEST hint, remove to clean up.
 */
export type PaimonWriteIO = Pick<FileIO, 'createNew' | 'overwrite' | 'remove'> &
  Partial<Pick<FileIO, 'requireConditionalCreate'>>; // the snapshot's create must be atomic (conditional-writes.ts)

export { joinPath } from '../storage/location.js';

/** Names of the files and sub-directories directly under `dir` (Paimon keeps branches as directories). */
export function listDir(io: PaimonIO, dir: string): Promise<string[]> {
  return io.listNames(dir, { directories: true });
}
