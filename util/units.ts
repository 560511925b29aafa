/**
 * Durations and sizes, one grammar for the whole project (CLI flags, table options, service config).
 *
 * Durations follow Paimon's TimeUtils names and extend them: one or more `<number><unit>` parts, spaces
 * allowed ("1d12h", "2w", "1.5h", "30 min", "1 h", "500ms"). Units: ns, us/µs, ms/milli(s)/millisecond(s),
 * s/sec(s)/second(s), m/min(s)/minute(s), h/hour(s), d/day(s), w/week(s).
 * Sizes are 1024-based as in Paimon's MemorySize and Spark: b/bytes, k/kb/kib, m/mb/mib, g/gb/gib, t/tb/tib, p/pb/pib.
 *
 * A bare number is ambiguous on a command line ("--older-than 5", "--target-size 1"), so it is refused
 * unless the caller names what it means (`bare: 'ms'` for Paimon table options, whose bare numbers are ms).
 */
import { FloeError } from './errors.js';

const DURATION_UNITS: [RegExp, number][] = [
  [/^(ns|nano|nanos|nanosecond|nanoseconds)$/, 1e-6],
  [/^(us|µs|micro|micros|microsecond|microseconds)$/, 1e-3],
  [/^(ms|milli|millis|millisecond|milliseconds)$/, 1],
  [/^(s|sec|secs|second|seconds)$/, 1000],
  [/^(m|min|mins|minute|minutes)$/, 60_000],
  [/^(h|hr|hrs|hour|hours)$/, 3_600_000],
  [/^(d|day|days)$/, 86_400_000],
  [/^(w|week|weeks)$/, 7 * 86_400_000],
];

const SIZE_UNITS: [RegExp, number][] = [
  [/^(b|byte|bytes)$/, 1],
  [/^(k|kb|kib|kibibytes?)$/, 1024],
  [/^(m|mb|mib|mebibytes?)$/, 1024 ** 2],
  [/^(g|gb|gib|gibibytes?)$/, 1024 ** 3],
  [/^(t|tb|tib|tebibytes?)$/, 1024 ** 4],
  [/^(p|pb|pib|pebibytes?)$/, 1024 ** 5],
];

const NUMBER = /^\d+(?:\.\d+)?$/;

function unitFactor(units: [RegExp, number][], unit: string): number | undefined {
  const u = unit.toLowerCase();
  for (const [re, f] of units) if (re.test(u)) return f;
  return undefined;
}

export interface UnitParseOptions {
  /** What a bare number means; undefined (the default) refuses bare numbers. */
  bare?: 'ms' | 'b' | 'mb';
  /** Names the flag or option in the error ("--older-than", "table option snapshot.time-retained"). */
  what?: string;
}

/** Milliseconds for a duration, or undefined when the text is not a duration (a bare number is not, unless `bare`). */
export function tryParseDurationMs(text: string, bare?: 'ms'): number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if (NUMBER.test(t)) return bare === 'ms' ? Math.round(Number(t)) : undefined;
  const parts = /^(?:\s*\d+(?:\.\d+)?\s*[a-zµ]+)+\s*$/i;
  if (!parts.test(t)) return undefined;
  let total = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)\s*([a-zµ]+)/gi)) {
    const f = unitFactor(DURATION_UNITS, m[2]!);
    if (f === undefined) return undefined;
    total += Number(m[1]) * f;
  }
  return Number.isFinite(total) ? Math.round(total) : undefined;
}

/** Milliseconds for a duration; throws InvalidArgument (naming `what`) otherwise. */
export function parseDurationMs(text: string, o: UnitParseOptions = {}): number {
  const ms = tryParseDurationMs(text, o.bare === 'ms' ? 'ms' : undefined);
  if (ms !== undefined) return ms;
  const what = o.what ? `${o.what}: ` : '';
  if (NUMBER.test(text.trim())) {
    throw new FloeError(
      'InvalidArgument',
      `${what}"${text}" has no unit; write e.g. ${text.trim()}d, ${text.trim()}h, ${text.trim()}min or ${text.trim()}ms`,
    );
  }
  throw new FloeError(
    'InvalidArgument',
    `${what}"${text}" is not a duration (e.g. 5d, 36h, 1d12h, 1.5h, 30 min, 2w, 500ms)`,
  );
}

