/**
 * Iceberg data-file metrics from a Parquet footer, following Java Iceberg's ParquetMetrics/MetricsConfig:
 * column sizes = compressed chunk sizes (every leaf), value counts = chunk value counts (nulls included),
 * null counts from statistics (dropped for a column if any chunk lacks them), float/double bounds and NaN
 * counts from the writer's own tracking, and truncate(L) applied to string/binary bounds (upper bound
 * incremented). Leaves inside a list or map get a column size only — no counts, no bounds: Java 1.10's
 * ParquetMetrics visitor returns nothing for list/map subtrees (checked in iceberg-parquet-1.10.1.jar).
 */
import { compareBytes, compareCodePoints } from '../../../util/compare.js';
import { FloeError } from '../../../util/errors.js';
import type { Field, FieldType } from '../../../model/table.js';
import { parseDecimal } from '../../../model/arrow/decimal.js';
import { uuidText } from '../../../model/arrow/uuid.js';
import type {
  IcebergFileMetrics,
  IcebergMetricsOptions,
  MetricsModeName,
  ParquetFooter,
  ParquetSchemaNode,
} from './types.js';

export type MetricsMode =
  { kind: 'none' } | { kind: 'counts' } | { kind: 'full' } | { kind: 'truncate'; length: number };

export function parseMetricsMode(mode: MetricsModeName | string): MetricsMode {
  const m = mode.trim().toLowerCase();
  if (m === 'none' || m === 'counts' || m === 'full') return { kind: m };
  const t = /^truncate\((\d+)\)$/.exec(m);
  if (t && Number(t[1]) > 0) return { kind: 'truncate', length: Number(t[1]) };
  throw new FloeError('InvalidArgument', `invalid metrics mode "${mode}" (none, counts, full, truncate(N>0))`);
}

interface FieldInfo {
  type: FieldType;
  /** True when reachable from the root through structs only (Java's shouldStoreBounds). */
  boundsAllowed: boolean;
  /** Inside a list or map: Java records no counts or bounds for it. */
  repeated: boolean;
}

function indexFields(fields: Field[]): Map<number, FieldInfo> {
  const out = new Map<number, FieldInfo>();
  const walk = (id: number, type: FieldType, allowed: boolean): void => {
    out.set(id, { type, boundsAllowed: allowed && type.kind === 'primitive', repeated: !allowed });
    if (type.kind === 'struct') for (const f of type.fields) walk(f.id, f.type, allowed);
    else if (type.kind === 'list') walk(type.elementId, type.element, false);
    else if (type.kind === 'map') {
      walk(type.keyId, type.key, false);
      walk(type.valueId, type.value, false);
    }
  };
  for (const f of fields) walk(f.id, f.type, true);
  return out;
}

