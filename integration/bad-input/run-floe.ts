/**
 * Runs one floe command in this process as src/shells/cli/main.ts does (the same command modules, the same
 * mapping of errors to exit codes) while capturing what it prints. A thrown value that is not a FloeError is
 * what main.ts would print with a stack trace: reported as a crash.
 */
import { Command, CommanderError } from 'commander';
import { FloeError } from '../../util/errors.js';
import { register as registerCompact } from '../../src/shells/cli/commands/compact.js';
import { register as registerExpire } from '../../src/shells/cli/commands/expire.js';
import { register as registerInspect } from '../../src/shells/cli/commands/inspect.js';
import { register as registerScan } from '../../src/shells/cli/commands/scan.js';

export interface FloeRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Set when floe failed with something other than a FloeError (main.ts prints its stack). */
  crash?: string;
}

export async function runFloeInProcess(args: string[]): Promise<FloeRun> {
  let stdout = '';
  let stderr = '';
  const program = new Command();
  program
    .name('floe')
    .exitOverride()
    .configureOutput({ writeOut: (s) => void (stdout += s), writeErr: (s) => void (stderr += s) });
  // the commands the corpus runs, registered as src/shells/cli/commands/index.ts registers them
  for (const register of [registerInspect, registerScan, registerCompact, registerExpire]) register(program);
  const out = process.stdout.write;
  const err = process.stderr.write;
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    cb?.();
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    cb?.();
    return true;
  }) as typeof process.stdout.write;
  process.exitCode = undefined;
  try {
    await program.parseAsync(['node', 'floe', ...args]);
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } catch (e) {
    if (e instanceof FloeError) {
      stderr += `floe: ${e.kind}: ${e.message}\n`;
      return { code: e.kind === 'InvalidArgument' ? 2 : 1, stdout, stderr };
    }
    if (e instanceof CommanderError) return { code: e.exitCode, stdout, stderr };
    const crash = e instanceof Error ? (e.stack ?? e.message) : String(e);
    return { code: 1, stdout, stderr: `${stderr}floe: ${crash}\n`, crash };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    process.exitCode = undefined;
  }
}
