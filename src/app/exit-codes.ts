/**
 * floe's exit codes — a contract pipelines branch on (docs/usage.md "Exit codes"). The JSON result carries the
 * same number as `exitCode`.
 */
import { FloeError } from '../../util/errors.js';

export const EXIT = Object.freeze({
  /** Done (including "nothing to do" and dry runs). */
  ok: 0,
  /** Failed; nothing was committed (the table is as it was). */
  failed: 1,
  /** Bad arguments or options; nothing was read or written. */
  usage: 2,
  /**
   * Partial failure: something was committed, some task (with --partial-progress; without it a compaction
   * is all or nothing and exits 1) or some delete failed; re-run to finish.
   */
  partial: 3,
  /** The table is busy (another floe job holds its lease); retry later. Reserved (sysexits EX_TEMPFAIL). */
  busy: 75,
  /** Cancelled (SIGINT/SIGTERM) before anything was committed, or after the commit finished (the message says which). */
  cancelled: 130,
});

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Exit code for a FloeError (or anything thrown) that ended a command. */
export function exitCodeForError(err: unknown): ExitCode {
  if (err instanceof FloeError) {
    if (err.kind === 'InvalidArgument') return EXIT.usage;
    if (err.context.busy === true) return EXIT.busy;
    if (err.kind === 'Cancelled' || err.context.cancelled === true) return EXIT.cancelled;
  }
  if (err instanceof Error && err.name === 'AbortError') return EXIT.cancelled;
  return EXIT.failed;
}

/** A command that failed in part: 3 when something was committed, else 1. */
export function exitCodeForOutcome(failures: number, committedSomething: boolean): ExitCode {
  if (failures === 0) return EXIT.ok;
  return committedSomething ? EXIT.partial : EXIT.failed;
}
