/**
 * What a destructive maintenance command deletes (or would delete, in a dry run): one line per file with
 * its size and the reason, plus a summary. The same structure is printed as text or as JSON.
 */
export interface DeletionCandidate {
  /** Full location as the table metadata / listing names it (after location mapping). */
  location: string;
  /** Size in bytes when known (from metadata or the listing). */
  bytes?: number;
  /** data, delete, manifest, manifest-list, statistics, metadata, orphan … */
  kind: string;
  reason: string;
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
  /** Locations actually deleted (empty in a dry run). */
  deleted: string[];
  failed: DeleteFailureReport[];
  /** Things the user must know: skipped cleanup and why, suspicious metadata … */
  warnings: string[];
  /** Command-specific facts (expired snapshot ids, new metadata file, counts …). */
  details: Record<string, unknown>;
}

export function newReport(command: string, table: string, dryRun: boolean): MaintenanceReport {
  return { command, table, dryRun, candidates: [], deleted: [], failed: [], warnings: [], details: {} };
}

export function totalBytes(candidates: readonly DeletionCandidate[]): number {
  return candidates.reduce((n, c) => n + (c.bytes ?? 0), 0);
}

export function countByKind(candidates: readonly DeletionCandidate[]): Record<string, { files: number; bytes: number }> {
  const out: Record<string, { files: number; bytes: number }> = {};
  for (const c of candidates) {
    const k = (out[c.kind] ??= { files: 0, bytes: 0 });
    k.files++;
    k.bytes += c.bytes ?? 0;
  }
  return out;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

function jsonSafe(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)));
}

export function reportToJson(r: MaintenanceReport): string {
  const summary = {
    files: r.candidates.length,
    bytes: totalBytes(r.candidates),
    byKind: countByKind(r.candidates),
    deleted: r.deleted.length,
    failed: r.failed.length,
  };
  return `${JSON.stringify(jsonSafe({ ...r, summary }), null, 2)}\n`;
}

export function reportToText(r: MaintenanceReport): string {
  const lines: string[] = [];
  const verb = r.dryRun ? 'would delete' : 'delete';
  for (const c of r.candidates) {
    const size = c.bytes === undefined ? '?' : formatBytes(c.bytes);
    lines.push(`${verb}\t${c.kind}\t${size}\t${c.location}\t(${c.reason})`);
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
    lines.push(`${head}dry run — ${r.candidates.length} files, ${formatBytes(totalBytes(r.candidates))} would be deleted${kinds ? `: ${kinds}` : ''}; nothing was changed`);
  } else {
    lines.push(`${head}${r.deleted.length} of ${r.candidates.length} files deleted (${formatBytes(totalBytes(r.candidates))})${kinds ? `: ${kinds}` : ''}${r.failed.length ? `; ${r.failed.length} failed (re-run to retry)` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
