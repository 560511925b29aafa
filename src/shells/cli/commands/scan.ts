/**
 * `floe scan <table>`: the live rows of a snapshot with every delete applied. The job (and the output
 * format: jsonl or csv, `--count`) is src/app/scan.ts; this module parses the command line and streams.
 */
import type { Command } from 'commander';
import { addTableOptions, type TableCliOptions } from './inspect.js';
import { writeTableScan } from '../../../app/scan.js';
import { createProgress, parseProgressMode, PROGRESS_HELP } from '../progress.js';

export { writeTableScan as writeScan } from '../../../app/scan.js';

function countLines(chunk: string): number {
  let n = 0;
  for (let i = chunk.indexOf('\n'); i >= 0; i = chunk.indexOf('\n', i + 1)) n++;
  return n;
}

interface ScanCliOptions extends TableCliOptions {
  progress?: string;
  snapshot?: string;
  count?: boolean;
  format?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('scan')
    .description('Print the live rows of an Iceberg or Paimon table (all deletes applied, LSM runs merged)')
    .argument('<table>', 'table directory, s3:// location, metadata file, or <ns>.<table> with --catalog')
    .option('--snapshot <id>', 'read this snapshot (time travel) instead of the current one')
    .option('--count', 'print only the number of live rows')
    .option('--format <fmt>', 'jsonl (default) or csv', 'jsonl')
    .option('--progress <mode>', `rows read so far; ${PROGRESS_HELP}`, 'auto');
  addTableOptions(cmd).action(async (ref: string, opts: ScanCliOptions) => {
    const progress = createProgress(process.stderr, { mode: parseProgressMode(opts.progress), command: 'scan' });
    progress.phase('scanning');
    try {
      await writeTableScan(ref, opts, (chunk) => {
        if (!opts.count) progress.count('rows', countLines(chunk));
        return new Promise<void>((resolve, reject) => {
          process.stdout.write(chunk, (err) => (err ? reject(err) : resolve()));
        });
      });
    } catch (e) {
      progress.abort();
      throw e;
    }
    progress.finish();
  });
}
