/**
 * The result of a maintenance command (expire, remove-orphans, rewrite-manifests, expire-partitions), shared
 * by the format connectors that produce it and the shells that print it (src/maintenance/report.ts).
 *
 * What a destructive maintenance command deletes (or would delete, in a dry run): one line per file with
 * its size and the reason, plus a summary. The same structure is printed as text or as JSON.
 */
import type { MeasuredRun, RunEstimate } from './run-figures.js';

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
  /** What the run was predicted to cost and buy (src/app/cost), set by the app layer. */
  estimate?: RunEstimate;
  /** What a real run asked of storage and the CPU it used. */
  measured?: MeasuredRun;
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
