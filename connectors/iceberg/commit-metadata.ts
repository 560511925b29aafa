/**
 * Produces the next table-metadata JSON for a new snapshot, editing the raw parsed document so that every
 * field floe does not understand (encryption keys, statistics, vendor extensions) is carried over untouched.
 */
import { randomUUID } from 'node:crypto';
import { FloeError } from '../../util/errors.js';
import { toBigInt } from '../../util/json.js';
import { parseMetadata } from './metadata.js';
import { applyUpdates } from './table-update.js';
import { refSnapshotId, tableUuidRequirement } from './table-requirement.js';
import type { TableChange } from './transaction.js';

export type RawMetadata = Record<string, unknown>;

/** Java: XOR of the two halves of a random UUID, masked positive; we also avoid ids already in the table. */
export function newSnapshotId(existing: Iterable<bigint>): bigint {
  const taken = new Set(existing);
  for (;;) {
    const hex = randomUUID().replace(/-/g, '');
    const id = BigInt.asUintN(63, BigInt(`0x${hex.slice(0, 16)}`) ^ BigInt(`0x${hex.slice(16)}`));
    if (id !== 0n && !taken.has(id)) return id;
  }
}

export function snapshotsOf(meta: RawMetadata): RawMetadata[] {
  return (meta.snapshots as RawMetadata[] | undefined) ?? [];
}

export function currentSnapshotIdOf(meta: RawMetadata): bigint | undefined {
  const refs = meta.refs as Record<string, { 'snapshot-id': unknown }> | undefined;
  const fromRef = refs?.main?.['snapshot-id'];
  const raw = fromRef ?? meta['current-snapshot-id'];
  if (raw === null || raw === undefined) return undefined;
  const id = toBigInt(raw, 'current-snapshot-id');
  return id === -1n ? undefined : id;
}

export function snapshotById(meta: RawMetadata, id: bigint): RawMetadata | undefined {
  return snapshotsOf(meta).find((s) => toBigInt(s['snapshot-id'], 'snapshot-id') === id);
}

/** Snapshots from `fromId` (exclusive) to the current one, oldest first, following parent links. */
export function snapshotsSince(meta: RawMetadata, fromId: bigint | undefined): RawMetadata[] {
  const out: RawMetadata[] = [];
  let id = currentSnapshotIdOf(meta);
  while (id !== undefined && id !== fromId) {
    const s = snapshotById(meta, id);
    if (!s) break;
    out.push(s);
    const parent = s['parent-snapshot-id'];
    id = parent === undefined || parent === null ? undefined : toBigInt(parent, 'parent-snapshot-id');
  }
  return out.reverse();
}

export interface NewSnapshot {
  snapshotId: bigint;
  parentSnapshotId: bigint | undefined;
  sequenceNumber: bigint;
  timestampMs: number;
  manifestList: string;
  summary: Record<string, string>;
  schemaId: number | undefined;
  /** v3 row lineage: first-row-id of the snapshot and rows assigned. */
  firstRowId?: bigint;
  addedRows?: bigint;
}

/** The snapshot object as the metadata's `snapshots` list (and a REST add-snapshot update) holds it. */
export function snapshotJson(formatVersion: number, snap: NewSnapshot): RawMetadata {
  const snapshot: RawMetadata = {};
  if (formatVersion !== 1) snapshot['sequence-number'] = snap.sequenceNumber;
  snapshot['snapshot-id'] = snap.snapshotId;
  if (snap.parentSnapshotId !== undefined) snapshot['parent-snapshot-id'] = snap.parentSnapshotId;
  snapshot['timestamp-ms'] = snap.timestampMs;
  snapshot.summary = snap.summary;
  snapshot['manifest-list'] = snap.manifestList;
  if (snap.schemaId !== undefined) snapshot['schema-id'] = snap.schemaId;
  if (formatVersion >= 3) {
    snapshot['first-row-id'] = snap.firstRowId ?? 0n;
    snapshot['added-rows'] = snap.addedRows ?? 0n;
  }
  return snapshot;
}

