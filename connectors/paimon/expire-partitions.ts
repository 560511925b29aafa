/**
 * `floe expire-partitions <paimon-table>`: Paimon's PartitionExpire with the `values-time` strategy, as a
 * one-off run (so `partition.expiration-check-interval` does not apply).
 * - A partition's time comes from its values: the first partition value, or `partition.timestamp-pattern`
 *   with `$<key>` replaced by each key's value; parsed with `partition.timestamp-formatter` (a Java
 *   DateTimeFormatter pattern) or Paimon's default `y-M-d[ H:m:s[.f]]` (lenient: month 13 rolls over).
 *   A time with no clock part is midnight. A partition expires when now − `partition.expiration-time` is
 *   strictly after its time, both read as local wall-clock time (Java compares LocalDateTimes).
 *   A value that does not parse, or a null (default-partition) value, never expires (Java only warns).
 * - At most `partition.expiration-max-num` (100) partitions per run, the first by their values joined with
 *   "," (Java's order); `partition.expiration-batch-size` splits them into several commits.
 * - The drop is one OVERWRITE snapshot per batch whose delta holds a DELETE entry for every live file of
 *   the expired partitions (FileStoreCommitImpl.dropPartitions). No file is deleted: snapshot expiry does
 *   that once no retained snapshot or tag reads them. Published by the compaction committer
 *   (commit-compact.ts: create-if-absent, read-back, rebase); a file appended to an expired partition
 *   meanwhile abandons the commit rather than leave the partition half dropped.
 */
import { FloeError } from '../../util/errors.js';
import { parseDurationMs } from '../../util/units.js';
import { decodeSerializedRow } from './binary-row.js';
import { commitPaimonSnapshot } from './commit-compact.js';
import { FILE_KIND_DELETE, assertManifestWritable, type ManifestEntry } from './manifest.js';
import { readSnapshot } from './metadata.js';
import { partitionFields, type PaimonFile, type PaimonTable } from './table.js';
import type { PaimonField } from './types.js';
import type { PaimonWriteIO } from './io.js';
import type { NewManifestEntry } from './write-manifest.js';
import { partitionHex } from './keys.js';

export interface ExpirePartitionsOptions {
  /** Replaces the table's `partition.expiration-time`. */
  expirationTime?: string;
  /** Local wall-clock "now" as epoch millis; default the machine's clock in its time zone. */
  nowMs?: number;
  dryRun?: boolean;
  commitUser?: string;
  maxRetries?: number;
}

export interface ExpiredPartition {
  /** key → value text, in partition-key order. */
  partition: Record<string, string>;
  /** The time read from the values (ISO, local wall-clock). */
  time: string;
  files: number;
  bytes: number;
  rows: number;
}

export interface ExpirePartitionsReport {
  table: string;
  dryRun: boolean;
  baseSnapshotId?: string;
  /** now − expiration time (ISO, local wall-clock). */
  expireBefore: string;
  expirationTime: string;
  expired: ExpiredPartition[];
  /** Partitions older than the cutoff left for a later run (partition.expiration-max-num). */
  deferred: number;
  snapshotIds: string[];
  warnings: string[];
}

// ------------------------------------------------------------------------------------------ time parsing

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Epoch millis of a wall-clock time read as UTC (local times compare like Java's LocalDateTime). */
function wallClock(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, nanos = 0): number {
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d); // lenient: out-of-range months and days roll over, as Java's LENIENT resolver
  t.setUTCHours(h, mi, s, Math.floor(nanos / 1e6));
  return t.getTime();
}

