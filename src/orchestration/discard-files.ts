/** Removing files a run wrote and will never commit. */
import type { CommitIO, NewContentFile } from '../../connectors/iceberg/commit-rewrite.js';

/** Removes each distinct file of `files` (best effort: a file already gone, or a failed remove, is let be). */
export async function discardFiles(
  out: Pick<CommitIO, 'remove'>,
  files: readonly Pick<NewContentFile, 'path'>[],
): Promise<void> {
  await Promise.all([...new Set(files.map((f) => f.path))].map((p) => out.remove(p).catch(() => undefined)));
}
