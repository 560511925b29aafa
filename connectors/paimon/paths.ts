/**
 * Where Paimon puts data files: `<table>/<k1=v1/k2=v2/>bucket-<b>/<file>` (`FileStorePathFactory`,
 * `PartitionPathUtils`), unless the manifest carries an external path.
 */
import { joinPath } from './io.js';
import type { PaimonType } from './types.js';

export const DEFAULT_PARTITION_NAME = '__DEFAULT_PARTITION__';
export const POSTPONE_BUCKET = -2;

/** Characters Hive-style partition paths escape as %XX (upper-case hex). */
function needsEscape(code: number): boolean {
  return (code >= 0x01 && code <= 0x1f) || code === 0x7f || '"#%\'*/:=?\\{}[]^'.includes(String.fromCharCode(code));
}

export function escapePathName(s: string): string {
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    out += code < 0x80 && needsEscape(code) ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : ch;
  }
  return out;
}

const pad = (n: number | bigint, w: number) => String(n).padStart(w, '0');

function daysToIsoDate(days: number): string {
  return new Date(days * 86_400_000).toISOString().slice(0, 10);
}

/** Java `LocalDateTime.toString()`: seconds and fraction only when non-zero, fraction in 3-digit groups. */
function localDateTimeString(epochMicrosOrNanos: bigint, nanosPrecision: boolean): string {
  const perSecond = nanosPrecision ? 1_000_000_000n : 1_000_000n;
  let secs = epochMicrosOrNanos / perSecond;
  let frac = epochMicrosOrNanos % perSecond;
  if (frac < 0n) {
    frac += perSecond;
    secs -= 1n;
  }
  const nanos = nanosPrecision ? frac : frac * 1000n;
  const d = new Date(Number(secs) * 1000);
  let s = `${d.toISOString().slice(0, 10)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}`;
  if (d.getUTCSeconds() !== 0 || nanos !== 0n) {
    s += `:${pad(d.getUTCSeconds(), 2)}`;
    if (nanos !== 0n) {
      if (nanos % 1_000_000n === 0n) s += `.${pad(nanos / 1_000_000n, 3)}`;
      else if (nanos % 1000n === 0n) s += `.${pad(nanos / 1000n, 6)}`;
      else s += `.${pad(nanos, 9)}`;
    }
  }
  return s;
}

/**
 * The text Paimon puts in a partition directory name for a value. With `partition.legacy-name=true`
 * (the default) it is the internal value's toString (a DATE is its day number); otherwise the value cast
 * to STRING (a DATE is yyyy-MM-dd). Null or blank values become the default partition name.
 */
export function partitionValueText(value: unknown, type: PaimonType, legacyName: boolean, defaultName: string): string {
  if (value === null || value === undefined) return defaultName;
  let text: string;
  switch (type.root) {
    case 'DATE':
      text = legacyName ? String(value) : daysToIsoDate(Number(value));
      break;
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const iso = localDateTimeString(BigInt(value as bigint), (type.precision ?? 6) > 6);
      text = legacyName ? iso : iso.replace('T', ' ');
      break;
    }
    case 'BINARY':
    case 'VARBINARY':
      text = Buffer.from(value as Uint8Array).toString('utf8');
      break;
    default:
      text = String(value);
  }
  return text.trim() === '' ? defaultName : text;
}

export function partitionPath(
  keys: readonly string[],
  types: readonly PaimonType[],
  values: readonly unknown[],
  options: Record<string, string>,
): string {
  const legacy = (options['partition.legacy-name'] ?? 'true').toLowerCase() !== 'false';
  const defaultName = options['partition.default-name'] ?? DEFAULT_PARTITION_NAME;
  return keys
    .map(
      (k, i) => `${escapePathName(k)}=${escapePathName(partitionValueText(values[i], types[i]!, legacy, defaultName))}`,
    )
    .join('/');
}

export function bucketDirName(bucket: number): string {
  return bucket === POSTPONE_BUCKET ? 'bucket-postpone' : `bucket-${bucket}`;
}

export function dataFilePath(
  table: string,
  partitionDir: string,
  bucket: number,
  fileName: string,
  externalPath?: string,
): string {
  if (externalPath) return externalPath;
  return partitionDir
    ? joinPath(table, partitionDir, bucketDirName(bucket), fileName)
    : joinPath(table, bucketDirName(bucket), fileName);
}
