/**
 * What a destructive maintenance command deletes (or would delete, in a dry run): one line per file with
 * its size and the reason, plus a summary. The same structure is printed as text or as JSON.
 */
export interface DeletionCandidate {
  /**
   * Where the file really is — normalised and after `--location-map` / a relocated table's mapping: the
   * object floe reads and deletes.
   */
  location: string;
  /** The location as the table metadata writes it, when the mapping changed it (relocated tables). */
  metadataLocation?: string;
  /** Size in bytes when known (from metadata or the listing). */
  bytes?: number;
  /** data, delete, manifest, manifest-list, statistics, metadata, orphan … */
  kind: string;
  reason: string;
}

/** A file the plan would delete but floe refused to, because it is not the table's to delete. */
export interface SkippedDeletion extends DeletionCandidate {
  /** Why it was not deleted (e.g. outside the table's locations, a relative path). */
  refused: string;
}

export interface DeleteFailureReport {
  location: string;
  error: string;
}

export interface MaintenanceReport {
  command: string;
  table: string;
  dryRun: boolean;
  /** Everything chosen for deletion, in a stable order. */
  candidates: DeletionCandidate[];
  /**
   * Chosen by the plan but not deleted, in dry runs and real runs alike: outside the table's locations
   * (unless the user allowed that) or not an absolute location.
   */
  skipped: SkippedDeletion[];
  /** Locations actually deleted (empty in a dry run). */
  deleted: string[];
  failed: DeleteFailureReport[];
  /** Things the user must know: skipped cleanup and why, suspicious metadata … */
  warnings: string[];
  /** Command-specific facts (expired snapshot ids, new metadata file, counts …). */
  details: Record<string, unknown>;
}

export function newReport(command: string, table: string, dryRun: boolean): MaintenanceReport {
  return { command, table, dryRun, candidates: [], skipped: [], deleted: [], failed: [], warnings: [], details: {} };
}

export function totalBytes(candidates: readonly DeletionCandidate[]): number {
  return candidates.reduce((n, c) => n + (c.bytes ?? 0), 0);
}

export function countByKind(
  candidates: readonly DeletionCandidate[],
): Record<string, { files: number; bytes: number }> {
  const out: Record<string, { files: number; bytes: number }> = {};
  for (const c of candidates) {
    const k = (out[c.kind] ??= { files: 0, bytes: 0 });
    k.files++;
    k.bytes += c.bytes ?? 0;
  }
  return out;
}

/** One implementation for the project: src/util/units.ts. */
export { formatBytes } from '../util/units.js';
import { formatBytes } from '../util/units.js';

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
