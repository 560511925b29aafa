/**
 * Column statistics for the DataFileMeta of files floe writes (`SimpleStats`: serialized min row, max row,
 * null counts). Java derives them from the Parquet footer; we compute the same facts from the values as
 * they are written. Stats modes follow `StatsCollectorFactories`: system/key columns `truncate(128)`,
 * value columns `fields.<f>.stats-mode` or `metadata.stats-mode` (default `truncate(16)`), and columns
 * past `metadata.stats-keep-first-n-columns` get `none`. Dense storage (`metadata.stats-dense-store`,
 * default true) leaves `none` columns out and names the kept ones in `_VALUE_STATS_COLS`.
 */
import { FloeError } from '../../util/errors.js';
import { encodeSerializedRow } from './binary-row.js';
import type { SimpleStats } from './manifest.js';
import type { PaimonField, PaimonType } from './types.js';
import { comparatorFor, type Comparator } from './values.js';
import { isNestedPaimonType } from './write-nested.js';

export type StatsMode = { kind: 'none' } | { kind: 'counts' } | { kind: 'full' } | { kind: 'truncate'; length: number };

export function parseStatsMode(text: string, where: string): StatsMode {
  const s = text.trim().toLowerCase();
  if (s === 'none' || s === 'counts' || s === 'full') return { kind: s };
  const m = /^truncate\((\d+)\)$/.exec(s);
  if (m) return { kind: 'truncate', length: Number(m[1]) };
  throw new FloeError('InvalidArgument', `${where}: unknown stats mode "${text}" (none, counts, full, truncate(N))`);
}

/** Per value column stats mode, as `StatsCollectorFactories.createStatsFactories` chooses it. */
export function valueStatsModes(
  fields: readonly PaimonField[],
  options: Record<string, string>,
  table: string,
): StatsMode[] {
  const global = parseStatsMode(
    options['metadata.stats-mode'] ?? 'truncate(16)',
    `Paimon table ${table} metadata.stats-mode`,
  );
  const keepFirst = Number(options['metadata.stats-keep-first-n-columns'] ?? '-1');
  return fields.map((f, i) => {
    const own = options[`fields.${f.name}.stats-mode`];
    if (own !== undefined) return parseStatsMode(own, `Paimon table ${table} fields.${f.name}.stats-mode`);
    if (keepFirst >= 0 && i >= keepFirst) return { kind: 'none' };
    return global;
  });
}

export const KEY_STATS_MODE: StatsMode = { kind: 'truncate', length: 128 };

/** Types whose min/max floe records; others (nested, binary) get null bounds with a null count. */
function hasBounds(t: PaimonType): boolean {
  switch (t.root) {
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'FLOAT':
    case 'DOUBLE':
    case 'DECIMAL':
    case 'DATE':
    case 'TIME':
    case 'CHAR':
    case 'VARCHAR':
      return true;
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      // precision 7..9 is INT96, whose footer stats Java ignores (`toTimestampStats`: null bounds)
      return (t.precision ?? 6) <= 6;
    default:
      return false;
  }
}

const isNaNValue = (v: unknown) => typeof v === 'number' && Number.isNaN(v);

/** The first `n` code points. */
function prefixCodePoints(s: string, n: number): string[] {
  const out: string[] = [];
  for (const ch of s) {
    if (out.length === n) break;
    out.push(ch);
  }
  return out;
}

/** Smallest string ≥ every string with this prefix: bump the last code point that can be bumped. */
export function truncateMax(s: string, n: number): string | null {
  const cps = prefixCodePoints(s, n);
  if (cps.join('').length === s.length) return s;
  for (let i = cps.length - 1; i >= 0; i--) {
    let cp = cps[i]!.codePointAt(0)! + 1;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xe000; // skip the surrogate range
    if (cp <= 0x10ffff) return cps.slice(0, i).join('') + String.fromCodePoint(cp);
  }
  return null;
}

export function truncateMin(s: string, n: number): string {
  return prefixCodePoints(s, n).join('');
}

