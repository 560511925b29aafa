/**
 * The file access the Paimon reader needs: a view of the one FileIO (connectors/storage/file-io.ts). Local
 * tables go through the same FileIO, over the local ObjectStore.
 */
import type { FileIO } from '../storage/file-io.js';

export type PaimonIO = Pick<FileIO, 'read' | 'exists' | 'listNames'>;

export { joinPath } from '../storage/location.js';

/** Names of the files and sub-directories directly under `dir` (Paimon keeps branches as directories). */
export function listDir(io: PaimonIO, dir: string): Promise<string[]> {
  return io.listNames(dir, { directories: true });
}
