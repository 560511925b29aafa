/**
 * floe command line (the executable is main.ts). Only the command being run is loaded (src/shells/cli/commands/index.ts). Exit codes are
 * src/app/exit-codes.ts (docs/usage.md "Exit codes"): commander's own argument errors are usage errors (2) too.
 * With `--json`, a command that fails still prints one result document (with `error`) on standard output.
 */
import { Command, CommanderError } from 'commander';
import { COMMANDS, registerCommand, registerSummaries } from './commands/index.js';
import { EXIT, exitCodeForError } from '../../app/exit-codes.js';
import { commandName } from './command-name.js';
import { guardStdout, renderResult, writeStdout } from './result.js';
import { exitQuietlyOnClosedOutput, isClosedPipe } from './closed-stdout.js';

// The AWS SDK warns on every S3 command under Node 20 (its support ends 2027-01); floe supports Node ≥ 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const FLOE_VERSION = '0.1.0';

export async function run(
  argv: readonly string[],
  out: { stdout: (t: string) => void; stderr: (t: string) => void } = {
    stdout: writeStdout,
    stderr: (t) => process.stderr.write(t),
  },
): Promise<number> {
  const args = argv.slice(2);
  const { name, path } = commandName(args);
  process.exitCode = undefined;
  const json = args.includes('--json');
  if ((args.includes('--version') || args.includes('-V')) && args.includes('--verbose')) {
    const { verboseVersion } = await import('./version.js');
    out.stdout(verboseVersion(FLOE_VERSION));
    return EXIT.ok;
  }
  const program = new Command();
  program
    .name('floe')
    .description('Self-optimizing table maintenance for Apache Iceberg and Apache Paimon')
    .version(FLOE_VERSION)
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: out.stdout, writeErr: out.stderr });
  if (name !== undefined && name in COMMANDS) await registerCommand(program, name);
  else registerSummaries(program);
  // with --json, stdout carries the result document only (writeStdout); anything else written there goes to stderr
  const unguard = json ? guardStdout() : () => {};
  try {
    await program.parseAsync([...argv]);
    return Number(process.exitCode ?? 0);
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and --version exit 0; every argument error commander finds is a usage error
      const code = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      if (code !== EXIT.ok && json) {
        const { errorDocument } = await import('../../app/result.js');
        out.stdout(
          renderResult(
            errorDocument(path || 'floe', code, {
              kind: 'InvalidArgument',
              message: err.message.replace(/^error: /, ''),
            }),
          ),
        );
      }
      return code;
    }
    // the reader went away (`| head`): nothing to say to it, and nothing went wrong
    if (isClosedPipe(err)) return EXIT.ok;
    const code = exitCodeForError(err);
    const e = err as { kind?: string; message?: string; stack?: string };
    const reported = (err as { context?: { reported?: boolean } }).context?.reported === true;
    if (reported) {
      // the command already said what happened (e.g. "cancelled, nothing committed")
    } else if (code === EXIT.cancelled) out.stderr(`floe: ${e.message ?? String(err)}\n`);
    else if (typeof e.kind === 'string') out.stderr(`floe: ${e.kind}: ${e.message}\n`);
    else out.stderr(`floe: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    if (process.env.FLOE_DEBUG && e.stack) out.stderr(`${e.stack}\n`);
    if (json) {
      // loaded only when a --json command fails: `floe --version` stays a handful of modules
      const { errorDocument } = await import('../../app/result.js');
      out.stdout(renderResult(errorDocument(path || 'floe', code, err)));
    }
    return code;
  } finally {
    unguard();
  }
}

/** Runs the command line of this process and sets its exit code (main.ts, once the process is set up). */
export function runMain(): void {
  exitQuietlyOnClosedOutput();
  run(process.argv).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      if (isClosedPipe(err)) return;
      process.stderr.write(`floe: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = EXIT.failed;
    },
  );
}
