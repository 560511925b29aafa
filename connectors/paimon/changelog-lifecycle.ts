/**
 * Paimon's decoupled changelog lifecycle (Java: ExpireSnapshotsImpl with a decoupled ExpireConfig, then
 * ExpireChangelogImpl; ChangelogManager for the files). When the changelog is retained longer than the
 * snapshots, an expired snapshot's JSON lives on as `changelog/changelog-<id>` (LATEST hint in changelog/),
 * and the changelog is expired later by `changelog.num-retained.min/max`, `changelog.time-retained`, the
 * consumers and `snapshot.expire.limit`, counted against the latest *snapshot* id, never the latest
 * changelog (EARLIEST hint in changelog/).
 *
 * What a retained changelog keeps alive (what Java's SnapshotDeletion leaves to ChangelogDeletion):
 * - changelog-producer ≠ none: its changelog manifest list, the manifests in it and the changelog files
 *   they add (its base/delta lists go with the snapshot);
 * - changelog-producer = none (the changelog is the delta itself): its base and delta manifest lists and
 *   their manifests, and every APPEND-sourced file its delta adds or removes (a file an APPEND wrote and a
 *   compaction removed stays until the compaction's changelog expires, as in Java).
 * Index manifests and statistics go with the snapshot, as in Java.
 */
import { FloeError, isFloeError } from '../../util/errors.js';
import type { FileIO } from '../storage/file-io.js';
import { createVerified } from '../storage/create-verified.js';
import { parseDurationMs } from '../../util/units.js';
import { joinPath, listDir, type PaimonIO } from './io.js';
import { readManifestList, namedBy } from './manifest.js';
import { parseSnapshot, type PaimonSnapshot } from './metadata.js';
import { addFile, addSnapshotReach, entriesOf, type ManifestCache, type ReachableNames } from './expire-reach.js';
import { changelogDecoupledReason, type SnapshotRetention } from './changelog-retention.js';

const INT_MAX = 2147483647;
const FILE_SOURCE_APPEND = 0;

/** The changelog retention of one run: explicit changelog options, else the run's snapshot retention. */
export interface ChangelogRetention {
  /** Why the lifecycle is decoupled (ExpireConfig.isChangelogDecoupled), or undefined. */
  decoupled?: string;
  retainMin: bigint;
  retainMax: bigint;
  /** Changelogs written before this (epoch ms) may expire. */
  olderThanMs: number;
  /** snapshot.expire.limit (Java's changelogMaxDeletes). */
  maxDeletes: bigint;
  /** changelog-producer ≠ none: the changelog lives in changelog files, not in the delta. */
  producesChangelog: boolean;
}

export function changelogRetention(
  options: Record<string, string>,
  run: SnapshotRetention & { expireLimit?: number },
): ChangelogRetention {
  const num = (k: string, d: number) => (options[k] !== undefined ? Number(options[k]) : d);
  const now = run.nowMs ?? Date.now();
  const dur = (k: string, d: string) => parseDurationMs(options[k] ?? d, { bare: 'ms', what: `table option ${k}` });
  const snapMin = run.retainMin ?? num('snapshot.num-retained.min', 10);
  const snapMax = run.retainMax ?? num('snapshot.num-retained.max', INT_MAX);
  const snapOlderThan = run.olderThanMs ?? now - dur('snapshot.time-retained', '1 h');
  const decoupled = changelogDecoupledReason(options, run);
  return {
    ...(decoupled ? { decoupled } : {}),
    retainMin: BigInt(num('changelog.num-retained.min', snapMin)),
    retainMax: BigInt(num('changelog.num-retained.max', snapMax)),
    olderThanMs:
      options['changelog.time-retained'] !== undefined ? now - dur('changelog.time-retained', '') : snapOlderThan,
    maxDeletes: BigInt(run.expireLimit ?? num('snapshot.expire.limit', 50)),
    producesChangelog: (options['changelog-producer'] ?? 'none').toLowerCase() !== 'none',
  };
}

export const changelogPath = (table: string, id: bigint) => joinPath(table, 'changelog', `changelog-${id}`);

/** Ids of the long-lived changelogs (`changelog/changelog-<id>`), ascending. */
export async function longLivedChangelogIds(io: PaimonIO, table: string): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (const n of await listDir(io, joinPath(table, 'changelog'))) {
    const m = /^changelog-(\d+)$/.exec(n);
    if (m) ids.push(BigInt(m[1]!));
  }
  return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export async function readChangelog(io: PaimonIO, table: string, id: bigint): Promise<PaimonSnapshot> {
  const file = changelogPath(table, id);
  return parseSnapshot(await io.read(file), file);
}

/**
 * The changelogs to expire: ids below the returned end (ExpireChangelogImpl.expire over `ids`, the
 * changelogs there will be once this run's expired snapshots are written). The latest changelog never expires.
 */