export function isoWallClock(ms: number): string {
  const t = new Date(ms);
  return `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}T${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
}

/** Paimon's default: `y-M-d` with 1–10 digit years and 1–2 digit months/days, optionally ` H:m:s[.fraction]`. */
function parseDefault(text: string): number | undefined {
  const m = /^(\d{1,10})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?)?$/.exec(text);
  if (!m) return undefined;
  const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
  return wallClock(
    Number(m[1]),
    Number(m[2]),
    Number(m[3]),
    Number(m[4] ?? 0),
    Number(m[5] ?? 0),
    Number(m[6] ?? 0),
    nanos,
  );
}

interface PatternField {
  letter: string;
  width: number;
}

/** The Java DateTimeFormatter pattern letters a partition formatter uses; anything else is refused. */
const FIELD_LETTERS = new Set(['y', 'u', 'M', 'd', 'H', 'm', 's', 'S']);

function compilePattern(pattern: string): (PatternField | string)[] {
  const out: (PatternField | string)[] = [];
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i]!;
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end < 0)
        throw new FloeError(
          'InvalidArgument',
          `partition.timestamp-formatter ${JSON.stringify(pattern)}: unterminated quote`,
        );
      out.push(end === i + 1 ? "'" : pattern.slice(i + 1, end));
      i = end + 1;
    } else if (/[A-Za-z]/.test(c)) {
      if (!FIELD_LETTERS.has(c)) {
        throw new FloeError(
          'Unsupported',
          `partition.timestamp-formatter ${JSON.stringify(pattern)}: pattern letter '${c}' is not supported by floe (supported: y u M d H m s S)`,
          {
            context: { option: 'partition.timestamp-formatter', value: pattern },
          },
        );
      }
      let j = i;
      while (pattern[j] === c) j++;
      out.push({ letter: c, width: j - i });
      i = j;
    } else {
      out.push(c);
      i++;
    }
  }
  return out;
}

/**
 * Java's `DateTimeFormatter.ofPattern(p)` parse (SMART resolver) for the letters above: a field of width n
 * takes exactly n digits when the next element is a field too (adjacent value parsing), else n or more
 * (years: 4 for `yyyy`, any for `y`); values must be in range.
 */
function parseWithPattern(text: string, pattern: string): number | undefined {
  const parts = compilePattern(pattern);
  const got: Record<string, number> = {};
  let pos = 0;
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k]!;
    if (typeof p === 'string') {
      if (!text.startsWith(p, pos)) return undefined;
      pos += p.length;
      continue;
    }
    const nextIsField = typeof parts[k + 1] === 'object';
    let avail = 0;
    while (pos + avail < text.length && /\d/.test(text[pos + avail]!)) avail++;
    const year = p.letter === 'y' || p.letter === 'u';
    // fixed width when the next element is a field, for fractions, and for two-letter fields; years of
    // 3+ letters and one-letter fields take what digits there are
    const fixed = nextIsField || p.letter === 'S' || p.width === 2;
    const len = fixed ? p.width : Math.min(avail, year ? 10 : 2);
    if (len === 0 || avail < len || (year && !fixed && len < p.width)) return undefined;
    const digits = text.slice(pos, pos + len);
    got[p.letter === 'u' ? 'y' : p.letter] = p.letter === 'S' ? Number(digits.padEnd(9, '0')) : Number(digits);
    pos += len;
  }
  if (pos !== text.length) return undefined;
  if (got.y === undefined || got.M === undefined || got.d === undefined) return undefined;
  const M = got.M;
  let d = got.d;
  const h = got.H ?? 0;
  const mi = got.m ?? 0;
  const s = got.s ?? 0;
  if (M < 1 || M > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  // Java's SMART resolver moves a day the month lacks (April 31, Feb 30) to the month's last day
  d = Math.min(d, new Date(Date.UTC(got.y, M, 0)).getUTCDate());
  return wallClock(got.y, M, d, h, mi, s, got.S ?? 0);
}

export interface PartitionTimeExtractor {
  /** The partition's time as wall-clock epoch millis, or undefined when its values give none. */
  (keys: readonly string[], values: readonly (string | null)[]): number | undefined;
}

/** Paimon's PartitionTimeExtractor (pattern + formatter). */
export function partitionTimeExtractor(
  pattern: string | undefined,
  formatter: string | undefined,
): PartitionTimeExtractor {
  if (formatter !== undefined) compilePattern(formatter); // refuse an unsupported pattern before anything runs
  return (keys, values) => {
    let text: string;
    if (pattern === undefined) {
      if (values[0] === null || values[0] === undefined) return undefined;
      text = values[0];
    } else {
      if (values.some((v) => v === null)) return undefined; // Java: NullPointerException → not expired
      text = pattern;
      keys.forEach((k, i) => {
        text = text.split(`$${k}`).join(values[i]!);
      });
    }
    return formatter === undefined ? parseDefault(text) : parseWithPattern(text, formatter);
  };
}

// ------------------------------------------------------------------------------------------ values

/** A partition value as Java's `Object.toString()` of the internal value (what PartitionExpire parses). */
function valueText(v: unknown, f: PaimonField): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean')
    return String(v);
  // other internal values (decimals, timestamps, bytes) do not print as a date Java would parse
  return `<${f.type.root}>`;
}

function localNow(): number {
  const now = Date.now();
  return now - new Date(now).getTimezoneOffset() * 60_000;
}

export async function expirePaimonPartitions(
  table: PaimonTable,
  storage: PaimonWriteIO,
  o: ExpirePartitionsOptions = {},
): Promise<ExpirePartitionsReport> {
  const opts = table.schema.options;
  const loc = table.location;
  const keys = table.schema.partitionKeys;
  if (!keys.length)
    throw new FloeError('InvalidArgument', `Paimon table ${loc} is not partitioned: nothing to expire by partition`, {
      context: { table: loc },
    });
  const expirationText = o.expirationTime ?? opts['partition.expiration-time'];
  if (expirationText === undefined) {
    throw new FloeError(
      'InvalidArgument',
      `Paimon table ${loc} has no partition.expiration-time option; set it on the table or pass --expiration-time`,
      {
        context: { table: loc, option: 'partition.expiration-time' },
      },
    );
  }
  const expirationMs = parseDurationMs(expirationText, { bare: 'ms', what: 'partition.expiration-time' });
  const strategy = (opts['partition.expiration-strategy'] ?? 'values-time').toLowerCase();
  if (strategy !== 'values-time') {
    throw new FloeError(
      'Unsupported',
      `Paimon table ${loc}: partition.expiration-strategy=${strategy} is not supported by floe (only values-time)`,
      {
        context: { table: loc, option: 'partition.expiration-strategy', value: strategy },
      },
    );
  }
  assertManifestWritable(opts, loc); // refused before anything, dry runs included (as compaction does)
  const intOpt = (k: string, d: number | undefined): number | undefined => {
    const raw = opts[k];
    if (raw === undefined) return d;
    if (!/^\d+$/.test(raw.trim()))
      throw new FloeError(
        'InvalidArgument',
        `Paimon table ${loc}: option ${k}=${JSON.stringify(raw)} is not a non-negative integer`,
        { context: { table: loc, option: k } },
      );
    return Number(raw.trim());
  };
  const maxNum = intOpt('partition.expiration-max-num', 100)!;
  const batchSize = intOpt('partition.expiration-batch-size', undefined);
  const extract = partitionTimeExtractor(opts['partition.timestamp-pattern'], opts['partition.timestamp-formatter']);
  const cutoff = (o.nowMs ?? localNow()) - expirationMs;
  const report: ExpirePartitionsReport = {
    table: loc,
    dryRun: !!o.dryRun,
    expireBefore: isoWallClock(cutoff),
    expirationTime: expirationText,
    expired: [],
    deferred: 0,
    snapshotIds: [],
    warnings: [],
  };
  if (!table.snapshot) return report;
  report.baseSnapshotId = String(table.snapshot.id);

  const pFields = partitionFields(table.schema);
  const pTypes = pFields.map((f) => f.type);
  const groups = new Map<string, { values: (string | null)[]; files: PaimonFile[] }>();
  for (const f of table.files) {
    const k = partitionHex(f.partitionBytes);
    let g = groups.get(k);
    if (!g)
      groups.set(
        k,
        (g = {
          values: decodeSerializedRow(f.partitionBytes, pTypes, loc).map((v, i) => valueText(v, pFields[i]!)),
          files: [],
        }),
      );
    g.files.push(f);
  }
  const expired: { key: string; values: (string | null)[]; time: number; files: PaimonFile[] }[] = [];
  for (const [key, g] of groups) {
    const t = extract(keys, g.values);
    if (t === undefined) {
      report.warnings.push(
        `partition ${keys.map((k, i) => `${k}=${g.values[i] ?? 'null'}`).join(', ')}: no time can be read from its values; it is never expired`,
      );
      continue;
    }
    if (cutoff > t) expired.push({ key, values: g.values, time: t, files: g.files });
  }
  const joined = (v: (string | null)[]) => v.map((x) => x ?? '').join(',');
  expired.sort((a, b) => (joined(a.values) < joined(b.values) ? -1 : joined(a.values) > joined(b.values) ? 1 : 0));
  report.deferred = Math.max(0, expired.length - maxNum);
  const chosen = expired.slice(0, maxNum);
  report.expired = chosen.map((e) => ({
    partition: Object.fromEntries(keys.map((k, i) => [k, e.values[i] ?? ''])),
    time: isoWallClock(e.time),
    files: e.files.length,
    bytes: e.files.reduce((n, f) => n + Number(f.meta.fileSize), 0),
    rows: e.files.reduce((n, f) => n + Number(f.meta.rowCount), 0),
  }));
  if (!chosen.length || o.dryRun) return report;

  const dropped = new Set(chosen.map((e) => e.key));
  const indexed = table.indexEntries.filter((e) => dropped.has(partitionHex(e.partition)));
  if (indexed.length) {
    throw new FloeError(
      'Unsupported',
      `Paimon table ${loc}: expired partitions have ${indexed[0]!.indexType} index files (${indexed[0]!.fileName}); floe does not rewrite the index manifest, so it drops no partition of this table`,
      {
        context: { table: loc, indexType: indexed[0]!.indexType },
      },
    );
  }
  const batches: (typeof chosen)[] = [];
  const size = batchSize && batchSize > 0 ? batchSize : chosen.length;
  for (let i = 0; i < chosen.length; i += size) batches.push(chosen.slice(i, i + size));
  let current = table;
  for (const batch of batches) {
    const keysInBatch = new Set(batch.map((e) => e.key));
    const changes: NewManifestEntry[] = batch.flatMap((e) =>
      e.files.map((f) => ({
        kind: FILE_KIND_DELETE,
        partition: f.partitionBytes,
        bucket: f.bucket,
        totalBuckets: f.totalBuckets,
        file: f.meta,
      })),
    );
    const ours = new Set(changes.map((c) => `${c.bucket}|${c.file.fileName}|${c.file.level}`));
    const validate = (live: readonly ManifestEntry[]) =>
      live
        .filter(
          (e) =>
            keysInBatch.has(partitionHex(e.partition)) && !ours.has(`${e.bucket}|${e.file.fileName}|${e.file.level}`),
        )
        .map((e) => `${e.file.fileName} was added to an expired partition meanwhile`);
    const r = await commitPaimonSnapshot({
      table: current,
      storage,
      changes,
      commitKind: 'OVERWRITE',
      validate,
      ...(o.commitUser ? { commitUser: o.commitUser } : {}),
      ...(o.maxRetries !== undefined ? { maxRetries: o.maxRetries } : {}),
    });
    report.snapshotIds.push(String(r.snapshotId));
    // the next batch builds on the snapshot just published
    current = { ...current, snapshot: await readSnapshot(current.io, loc, r.snapshotId) };
  }
  return report;
}

/** Text for the CLI. */
export function renderExpirePartitions(r: ExpirePartitionsReport): string {
  const lines: string[] = [];
  lines.push(
    `${r.dryRun ? 'dry run — nothing written: ' : ''}partition expiry of Paimon table ${r.table}: partitions older than ${r.expireBefore} (now − ${r.expirationTime})`,
  );
  if (!r.expired.length) lines.push('  no partition has expired');
  for (const p of r.expired) {
    const label = Object.entries(p.partition)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    lines.push(
      `  ${r.dryRun ? 'would drop' : 'dropped'} ${label} (time ${p.time}): ${p.files} file(s), ${p.rows} row(s), ${p.bytes} B`,
    );
  }
  if (r.deferred)
    lines.push(`  ${r.deferred} more expired partition(s) left for the next run (partition.expiration-max-num)`);
  for (const w of r.warnings) lines.push(`  warning: ${w}`);
  if (r.snapshotIds.length)
    lines.push(
      `  committed snapshot(s) ${r.snapshotIds.join(', ')} (OVERWRITE); the files are deleted by a later floe expire`,
    );
  return lines.join('\n');
}