/**
 * A new snapshot on main as updates + requirements: add-snapshot and set-snapshot-ref main (keeping the ref's
 * retention fields), requiring the same table and main still where `base` has it (REST spec / Java
 * UpdateRequirements for a snapshot producer).
 */
export function newSnapshotChange(base: RawMetadata, snap: NewSnapshot): TableChange {
  const v = Number(base['format-version'] ?? 1);
  const main = (base.refs as Record<string, RawMetadata> | undefined)?.main ?? {};
  return {
    updates: [
      { action: 'add-snapshot', snapshot: snapshotJson(v, snap) },
      { action: 'set-snapshot-ref', 'ref-name': 'main', ...main, 'snapshot-id': snap.snapshotId, type: 'branch' },
    ],
    requirements: [
      ...tableUuidRequirement(base),
      { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': refSnapshotId(base, 'main') },
    ],
  };
}

/**
 * The next metadata document: the snapshot appended, main moved to it, logs extended, and the previous
 * metadata file recorded in metadata-log (trimmed to write.metadata.previous-versions-max).
 */
export function nextMetadata(base: RawMetadata, previousMetadataFile: string, snap: NewSnapshot): RawMetadata {
  const next = applyUpdates(base, previousMetadataFile, newSnapshotChange(base, snap).updates, snap.timestampMs);
  assertCommittable(next, previousMetadataFile);
  return next;
}

/**
 * The document floe is about to publish passes the same invariants a read checks (validate-metadata.ts).
 * The base was checked when it was parsed; this catches what the edit itself could break (an overflowing
 * sequence number, a ref to a snapshot that is not there).
 */
export function assertCommittable(next: RawMetadata, baseMetadataFile: string): void {
  try {
    parseMetadata(next, `(next version of ${baseMetadataFile})`);
  } catch (e) {
    if (!(e instanceof FloeError)) throw e;
    throw new FloeError(
      'Corrupt',
      `refusing to commit on top of ${baseMetadataFile}: the new metadata would be invalid — ${e.message}`,
      {
        context: { ...e.context, file: baseMetadataFile },
        cause: e,
      },
    );
  }
}

const TOTALS: [string, string, string][] = [
  ['total-data-files', 'added-data-files', 'deleted-data-files'],
  ['total-delete-files', 'added-delete-files', 'removed-delete-files'],
  ['total-records', 'added-records', 'deleted-records'],
  ['total-files-size', 'added-files-size', 'removed-files-size'],
  ['total-position-deletes', 'added-position-deletes', 'removed-position-deletes'],
  ['total-equality-deletes', 'added-equality-deletes', 'removed-equality-deletes'],
];

/**
 * Fills total-* from the parent's totals plus this snapshot's changes, as Java's SnapshotSummary does.
 * A total is only written when the parent had it (or there is no parent), since an unknown base makes it a lie.
 */
export function withTotals(
  changes: Record<string, bigint>,
  parentSummary: Record<string, string> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(changes)) if (v !== 0n) out[k] = v.toString();
  for (const [total, added, removed] of TOTALS) {
    const prev = parentSummary === undefined ? '0' : parentSummary[total];
    if (prev === undefined || !/^-?\d+$/.test(prev)) continue;
    out[total] = (BigInt(prev) + (changes[added] ?? 0n) - (changes[removed] ?? 0n)).toString();
  }
  return out;
}

/** metadata/v<N>.metadata.json or metadata/<NNNNN>-<uuid>.metadata.json → N (or -1). */
export function metadataVersionOf(file: string): number {
  const name = file.slice(file.lastIndexOf('/') + 1);
  const hadoop = /^v(\d+)\.(gz\.)?metadata\.json(\.gz)?$/.exec(name);
  if (hadoop) return Number(hadoop[1]);
  const metastore = /^(\d+)-[^.]+\.(gz\.)?metadata\.json(\.gz)?$/.exec(name);
  if (metastore) return Number(metastore[1]);
  return -1;
}
