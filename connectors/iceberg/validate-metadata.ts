/**
 * Invariants of an Iceberg table-metadata document, checked whenever floe parses one (so before any plan
 * or commit): floe must never commit on top of metadata that is already inconsistent — e.g. a negative
 * last-sequence-number would make the next snapshot's sequence number negative too, and a ref to a missing
 * snapshot would make the new snapshot's parent a lie. Java's TableMetadata refuses most of these as well.
 *
 * Every failure is a Corrupt FloeError naming the metadata file and the broken invariant.
 */
import { FloeError } from '../../util/errors.js';
import type { Field } from '../../model/index.js';
import type { IcebergMetadata } from './metadata.js';
import { indexFields } from './schema.js';

export const INT64_MAX = (1n << 63n) - 1n;
export const INT64_MIN = -(1n << 63n);

/** Snapshot-summary keys that hold counts or byte sizes: never negative when present. */
const SUMMARY_COUNTS = [
  'added-data-files',
  'deleted-data-files',
  'total-data-files',
  'added-delete-files',
  'removed-delete-files',
  'total-delete-files',
  'added-records',
  'deleted-records',
  'total-records',
  'added-files-size',
  'removed-files-size',
  'total-files-size',
  'added-position-deletes',
  'removed-position-deletes',
  'total-position-deletes',
  'added-equality-deletes',
  'removed-equality-deletes',
  'total-equality-deletes',
  'added-position-delete-files',
  'removed-position-delete-files',
  'added-equality-delete-files',
  'removed-equality-delete-files',
  'added-dvs',
  'removed-dvs',
  'changed-partition-count',
];

type Raw = Record<string, unknown>;

class Checker {
  constructor(private readonly file: string) {}

  fail(invariant: string): never {
    throw new FloeError(
      'Corrupt',
      `metadata file ${this.file} is inconsistent: ${invariant}; floe refuses to read or commit on top of it`,
      {
        context: { file: this.file, invariant },
      },
    );
  }

  /** A JSON integer (number or lossless bigint) within int64, optionally with a lower bound. */
  int(v: unknown, what: string, min?: bigint): bigint {
    let b: bigint;
    if (typeof v === 'bigint') b = v;
    else if (typeof v === 'number' && Number.isInteger(v)) b = BigInt(v);
    else return this.fail(`${what} must be an integer, got ${describe(v)}`);
    if (b > INT64_MAX || b < INT64_MIN) this.fail(`${what} ${b} does not fit in a 64-bit integer`);
    if (min !== undefined && b < min) this.fail(`${what} is ${b}, must be ≥ ${min}`);
    return b;
  }

  /** A 32-bit id field (schema/spec/sort-order/field ids). */
  int32(v: unknown, what: string, min?: number): number {
    const b = this.int(v, what, min === undefined ? undefined : BigInt(min));
    if (b > 2147483647n || b < -2147483648n) this.fail(`${what} ${b} does not fit in a 32-bit integer`);
    return Number(b);
  }

  optInt(o: Raw, key: string, what: string, min?: bigint): bigint | undefined {
    const v = o[key];
    return v === undefined || v === null ? undefined : this.int(v, what, min);
  }
}

function describe(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'object') return Array.isArray(v) ? 'an array' : 'an object';
  return String(v);
}

function array(v: unknown): Raw[] {
  return Array.isArray(v) ? (v as Raw[]) : [];
}

function maxFieldId(fields: readonly Field[]): number {
  let max = 0;
  for (const id of indexFields(fields).keys()) max = Math.max(max, id);
  return max;
}

