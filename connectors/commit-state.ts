/**
 * "Commit state unknown": the catalog or store may or may not have taken the commit (a timeout, a 5xx, a
 * lost response). Files the commit would reference must then be kept — deleting them could corrupt a table
 * that did commit. Format-neutral: the Iceberg catalogs and the Paimon committer both throw it. The error
 * kind says it (`CommitStateUnknown`); `context.commitStateUnknown` stays for readers of the context.
 */
import { FloeError, isFloeError } from '../util/errors.js';

export function commitStateUnknown(detail: string, cause?: unknown): FloeError {
  return new FloeError('CommitStateUnknown', `commit state unknown: ${detail}`, {
    cause,
    retryable: false,
    context: { commitStateUnknown: true },
  });
}

export function isCommitStateUnknown(e: unknown): boolean {
  return isFloeError(e) && (e.kind === 'CommitStateUnknown' || e.context.commitStateUnknown === true);
}