/** Bytes for a size ("128MB", "512m", "1GiB", "1.5 g"); throws InvalidArgument (naming `what`) otherwise. */
export function parseSizeBytes(text: string, o: UnitParseOptions = {}): number {
  const what = o.what ? `${o.what}: ` : '';
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (m) {
    const unit = m[2]!;
    if (unit === '' && o.bare === undefined) {
      throw new FloeError(
        'InvalidArgument',
        `${what}"${text}" has no unit; write e.g. ${m[1]}MB, ${m[1]}KB, ${m[1]}GB or ${m[1]}B`,
      );
    }
    const f = unit === '' ? (o.bare === 'mb' ? 1024 ** 2 : 1) : unitFactor(SIZE_UNITS, unit);
    if (f !== undefined) {
      const bytes = Number(m[1]) * f;
      if (Number.isFinite(bytes) && bytes <= Number.MAX_SAFE_INTEGER) return Math.floor(bytes);
    }
  }
  throw new FloeError('InvalidArgument', `${what}"${text}" is not a size (e.g. 128MB, 512m, 1GiB, 64 KB, 100B)`);
}

/** A size where a bare number means bytes (`--target-size 134217728`, job specs). */
export function parseSize(text: string): number {
  return parseSizeBytes(text, { bare: 'b' });
}

/** The smallest target size floe accepts on the command line without `--force`. */
export const MIN_TARGET_SIZE_BYTES = 1024 * 1024;

/** A target size from a flag: a size with a unit, at least 1 MiB unless `force`. */
export function parseTargetSize(text: string, what: string, force: boolean): number {
  const bytes = parseSizeBytes(text, { what });
  if (bytes <= 0) throw new FloeError('InvalidArgument', `${what}: must be more than 0 bytes`);
  if (bytes < MIN_TARGET_SIZE_BYTES && !force) {
    throw new FloeError(
      'InvalidArgument',
      `${what}: ${formatBytes(bytes)} is below ${formatBytes(MIN_TARGET_SIZE_BYTES)}, which would write very small files; add --force if you mean it`,
    );
  }
  return bytes;
}

const IEC = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
/** Paimon's own spelling of the same 1024-based units ("30 MB"), kept where Paimon output is mirrored. */
const PAIMON = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];

export interface FormatBytesOptions {
  /** 'iec' (default): "1.5 KiB"; 'paimon': "1.5 KB" as Paimon's MemorySize prints. */
  units?: 'iec' | 'paimon';
  /** 'fixed1' (default): one decimal; 'trim': up to two decimals, trailing zeros dropped; 'sig3': three significant digits. */
  precision?: 'fixed1' | 'trim' | 'sig3';
}

/** Sizes as Paimon prints them ("30 MB", "1.5 GB", "700 B"): the universal planner's decision trail. */
export const PAIMON_BYTES: FormatBytesOptions = Object.freeze({ units: 'paimon', precision: 'trim' });

/** Bytes for people: 5 B, 1.0 KiB, 128.0 MiB. Unknown sizes (undefined) print as "?". */
export function formatBytes(n: number | bigint | undefined, o: FormatBytesOptions = {}): string {
  if (n === undefined) return '?';
  const names = o.units === 'paimon' ? PAIMON : IEC;
  let v = Number(n);
  let u = 0;
  while (Math.abs(v) >= 1024 && u < names.length - 1) {
    v /= 1024;
    u++;
  }
  const precision = o.precision ?? 'fixed1';
  let text: string;
  if (precision === 'trim') text = Number.isInteger(v) ? String(v) : v.toFixed(2).replace(/\.?0+$/, '');
  else if (u === 0) text = String(Math.round(v));
  else if (precision === 'sig3')
    text = Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
  else text = v.toFixed(1);
  return `${text} ${names[u]}`;
}

/** 5400000 → "1h 30m (5400000 ms)": readable, with the exact number kept. */
export function describeDuration(ms: number): string {
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  const parts: string[] = [];
  let rest = Math.max(0, Math.round(ms));
  for (const [u, size] of units) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)}${u}`);
      rest %= size;
    }
  }
  return `${parts.length ? parts.join(' ') : `${Math.round(ms)} ms`}${parts.length ? ` (${Math.round(ms)} ms)` : ''}`;
}

/**
 * A size with a 1024-based unit (Paimon MemorySize: "mb" = MiB). A bare number means `defaultUnit`
 * (bytes for Paimon options, as MemorySize.parse does).
 */
export function parseMemorySize(text: string, defaultUnit: 'b' | 'mb' = 'b'): number {
  return parseSizeBytes(text, { bare: defaultUnit });
}