export function changelogExpiryEnd(
  ids: readonly bigint[],
  timeOf: (id: bigint) => number | undefined,
  latestSnapshot: bigint,
  consumerNext: bigint | undefined,
  r: ChangelogRetention,
): bigint | undefined {
  if (ids.length === 0) return undefined;
  if (r.retainMax < r.retainMin)
    throw new FloeError(
      'InvalidArgument',
      `changelog.num-retained.max (${r.retainMax}) must not be below changelog.num-retained.min (${r.retainMin})`,
    );
  const earliest = ids[0]!;
  const latest = ids[ids.length - 1]!;
  const min = latestSnapshot - r.retainMax + 1n > earliest ? latestSnapshot - r.retainMax + 1n : earliest;
  let maxExclusive = latestSnapshot - r.retainMin + 1n;
  const lower = (v: bigint | undefined) => {
    if (v !== undefined && v < maxExclusive) maxExclusive = v;
  };
  lower(consumerNext);
  lower(earliest + r.maxDeletes);
  lower(latest);
  for (let id = min; id <= maxExclusive; id++) {
    const t = timeOf(id);
    if (t !== undefined && r.olderThanMs <= t) return id;
  }
  return maxExclusive;
}

/**
 * Adds what a retained changelog still needs (see the module comment). Lists its snapshot's expiry already
 * deleted are passed over.
 */
export async function addChangelogNeeds(
  io: PaimonIO,
  table: string,
  c: PaimonSnapshot,
  r: ChangelogRetention,
  out: ReachableNames,
  cache: ManifestCache,
): Promise<void> {
  if (r.producesChangelog) {
    if (c.changelogManifestList)
      await addSnapshotReach(
        io,
        table,
        { ...c, baseManifestList: '', deltaManifestList: '', indexManifest: undefined, statistics: undefined },
        out,
        cache,
        'live',
        true,
      );
    return;
  }
  for (const list of [c.baseManifestList, c.deltaManifestList, c.changelogManifestList]) {
    if (!list || !(await io.exists(joinPath(table, 'manifest', list)))) continue;
    out.manifests.add(list);
    for (const m of await readManifestList(io, table, list).catch((e: unknown) =>
      Promise.reject(namedBy(e, `changelog ${c.file}`)),
    )) {
      out.manifests.add(m.fileName);
      out.sizes.set(m.fileName, Number(m.fileSize));
      if (list === c.baseManifestList) continue; // metadata only: base files live or die with the snapshots
      const entries = await entriesOf(io, table, m.fileName, cache).catch((e: unknown) =>
        Promise.reject(namedBy(e, `manifest list ${list}`)),
      );
      for (const e of entries) {
        if (list === c.changelogManifestList ? e.add : (e.source ?? FILE_SOURCE_APPEND) === FILE_SOURCE_APPEND)
          addFile(out, e);
      }
    }
  }
}

/**
 * A retained snapshot of a decoupled changelog-producer=none table: the APPEND files its delta removes stay
 * (Java's SnapshotDeletion leaves them to the changelog's expiry).
 */
export async function addDeltaAppendRemovals(
  io: PaimonIO,
  table: string,
  s: PaimonSnapshot,
  out: ReachableNames,
  cache: ManifestCache,
): Promise<void> {
  for (const m of await readManifestList(io, table, s.deltaManifestList).catch((e: unknown) =>
    Promise.reject(namedBy(e, `snapshot ${s.file}`)),
  )) {
    for (const e of await entriesOf(io, table, m.fileName, cache)) {
      if (!e.add && (e.source ?? FILE_SOURCE_APPEND) === FILE_SOURCE_APPEND) addFile(out, e);
    }
  }
}

/**
 * Writes `changelog/changelog-<id>` with the expired snapshot's JSON (create-if-absent: a changelog already
 * there — an interrupted run's or Java's — is the same snapshot's and stays). Returns false when it existed.
 */
export async function writeLongLivedChangelog(io: FileIO, table: string, s: PaimonSnapshot): Promise<boolean> {
  const location = changelogPath(table, s.id);
  const bytes = await io.read(s.file);
  try {
    await createVerified(
      { location, create: () => io.createNew(location, bytes), read: () => io.read(location) },
      bytes,
    );
    return true;
  } catch (e) {
    if (isFloeError(e, 'PreconditionFailed')) return false;
    throw e;
  }
}

/** Hint files (`changelog/EARLIEST`, `changelog/LATEST`): the id as decimal text, overwritten. */
export async function writeChangelogHint(io: FileIO, table: string, which: 'EARLIEST' | 'LATEST', id: bigint) {
  await io.overwrite(joinPath(table, 'changelog', which), Buffer.from(id.toString()));
}

export async function readChangelogHint(
  io: PaimonIO,
  table: string,
  which: 'EARLIEST' | 'LATEST',
): Promise<bigint | undefined> {
  try {
    const text = new TextDecoder().decode(await io.read(joinPath(table, 'changelog', which))).trim();
    return /^\d+$/.test(text) ? BigInt(text) : undefined;
  } catch {
    return undefined;
  }
}
