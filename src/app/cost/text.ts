/** The estimate (and measured) lines of the text output: `floe compact --dry-run|--explain`, expire, remove-orphans. */
import type { MeasuredRun, RunEstimate } from '../../../model/index.js';
import { formatBytes } from '../../../util/units.js';

function requestsText(r: RunEstimate['requests']): string {
  return `${r.get} GET, ${r.put} PUT, ${r.list} LIST, ${r.delete} DELETE, ${r.head} HEAD`;
}

function money(total: number, currency: string): string {
  return `${total < 0.01 ? total.toPrecision(2) : total.toFixed(2)} ${currency}`;
}

export function estimateLines(estimate: RunEstimate | undefined, measured?: MeasuredRun): string[] {
  if (!estimate) return [];
  const b = estimate.benefit;
  const lines = [
    `estimate: ${requestsText(estimate.requests)}; read ${formatBytes(estimate.bytesRead)}, write ${formatBytes(estimate.bytesWritten)}; ` +
      `${estimate.cpuSeconds.toFixed(2)} CPU-s; ${money(estimate.cost.total, estimate.cost.currency)} at ${estimate.cost.sheet}`,
  ];
  const gains: string[] = [];
  if (b.scanFileOpensSaved) gains.push(`${b.scanFileOpensSaved} file opens`);
  if (b.scanBytesSaved) gains.push(`${formatBytes(b.scanBytesSaved)} read`);
  if (b.deleteMergesSaved) gains.push(`${b.deleteMergesSaved} delete merges`);
  if (gains.length) lines.push(`benefit: a full scan saves ${gains.join(', ')}`);
  if (b.storageBytesFreed) lines.push(`benefit: frees ${formatBytes(b.storageBytesFreed)} of storage`);
  if (measured)
    lines.push(
      `measured: ${requestsText(measured.requests)}; read ${formatBytes(measured.bytesRead)}, write ${formatBytes(measured.bytesWritten)}; ` +
        `${measured.cpuSeconds.toFixed(2)} CPU-s; ${money(measured.cost.total, measured.cost.currency)}`,
    );
  return lines;
}
