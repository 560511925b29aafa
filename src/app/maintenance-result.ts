/**
 * The result of the maintenance jobs (expire, remove-orphans, rewrite-manifests, expire-partitions): exit
 * code, the JSON result document (the report's fields and a summary), and the sizes the jobs did not know.
 */
import { countByKind, totalBytes, type MaintenanceReport } from './maintenance-report.js';
import { EXIT } from './exit-codes.js';
import { resultDocument, type ResultDocument } from './result.js';
import { headSizes, knownSize } from './store-progress.js';

/**
 * 0; or when some deletes failed: 3 if something was committed or deleted (expire and rewrite-manifests
 * commit their metadata before deleting anything; remove-orphans counts what it deleted), else 1.
 */
export function maintenanceExitCode(r: MaintenanceReport): number {
  if (r.failed.length === 0) return EXIT.ok;
  const committed = r.details.newMetadata !== undefined || r.details.committed === true || r.deleted.length > 0;
  return committed ? EXIT.partial : EXIT.failed;
}

export function maintenanceResultBody(r: MaintenanceReport): Record<string, unknown> {
  const { command: _command, ...fields } = r;
  return {
    ...fields,
    summary: {
      files: r.candidates.length,
      bytes: totalBytes(r.candidates),
      byKind: countByKind(r.candidates),
      deleted: r.deleted.length,
      failed: r.failed.length,
    },
  };
}

/** The floe-result/1 document of a maintenance report. */
export function maintenanceResult(r: MaintenanceReport): ResultDocument {
  return resultDocument(r.command, maintenanceExitCode(r), maintenanceResultBody(r));
}

/**
 * Sizes the job did not know (manifest lists, Paimon manifests and snapshot files are deleted by name):
 * looked up with one HEAD each, a few at a time, so the report never says "?" or "0 B" for a real file.
 */
const sizeUnknown = (c: MaintenanceReport['candidates'][number]) =>
  c.bytes === undefined || (c.bytes === 0 && c.kind !== 'data' && c.kind !== 'orphan');

/** How many candidates' sizes are not known from the plan (one HEAD each to look up). */
export function unknownSizeCount(r: MaintenanceReport): number {
  return r.candidates.filter(sizeUnknown).length;
}

export async function fillUnknownSizes(
  r: MaintenanceReport,
  io: { head(location: string): Promise<{ size: number }> },
): Promise<MaintenanceReport> {
  const unknown = r.candidates.filter(sizeUnknown);
  await headSizes(
    unknown,
    async (c) => (await io.head(c.location)).size,
    (c, size) => (c.bytes = size),
  );
  return r;
}

/**
 * The report with the sizes the job did not know: looked up now in a dry run; in a real run, the sizes the
 * CLI's observed store recorded just before deleting (store-progress.ts).
 */
export function sized(
  r: MaintenanceReport,
  io: { head(location: string): Promise<{ size: number }> },
): Promise<MaintenanceReport> {
  if (r.dryRun) return fillUnknownSizes(r, io);
  for (const c of r.candidates) {
    if (!sizeUnknown(c)) continue;
    const size = knownSize(io, c.location);
    if (size !== undefined) c.bytes = size;
  }
  return Promise.resolve(r);
}
