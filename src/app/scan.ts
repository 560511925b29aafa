/**
 * The scan job (`floe scan <table>`): the live rows of a snapshot with every delete applied.
 *
 * Output: `--format jsonl` (default) writes one JSON object per row keyed by column name. Longs (and every
 * other 64-bit value) are written as exact JSON integers, even beyond 2^53 — parse them with a
 * BigInt-aware JSON reader if you need them exact. Dates, times and timestamps are ISO strings (timestamps
 * with microseconds, `+00:00` for timestamptz), decimals are strings, binary is hex, NaN and ±Infinity are the
 * strings "NaN", "Infinity", "-Infinity".
 * `--format csv` writes a header and RFC 4180 rows (NULL = empty field, nested values as JSON).
 * `--count` prints only the number of live rows.
 */
import { FloeError } from '../../util/errors.js';
import { stringifyJsonLossless } from '../../util/json.js';
import { requireSnapshot } from '../../connectors/iceberg/table.js';
import { countLiveRows, scanTable } from '../../connectors/iceberg/scan.js';
import { displayValue } from '../../connectors/iceberg/values.js';
import { fileIOFromEnv, openTableForRead, type TableReadOptions } from './open-table.js';
import { detectTableFormat } from './table-format.js';

export interface ScanTableOptions extends TableReadOptions {
  /** Read this snapshot (time travel) instead of the current one. */
  snapshot?: string;
  /** Only the number of live rows. */
  count?: boolean;
  /** jsonl (default) or csv. */
  format?: string;
}

function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : typeof v === 'object' ? stringifyJsonLossless(v) : String(v);
  return /[",\r\n]/.test(s) || s === '' ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Writes the rows as text chunks (each ends with a newline); `write` may return a promise for back-pressure. */
export async function writeTableScan(
  ref: string,
  opts: ScanTableOptions,
  write: (chunk: string) => void | Promise<void>,
): Promise<void> {
  const format = opts.format ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'csv')
    throw new FloeError('InvalidArgument', `--format must be jsonl or csv, not "${format}"`);
  if (!opts.catalog) {
    const files = fileIOFromEnv(opts.locationMap);
    try {
      if ((await detectTableFormat(ref, files)) === 'paimon') {
        let n = 0;
        const lines: string[] = [];
        const { paimonScanLines } = await import('./paimon-view.js');
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
  const table = await openTableForRead(ref, opts);
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
