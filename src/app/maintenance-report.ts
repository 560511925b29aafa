/**
 * Printing a maintenance report (model/maintenance-report.ts) as text or JSON.
 */
import {
  countByKind,
  totalBytes,
  type DeletionCandidate,
  type MaintenanceReport,
} from '../../model/maintenance-report.js';

export * from '../../model/maintenance-report.js';
/** One implementation for the project: util/units.ts. */
export { formatBytes } from '../../util/units.js';
import { formatBytes } from '../../util/units.js';

function jsonSafe(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)));
}

export function reportToJson(r: MaintenanceReport): string {
  const summary = {
    files: r.candidates.length,
    bytes: totalBytes(r.candidates),
    byKind: countByKind(r.candidates),
    deleted: r.deleted.length,
    skipped: r.skipped.length,
    failed: r.failed.length,
  };
  return `${JSON.stringify(jsonSafe({ ...r, summary }), null, 2)}\n`;
}

export function reportToText(r: MaintenanceReport): string {
  const lines: string[] = [];
  const verb = r.dryRun ? 'would delete' : 'delete';
  const seenAs = (c: DeletionCandidate) =>
    c.metadataLocation !== undefined ? `; metadata names ${c.metadataLocation}` : '';
  for (const c of r.candidates) {
    const size = c.bytes === undefined ? '?' : formatBytes(c.bytes);
    lines.push(`${verb}\t${c.kind}\t${size}\t${c.location}\t(${c.reason}${seenAs(c)})`);
  }
  for (const c of r.skipped) {
    const size = c.bytes === undefined ? '?' : formatBytes(c.bytes);
    lines.push(`skip\t${c.kind}\t${size}\t${c.location}\t(not deleted: ${c.refused}${seenAs(c)})`);
  }
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  for (const f of r.failed) lines.push(`failed: ${f.location}: ${f.error}`);
  for (const [k, v] of Object.entries(r.details)) {
    lines.push(`${k}: ${typeof v === 'object' ? JSON.stringify(jsonSafe(v)) : String(v)}`);
  }
  const kinds = Object.entries(countByKind(r.candidates))
    .map(([k, v]) => `${v.files} ${k} (${formatBytes(v.bytes)})`)
    .join(', ');
  const head = `${r.command} ${r.table}: `;
  if (r.dryRun) {
    lines.push(
      `${head}dry run — ${r.candidates.length} files, ${formatBytes(totalBytes(r.candidates))} would be deleted${kinds ? `: ${kinds}` : ''}; nothing was changed`,
    );
  } else {
    lines.push(
      `${head}${r.deleted.length} of ${r.candidates.length} files deleted (${formatBytes(totalBytes(r.candidates))})${kinds ? `: ${kinds}` : ''}${r.failed.length ? `; ${r.failed.length} failed (re-run to retry)` : ''}`,
    );
  }
  if (r.skipped.length > 0) {
    lines.push(
      `${head}${r.skipped.length} file(s) the plan names were not deleted because they are not the table's to delete (listed as "skip" above)`,
    );
  }
  return `${lines.join('\n')}\n`;
}
