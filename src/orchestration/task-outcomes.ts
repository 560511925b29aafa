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

/** The fields of a job report that the tracker below fills in when the job ends. */
interface OutcomeReport {
  tasks: TaskOutcome[];
  skippedTasks: { id: string; reason: string }[];
  failedTasks: { id: string; reason: string }[];
  durationMs: number;
}

/**
 * What a compaction job records while it runs — why a task was skipped, which snapshot committed a task —
 * and `finish()`, which turns that into the report's task outcomes and duration. One for every Iceberg job.
 */
export function outcomeTracker<R extends OutcomeReport>(
  report: R,
  tasks: readonly { id: string; kind: string }[],
  startedMs: number,
) {
  /** task id → why it was skipped; committed task id → the snapshot that committed it. */
  const skipped = new Map<string, string>();
  const committedIn = new Map<string, string | undefined>();
  const finish = (): R => {
    report.tasks = taskOutcomes(tasks, committedIn, report.failedTasks, skipped);
    report.skippedTasks = report.tasks
      .filter((t) => t.outcome === 'skipped')
      .map((t) => ({ id: t.id, reason: t.reason! }));
    report.durationMs = Date.now() - startedMs;
    return report;
  };
  return { skipped, committedIn, finish };
}
