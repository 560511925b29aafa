/**
 * Typed table-metadata updates, spelled as the Iceberg REST spec's CommitTableRequest spells them (so a REST
 * catalog is sent exactly these), and `applyUpdates`, which turns a base metadata document into the next one
 * the way a catalog would — for filesystem and SQL tables, where floe itself writes that document.
 *
 * Only the updates floe's actions need: a new snapshot (compaction, rewrite-manifests, append/overwrite),
 * moving a ref, removing snapshots and refs (expire), and setting table properties (advise --apply).
 * Everything else in the document — fields floe does not understand included — is carried over untouched.
 */
import { toBigInt } from '../../util/json.js';
import { trimSnapshotLog } from '../../model/snapshot-retention.js';
import type { RawMetadata } from './commit-metadata.js';

export interface AddSnapshotUpdate {
  action: 'add-snapshot';
  /** The snapshot as it appears in the metadata's `snapshots` list. */
  snapshot: RawMetadata;
}

export interface SetSnapshotRefUpdate {
  action: 'set-snapshot-ref';
  'ref-name': string;
  'snapshot-id': bigint;
  type: 'branch' | 'tag';
  /** Retention fields (max-ref-age-ms …) the ref carries, kept as the metadata spells them. */
  [retention: string]: unknown;
}

export interface RemoveSnapshotsUpdate {
  action: 'remove-snapshots';
  'snapshot-ids': bigint[];
}

export interface RemoveSnapshotRefUpdate {
  action: 'remove-snapshot-ref';
  'ref-name': string;
}

/** Table properties set (added or replaced), as the REST spec spells it; a metadata-only change. */
export interface SetPropertiesUpdate {
  action: 'set-properties';
  updates: Record<string, string>;
}

export type TableUpdate =
  AddSnapshotUpdate | SetSnapshotRefUpdate | RemoveSnapshotsUpdate | RemoveSnapshotRefUpdate | SetPropertiesUpdate;

type Refs = Record<string, RawMetadata>;

const snapshotIdOf = (s: RawMetadata) => toBigInt(s['snapshot-id'], 'snapshot-id');

/**
 * The next metadata document: `updates` applied in order to a copy of `base`, then `last-updated-ms` set to
 * `timestampMs` and `base`'s own file (`baseLocation`) appended to metadata-log, trimmed to
 * write.metadata.previous-versions-max (Java: at least 1). Removing snapshots or refs also drops the
 * statistics of removed snapshots and trims snapshot-log by Java's rule (an entry naming a snapshot that is
 * gone drops all history before it). Keys are written in a fixed order so a field the base lacks lands where
 * it always has.
 */
