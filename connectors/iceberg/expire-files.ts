/**
 * Which files an Iceberg snapshot expiry may delete, by comparing reachable sets (Java's
 * ReachableFileCleanup) — correct for any history (branches, tags, cherry-picks, explicit ids):
 * - manifest lists of expired snapshots;
 * - manifests listed by expired snapshots and by no retained snapshot;
 * - data and delete files live (ADDED/EXISTING) in those manifests and live in no manifest of any retained
 *   snapshot;
 * - statistics / partition-statistics files the metadata no longer names.
 * Fail-safe rules (as Java): an unreadable manifest list of a *retained* snapshot aborts the whole cleanup
 * (we could not tell which manifests are still in use); an unreadable *retained* manifest cancels the
 * deletion of data and delete files but not of manifests and manifest lists; an unreadable *expired*
 * manifest list or manifest just leaves its files behind (remove-orphans finds them later).
 *
 * Manifest lists and manifests are read a bounded window at a time (16 concurrent reads) and only paths are
 * kept (a Set/Map of strings), never whole entries; a manifest list several snapshots share is read once.
 */
import pLimit from 'p-limit';
import { FloeError } from '../../util/errors.js';
import { readAvroContainer } from '../formats/avro.js';
import type { DeletionCandidate } from '../../model/maintenance-report.js';
import type { FileIO } from '../storage/file-io.js';
import { normalizeManifestFile } from './write-manifest.js';
import type { IcebergMetadata, IcebergSnapshot } from './metadata.js';

export interface ManifestRef {
  path: string;
  length?: number;
  content: number;
}

/** The manifests a snapshot lists (v1 inline `manifests` included). */
export async function manifestsOfSnapshot(io: FileIO, snap: IcebergSnapshot): Promise<ManifestRef[]> {
  if (!snap.manifestList) return (snap.manifests ?? []).map((path) => ({ path, content: 0 }));
  let records;
  try {
    records = readAvroContainer(await io.read(snap.manifestList), snap.manifestList).records;
  } catch (e) {
    // name the file floe actually read (relocated tables: the mapped location, the metadata's beside it)
    throw new FloeError(
      e instanceof FloeError ? e.kind : 'Corrupt',
      `cannot read manifest list ${io.describe(snap.manifestList)} of snapshot ${snap.snapshotId}: ${(e as Error).message}`,
      {
        context: {
          file: io.realLocation(snap.manifestList),
          metadataFile: snap.manifestList,
          snapshotId: snap.snapshotId.toString(),
        },
        cause: e,
      },
    );
  }
  return records.map((r) => {
    const m = normalizeManifestFile(r);
    return { path: m.manifest_path, length: Number(m.manifest_length), content: m.content };
  });
}

export interface EntryPath {
  path: string;
  status: number; // 0 existing, 1 added, 2 deleted
  content: number; // 0 data, 1 position deletes / DV, 2 equality deletes
  bytes: number;
}

/** Paths, status and sizes of one manifest's entries. */
export async function entryPathsOf(io: FileIO, manifestPath: string): Promise<EntryPath[]> {
  let records;
  try {
    records = readAvroContainer<Record<string, unknown>>(await io.read(manifestPath), manifestPath).records;
  } catch (e) {
    throw new FloeError(
      e instanceof FloeError ? e.kind : 'Corrupt',
      `cannot read manifest ${io.describe(manifestPath)}: ${(e as Error).message}`,
      {
        context: { file: io.realLocation(manifestPath), metadataFile: manifestPath },
        cause: e,
      },
    );
  }
  return records.map((r) => {
    const df = r.data_file as Record<string, unknown>;
    return {
      path: String(df.file_path),
      status: Number(r.status),
      content: Number(df.content ?? 0),
      bytes: Number(df.file_size_in_bytes ?? 0),
    };
  });
}

