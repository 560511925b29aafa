/**
 * The first step of a Paimon compaction (compact-paimon.ts): the table opened at the run's snapshot with
 * the run's option overrides layered over its own, and the report the later steps fill in.
 */
import { FloeError } from '../../../util/errors.js';
import type { PaimonIO } from '../../../connectors/paimon/io.js';
import { mergeEngineOf } from '../../../connectors/paimon/merge-engines.js';
import { openPaimonTable, type PaimonFile, type PaimonTable } from '../../../connectors/paimon/table.js';
import type { PaimonCompactOptions, PaimonCompactReport } from '../compact-paimon.js';

/** The table with `opts.options` layered over its options; `manifest.format` cannot be overridden. */
export async function openForCompaction(
  location: string,
  opts: PaimonCompactOptions,
  io: PaimonIO,
): Promise<PaimonTable> {
  const table = await openPaimonTable(location, {
    io,
    ...(opts.snapshotId !== undefined ? { snapshotId: opts.snapshotId } : {}), // [seam]
  });
  // the manifest format is a fact about the table's files (Java reads them in it), not something to override
  const fmt = (o: Record<string, string>) => (o['manifest.format'] ?? 'avro').toLowerCase();
  if (opts.options?.['manifest.format'] !== undefined && fmt(opts.options) !== fmt(table.schema.options)) {
    throw new FloeError(
      'InvalidArgument',
      `-o manifest.format=${opts.options['manifest.format']}: Paimon table ${table.location} has manifest.format=${fmt(table.schema.options)}, which an override cannot change`,
      {
        context: { table: table.location, option: 'manifest.format' },
      },
    );
  }
  table.schema = { ...table.schema, options: { ...table.schema.options, ...(opts.options ?? {}) } };
  return table;
}

/** The report before anything is planned: the table, its kind and size. */
export function startReport(table: PaimonTable, opts: PaimonCompactOptions): PaimonCompactReport {
  const pk = table.schema.primaryKeys.length > 0;
  const report: PaimonCompactReport = {
    table: table.location,
    tableKind: pk ? 'primary-key' : 'append',
    dryRun: !!opts.dryRun,
    full: !!opts.full,
    buckets: [],
    before: fileStats(table.files),
    rowsIn: 0,
    rowsOut: 0,
    bytesRead: 0,
    bytesWritten: 0,
    durationMs: 0,
  };
  if (pk) report.mergeEngine = mergeEngineOf(table.schema.options);
  if (opts.where !== undefined) report.where = opts.where;
  return report;
}

export function fileStats(files: readonly PaimonFile[]): { files: number; bytes: number; records: number } {
  return {
    files: files.length,
    bytes: files.reduce((n, f) => n + Number(f.meta.fileSize), 0),
    records: files.reduce((n, f) => n + Number(f.meta.rowCount), 0),
  };
}
