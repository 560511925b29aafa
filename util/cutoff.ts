/**
 * `--older-than` values: an absolute time (ISO 8601 or epoch milliseconds) or a duration back from now
 * ("3d", "36h", "90m", "1d12h", "45s", "2w"). Both become an absolute cutoff in epoch milliseconds.
 */
import { FloeError } from './errors.js';
import { tryParseDurationMs } from './units.js';

/** Absolute cutoff for `--older-than`: durations count back from `nowMs`. */
export function parseCutoff(text: string, nowMs: number, option = '--older-than'): number {
  const d = tryParseDurationMs(text);
  if (d !== undefined) return nowMs - d;
  const bare = text.trim();
  if (/^\d+(\.\d+)?$/.test(bare)) {
    // a bare number is epoch milliseconds only when it has the digits of one (≥ 12: after 1973); "5" is a mistake
    if (/^\d{12,}$/.test(bare)) return Number(bare);
    throw new FloeError(
      'InvalidArgument',
      `${option}: "${text}" has no unit; write a duration back from now (${bare}d, ${bare}h, ${bare}min), an ISO time or epoch milliseconds`,
    );
  }
  const t = Date.parse(text);
  if (Number.isNaN(t)) {
    throw new FloeError(
      'InvalidArgument',
      `${option}: "${text}" is neither a duration (3d, 36h, 90m) nor an ISO time nor epoch milliseconds`,
    );
  }
  return t;
}

export function formatDuration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${ms}ms`;
}
