/**
 * `floe scan <table>`: the live rows of a snapshot with every delete applied.
 *
 * Output: `--format jsonl` (default) writes one JSON object per row keyed by column name. Longs (and every
 * other 64-bit value) are written as exact JSON integers, even beyond 2^53 — parse them with a
 * BigInt-aware JSON reader if you need them exact. Dates, times and timestamps are ISO strings (timestamps
 * with microseconds, `+00:00` for timestamptz), decimals are strings, binary is hex, NaN and ±Infinity are the
 * strings "NaN", "Infinity", "-Infinity".
 * `--format csv` writes a header and RFC 4180 rows (NULL = empty field, nested values as JSON).
 * `--count` prints only the number of live rows.
 */
import type { Command } from 'commander';
import { FloeError } from '../../errors.js';
import { stringifyJsonLossless } from '../../util/json.js';
import { requireSnapshot } from '../../../connectors/iceberg/table.js';
import { countLiveRows, scanTable } from '../../../connectors/iceberg/scan.js';
import { displayValue } from '../../../connectors/iceberg/values.js';
import { addTableOptions, openTableForCli, type TableCliOptions } from './inspect.js';
import { paimonFileIO, paimonScanLines } from '../paimon-view.js';
import { detectTableFormat } from '../table-format.js';
import { createProgress, parseProgressMode } from '../progress.js';

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

function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : typeof v === 'object' ? stringifyJsonLossless(v) : String(v);
  return /[",\r\n]/.test(s) || s === '' ? `"${s.replace(/"/g, '""')}"` : s;
}

export async function writeScan(
  ref: string,
  opts: ScanCliOptions,
  write: (chunk: string) => void | Promise<void>,
): Promise<void> {
  const format = opts.format ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'csv')
    throw new FloeError('InvalidArgument', `--format must be jsonl or csv, not "${format}"`);
  if (!opts.catalog) {
    const files = paimonFileIO(opts.locationMap);
    try {
      if ((await detectTableFormat(ref, files)) === 'paimon') {
        let n = 0;
        const lines: string[] = [];
        for await (const line of paimonScanLines(ref, files, format, opts.snapshot)) {
          n++;
          if (opts.count) continue;
          lines.push(line);
          if (lines.length >= 1000) await write(`${lines.splice(0).join('\n')}\n`);
        }
        if (opts.count) await write(`${format === 'csv' ? n - 1 : n}\n`);
        else if (lines.length) await write(`${lines.join('\n')}\n`);
        return;
      }
    } finally {
      files.destroy();
    }
  }
  const table = await openTableForCli(ref, opts);
  const snapshotId = opts.snapshot ? requireSnapshot(table.metadata, opts.snapshot) : undefined;
  const scanOpts = snapshotId !== undefined ? { snapshotId } : {};
  if (opts.count) {
    await write(`${await countLiveRows(table, scanOpts)}\n`);
    return;
  }
  let headerDone = false;
  for await (const batch of scanTable(table, scanOpts)) {
    const lines: string[] = [];
    if (format === 'csv' && !headerDone) {
      lines.push(batch.fields.map((f) => csvField(f.name)).join(','));
      headerDone = true;
    }
    for (const row of batch.rows) {
      if (format === 'jsonl') {
        const o: Record<string, unknown> = {};
        batch.fields.forEach((f, i) => (o[f.name] = displayValue(f.type, row[i])));
        lines.push(stringifyJsonLossless(o));
      } else {
        lines.push(batch.fields.map((f, i) => csvField(displayValue(f.type, row[i]))).join(','));
      }
    }
    if (lines.length) await write(`${lines.join('\n')}\n`);
  }
}

export function register(program: Command): void {
  const cmd = program
    .command('scan')
    .description('Print the live rows of an Iceberg or Paimon table (all deletes applied, LSM runs merged)')
    .argument('<table>', 'table directory, s3:// location, metadata file, or <ns>.<table> with --catalog')
    .option('--snapshot <id>', 'read this snapshot (time travel) instead of the current one')
    .option('--count', 'print only the number of live rows')
    .option('--format <fmt>', 'jsonl (default) or csv', 'jsonl')
    .option(
      '--progress <mode>',
      'rows read so far, on stderr: auto (bar on a terminal, JSON lines otherwise), bar, json or none',
      'auto',
    );
  addTableOptions(cmd).action(async (ref: string, opts: ScanCliOptions) => {
    // `floe scan … | head` closes the pipe early: that is success, not a crash.
    process.stdout.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(0);
      throw e;
    });
    const progress = createProgress(process.stderr, { mode: parseProgressMode(opts.progress), command: 'scan' });
    progress.phase('scanning');
    try {
      await writeScan(ref, opts, (chunk) => {
        if (!opts.count) progress.count('rows', countLines(chunk));
        return new Promise<void>((resolve, reject) => {
          process.stdout.write(chunk, (err) => (err ? reject(err) : resolve()));
        });
      });
    } finally {
      progress.finish();
    }
  });
}
