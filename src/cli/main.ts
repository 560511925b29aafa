#!/usr/bin/env node
/** floe command line: one sub-command per module in ./commands (each exports `register`). */
import { Command } from 'commander';
import { FloeError } from '../errors.js';
import { registerAll } from './commands/index.js';

const program = new Command();
program
  .name('floe')
  .description('Self-optimizing table maintenance for Apache Iceberg and Apache Paimon')
  .version('0.1.0')
  .showHelpAfterError();

registerAll(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof FloeError) {
    process.stderr.write(`floe: ${err.kind}: ${err.message}\n`);
    if (process.env.FLOE_DEBUG) process.stderr.write(`${err.stack ?? ''}\n`);
    process.exitCode = err.kind === 'InvalidArgument' ? 2 : 1;
  } else {
    process.stderr.write(`floe: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  }
});