/** Throws a Corrupt FloeError naming `md.file` and the first broken invariant. */
export function validateMetadata(md: IcebergMetadata): void {
  const c = new Checker(md.file);
  const raw = md.raw;
  const v = c.int32(raw['format-version'], 'format-version');
  if (v < 1 || v > 3) c.fail(`format-version ${v} is not 1, 2 or 3`);

  // --- shapes: a list that is not a list would otherwise read as "absent"
  for (const k of [
    'schemas',
    'partition-specs',
    'partition-spec',
    'sort-orders',
    'snapshots',
    'snapshot-log',
    'metadata-log',
    'statistics',
    'partition-statistics',
  ]) {
    if (raw[k] !== undefined && raw[k] !== null && !Array.isArray(raw[k]))
      c.fail(`"${k}" must be a list, got ${describe(raw[k])}`);
  }
  for (const k of ['properties', 'refs', 'schema']) {
    const x = raw[k];
    if (x !== undefined && x !== null && (typeof x !== 'object' || Array.isArray(x)))
      c.fail(`"${k}" must be an object, got ${describe(x)}`);
  }

  // --- sequence numbers: non-negative, no snapshot beyond last-sequence-number, parents not newer
  const lastSeq = c.optInt(raw, 'last-sequence-number', 'last-sequence-number', 0n) ?? 0n;
  if (v >= 2 && raw['last-sequence-number'] === undefined) c.fail('format v2+ metadata has no last-sequence-number');
  const rawSnaps = array(raw.snapshots);
  const seqOf = new Map<bigint, bigint>();
  for (const s of rawSnaps) {
    if (!s || typeof s !== 'object') c.fail('a snapshot entry is not an object');
    const id = c.int(s['snapshot-id'], 'snapshot-id');
    if (seqOf.has(id)) c.fail(`snapshot id ${id} appears more than once`);
    const seq = c.optInt(s, 'sequence-number', `sequence-number of snapshot ${id}`, 0n) ?? 0n;
    if (v >= 2 && seq > lastSeq)
      c.fail(`snapshot ${id} has sequence number ${seq}, beyond last-sequence-number ${lastSeq}`);
    seqOf.set(id, seq);
    c.int(s['timestamp-ms'], `timestamp-ms of snapshot ${id}`);
    c.optInt(s, 'parent-snapshot-id', `parent-snapshot-id of snapshot ${id}`);
    if (s['schema-id'] !== undefined && s['schema-id'] !== null) c.int32(s['schema-id'], `schema-id of snapshot ${id}`);
    if (s['manifest-list'] !== undefined && typeof s['manifest-list'] !== 'string')
      c.fail(`manifest-list of snapshot ${id} is not a string`);
    // (a snapshot from before an upgrade from v1 may still list its manifests inline)
    if (v >= 2 && typeof s['manifest-list'] !== 'string' && !Array.isArray(s.manifests))
      c.fail(`snapshot ${id} has no manifest-list (required in format v2+)`);
    if (v >= 3) {
      c.optInt(s, 'first-row-id', `first-row-id of snapshot ${id}`, 0n);
      c.optInt(s, 'added-rows', `added-rows of snapshot ${id}`, 0n);
    }
    const summary = s.summary;
    if (summary !== undefined && summary !== null) {
      if (typeof summary !== 'object' || Array.isArray(summary)) c.fail(`summary of snapshot ${id} is not an object`);
      for (const key of SUMMARY_COUNTS) {
        const x = (summary as Raw)[key];
        if (x === undefined || x === null) continue;
        const text = typeof x === 'string' ? x.trim() : typeof x === 'number' || typeof x === 'bigint' ? String(x) : '';
        if (!/^-?\d+$/.test(text)) c.fail(`summary "${key}" of snapshot ${id} is not an integer (${describe(x)})`);
        const n = BigInt(text);
        if (n < 0n) c.fail(`summary "${key}" of snapshot ${id} is negative (${n})`);
        if (n > INT64_MAX) c.fail(`summary "${key}" of snapshot ${id} (${n}) does not fit in a 64-bit integer`);
      }
    }
  }
  for (const s of md.snapshots) {
    if (s.parentSnapshotId === undefined) continue;
    const parentSeq = seqOf.get(s.parentSnapshotId);
    // the parent may have been expired; when it is there, it cannot be newer than its child
    if (parentSeq !== undefined && parentSeq > s.sequenceNumber) {
      c.fail(
        `snapshot ${s.snapshotId} has sequence number ${s.sequenceNumber}, older than its parent ${s.parentSnapshotId} (${parentSeq})`,
      );
    }
    if (s.parentSnapshotId === s.snapshotId) c.fail(`snapshot ${s.snapshotId} is its own parent`);
  }

  // --- current snapshot and refs point at existing snapshots
  const cs = raw['current-snapshot-id'];
  if (cs !== undefined && cs !== null) c.int(cs, 'current-snapshot-id', -1n);
  if (md.currentSnapshotId !== undefined && !seqOf.has(md.currentSnapshotId)) {
    c.fail(`current-snapshot-id ${md.currentSnapshotId} is not in the snapshot list`);
  }
  if (raw.refs !== undefined && raw.refs !== null) {
    if (typeof raw.refs !== 'object' || Array.isArray(raw.refs)) c.fail('refs is not an object');
    for (const [name, r] of Object.entries(raw.refs as Record<string, Raw>)) {
      if (!r || typeof r !== 'object') c.fail(`ref ${name} is not an object`);
      if (r.type !== 'branch' && r.type !== 'tag') c.fail(`ref ${name} has type ${describe(r.type)} (branch or tag)`);
      const id = c.int(r['snapshot-id'], `snapshot-id of ref ${name}`);
      if (!seqOf.has(id)) c.fail(`ref ${name} points at snapshot ${id}, which is not in the snapshot list`);
      for (const k of ['max-ref-age-ms', 'max-snapshot-age-ms']) c.optInt(r, k, `${k} of ref ${name}`, 1n);
      c.optInt(r, 'min-snapshots-to-keep', `min-snapshots-to-keep of ref ${name}`, 1n);
    }
    const main = (raw.refs as Record<string, Raw>).main;
    if (
      main &&
      (md.currentSnapshotId === undefined ||
        c.int(main['snapshot-id'], 'snapshot-id of ref main') !== md.currentSnapshotId)
    ) {
      c.fail(
        `ref main (${describe(main['snapshot-id'])}) and current-snapshot-id (${md.currentSnapshotId ?? 'none'}) disagree`,
      );
    }
  }
  for (const e of array(raw['snapshot-log'])) c.int(e?.['snapshot-id'], 'snapshot-log snapshot-id');

  // --- ids that must resolve, and no duplicates among schemas, specs, sort orders
  const schemaIds = new Set<number>();
  for (const s of md.schemas) {
    if (schemaIds.has(s.schemaId)) c.fail(`schema id ${s.schemaId} appears more than once`);
    schemaIds.add(s.schemaId);
  }
  for (const s of array(raw.schemas)) c.int32(s?.['schema-id'] ?? 0, 'schema-id');
  if (raw['current-schema-id'] !== undefined) {
    const id = c.int32(raw['current-schema-id'], 'current-schema-id');
    if (!schemaIds.has(id)) c.fail(`current-schema-id ${id} is not among the schemas`);
  }
  if (!schemaIds.has(md.currentSchemaId)) c.fail(`current-schema-id ${md.currentSchemaId} is not among the schemas`);

  const specIds = new Set<number>();
  for (const s of array(raw['partition-specs'])) {
    const id = c.int32(s?.['spec-id'], 'spec-id', 0);
    if (specIds.has(id)) c.fail(`partition spec id ${id} appears more than once`);
    specIds.add(id);
  }
  if (raw['default-spec-id'] !== undefined) {
    const id = c.int32(raw['default-spec-id'], 'default-spec-id');
    if (specIds.size > 0 && !specIds.has(id)) c.fail(`default-spec-id ${id} is not among the partition specs`);
  }
  if (!md.specs.some((s) => s.specId === md.defaultSpecId))
    c.fail(`default-spec-id ${md.defaultSpecId} is not among the partition specs`);

  const orderIds = new Set<number>();
  for (const o of array(raw['sort-orders'])) {
    const id = c.int32(o?.['order-id'], 'order-id', 0);
    if (orderIds.has(id)) c.fail(`sort order id ${id} appears more than once`);
    orderIds.add(id);
  }
  if (raw['default-sort-order-id'] !== undefined) {
    const id = c.int32(raw['default-sort-order-id'], 'default-sort-order-id');
    if (orderIds.size > 0 && !orderIds.has(id)) c.fail(`default-sort-order-id ${id} is not among the sort orders`);
  }

  // --- column and partition-field ids never exceed the table's high-water marks (new ids are assigned from them)
  if (raw['last-column-id'] === undefined) c.fail('metadata has no last-column-id');
  const lastColumnId = c.int32(raw['last-column-id'], 'last-column-id', 0);
  for (const s of md.schemas) {
    const max = maxFieldId(s.fields);
    if (max > lastColumnId) c.fail(`schema ${s.schemaId} has field id ${max}, beyond last-column-id ${lastColumnId}`);
  }
  if (raw['last-partition-id'] !== undefined && raw['last-partition-id'] !== null) {
    const lastPartitionId = c.int32(raw['last-partition-id'], 'last-partition-id');
    for (const s of md.specs) {
      for (const f of s.fields) {
        if (f.fieldId > lastPartitionId)
          c.fail(`partition spec ${s.specId} has field id ${f.fieldId}, beyond last-partition-id ${lastPartitionId}`);
      }
    }
  }

  // --- v3 row lineage: next-row-id non-negative and past every snapshot's assigned range
  if (v >= 3) {
    const next = c.optInt(raw, 'next-row-id', 'next-row-id', 0n) ?? c.fail('format v3 metadata has no next-row-id');
    for (const s of md.snapshots) {
      if (s.firstRowId === undefined) continue;
      const end = s.firstRowId + (s.addedRows ?? 0n);
      if (end > next) c.fail(`snapshot ${s.snapshotId} assigned row ids up to ${end}, beyond next-row-id ${next}`);
    }
  }

  // --- statistics files: sizes are byte counts
  for (const k of ['statistics', 'partition-statistics']) {
    for (const s of array(raw[k])) {
      const id = c.int(s?.['snapshot-id'], `${k} snapshot-id`);
      if (typeof s['statistics-path'] !== 'string') c.fail(`${k} entry for snapshot ${id} has no statistics-path`);
      c.int(s['file-size-in-bytes'], `${k} file-size-in-bytes for snapshot ${id}`, 0n);
      c.optInt(s, 'file-footer-size-in-bytes', `${k} file-footer-size-in-bytes for snapshot ${id}`, 0n);
    }
  }
}
