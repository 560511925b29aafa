/**
 * The one commit path for Iceberg tables (in the spirit of iceberg-rust's `transaction/` and Java's
 * SnapshotProducer.commit): every action — rewrite files (compaction), expire snapshots, rewrite manifests,
 * append/overwrite — is a `TransactionAction` that, on a base it is given, validates what concurrent writers
 * did and prepares metadata updates + requirements (writing manifests and manifest lists as needed).
 * `commitTransaction` owns everything around that:
 *
 *   refresh base → check the action's standing requirements → action.validate(base) → action.prepare(base)
 *   → check the prepared requirements → applyUpdates → publish through TableOperations → on a lost race,
 *   wait (one retry policy: commit.retry.*, util/commit-retry.ts), refresh and run the action again.
 *
 * Filesystem and SQL tables publish the `applyUpdates` document; a REST catalog is sent the updates and
 * requirements themselves. Files an attempt wrote are removed when it fails — except when the commit's state
 * is unknown (the catalog may have taken it): then everything stays and orphan cleanup decides later.
 */
import type { FloeError } from '../../util/errors.js';
import { icebergCommitRetryPolicy, runCommitLoop, type CommitRetryPolicy } from '../../util/commit-retry.js';
import type { FileIO } from '../storage/file-io.js';
import { assertCommittable, type RawMetadata } from './commit-metadata.js';
import { isCommitStateUnknown } from '../commit-state.js';
import { checkRequirements, type TableRequirement } from './table-requirement.js';
import { applyUpdates, type TableUpdate } from './table-update.js';

/** What a commit reads and writes, by table location: a view of the one FileIO (create-if-absent included). */
export type CommitIO = Pick<FileIO, 'read' | 'createNew' | 'overwrite' | 'remove'> & Partial<Pick<FileIO, 'openNew'>>; // [stream] optional: rewrites stream data files through it when present

/** A metadata document and the file it was read from. */
export interface CommitBase {
  metadata: RawMetadata;
  location: string;
}

/** What a commit changes, as a REST catalog is told it. */
export interface TableChange {
  updates: TableUpdate[];
  requirements: TableRequirement[];
}

export interface TableOperations {
  /** The current metadata document and where it was read from. */
  refresh(): Promise<CommitBase>;
  /**
   * Publishes `next` as the successor of `base` atomically. Throws FloeError('CommitConflict') when another
   * writer published first (retryable), anything else when the outcome is unknown or failed. `change` is what
   * turns `base` into `next` (a REST catalog is sent it; without it the REST client derives it by diffing).
   */
  commit(base: CommitBase, next: RawMetadata, change?: TableChange): Promise<string>;
  /**
   * Optional: throws when `commit` would refuse this table whatever the next metadata holds (a metadata
   * file that is not a filesystem-table version, say), so a job can refuse before it writes anything.
   */
  preflight?(base: CommitBase): void | Promise<void>;
}

export interface AttemptContext {
  /** 1 for the first try. */
  attempt: number;
  /** Every file the attempt writes is pushed here, so a failed attempt can remove it. */
  written: string[];
}

/** An action's prepared commit: nothing is published when `updates` is empty. */
export interface PreparedCommit<R> {
  updates: TableUpdate[];
  requirements: TableRequirement[];
  /** The next metadata's last-updated-ms. */
  timestampMs: number;
  /** The action's answer, given where the new metadata was published (undefined: nothing was). */
  result(metadataLocation: string | undefined): R;
}

export interface TransactionAction<R, V = void> {
  /** Requirements every refreshed base must meet before the action runs on it (a retryable conflict otherwise). */
  readonly requirements?: readonly TableRequirement[];
  /**
   * The action's conflict validation against what was committed since it started (rewritten files still
   * live, deletion vectors not replaced …). Throws to fail the commit; a retryable CommitConflict retries.
   */
  validate?(base: CommitBase): V | Promise<V>;
  prepare(base: CommitBase, validated: V, ctx: AttemptContext): Promise<PreparedCommit<R>>;
}

export interface TransactionOptions {
  /** The base the caller has just read (saves the first refresh). */
  base?: CommitBase;
  /** Names the table in messages about its commit.retry.* properties (default: the metadata file). */
  table?: string;
  /** Caps the attempts (an action's own option); otherwise commit.retry.num-retries + 1. */
  maxAttempts?: number;
  now?: () => number;
  /** Told about every lost race, after the wait and before the refresh. */
  onRetry?: (attempt: number, error: FloeError) => void;
  /** Removes what a failed attempt wrote (default: best-effort `io.remove` of each file). */
  discard?: (written: string[], base: CommitBase) => Promise<void>;
  /** For tests: the wait between attempts and its jitter. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** The retry policy of a base: its commit.retry.* properties, with `maxAttempts` overriding the count. */
export function transactionPolicy(base: CommitBase, table: string, maxAttempts?: number): CommitRetryPolicy {
  const policy = icebergCommitRetryPolicy(
    (base.metadata.properties as Record<string, string> | undefined) ?? {},
    table,
  );
  return maxAttempts === undefined ? policy : { ...policy, numRetries: Math.max(0, maxAttempts - 1) };
}

export async function commitTransaction<R, V = void>(
  ops: TableOperations,
  io: Pick<CommitIO, 'remove'>,
  action: TransactionAction<R, V>,
  options: TransactionOptions = {},
): Promise<R> {
  let base = options.base ?? (await ops.refresh());
  const policy = transactionPolicy(base, options.table ?? base.location, options.maxAttempts);
  const discard =
    options.discard ?? ((written: string[]) => Promise.all(written.map((w) => io.remove(w).catch(() => undefined))));
  return runCommitLoop(
    policy,
    async (attempt) => {
      checkRequirements(base.metadata, action.requirements ?? [], base.location);
      const validated = (await action.validate?.(base)) as V;
      const written: string[] = [];
      let prepared: PreparedCommit<R>;
      let location: string | undefined;
      try {
        prepared = await action.prepare(base, validated, { attempt, written });
        if (prepared.updates.length > 0) location = await publish(ops, base, prepared);
      } catch (e) {
        if (!isCommitStateUnknown(e)) await discard(written, base);
        throw e;
      }
      // outside the try: once published, nothing the attempt wrote may be discarded
      return prepared.result(location);
    },
    {
      ...(options.now ? { now: options.now } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
      ...(options.random ? { random: options.random } : {}),
      onRetry: async (attempt, e) => {
        options.onRetry?.(attempt, e);
        base = await ops.refresh();
      },
    },
  );
}

/** Requirements checked against the base, the next document built and checked, then published. */
async function publish<R>(ops: TableOperations, base: CommitBase, prepared: PreparedCommit<R>): Promise<string> {
  checkRequirements(base.metadata, prepared.requirements, base.location);
  const next = applyUpdates(base.metadata, base.location, prepared.updates, prepared.timestampMs);
  assertCommittable(next, base.location); // never publish a document that breaks the metadata invariants
  return ops.commit(base, next, { updates: prepared.updates, requirements: prepared.requirements });
}