export function icebergMetricsFromFooter(
  footer: ParquetFooter,
  fields: Field[],
  opts: IcebergMetricsOptions = {},
): IcebergFileMetrics {
  const defaultMode = parseMetricsMode(opts.mode ?? 'truncate(16)');
  const modeOf = (id: number): MetricsMode => {
    const m = opts.perColumn?.get(id);
    return m === undefined ? defaultMode : parseMetricsMode(m);
  };
  const info = indexFields(fields);
  const leafById = new Map<number, ParquetSchemaNode>();
  for (const leaf of footer.leaves) if (leaf.fieldId !== undefined) leafById.set(leaf.fieldId, leaf);

  const metrics: IcebergFileMetrics = {
    recordCount: footer.numRows,
    columnSizes: new Map(),
    valueCounts: new Map(),
    nullValueCounts: new Map(),
    nanValueCounts: new Map(),
    lowerBounds: new Map(),
    upperBounds: new Map(),
    splitOffsets: footer.rowGroups.map((rg) => rg.startOffset).sort((a, b) => a - b),
  };
  const missingStats = new Set<number>();
  const add = (m: Map<number, bigint>, id: number, v: bigint) => m.set(id, (m.get(id) ?? 0n) + v);

  for (const rg of footer.rowGroups) {
    for (const chunk of rg.columns) {
      const id = chunk.fieldId;
      if (id === undefined) continue;
      const mode = modeOf(id);
      if (mode.kind === 'none') continue;
      add(metrics.columnSizes, id, BigInt(chunk.totalCompressedSize));
      if (info.get(id)?.repeated) continue;
      add(metrics.valueCounts, id, BigInt(chunk.numValues));
      const stats = chunk.statistics;
      if (!stats || stats.nullCount === undefined) {
        missingStats.add(id);
        continue;
      }
      add(metrics.nullValueCounts, id, stats.nullCount);
      const field = info.get(id);
      const floatFromWriter = field && isFloating(field.type) && opts.fieldMetrics?.has(id);
      if (mode.kind === 'counts' || !field?.boundsAllowed || floatFromWriter) continue;
      if (stats.min === undefined || stats.max === undefined) continue;
      const leaf = leafById.get(id)!;
      const lo = toIcebergValue(stats.min, field.type, leaf);
      const hi = toIcebergValue(stats.max, field.type, leaf);
      if (lo === undefined || hi === undefined) continue;
      const cmp = comparatorFor(field.type);
      const curLo = metrics.lowerBounds.get(id);
      const curHi = metrics.upperBounds.get(id);
      if (curLo === undefined || cmp(lo, curLo) < 0) metrics.lowerBounds.set(id, lo);
      if (curHi === undefined || cmp(hi, curHi) > 0) metrics.upperBounds.set(id, hi);
    }
  }
  for (const id of missingStats) {
    metrics.nullValueCounts.delete(id);
    metrics.lowerBounds.delete(id);
    metrics.upperBounds.delete(id);
  }

  // Float/double: NaN counts and NaN-free bounds come from the values, never from Parquet statistics.
  for (const [id, fm] of opts.fieldMetrics ?? []) {
    const mode = modeOf(id);
    const field = info.get(id);
    if (mode.kind === 'none' || field?.repeated) continue;
    metrics.nanValueCounts.set(id, fm.nanCount);
    if (mode.kind === 'counts' || !field?.boundsAllowed) continue;
    if (fm.min !== undefined && fm.max !== undefined) {
      metrics.lowerBounds.set(id, fm.min);
      metrics.upperBounds.set(id, fm.max);
    } else {
      metrics.lowerBounds.delete(id);
      metrics.upperBounds.delete(id);
    }
  }
  // Parquet float statistics without writer tracking: keep them only if they are real numbers.
  for (const [id, v] of metrics.lowerBounds)
    if (typeof v === 'number' && Number.isNaN(v)) {
      metrics.lowerBounds.delete(id);
      metrics.upperBounds.delete(id);
    }
  for (const [id, v] of metrics.upperBounds)
    if (typeof v === 'number' && Number.isNaN(v)) {
      metrics.lowerBounds.delete(id);
      metrics.upperBounds.delete(id);
    }

  // truncate(L) for strings and binary (Java: UnicodeUtil / BinaryUtil).
  for (const [id] of info) {
    const mode = modeOf(id);
    if (mode.kind !== 'truncate') continue;
    const type = info.get(id)!.type;
    if (type.kind !== 'primitive') continue;
    const lo = metrics.lowerBounds.get(id);
    const hi = metrics.upperBounds.get(id);
    if (type.name === 'string') {
      if (typeof lo === 'string') metrics.lowerBounds.set(id, truncateStringMin(lo, mode.length));
      if (typeof hi === 'string') {
        const t = truncateStringMax(hi, mode.length);
        if (t === undefined) metrics.upperBounds.delete(id);
        else metrics.upperBounds.set(id, t);
      }
    } else if (type.name === 'binary' || type.name === 'fixed') {
      if (lo instanceof Uint8Array) metrics.lowerBounds.set(id, truncateBinaryMin(lo, mode.length));
      if (hi instanceof Uint8Array) {
        const t = truncateBinaryMax(hi, mode.length);
        if (t === undefined) metrics.upperBounds.delete(id);
        else metrics.upperBounds.set(id, t);
      }
    }
  }
  return metrics;
}

