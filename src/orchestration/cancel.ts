/**
 * Cancelling a compaction job (`AbortSignal` in the job options): the job stops between row groups and
 * tasks, deletes the files it wrote and did not commit, and throws `cancelledError` — unless a commit had
 * already started, which is let finish (a half-published commit is worse than a late stop); the job then
 * returns its result with `cancelled` set, saying what was committed.
 *
 * The error is a FloeError of kind `Cancelled` (the CLI maps it to exit code 130), named `AbortError` for
 * callers that test names, with `context.cancelled === true` and `context.committed === false`.
 */
import { FloeError } from '../../util/errors.js';

export function cancelledError(table: string, removedFiles: number, reason?: unknown): FloeError {
  const why = reason instanceof Error ? reason.message : reason === undefined ? 'cancelled' : String(reason);
  const err = new FloeError(
    'Cancelled',
    `compaction of ${table} cancelled (${why}); nothing committed${removedFiles > 0 ? `, the ${removedFiles} file(s) it wrote were removed` : ''}`,
    { context: { table, cancelled: true, committed: false, removedFiles }, retryable: true },
  );
  err.name = 'AbortError';
  return err;
}

export function isCancelled(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
