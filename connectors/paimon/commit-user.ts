/**
 * floe's commit identity in a Paimon snapshot (Paimon snapshots have no summary to carry a commit id, as
 * Iceberg's `floe.commit-id`): every snapshot floe publishes has a `commitUser` starting with this prefix,
 * `floe-<uuid>` for a run, `floe-run-<run id>` for a distributed one.
 */
export const FLOE_COMMIT_USER_PREFIX = 'floe-';

export const isFloeCommitUser = (user: string): boolean => user.startsWith(FLOE_COMMIT_USER_PREFIX);
