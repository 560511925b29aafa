/**
 * Before an expiry commits: the manifest list of every snapshot it keeps must be readable (and pass the
 * manifest-list checks), and the manifests it lists must exist. Without them the cleanup cannot tell which files are still in use, and committing
 * anyway would leave a table whose expired files only orphan removal could ever find — so floe refuses
 * and writes nothing, naming the list. Unreadable lists of *expired* snapshots stay a warning (their
 * files are left for remove-orphans), as in Java.
 */
import { FloeError } from '../../util/errors.js';
import type { RetentionDecision } from '../../model/snapshot-retention.js';
import type { IcebergIO } from './io.js';
import { readManifestList } from './manifests.js';
import type { IcebergMetadata } from './metadata.js';

export async function assertRetainedManifestListsReadable(
  io: IcebergIO,
  md: IcebergMetadata,
  decision: RetentionDecision,
): Promise<void> {
  const checked = new Set<string>();
  for (const s of md.snapshots) {
    if (!decision.retained.has(s.snapshotId)) continue;
    let listed;
    try {
      listed = await readManifestList(io, md, s);
    } catch (e) {
      if (!(e instanceof FloeError)) throw e;
      // the list's own error names the file; say what that means for this run
      throw new FloeError(
        e.kind,
        `${e.message}; expiring now could not tell which files are still in use, so nothing was changed`,
        { context: { ...e.context, snapshotId: s.snapshotId.toString() }, cause: e },
      );
    }
    for (const mf of listed) {
      // a manifest the kept snapshots need must at least exist (a missing one often means a corrupt list)
      if (checked.has(mf.path)) continue;
      checked.add(mf.path);
      if (!(await io.exists(mf.path))) {
        throw new FloeError(
          'NotFound',
          `manifest ${io.map(mf.path)} (listed in ${mf.listedIn ?? s.manifestList} of snapshot ${s.snapshotId}) does not exist; expiring now could not tell which files are still in use, so nothing was changed`,
          {
            context: { file: mf.path, snapshotId: s.snapshotId.toString() },
          },
        );
      }
    }
  }
}
