/**
 * Every planned task ends as committed, failed or skipped — with the reason when it did not commit — in
 * the result of a compaction job (issue 13.19). Iceberg and Paimon jobs report the same shape; the CLI
 * renders it (text and `--json`), the service stores it.
 */

export type TaskOutcomeKind = 'committed' | 'failed' | 'skipped';

export interface TaskOutcome {
  id: string;
  /** The planner's task kind (`minor`, `major`, `full`, `eq-to-pos`, `binpack`, `universal` …). */
  kind: string;
  outcome: TaskOutcomeKind;
  /** Why it failed or was skipped (absent when committed). */
  reason?: string;
  /** The snapshot that committed it (decimal string), when committed. */
  snapshotId?: string;
}

/** Why a job stopped on a cancel, and whether anything it did is committed. */
export interface CancelInfo {
  /** True when the cancel came while a commit was being published: that commit finished, nothing after it ran. */
  afterCommitStarted: boolean;
  /** Snapshots committed before the job stopped (decimal strings; empty when nothing was committed). */
  committedSnapshots: string[];
  message: string;
}

/**
 * Outcomes for `tasks` in plan order: committed when listed in `committed`, failed when in `failed`, else
 * skipped with the reason from `skipped` (or `fallback`). A task both failed and committed cannot happen;
 * committed wins so a re-run never repeats committed work.
 */
export function taskOutcomes(
  tasks: readonly { id: string; kind: string }[],
  committed: ReadonlyMap<string, string | undefined>,
  failed: readonly { id: string; reason: string }[],
  skipped: ReadonlyMap<string, string>,
  fallback = 'not run',
): TaskOutcome[] {
  const failedBy = new Map(failed.map((f) => [f.id, f.reason]));
  return tasks.map((t) => {
    if (committed.has(t.id)) {
      const snapshotId = committed.get(t.id);
      return { id: t.id, kind: t.kind, outcome: 'committed', ...(snapshotId !== undefined ? { snapshotId } : {}) };
    }
    const f = failedBy.get(t.id);
    if (f !== undefined) return { id: t.id, kind: t.kind, outcome: 'failed', reason: f };
    return { id: t.id, kind: t.kind, outcome: 'skipped', reason: skipped.get(t.id) ?? fallback };
  });
}
