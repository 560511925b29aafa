/**
 * Delete files that only become removable once several tasks have committed: an equality delete that
 * applies both to files one task rewrites and to files another task converts to position deletes is
 * needed by neither task alone, so no task's commit may drop it — but once both committed, nothing
 * needs it. The plan lists such files in `plan.removableDeletes`; this module decides, against the
 * table as it stands after the run's commits, which of them may now go.
 *
 * The rule (the only one under which a removed delete can never resurrect a row): a delete file may go
 * only when every live data file it applies to, by the spec's rules, is
 *  - a data file whose deletes a committed equality→position task converted (its new position delete
 *    file holds every row the old deletes removed), or
 *  - a file this run added (a rewrite output or a converted delete's data file is never named by an
 *    older position delete, and outputs keep the starting sequence number, so older equality deletes
 *    do not apply to them) — only for position deletes, which name their data files by path.
 * A deletion vector names one data file; it goes only when that file is no longer live.
 */
import type { DataFile, DeleteFile, TableModel } from '../../model/index.js';
import { buildDeleteIndex, deleteFileId } from '../core/planning/deletes.js';

export interface SettleInput {
  /** The table after this run's commits. */
  current: Pick<TableModel, 'specs' | 'dataFiles' | 'deleteFiles'>;
  /** Deletes the plan said are removable once every task commits (ids by `deleteFileId`). */
  candidates: readonly DeleteFile[];
  /** Data files whose deletes a committed equality→position task converted. */
  converted: ReadonlySet<string>;
  /** Data files this run's commits added. */
  added: ReadonlySet<string>;
}

export function settleRemovableDeletes(input: SettleInput): DeleteFile[] {
  const wanted = new Set(input.candidates.map(deleteFileId));
  const live = input.current.deleteFiles.filter((d) => wanted.has(deleteFileId(d)));
  if (live.length === 0) return [];
  // DVs apart: in one index a DV would mask the position deletes of its data file, and those must be judged too
  const index = buildDeleteIndex(
    input.current.specs,
    live.filter((d) => d.content !== 'deletion-vector'),
  );
  const dvIndex = buildDeleteIndex(
    input.current.specs,
    live.filter((d) => d.content === 'deletion-vector'),
  );
  const blocked = new Set<DeleteFile>();
  const coveredBy = (f: DataFile, d: DeleteFile): boolean =>
    input.converted.has(f.path) || (d.content === 'position-deletes' && input.added.has(f.path));
  for (const f of input.current.dataFiles) {
    for (const d of index.forDataFile(f)) if (!coveredBy(f, d)) blocked.add(d);
    for (const d of dvIndex.forDataFile(f)) blocked.add(d);
  }
  return live.filter((d) => !blocked.has(d));
}
