/**
 * Every snapshot floe commits carries a unique commit id in its summary, so that after a lost response
 * floe can recognise its own commit in the table (REST reload, diagnostics) instead of guessing.
 */
import { randomUUID } from 'node:crypto';

export const COMMIT_ID_PROPERTY = 'floe.commit-id';

export function newCommitId(): string {
  return randomUUID();
}
