/** The text view of a Paimon inspect report (src/app/paimon-view.ts builds it). */
import type { PaimonInspectReport } from '../../app/paimon-view.js';
import { stringifyJsonLossless } from '../../../util/json.js';
import { formatBytes } from '../../../util/units.js';

export { buildPaimonInspect, paimonScanLines, snapshotIdArg, type PaimonInspectReport } from '../../app/paimon-view.js';
export { fileIOFromEnv as paimonFileIO } from '../../app/open-table.js';

export function renderPaimonInspect(r: PaimonInspectReport): string {
  const mb = formatBytes;
  const h = r.health;
  const out = [
    `table            ${r.location}`,
    `format           Paimon (${r.primaryKeys.length ? `primary key ${r.primaryKeys.join(', ')}` : 'append table'})`,
    `snapshot         ${r.snapshotId ?? 'none'} (${r.snapshots} snapshots)`,
    `columns          ${r.columns.map((c) => c.name).join(', ')}`,
    '',
    `data files: fragment ${h.data.fragment.files}, undersized ${h.data.undersized.files}, target ${h.data.target.files}; deletion vectors ${h.deletes.deletionVector.files}`,
    `buckets (${r.buckets.length}) — sorted runs newest first:`,
  ];
  for (const b of r.buckets.slice(0, 50)) {
    const part = stringifyJsonLossless(b.partition);
    out.push(
      `  ${part} bucket-${b.bucket}: ${b.runs.map((x) => `L${x.level}:${mb(x.bytes)}${x.files > 1 ? `(${x.files} files)` : ''}`).join(' ')}`,
    );
  }
  if (r.buckets.length > 50) out.push(`  … ${r.buckets.length - 50} more (use --json)`);
  out.push('', `health score     ${h.score.toFixed(1)} / 100`);
  return out.join('\n');
}
