/**
 * How a Paimon compaction run ends, shared by the merge path (compact-paimon.ts) and the sort path
 * (compact-paimon-sort.ts): the tasks' outcomes, the report of a commit, the outputs removed when the
 * commit failed, and the table's size after it.
 */
import { isFloeError } from '../../../util/errors.js';
import type { ProgressListener } from '../../core/execution/events.js';
import { isCommitStateUnknown } from '../../../connectors/commit-state.js';
import type { PaimonCommitRequest, PaimonCommitResult } from '../../../connectors/paimon/commit-compact.js';
import type { PaimonWriteIO } from '../../../connectors/paimon/io.js';
import type { DataFileMeta } from '../../../connectors/paimon/manifest.js';
import type { PaimonFile } from '../../../connectors/paimon/table.js';
import type { NewManifestEntry } from '../../../connectors/paimon/write-manifest.js';
import type { TaskOutcome } from '../task-outcomes.js';
import type { PaimonCompactOptions, PaimonCompactReport } from '../compact-paimon.js';

/** A manifest entry for a file of one bucket (the bucket's partition and number). */
export function bucketEntry(
  kind: number,
  w: { partitionBytes: Uint8Array; report: { bucket: number } },
  totalBuckets: number,
  file: DataFileMeta,
): NewManifestEntry {
  return { kind, partition: w.partitionBytes, bucket: w.report.bucket, totalBuckets, file };
}

/** The run's options the committer takes (commit user, retries, the test hook). */
export function commitOptions(
  opts: Pick<PaimonCompactOptions, 'commitUser' | 'maxRetries' | 'beforePublish' | 'commitLock' | 'committer'>,
): Pick<PaimonCommitRequest, 'commitUser' | 'maxRetries' | 'beforePublish' | 'lock' | 'committer'> {
  return {
    ...(opts.commitLock ? { lock: opts.commitLock } : {}),
    ...(opts.committer ? { committer: opts.committer } : {}),
    ...(opts.commitUser ? { commitUser: opts.commitUser } : {}),
    ...(opts.maxRetries !== undefined ? { maxRetries: opts.maxRetries } : {}),
    ...(opts.beforePublish ? { beforePublish: opts.beforePublish } : {}),
  };
}

/** Every task `skipped`, for the same reason (a dry run; outputs written but left to a later commit). */
export function skippedTasks(ids: readonly string[], kind: string, reason: string): TaskOutcome[] {
  return ids.map((id) => ({ id, kind, outcome: 'skipped' as const, reason }));
}

/**
 * Records a published commit in the report: its snapshot, the attempts it took, every task committed by
 * it, and — when a cancel arrived while it was being published — that it finished anyway.
 */
export function recordCommit(
  report: PaimonCompactReport,
  commit: Pick<PaimonCommitResult, 'snapshotId' | 'attempts'> & Partial<Pick<PaimonCommitResult, 'carriedDeletes'>>,
  taskIds: readonly string[],
  kind: string,
  signal: AbortSignal | undefined,
  emit: ProgressListener,
): void {
  const snapshotId = String(commit.snapshotId);
  report.snapshotId = snapshotId;
  report.commitAttempts = commit.attempts;
  if (commit.carriedDeletes) report.carriedDeletes = commit.carriedDeletes;
  report.tasks = taskIds.map((id) => ({ id, kind, outcome: 'committed' as const, snapshotId }));
  if (signal?.aborted)
    report.cancelled = {
      afterCommitStarted: true,
      committedSnapshots: [snapshotId],
      message: `cancelled while committing: the commit finished (snapshot ${snapshotId})`,
    };
  emit({ type: 'commit', snapshotId, attempt: commit.attempts, groups: taskIds.length });
}

/**
 * After a failed run: removes the files it wrote — unless a snapshot may reference them. Only a published
 * snapshot does (then the run did not fail), or one whose commit state is unknown (a lost response), or
 * ours overwritten by another writer right after publishing (the files are orphans then, left to
 * remove-orphans as the error says).
 */
export async function removeUnpublished(error: unknown, io: PaimonWriteIO, paths: readonly string[]): Promise<void> {
  const overwritten = isFloeError(error) && error.kind === 'CommitConflict' && /overwritten/.test(error.message);
  if (overwritten || isCommitStateUnknown(error)) return;
  await Promise.all(paths.map((p) => io.remove(p).catch(() => undefined)));
}

/** Files, bytes and records of the table once `deletes` left it and `adds` joined it. */
export function statsAfter(
  files: readonly PaimonFile[],
  deletes: readonly NewManifestEntry[],
  adds: readonly NewManifestEntry[],
): { files: number; bytes: number; records: number } {
  const id = (bucket: number, m: { fileName: string; level: number }) => `${bucket}|${m.fileName}|${m.level}`;
  const replaced = new Set(deletes.map((d) => id(d.bucket, d.file)));
  const metas = [
    ...files.filter((f) => !replaced.has(id(f.bucket, f.meta))).map((f) => f.meta),
    ...adds.map((a) => a.file),
  ];
  return {
    files: metas.length,
    bytes: metas.reduce((n, m) => n + Number(m.fileSize), 0),
    records: metas.reduce((n, m) => n + Number(m.rowCount), 0),
  };
}

/** The report with its duration set: every return of a run goes through here. */
export function finished(report: PaimonCompactReport, started: number): PaimonCompactReport {
  report.durationMs = Date.now() - started;
  return report;
}
