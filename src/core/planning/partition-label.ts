/**
 * Human-readable partition values, as Iceberg's `Transform.toHumanString` writes them: year → "2024",
 * month → "2024-01", day → "2024-01-02", hour → "2024-01-02-10"; identity date/timestamp columns as ISO
 * dates and times. Plans, `--explain` trails and `inspect` print partitions with these, not raw integers.
 */
import type { Field, FieldType, PartitionSpec, PartitionTuple, Schema } from '../../../model/index.js';

const DAY_MS = 86_400_000;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function isoDate(ms: number): string {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  return `${y < 0 ? '-' : ''}${pad(Math.abs(y), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** Micro- or nanoseconds since the epoch → "2024-01-02T10:15:30.000001" (+ "Z" for tz types). */
function isoTimestamp(v: bigint, perSecond: bigint, tz: boolean): string {
  const perMs = perSecond / 1000n;
  let ms = v / perMs;
  let rest = v % perMs;
  if (rest < 0n) {
    rest += perMs;
    ms -= 1n;
  }
  const iso = new Date(Number(ms)).toISOString(); // 2024-01-02T10:15:30.123Z
  const sub = rest === 0n ? '' : String(rest).padStart(perSecond === 1_000_000n ? 3 : 6, '0');
  return `${iso.slice(0, 23)}${sub}${tz ? 'Z' : ''}`;
}

const asNumber = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'bigint' ? Number(v) : undefined;

/** A value of a column of `type`, for display (dates and timestamps as text, others as they are). */
export function formatTypedValue(type: FieldType | undefined, v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (type?.kind === 'primitive') {
    const n = asNumber(v);
    switch (type.name) {
      case 'date':
        if (n !== undefined) return isoDate(n * DAY_MS);
        break;
      case 'timestamp':
      case 'timestamptz':
        if (typeof v === 'bigint') return isoTimestamp(v, 1_000_000n, type.name === 'timestamptz');
        break;
      case 'timestamp_ns':
      case 'timestamptz_ns':
        if (typeof v === 'bigint') return isoTimestamp(v, 1_000_000_000n, type.name === 'timestamptz_ns');
        break;
      default:
        break;
    }
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  return typeof v === 'string' ? v : String(v);
}

/** One partition value under its transform; `source` is the type of the column the transform reads. */
export function formatPartitionValue(transform: string, source: FieldType | undefined, v: unknown): string {
  if (v === null || v === undefined) return 'null';
  const n = asNumber(v);
  if (n !== undefined) {
    switch (transform) {
      case 'year':
        return pad(1970 + n, 4);
      case 'month': {
        const y = 1970 + Math.floor(n / 12);
        return `${pad(y, 4)}-${pad((((n % 12) + 12) % 12) + 1)}`;
      }
      case 'day':
        return isoDate(n * DAY_MS);
      case 'hour': {
        const ms = n * 3_600_000;
        return `${isoDate(ms)}-${pad(new Date(ms).getUTCHours())}`;
      }
      default:
        break;
    }
  }
  if (transform === 'identity' || transform.startsWith('truncate')) return formatTypedValue(source, v);
  return formatTypedValue(undefined, v);
}

function fieldIndex(schemas: readonly Schema[]): Map<number, Field> {
  const m = new Map<number, Field>();
  const visit = (fields: readonly Field[]) => {
    for (const f of fields) {
      if (!m.has(f.id)) m.set(f.id, f);
      if (f.type.kind === 'struct') visit(f.type.fields);
    }
  };
  // newest schema first, so a renamed column shows its current name
  for (const s of [...schemas].reverse()) visit(s.fields);
  return m;
}

/**
 * `(specId, tuple) → "region=eu, ts_day=2024-01-02"` for a table's specs and schemas;
 * "unpartitioned" for a tuple of no fields.
 */
export function partitionLabeler(table: {
  specs: readonly PartitionSpec[];
  schemas: readonly Schema[];
}): (specId: number, partition: PartitionTuple) => string {
  const specs = new Map(table.specs.map((s) => [s.specId, s] as const));
  const fields = fieldIndex(table.schemas);
  return (specId, partition) => {
    if (partition.length === 0) return 'unpartitioned';
    const spec = specs.get(specId);
    return partition
      .map((v, i) => {
        const pf = spec?.fields[i];
        if (!pf) return formatTypedValue(undefined, v);
        return `${pf.name}=${formatPartitionValue(pf.transform, fields.get(pf.sourceId)?.type, v)}`;
      })
      .join(', ');
  };
}

/** Sets `partitionLabel` on every task of `plan` that has none (planners that do not label their tasks). */
export function labelTasks<
  P extends { tasks: { specId: number; partition: PartitionTuple; partitionLabel?: string }[] },
>(plan: P, table: { specs: readonly PartitionSpec[]; schemas: readonly Schema[] }): P {
  const label = partitionLabeler(table);
  for (const t of plan.tasks) t.partitionLabel ??= label(t.specId, t.partition);
  return plan;
}
