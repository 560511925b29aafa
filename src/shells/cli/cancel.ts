/**
 * Ctrl-C and SIGTERM for long commands: the first signal aborts the job through its AbortSignal (it stops
 * at the next safe point and removes the files it wrote if nothing was committed); a second one exits at once.
 */
import { EXIT } from '../../app/exit-codes.js';

export interface Cancellation {
  signal: AbortSignal;
  readonly cancelled: boolean;
  /** Which signal cancelled the command, for the message. */
  readonly by: string | undefined;
  dispose(): void;
}

/**
 * `stoppable: false` for a job that does not take the signal yet (Paimon compaction): the first Ctrl-C says
 * the job will finish what it started, the second exits at once.
 */
export function onInterrupt(
  stderr: { write(t: string): unknown } = process.stderr,
  o: { stoppable?: boolean } = {},
): Cancellation {
  const controller = new AbortController();
  let by: string | undefined;
  const handler = (sig: NodeJS.Signals) => {
    if (by !== undefined) {
      stderr.write(`\nfloe: ${sig} again — exiting now; files this run wrote may be left for remove-orphans\n`);
      process.exit(EXIT.cancelled);
    }
    by = sig;
    stderr.write(
      o.stoppable === false
        ? `\nfloe: ${sig} — this job cannot stop part-way yet; it finishes and commits what it started (press Ctrl-C again to exit at once)\n`
        : `\nfloe: ${sig} — cancelling (stopping at the next safe point; press Ctrl-C again to exit at once)\n`,
    );
    const err = new Error(`cancelled by ${sig}`);
    err.name = 'AbortError';
    controller.abort(err);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    get cancelled() {
      return by !== undefined;
    },
    get by() {
      return by;
    },
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
