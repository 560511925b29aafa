/**
 * `--older-than` values: an absolute time (ISO 8601 or epoch milliseconds) or a duration back from now
 * ("3d", "36h", "90m", "1d12h", "45s", "2w"). Both become an absolute cutoff in epoch milliseconds.
 */
import { FloeError } from '../errors.js';

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** "1d12h" → 129600000; undefined when the text is not a duration. */
export function parseDurationMs(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d|w))+$/.test(t)) return undefined;
  let total = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)) total += Number(m[1]) * UNIT_MS[m[2]!]!;
  return Math.round(total);
}

/** Absolute cutoff for `--older-than`: durations count back from `nowMs`. */
export function parseCutoff(text: string, nowMs: number, option = '--older-than'): number {
  const d = parseDurationMs(text);
  if (d !== undefined) return nowMs - d;
  if (/^\d{10,}$/.test(text.trim())) return Number(text.trim());
  const t = Date.parse(text);
  if (Number.isNaN(t)) {
    throw new FloeError('InvalidArgument', `${option}: "${text}" is neither a duration (3d, 36h, 90m) nor an ISO time nor epoch milliseconds`);
  }
  return t;
}

export function formatDuration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${ms}ms`;
}
