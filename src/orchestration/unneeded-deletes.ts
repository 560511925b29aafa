/**
 * The clean-up commit at the end of an Iceberg compaction: one more `replace` snapshot that drops the delete
 * files no live data file needs any more (dangling ones, and the plan's table-wide removable deletes once
 * every task they span committed), so the run ends with what its plan said.
 */
import { isFloeError } from '../../util/errors.js';
import type { DeleteFile, TableModel } from '../../model/index.js';
import type { Plan } from '../core/planning/plan.js';
import { deleteFileId } from '../core/planning/deletes.js';
import type { ProgressListener } from '../core/execution/events.js';
import {
  IcebergRewriteCommitter,
  type CommitIO,
  type TableOperations,
} from '../../connectors/iceberg/commit-rewrite.js';
import { loadRefreshedModel } from '../../connectors/iceberg/refreshed-model.js';
import type { IcebergTable } from '../../connectors/iceberg/table.js';
import { findDanglingDeletes } from './dangling-deletes.js';
import { settleRemovableDeletes } from './settle-deletes.js';
import type { CompactReport } from './compact-report.js';

/** What the final cleanup needs to settle the plan's table-wide removable deletes. */
export interface SettleRequest {
  candidates: DeleteFile[];
  converted: Set<string>;
  added: Set<string>;
}

/**
 * The plan's table-wide removable deletes that no committed task could drop alone (their dependents span
 * tasks), with the files the committed tasks converted; nothing when no task committed.
 */
export function settleInputOf(
  plan: Plan,
  committed: readonly string[],
  added: ReadonlySet<string>,
): SettleRequest | undefined {
  const done = new Set(committed);
  const tasks = plan.tasks.filter((t) => done.has(t.id));
  if (tasks.length === 0) return undefined;
  const droppedByTasks = new Set(tasks.flatMap((t) => t.removableDeletes.map(deleteFileId)));
  const candidates = plan.removableDeletes.filter((d) => !droppedByTasks.has(deleteFileId(d)));
  const converted = new Set(tasks.filter((t) => t.kind === 'eq-to-pos').flatMap((t) => t.inputs.map((f) => f.path)));
  return { candidates, converted, added: new Set(added) };
}

/**
 * One extra `replace` commit that drops the delete files no live data file needs any more: those that
 * dangle (apply to no live file), and the plan's table-wide removable deletes once the tasks they span
 * have all committed (settle-deletes.ts) — so a run ends with what its plan said. Resolves with the table
 * it loaded when it committed nothing (it is then still the table after the run's commits).
 */
export async function removeUnneededDeletes(
  table: IcebergTable,
  out: CommitIO,
  ops: TableOperations,
  report: CompactReport,
  emit: ProgressListener,
  what: { dangling: boolean; settle: SettleRequest | undefined },
): Promise<TableModel | undefined> {
  if (!what.dangling && (!what.settle || what.settle.candidates.length === 0)) return undefined;
  // after the run's commits: what dangles now, against the table as it now is
  const current = await loadRefreshedModel(table, ops);
  if (current.currentSnapshotId === undefined) return current;
  const dangling = what.dangling ? findDanglingDeletes(current) : [];
  const settled = what.settle ? settleRemovableDeletes({ current, ...what.settle }) : [];
  const ids = [...new Set([...dangling, ...settled].map(deleteFileId))];
  if (ids.length === 0) return current;
  let res;
  try {
    res = await new IcebergRewriteCommitter(out, ops).commit({
      baseSnapshotId: current.currentSnapshotId,
      groups: [
        {
          id: 'dangling-deletes',
          replacedDataFiles: [],
          removedDeleteFiles: ids,
          addedDataFiles: [],
          addedDeleteFiles: [],
        },
      ],
      summary: { 'floe.action': 'remove-dangling-deletes' },
    });
  } catch (e) {
    // the rewrites stand; only the delete files stay referenced (harmless, removable by a re-run)
    if (!isFloeError(e)) throw e;
    report.deleteCleanup = { outcome: 'failed', reason: e.message, removed: 0 };
    emit({
      type: 'message',
      level: 'warn',
      text: `dropping ${ids.length} unneeded delete file(s) failed: ${e.message}`,
    });
    return undefined; // the outcome may be unknown: measure the table again
  }
  report.snapshots.push(res.snapshotId.toString());
  report.danglingDeletes = dangling.map(deleteFileId);
  report.settledDeletes = settled.map(deleteFileId);
  report.deleteCleanup = { outcome: 'committed', snapshotId: res.snapshotId.toString(), removed: ids.length };
  emit({ type: 'commit', snapshotId: res.snapshotId.toString(), attempt: res.attempts, groups: 1 });
  return undefined;
}
