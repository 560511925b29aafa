/**
 * Writing floe's JSON result document (src/app/result.ts builds it): with `--json`, exactly one document on
 * standard output; progress and logs go to standard error.
 */
import type { ResultDocument } from '../../app/result.js';

// the document itself (resultDocument, errorDocument, RESULT_SCHEMA_ID, …) is src/app/result.ts; not
// re-exported here, so `floe --version` loads neither

/** Serialises one document as one JSON text plus a newline (the only thing `--json` writes to stdout). */
export function renderResult(doc: ResultDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * With `--json`, main.ts routes every other write to standard output (a library's stray log line) to
 * standard error, so standard output holds exactly the one result document written here.
 */
let resultSink: ((text: string) => void) | undefined;

export function writeStdout(text: string): void {
  if (resultSink) resultSink(text);
  else process.stdout.write(text);
}

/** Sends process.stdout writes to stderr until the returned function is called; writeStdout still reaches stdout. */
export function guardStdout(): () => void {
  const original = process.stdout.write;
  const real = original.bind(process.stdout);
  resultSink = (t) => {
    real(t);
  };
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) =>
    (process.stderr.write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(
      chunk,
      ...rest,
    )) as typeof process.stdout.write;
  return () => {
    process.stdout.write = original;
    resultSink = undefined;
  };
}
