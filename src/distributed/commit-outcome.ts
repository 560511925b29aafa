/** The commit step's outcome as both formats' commits start it (src/distributed/seam.ts, paimon-seam.ts). */
import type { CommitOutcome, PlanRef } from './seam.js';

/** Nothing committed, failed or removed yet: the outcome a commit step fills in as it learns more. */
export function emptyCommitOutcome(ref: Pick<PlanRef, 'runId' | 'before'>): CommitOutcome {
  return {
    runId: ref.runId,
    alreadyCommitted: false,
    committedTasks: [],
    failedTasks: [],
    removedFiles: [],
    before: ref.before,
  };
}
