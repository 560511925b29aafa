/**
 * A reader that stops reading (`floe … | head`, a closed socket) is not an error: the command's output was
 * wanted up to that point. Every write to a closed pipe fails with EPIPE, as an 'error' event on the stream
 * and as the callback's error; both end the process quietly with exit 0, as `scan | head` always did.
 */

/** Whether an error is a write to a closed pipe (or to a stream already ended because of one). */
export function isClosedPipe(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED';
}

/** Installs the handlers once, for the process's own stdout and stderr (called by main.ts's entry point). */
export function exitQuietlyOnClosedOutput(
  streams: NodeJS.WriteStream[] = [process.stdout, process.stderr],
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  for (const s of streams)
    s.on('error', (e: NodeJS.ErrnoException) => {
      if (isClosedPipe(e)) exit(0);
      else throw e;
    });
}