function isFloating(t: FieldType): boolean {
  return t.kind === 'primitive' && (t.name === 'float' || t.name === 'double');
}

const encoder = new TextEncoder();

/** Statistics value (as decoded from Parquet) → the Iceberg type's value shape; undefined = unusable. */
function toIcebergValue(v: unknown, type: FieldType, leaf: ParquetSchemaNode): unknown {
  if (type.kind !== 'primitive') return undefined;
  switch (type.name) {
    case 'boolean':
      return typeof v === 'boolean' ? v : undefined;
    case 'int':
    case 'date':
    case 'tinyint':
    case 'smallint':
      return typeof v === 'number' ? v : undefined;
    case 'long':
      return typeof v === 'bigint' ? v : typeof v === 'number' ? BigInt(v) : undefined;
    case 'float':
    case 'double':
      return typeof v === 'number' ? v : undefined;
    case 'decimal':
      return typeof v === 'string' ? v : undefined;
    case 'time':
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns': {
      if (typeof v !== 'bigint') return undefined; // INT96 and unknown encodings: no bounds
      const unit =
        leaf.logicalType && 'unit' in leaf.logicalType
          ? leaf.logicalType.unit
          : leaf.convertedType === 'TIMESTAMP_MILLIS' || leaf.convertedType === 'TIME_MILLIS'
            ? 'MILLIS'
            : 'MICROS';
      const wantNanos = type.name.endsWith('_ns');
      const toMicros = unit === 'MILLIS' ? v * 1000n : unit === 'NANOS' ? undefined : v;
      if (wantNanos) return unit === 'NANOS' ? v : toMicros === undefined ? undefined : toMicros * 1000n;
      return toMicros;
    }
    case 'string':
      return typeof v === 'string' ? v : v instanceof Uint8Array ? new TextDecoder().decode(v) : undefined;
    case 'uuid':
      return uuidText(v);
    case 'fixed':
    case 'binary':
      return v instanceof Uint8Array ? v : typeof v === 'string' ? encoder.encode(v) : undefined;
    default:
      return undefined;
  }
}

function comparatorFor(type: FieldType): (a: unknown, b: unknown) => number {
  if (type.kind === 'primitive') {
    if (type.name === 'string') return (a, b) => compareCodePoints(a as string, b as string);
    if (type.name === 'binary' || type.name === 'fixed')
      return (a, b) => compareBytes(a as Uint8Array, b as Uint8Array);
    if (type.name === 'decimal') {
      const scale = type.scale ?? 0;
      return (a, b) => {
        const x = parseDecimal(a as string, scale),
          y = parseDecimal(b as string, scale);
        return x < y ? -1 : x > y ? 1 : 0;
      };
    }
    if (type.name === 'boolean') return (a, b) => Number(a) - Number(b);
  }
  return (a, b) => ((a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0);
}

export { compareBytes, compareCodePoints };

export function truncateStringMin(s: string, length: number): string {
  const cps = [...s];
  return cps.length <= length ? s : cps.slice(0, length).join('');
}

/** First `length` code points with the last incrementable one incremented; undefined if none can be. */
export function truncateStringMax(s: string, length: number): string | undefined {
  const cps = [...s];
  if (cps.length <= length) return s;
  const kept = cps.slice(0, length).map((c) => c.codePointAt(0)!);
  for (let i = kept.length - 1; i >= 0; i--) {
    let next = kept[i]! + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000; // skip the surrogate range
    if (next <= 0x10ffff) return String.fromCodePoint(...kept.slice(0, i), next);
  }
  return undefined;
}

export function truncateBinaryMin(b: Uint8Array, length: number): Uint8Array {
  return b.length <= length ? b : b.slice(0, length);
}

export function truncateBinaryMax(b: Uint8Array, length: number): Uint8Array | undefined {
  if (b.length <= length) return b;
  const out = b.slice(0, length);
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i]! < 0xff) {
      out[i]! += 1;
      return out.slice(0, i + 1);
    }
  }
  return undefined;
}