/** Collects min / max / null count of one column. */
export class ColumnStatsCollector {
  private min: unknown = null;
  private max: unknown = null;
  nullCount = 0n;
  private readonly cmp: Comparator;
  private readonly bounded: boolean;

  constructor(
    readonly type: PaimonType,
    readonly mode: StatsMode,
  ) {
    this.cmp = comparatorFor(type);
    this.bounded = hasBounds(type) && (mode.kind === 'full' || mode.kind === 'truncate');
  }

  add(v: unknown): void {
    if (v === null || v === undefined) {
      this.nullCount++;
      return;
    }
    if (!this.bounded || isNaNValue(v)) return;
    if (this.min === null || this.cmp(v, this.min) < 0) this.min = v;
    if (this.max === null || this.cmp(v, this.max) > 0) this.max = v;
  }

  result(): { min: unknown; max: unknown; nullCount: bigint | null } {
    if (this.mode.kind === 'none') return { min: null, max: null, nullCount: null };
    // Java takes stats from the Parquet footer by top-level column name (ParquetSimpleStatsExtractor); a nested
    // column's leaves are named by their path ("c.list.element"), so nothing matches: no bounds, null count null.
    if (isNestedPaimonType(this.type)) return { min: null, max: null, nullCount: null };
    if (this.mode.kind === 'counts' || !this.bounded) return { min: null, max: null, nullCount: this.nullCount };
    let { min, max } = this;
    if (this.mode.kind === 'truncate' && typeof min === 'string') {
      min = truncateMin(min, this.mode.length);
      max = truncateMax(max as string, this.mode.length);
    }
    return { min, max, nullCount: this.nullCount };
  }
}

/** Stats over a row of columns; the min/max rows have every field nullable, as Paimon writes them. */
export class RowStatsCollector {
  readonly columns: ColumnStatsCollector[];
  constructor(
    readonly fields: readonly PaimonField[],
    modes: readonly StatsMode[],
  ) {
    this.columns = fields.map((f, i) => new ColumnStatsCollector(f.type, modes[i]!));
  }

  add(values: readonly unknown[]): void {
    for (let i = 0; i < this.columns.length; i++) this.columns[i]!.add(values[i]);
  }

  /** All-mode stats (one field per column). */
  all(): SimpleStats {
    return toSimpleStats(this.columns, this.fields);
  }

  /**
   * Dense stats: columns without any stat (`none` mode, nested columns) are left out, as Java's
   * `SimpleStatsConverter.toBinaryDenseMode` skips `SimpleColStats.isNone()`; `cols` is null when every
   * column is kept.
   */
  dense(): { stats: SimpleStats; cols: string[] | null } {
    const kept = this.columns
      .map((c, i) => ({ c, f: this.fields[i]!, r: c.result() }))
      .filter((x) => x.r.min !== null || x.r.max !== null || x.r.nullCount !== null);
    if (kept.length === this.columns.length) return { stats: this.all(), cols: null };
    return {
      stats: toSimpleStats(
        kept.map((x) => x.c),
        kept.map((x) => x.f),
      ),
      cols: kept.map((x) => x.f.name),
    };
  }
}

function toSimpleStats(columns: readonly ColumnStatsCollector[], fields: readonly PaimonField[]): SimpleStats {
  const types = fields.map((f) => ({ ...f.type, nullable: true }) as PaimonType);
  const results = columns.map((c) => c.result());
  return {
    minValues: encodeSerializedRow(
      types,
      results.map((r) => r.min),
    ),
    maxValues: encodeSerializedRow(
      types,
      results.map((r) => r.max),
    ),
    nullCounts: results.map((r) => r.nullCount),
  };
}

/** `SimpleStats.EMPTY_STATS`: 0-field rows and no null counts. */
export function emptyStats(): SimpleStats {
  return { minValues: encodeSerializedRow([], []), maxValues: encodeSerializedRow([], []), nullCounts: [] };
}
