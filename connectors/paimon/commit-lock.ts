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

/**
 * A catalog that publishes snapshot-N itself (Paimon's REST catalog: `POST …/tables/{table}/commit`, the
 * server writes the snapshot file, as Java's RESTCatalog.commitSnapshot asks it to). floe then never
 * writes snapshot-N or LATEST: it sends the snapshot JSON and reads the result back.
 * Implementation: connectors/catalog/paimon-rest.ts.
 */
export interface PaimonSnapshotCommitter {
  /** `paimon-rest:http://host/ table db.t` — for messages. */
  readonly description: string;
  /**
   * Sends snapshot `id` (its JSON text, 64-bit fields as written). Resolves once the catalog published it;
   * throws a PreconditionFailed FloeError when the catalog says snapshot `id` exists already (another
   * writer took it), a non-retryable FloeError naming the catalog when it refuses the commit, and a
   * "commit state unknown" error (connectors/iceberg/commit-state.ts) when the outcome is unknown.
   */
  commitSnapshot(id: bigint, snapshotJson: string): Promise<void>;
}
