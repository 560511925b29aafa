/**
 * "Commit state unknown": the catalog may or may not have taken the commit (a timeout, a 5xx). Files the
 * commit would reference must then be kept — deleting them could corrupt a table that did commit.
 */
import { FloeError, isFloeError } from '../../src/errors.js';

export function commitStateUnknown(detail: string, cause?: unknown): FloeError {
  return new FloeError('Internal', `commit state unknown: ${detail}`, {
    cause,
    retryable: false,
    context: { commitStateUnknown: true },
  });
}

export function isCommitStateUnknown(e: unknown): boolean {
  return isFloeError(e) && e.context.commitStateUnknown === true;
}
