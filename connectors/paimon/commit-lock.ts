/**
 * The lock a Paimon catalog serialises snapshot commits with (Java's `CatalogLock.runWithLock`, used by
 * `RenamingSnapshotCommit` around "snapshot-N exists? then write it"). floe takes the same lock around its
 * own publication of snapshot-N (commit-compact.ts), so a Java writer with `lock.enabled=true` and floe
 * never race on one snapshot id. Implementations: connectors/catalog/paimon-jdbc.ts (JDBC catalog's
 * `paimon_distributed_locks`).
 */

/** A lock held right now: `assertHeld` throws (a FloeError naming the catalog) once it expired or was taken. */
export interface HeldCommitLock {
  assertHeld(): Promise<void>;
}

export interface PaimonCommitLock {
  /** `paimon-jdbc:/path/catalog.db lock jdbc.db.orders` — for messages. */
  readonly description: string;
  /** Runs `fn` holding the lock; waits for it as the catalog's Java lock does, and releases it after. */
  runWithLock<T>(fn: (held: HeldCommitLock) => Promise<T>): Promise<T>;
}
