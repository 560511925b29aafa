/**
 * Which snapshots and refs survive an Iceberg snapshot expiry — the retention math alone, on plain values,
 * following Java's RemoveSnapshots (spec §Snapshot Retention Policy plus Java's extra rule):
 * 1. `main` is always kept; any other ref is kept while its snapshot is no older than its max-ref-age
 *    (ref override, else the table default); a ref pointing at a missing snapshot is dropped.
 * 2. Every kept ref's snapshot is kept. Explicitly named snapshots that are a kept ref's head are an error.
 * 3. Each kept branch keeps its ancestors while fewer than min-snapshots-to-keep were kept for it, or while
 *    the ancestor is at least as new as its cutoff (now − branch max-snapshot-age, else the default cutoff).
 * 4. Snapshots not reachable from any kept ref (not an ancestor of a branch, not a tag head) are kept when
 *    at least as new as the default cutoff.
 * 5. Everything else expires, and so do the explicitly named snapshots.
 */
import { FloeError } from '../util/errors.js';
import type { SnapshotRef } from './table.js';

export interface RetentionSnapshot {
  id: bigint;
  parentId?: bigint;
  timestampMs: number;
}

/** A branch or tag with its retention overrides: the table model's SnapshotRef. */
export type RetentionRef = SnapshotRef;

export interface RetentionPolicy {
  nowMs: number;
  /** Default cutoff: snapshots older than this may expire (Java `expireOlderThan`). */
  expireOlderThanMs: number;
  /** Default min snapshots to keep per branch (Java `retainLast`). */
  minSnapshotsToKeep: number;
  /** Default max ref age; undefined = refs never expire. */
  maxRefAgeMs?: number;
  /** Snapshot ids to expire explicitly. */
  expireIds?: readonly bigint[];
}

export interface RetentionDecision {
  retained: Set<bigint>;
  expired: bigint[];
  /** Names of refs that are removed. */
  removedRefs: string[];
  /** Why each snapshot was kept (first reason found), for --dry-run output. */
  keptBecause: Map<bigint, string>;
}

/** Table properties → defaults (history.expire.*), Java's TableProperties defaults. */
export function retentionDefaults(props: Record<string, string>): {
  maxSnapshotAgeMs: number;
  minSnapshotsToKeep: number;
  maxRefAgeMs?: number;
} {
  const num = (k: string): number | undefined => {
    const v = props[k];
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v.trim()))
      throw new FloeError('InvalidArgument', `table property ${k}="${v}" is not an integer`);
    return Number(v);
  };
  const maxRef = num('history.expire.max-ref-age-ms');
  return {
    maxSnapshotAgeMs: num('history.expire.max-snapshot-age-ms') ?? 5 * 86_400_000,
    minSnapshotsToKeep: num('history.expire.min-snapshots-to-keep') ?? 1,
    ...(maxRef !== undefined && maxRef < Number.MAX_SAFE_INTEGER ? { maxRefAgeMs: maxRef } : {}),
  };
}

export function decideRetention(
  snapshots: readonly RetentionSnapshot[],
  refs: readonly RetentionRef[],
  policy: RetentionPolicy,
): RetentionDecision {
  const byId = new Map(snapshots.map((s) => [s.id, s]));
  const keptBecause = new Map<bigint, string>();
  const keep = (id: bigint, why: string) => {
    if (!keptBecause.has(id)) keptBecause.set(id, why);
  };

  const keptRefs: RetentionRef[] = [];
  const removedRefs: string[] = [];
  for (const ref of refs) {
    if (ref.name === 'main') {
      keptRefs.push(ref);
      continue;
    }
    const snap = byId.get(ref.snapshotId);
    const maxAge = ref.maxRefAgeMs ?? policy.maxRefAgeMs;
    if (snap && (maxAge === undefined || policy.nowMs - snap.timestampMs <= maxAge)) keptRefs.push(ref);
    else removedRefs.push(ref.name);
  }

  const headRefs = new Map<bigint, string[]>();
  for (const ref of keptRefs) {
    const list = headRefs.get(ref.snapshotId) ?? [];
    list.push(ref.name);
    headRefs.set(ref.snapshotId, list);
    if (byId.has(ref.snapshotId)) keep(ref.snapshotId, `head of ${ref.type} ${ref.name}`);
  }
  for (const id of policy.expireIds ?? []) {
    const names = headRefs.get(id);
    if (names) {
      throw new FloeError(
        'InvalidArgument',
        `cannot expire snapshot ${id}: it is still referenced by ${names.join(', ')}`,
        {
          context: { snapshotId: id.toString(), refs: names },
        },
      );
    }
  }

  const ancestorsOf = function* (id: bigint): Generator<RetentionSnapshot> {
    const seen = new Set<bigint>();
    let cur = byId.get(id);
    while (cur && !seen.has(cur.id)) {
      seen.add(cur.id);
      yield cur;
      cur = cur.parentId === undefined ? undefined : byId.get(cur.parentId);
    }
  };

  for (const ref of keptRefs) {
    if (ref.type !== 'branch') continue;
    const cutoff = ref.maxSnapshotAgeMs !== undefined ? policy.nowMs - ref.maxSnapshotAgeMs : policy.expireOlderThanMs;
    const minKeep = ref.minSnapshotsToKeep ?? policy.minSnapshotsToKeep;
    let count = 0;
    for (const s of ancestorsOf(ref.snapshotId)) {
      if (count < minKeep || s.timestampMs >= cutoff) {
        keep(
          s.id,
          count < minKeep
            ? `one of the last ${minKeep} of branch ${ref.name}`
            : `newer than the cutoff on branch ${ref.name}`,
        );
        count++;
      } else break;
    }
  }

  const referenced = new Set<bigint>();
  for (const ref of keptRefs) {
    if (ref.type === 'branch') for (const s of ancestorsOf(ref.snapshotId)) referenced.add(s.id);
    else referenced.add(ref.snapshotId);
  }
  for (const s of snapshots) {
    if (!referenced.has(s.id) && s.timestampMs >= policy.expireOlderThanMs)
      keep(s.id, 'unreferenced but newer than the cutoff');
  }

  const explicit = new Set(policy.expireIds ?? []);
  const retained = new Set<bigint>();
  const expired: bigint[] = [];
  for (const s of snapshots) {
    if (keptBecause.has(s.id) && !explicit.has(s.id)) retained.add(s.id);
    else expired.push(s.id);
  }
  for (const id of explicit) keptBecause.delete(id);
  return { retained, expired, removedRefs, keptBecause };
}

/**
 * Java's snapshot-log rule: entries of snapshots that still exist are kept, but an entry naming a removed
 * snapshot drops it and all history before it (a gap would misstate what the table looked like).
 */
export function trimSnapshotLog<T extends { snapshotId: bigint }>(
  log: readonly T[],
  exists: (id: bigint) => boolean,
): T[] {
  const out: T[] = [];
  for (const e of log) {
    if (exists(e.snapshotId)) out.push(e);
    else out.length = 0;
  }
  return out;
}