/** Snapshots in order, the first of each manifest list only (v1 inline manifests are kept: nothing to read). */
function withDistinctLists(snaps: readonly IcebergSnapshot[], key: (loc: string) => string): IcebergSnapshot[] {
  const seen = new Set<string>();
  return snaps.filter((s) => {
    if (!s.manifestList) return true;
    const k = key(s.manifestList);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/** Manifest lists and manifests read this many at a time (a long history is mostly waiting on small reads). */
const READ_CONCURRENCY = 16;
/** ... in windows of this many files, so that only one window's decoded contents are held at once. */
const READ_WINDOW = 512;

/**
 * `use` called with what `read` gives for each item (or the error it threw), in the items' order, the reads
 * running concurrently a window at a time: linear in the items, bounded in memory. `use` returning false
 * stops before the next window.
 */
async function forEachRead<T, R>(
  items: Iterable<T>,
  read: (item: T) => Promise<R>,
  use: (item: T, got: R | Error) => boolean | void,
): Promise<void> {
  const limit = pLimit(READ_CONCURRENCY);
  const all = [...items];
  for (let i = 0; i < all.length; i += READ_WINDOW) {
    const window = all.slice(i, i + READ_WINDOW);
    const got = await limit.map(window, (x) => read(x).catch(asError));
    for (const [j, x] of window.entries()) if (use(x, got[j]!) === false) return;
  }
}

const CONTENT_KIND = ['data', 'position-delete', 'equality-delete'];

function contentKind(e: EntryPath): string {
  return e.content === 1 && /\.puffin$/i.test(e.path) ? 'deletion-vector' : (CONTENT_KIND[e.content] ?? 'content');
}

export interface ExpiryCleanupPlan {
  candidates: DeletionCandidate[];
  warnings: string[];
}

/** Everything expiring `before` → `after` frees. Reads manifests, deletes nothing. */
export async function planExpiredFiles(
  io: FileIO,
  before: IcebergMetadata,
  after: IcebergMetadata,
  /** Whether `after` is committed (a real run) or only computed (a dry run): the errors say which. */
  o: { committed?: boolean } = {},
): Promise<ExpiryCleanupPlan> {
  const committed = o.committed !== false;
  const warnings: string[] = [];
  const key = (loc: string) => io.map(loc);
  const afterIds = new Set(after.snapshots.map((s) => s.snapshotId));
  const expired = before.snapshots.filter((s) => !afterIds.has(s.snapshotId));
  const retained = after.snapshots;
  if (expired.length === 0) return { candidates: [], warnings };

  // 1. retained manifest lists → retained manifests (any failure: abort, we cannot tell what is in use)
  const retainedLists = new Set<string>();
  const retainedManifests = new Map<string, string>(); // normalised → raw
  await forEachRead(
    withDistinctLists(retained, key),
    (s) => manifestsOfSnapshot(io, s),
    (s, ms) => {
      if (ms instanceof Error) {
        throw new FloeError(
          'Corrupt',
          committed
            ? `file cleanup skipped: ${ms.message}; without it floe cannot tell which files are still in use, so nothing was deleted (the expired snapshots are already removed from the metadata; run remove-orphans once the file is readable)`
            : `file cleanup cannot be planned: ${ms.message}; without it floe cannot tell which files are still in use (dry run: nothing was changed)`,
          {
            context: { snapshotId: s.snapshotId.toString() },
            cause: ms,
          },
        );
      }
      if (s.manifestList) retainedLists.add(key(s.manifestList));
      for (const m of ms) retainedManifests.set(key(m.path), m.path);
    },
  );

  // 2. manifests of expired snapshots that no retained snapshot lists (a list several snapshots share is
  // read once: it names the same manifests each time)
  const candidates: DeletionCandidate[] = [];
  const manifestsToDelete = new Map<string, ManifestRef>();
  const expiredLists: DeletionCandidate[] = [];
  await forEachRead(
    withDistinctLists(expired, key),
    (s) => manifestsOfSnapshot(io, s),
    (s, ms) => {
      if (s.manifestList && !retainedLists.has(key(s.manifestList))) {
        expiredLists.push({
          location: s.manifestList,
          kind: 'manifest-list',
          reason: `manifest list of expired snapshot ${s.snapshotId}`,
        });
      }
      if (ms instanceof Error) {
        warnings.push(`${ms.message}; its manifests are left for remove-orphans`);
        return;
      }
      for (const m of ms) {
        const k = key(m.path);
        if (!retainedManifests.has(k) && !manifestsToDelete.has(k)) manifestsToDelete.set(k, m);
      }
    },
  );

  // 3. content files live in the deletable manifests ...
  const contentCandidates = new Map<string, { raw: string; bytes: number; kind: string }>();
  await forEachRead(
    manifestsToDelete.values(),
    (m) => entryPathsOf(io, m.path),
    (_m, entries) => {
      if (entries instanceof Error) {
        warnings.push(`${entries.message}; the files it lists are left for remove-orphans`);
        return;
      }
      for (const e of entries) {
        if (e.status === 2) continue;
        const k = key(e.path);
        if (!contentCandidates.has(k)) contentCandidates.set(k, { raw: e.path, bytes: e.bytes, kind: contentKind(e) });
      }
    },
  );
  // ... minus everything live in any retained manifest (unreadable → delete no content files at all)
  if (contentCandidates.size > 0) {
    await forEachRead(
      retainedManifests.values(),
      (raw) => entryPathsOf(io, raw),
      (_raw, entries) => {
        if (entries instanceof Error) {
          warnings.push(
            `${entries.message}; it belongs to a retained snapshot, so no data or delete files are deleted in this run`,
          );
          contentCandidates.clear();
          return false;
        }
        for (const e of entries) if (e.status !== 2) contentCandidates.delete(key(e.path));
        return contentCandidates.size > 0;
      },
    );
  }
  for (const c of contentCandidates.values()) {
    candidates.push({
      location: c.raw,
      bytes: c.bytes,
      kind: c.kind,
      reason: 'live only in manifests of expired snapshots',
    });
  }
  for (const m of manifestsToDelete.values()) {
    candidates.push({
      location: m.path,
      ...(m.length ? { bytes: m.length } : {}),
      kind: 'manifest',
      reason: 'listed only by expired snapshots',
    });
  }
  for (const l of expiredLists) candidates.push(l); // one by one: a spread of 200,000 overflows the stack

  // 4. statistics files the new metadata no longer names
  const keptStats = new Set([...after.statistics, ...after.partitionStatistics].map((s) => key(s.path)));
  const seenStats = new Set<string>();
  const statsFiles = [
    { files: before.statistics, kind: 'statistics', what: 'statistics' },
    { files: before.partitionStatistics, kind: 'partition-statistics', what: 'partition statistics' },
  ] as const;
  for (const { files, kind, what } of statsFiles) {
    for (const s of files) {
      const k = key(s.path);
      if (keptStats.has(k) || seenStats.has(k)) continue;
      seenStats.add(k);
      candidates.push({
        location: s.path,
        bytes: s.fileSizeInBytes,
        kind,
        reason: `${what} of expired snapshot ${s.snapshotId}`,
      });
    }
  }
  return { candidates, warnings };
}