export function applyUpdates(
  base: RawMetadata,
  baseLocation: string,
  updates: readonly TableUpdate[],
  timestampMs: number,
): RawMetadata {
  const v = Number(base['format-version'] ?? 1);
  let snapshots = (base.snapshots as RawMetadata[] | undefined) ?? [];
  let refs: Refs | undefined;
  let snapshotLog = (base['snapshot-log'] as RawMetadata[] | undefined) ?? [];
  let currentId: bigint | undefined;
  let lastSequenceNumber: bigint | undefined;
  let nextRowId: bigint | undefined;
  let logChanged = false;
  let removes = false;
  let properties: Record<string, string> | undefined;

  for (const u of updates) {
    switch (u.action) {
      case 'add-snapshot': {
        snapshots = [...snapshots, u.snapshot];
        if (v >= 2) lastSequenceNumber = toBigInt(u.snapshot['sequence-number'], 'sequence-number');
        if (v >= 3) {
          const from = nextRowId ?? toBigInt(base['next-row-id'] ?? 0, 'next-row-id');
          nextRowId = from + toBigInt(u.snapshot['added-rows'] ?? 0, 'added-rows');
        }
        break;
      }
      case 'set-snapshot-ref': {
        const { action: _action, 'ref-name': name, ...ref } = u;
        refs = { ...(refs ?? (base.refs as Refs | undefined) ?? {}) };
        refs[name] = { ...(refs[name] ?? {}), ...ref };
        if (name === 'main') {
          currentId = ref['snapshot-id'];
          const snap = snapshots.find((s) => snapshotIdOf(s) === currentId);
          snapshotLog = [...snapshotLog, { 'timestamp-ms': snap?.['timestamp-ms'], 'snapshot-id': currentId }];
          logChanged = true;
        }
        break;
      }
      case 'remove-snapshots': {
        const gone = new Set(u['snapshot-ids']);
        snapshots = snapshots.filter((s) => !gone.has(snapshotIdOf(s)));
        removes = true;
        break;
      }
      case 'remove-snapshot-ref': {
        const existing = refs ?? (base.refs as Refs | undefined);
        if (existing && typeof existing === 'object') {
          refs = { ...existing };
          delete refs[u['ref-name']];
        }
        removes = true;
        break;
      }
      case 'set-properties':
        properties = { ...(properties ?? (base.properties as Record<string, string> | undefined) ?? {}), ...u.updates };
        break;
    }
  }

  const next = copyOfMetadata(base);
  const kept = new Set(snapshots.map(snapshotIdOf));
  if (removes || updates.some((u) => u.action === 'add-snapshot')) next.snapshots = snapshots;
  if (currentId !== undefined) next['current-snapshot-id'] = currentId;
  if (lastSequenceNumber !== undefined) next['last-sequence-number'] = lastSequenceNumber;
  if (nextRowId !== undefined) next['next-row-id'] = nextRowId;
  if (refs !== undefined) next.refs = refs;
  if (properties !== undefined) next.properties = properties;
  if (removes) {
    const log = snapshotLog.map((e) => ({ e, snapshotId: snapshotIdOf(e) }));
    snapshotLog = trimSnapshotLog(log, (id) => kept.has(id)).map((x) => x.e);
    logChanged = true;
  }
  if (logChanged) next['snapshot-log'] = snapshotLog;
  if (removes) {
    for (const k of ['statistics', 'partition-statistics']) {
      if (Array.isArray(base[k])) next[k] = (base[k] as RawMetadata[]).filter((s) => kept.has(snapshotIdOf(s)));
    }
  }
  next['last-updated-ms'] = timestampMs;
  next['metadata-log'] = appendMetadataLog(base, baseLocation, timestampMs);
  return next;
}

/** The long history arrays, whose entries no update edits: copied as arrays, their entries shared. */
const HISTORY_ARRAYS = new Set(['snapshots', 'snapshot-log', 'metadata-log']);

/**
 * A deep copy of `base` in its key order, except that the history arrays are shallow copies: with 200,000
 * snapshots a full structuredClone doubled the document in memory on every commit for nothing.
 */
function copyOfMetadata(base: RawMetadata): RawMetadata {
  const next: RawMetadata = {};
  for (const [k, v] of Object.entries(base))
    next[k] = HISTORY_ARRAYS.has(k) && Array.isArray(v) ? [...(v as unknown[])] : structuredClone(v);
  return next;
}

/** metadata-log plus the base file, keeping the newest write.metadata.previous-versions-max entries (≥ 1). */
function appendMetadataLog(base: RawMetadata, baseLocation: string, timestampMs: number): unknown[] {
  const props = (base.properties as Record<string, string> | undefined) ?? {};
  const configured = Number(props['write.metadata.previous-versions-max'] ?? 100);
  const maxPrev = Number.isFinite(configured) ? Math.max(1, configured) : 100;
  const log = [
    ...((base['metadata-log'] as unknown[] | undefined) ?? []),
    { 'timestamp-ms': Number(base['last-updated-ms'] ?? timestampMs), 'metadata-file': baseLocation },
  ];
  return log.slice(Math.max(0, log.length - maxPrev));
}
