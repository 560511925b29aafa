/**
 * What `floe expire` may delete from a Paimon table (expire.ts): the files the expired snapshots and
 * changelogs reach that nothing retained reaches — retained snapshots (what they can read), tags and the
 * retained long-lived changelogs — matched by name as Paimon does. Data files are located by one listing
 * of the bucket directories; the rest by the names the metadata gives them.
 */
import type { DeletionCandidate } from '../../model/maintenance-report.js';
import { absoluteLocation } from '../storage/location.js';
import type { FileIO } from '../storage/file-io.js';
import { addChangelogNeeds, addDeltaAppendRemovals, type ChangelogRetention } from './changelog-lifecycle.js';
import { addSnapshotReach, emptyReach, readTags, type ManifestCache, type ReachableNames } from './expire-reach.js';
import { joinPath } from './io.js';
import { readSnapshot, snapshotPath, type PaimonSnapshot } from './metadata.js';

/**
 * Reachable from what stays: snapshots `from`..`latest`, every tag and every retained long-lived
 * changelog — only what they can read (live files, changelog, index files).
 */
export async function reachFromRetained(
  io: FileIO,
  table: string,
  range: { end: bigint; latest: bigint },
  retention: ChangelogRetention,
  retainedChangelogs: readonly PaimonSnapshot[],
): Promise<ReachableNames> {
  const kept = emptyReach();
  const cache: ManifestCache = new Map();
  for (let id = range.end; id <= range.latest; id++) {
    if (!(await io.exists(snapshotPath(table, id)))) continue;
    const s = await readSnapshot(io, table, id);
    await addSnapshotReach(io, table, s, kept, cache, 'live');
    if (retention.decoupled && !retention.producesChangelog) await addDeltaAppendRemovals(io, table, s, kept, cache);
  }
  for (const tag of await readTags(io, table)) await addSnapshotReach(io, table, tag, kept, cache, 'live');
  for (const c of retainedChangelogs) await addChangelogNeeds(io, table, c, retention, kept, cache);
  return kept;
}

/**
 * Everything the expired snapshots and changelogs name. One whose manifests cannot be read is left out
 * with a warning: its files stay for remove-orphans.
 */
export async function reachFromExpired(
  io: FileIO,
  table: string,
  expired: readonly PaimonSnapshot[],
  expiredChangelogs: readonly PaimonSnapshot[],
  warnings: string[],
): Promise<ReachableNames> {
  const gone = emptyReach();
  const cache: ManifestCache = new Map();
  for (const s of expired) {
    try {
      await addSnapshotReach(io, table, s, gone, cache);
    } catch (e) {
      warnings.push(
        `cannot read the files of expired snapshot ${s.id} (${(e as Error).message}); they are left for remove-orphans`,
      );
    }
  }
  for (const c of expiredChangelogs) {
    try {
      await addSnapshotReach(io, table, c, gone, cache, 'all', true);
    } catch (e) {
      warnings.push(
        `cannot read the files of expired changelog ${c.id} (${(e as Error).message}); they are left for remove-orphans`,
      );
    }
  }
  return gone;
}

/**
 * The files `gone` reaches and `kept` does not: data files found by listing the table (already real
 * locations), and the files the metadata names (external data files, index files, manifests, statistics,
 * the expired snapshot and changelog files themselves).
 */
export async function unreachableCandidates(
  io: FileIO,
  table: string,
  kept: ReachableNames,
  gone: ReachableNames,
  expired: readonly PaimonSnapshot[],
  expiredChangelogs: readonly PaimonSnapshot[],
): Promise<{ listed: DeletionCandidate[]; named: DeletionCandidate[] }> {
  const listed: DeletionCandidate[] = [];
  const named: DeletionCandidate[] = [];
  const root = absoluteLocation(table); // paths floe builds must not depend on the working directory
  const unused = (set: Set<string>, keep: Set<string>) => [...set].filter((n) => !keep.has(n));
  const sized = (n: string) => (gone.sizes.get(n) !== undefined ? { bytes: gone.sizes.get(n)! } : {});
  const by = expiredChangelogs.length > 0 ? 'expired snapshots and changelogs' : 'expired snapshots';
  const dataNames = new Set(unused(gone.dataFiles, kept.dataFiles));
  const locations = await bucketFileLocations(io, table, dataNames);
  for (const n of dataNames)
    for (const loc of locations.get(n) ?? [])
      listed.push({ location: loc, ...sized(n), kind: 'data', reason: `used only by ${by}` });
  for (const x of unused(gone.external, kept.external))
    named.push({ location: x, kind: 'data', reason: `external file used only by ${by}` });
  for (const n of unused(gone.indexFiles, kept.indexFiles))
    named.push({
      location: joinPath(root, 'index', n),
      ...sized(n),
      kind: 'index',
      reason: `index file used only by ${by}`,
    });
  for (const n of unused(gone.manifests, kept.manifests))
    named.push({
      location: joinPath(root, 'manifest', n),
      ...sized(n),
      kind: 'manifest',
      reason: `manifest (list) used only by ${by}`,
    });
  for (const n of unused(gone.statistics, kept.statistics))
    named.push({ location: joinPath(root, 'statistics', n), kind: 'statistics', reason: `statistics of ${by} only` });
  for (const s of expired)
    named.push({ location: absoluteLocation(s.file), kind: 'snapshot', reason: `expired snapshot ${s.id}` });
  for (const c of expiredChangelogs)
    named.push({ location: absoluteLocation(c.file), kind: 'changelog', reason: `expired changelog ${c.id}` });
  return { listed, named };
}

/** Locations of data/changelog files by name: one listing of the table's bucket directories. */
async function bucketFileLocations(io: FileIO, table: string, names: Set<string>): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (names.size === 0) return out;
  for await (const f of io.list(table)) {
    const slash = f.location.lastIndexOf('/');
    const name = f.location.slice(slash + 1);
    if (!names.has(name)) continue;
    const dir = f.location.slice(0, slash);
    if (!/\/bucket-(-?\d+|postpone)$/.test(dir)) continue;
    const list = out.get(name) ?? [];
    list.push(f.location);
    out.set(name, list);
  }
  return out;
}
