/**
 * Pieces of the fault campaign (./campaign.test.ts):
 * - `runFloe`: the real `floe` command tree (src/shells/cli/commands) run in-process, with the exit code and the
 *   way it ended — a FloeError (clean) or anything else (a crash: never acceptable);
 * - `liveDigest`: sha256 over the sorted canonical lines of a table's live rows;
 * - in-memory table images uploaded/downloaded with floe's storage layer (every run starts from the same
 *   pristine copy of the table, at a fresh S3 prefix).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Command, CommanderError } from 'commander';
import { FloeError } from '../../util/errors.js';
import { registerAll } from '../../src/shells/cli/commands/index.js';
import { EXIT, exitCodeForError } from '../../src/app/exit-codes.js';
import type { FileIO } from '../../connectors/storage/file-io.js';
import { canonicalLine, type CanonicalRow } from '../oracles/index.js';

export interface FloeRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** What the command threw, if it threw. */
  error?: unknown;
  /** Ended by a FloeError or a non-zero exit it chose itself; false for a crash (TypeError, unhandled …). */
  clean: boolean;
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * `floe <args>` through the real command definitions, mapped to exit codes as src/shells/cli/main.ts does
 * (src/app/exit-codes.ts), but keeping what was thrown so a crash is told apart from a FloeError. Runs are
 * serialised: stdout/stderr are captured process-wide. `env` is set for the duration of the run.
 */
export function runFloe(args: string[], env: Record<string, string>): Promise<FloeRun> {
  const run = async (): Promise<FloeRun> => {
    const program = new Command().exitOverride();
    await registerAll(program);
    const out: string[] = [];
    const err: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    const writeErr = process.stderr.write.bind(process.stderr);
    const stdoutListeners = process.stdout.listeners('error');
    const savedExit = process.exitCode;
    const savedEnv: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(env)) {
      savedEnv[k] = process.env[k];
      process.env[k] = v;
    }
    const capture = (into: string[]) =>
      ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
        cb?.();
        return true;
      }) as typeof process.stdout.write;
    process.exitCode = 0;
    process.stdout.write = capture(out);
    process.stderr.write = capture(err);
    let error: unknown;
    let exitCode: number;
    try {
      await program.parseAsync(['node', 'floe', ...args]);
      exitCode = Number(process.exitCode ?? 0);
    } catch (e) {
      error = e;
      exitCode = e instanceof CommanderError ? EXIT.usage : exitCodeForError(e);
    } finally {
      process.stdout.write = write;
      process.stderr.write = writeErr;
      process.exitCode = savedExit;
      // `floe scan` adds an EPIPE listener to stdout per run
      for (const l of process.stdout.listeners('error'))
        if (!stdoutListeners.includes(l)) process.stdout.removeListener('error', l as never);
      for (const [k, v] of Object.entries(savedEnv)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    const clean = error === undefined || error instanceof FloeError;
    return { exitCode: exitCode!, stdout: out.join(''), stderr: err.join(''), error, clean };
  };
  const p = queue.then(run, run);
  queue = p.catch(() => undefined);
  return p;
}

export function digestLines(lines: Iterable<string>): string {
  const sorted = [...lines].sort();
  const h = createHash('sha256');
  for (const l of sorted) h.update(`${l}\n`);
  return `${sorted.length}:${h.digest('hex').slice(0, 16)}`;
}

/** sha256 of the sorted canonical lines (and the row count, for readable messages). */
export function liveDigest(rows: readonly CanonicalRow[]): string {
  return digestLines(rows.map(canonicalLine));
}

/** Every file under `dir` (relative path → bytes), skipping Hadoop's `.crc` siblings. */
export async function readImage(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const walk = async (d: string): Promise<void> => {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile() && !e.name.endsWith('.crc')) out.set(path.relative(dir, p), await fs.readFile(p));
    }
  };
  await walk(dir);
  return out;
}

export async function uploadImage(files: FileIO, image: Map<string, Buffer>, s3Prefix: string): Promise<void> {
  const entries = [...image];
  // a few at a time: a small table, and the server is shared with the rest of the tier
  for (let i = 0; i < entries.length; i += 8) {
    await Promise.all(
      entries.slice(i, i + 8).map(async ([rel, bytes]) => {
        const r = files.resolve(`${s3Prefix}/${rel}`);
        await r.store.put(r.key, bytes);
      }),
    );
  }
}

/** Keys under `s3Prefix`, relative to it. */
export async function listRelative(files: FileIO, s3Prefix: string): Promise<string[]> {
  const root = files.resolve(s3Prefix);
  const p = `${root.key.replace(/\/$/, '')}/`;
  const out: string[] = [];
  for await (const e of root.store.list(p)) out.push(e.key.slice(p.length));
  return out.sort();
}
