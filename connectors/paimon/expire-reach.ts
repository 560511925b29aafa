/**
 * File names a set of Paimon snapshots (or tags) can reach: their manifest lists (base, delta, changelog),
 * every manifest in them, every data/changelog file named by any entry (ADD or DELETE) plus its extra
 * files, the index manifest and its index files, and the statistics file. Paimon matches files by name
 * (names carry UUIDs), as its OrphanFilesClean does. External paths are kept as full locations.
 */
import { FloeError } from '../../util/errors.js';
import { joinPath, listDir, type PaimonIO } from './io.js';
import {
  FILE_KIND_ADD,
  entryIdentifier,
  namedBy,
  readIndexManifest,
  readManifest,
  readManifestList,
} from './manifest.js';
import { parseSnapshot, type PaimonSnapshot } from './metadata.js';

export interface ReachableNames {
  /** Manifest lists, manifests and index manifests (all in manifest/). */
  manifests: Set<string>;
  /** Data and changelog files (in bucket directories). */
  dataFiles: Set<string>;
  indexFiles: Set<string>;
  statistics: Set<string>;
  /** Full locations of files stored outside the table (data-file.external-paths). */
  external: Set<string>;
  /** File sizes learned along the way (name → bytes), for reports. */
  sizes: Map<string, number>;
}

export function emptyReach(): ReachableNames {
  return {
    manifests: new Set(),
    dataFiles: new Set(),
    indexFiles: new Set(),
    statistics: new Set(),
    external: new Set(),
    sizes: new Map(),
  };
}

export interface MiniEntry {
  add: boolean;
  /** Paimon FileSource: 0 APPEND, 1 COMPACT; absent in old tables (Java then assumes APPEND). */
  source?: number;
  id: string;
  name: string;
  external?: string;
  extra: string[];
  size: number;
}

/** Entries of manifests already read, by manifest name (manifests are shared by many snapshots). */
export type ManifestCache = Map<string, MiniEntry[]>;

export async function entriesOf(io: PaimonIO, table: string, name: string, cache: ManifestCache): Promise<MiniEntry[]> {
  let got = cache.get(name);
  if (!got) {
    got = (await readManifest(io, table, name)).map((e) => ({
      add: e.kind === FILE_KIND_ADD,
      ...(e.file.fileSource !== undefined ? { source: e.file.fileSource } : {}),
      id: entryIdentifier(e),
      name: e.file.fileName,
      ...(e.file.externalPath ? { external: e.file.externalPath } : {}),
      extra: e.file.extraFiles,
      size: Number(e.file.fileSize),
    }));
    cache.set(name, got);
  }
  return got;
}

export function addFile(out: ReachableNames, e: MiniEntry): void {
  if (e.external) out.external.add(e.external);
  else out.dataFiles.add(e.name);
  out.sizes.set(e.name, e.size);
  for (const x of e.extra) out.dataFiles.add(x);
}

/**
 * Adds what `snap` reaches. mode 'all': every file any entry names (ADD or DELETE) — what Paimon's orphan
 * cleanup keeps. mode 'live': only the files the snapshot can read (base + delta merged) plus its changelog
 * files — what must survive an expiry. `missingListsOk`: manifest lists that no longer exist are passed over
 * (a long-lived changelog whose base/delta lists its snapshot's expiry already deleted, as Java does).
 */
export async function addSnapshotReach(
  io: PaimonIO,
  table: string,
  snap: PaimonSnapshot,
  out: ReachableNames,
  cache: ManifestCache = new Map(),
  mode: 'all' | 'live' = 'all',
  missingListsOk = false,
): Promise<void> {
  const dataLists = [snap.baseManifestList, snap.deltaManifestList];
  const live = new Map<string, MiniEntry>();
  for (const list of [...dataLists, snap.changelogManifestList]) {
    if (!list) continue;
    if (missingListsOk && !(await io.exists(joinPath(table, 'manifest', list)))) continue;
    out.manifests.add(list);
    const isChangelog = list === snap.changelogManifestList && !dataLists.includes(list);
    for (const m of await readManifestList(io, table, list).catch((e: unknown) =>
      Promise.reject(namedBy(e, `snapshot ${snap.file}`)),
    )) {
      out.manifests.add(m.fileName);
      out.sizes.set(m.fileName, Number(m.fileSize));
      const entries = await entriesOf(io, table, m.fileName, cache).catch((e: unknown) =>
        Promise.reject(namedBy(e, `manifest list ${list}`)),
      );
      for (const e of entries) {
        if (mode === 'all' || (isChangelog && e.add)) addFile(out, e);
        else if (!isChangelog) {
          if (e.add) live.set(e.id, e);
          else live.delete(e.id);
        }
      }
    }
  }
  for (const e of live.values()) addFile(out, e);
  if (snap.indexManifest && !(missingListsOk && !(await io.exists(joinPath(table, 'manifest', snap.indexManifest))))) {
    out.manifests.add(snap.indexManifest);
    for (const e of await readIndexManifest(io, table, snap.indexManifest)) {
      if (mode === 'live' && e.kind !== FILE_KIND_ADD) continue;
      if (e.externalPath) out.external.add(e.externalPath);
      else out.indexFiles.add(e.fileName);
      out.sizes.set(e.fileName, Number(e.fileSize));
    }
  }
  if (snap.statistics) out.statistics.add(snap.statistics);
}

/** Tags (`tag/tag-<name>`): snapshot JSON plus tag fields. */
export async function readTags(io: PaimonIO, table: string): Promise<PaimonSnapshot[]> {
  const out: PaimonSnapshot[] = [];
  for (const name of await listDir(io, joinPath(table, 'tag'))) {
    if (!name.startsWith('tag-')) continue;
    const file = joinPath(table, 'tag', name);
    out.push(parseSnapshot(await io.read(file), file));
  }
  return out;
}

/** Branches keep their own snapshots and tags under branch/branch-<name>; floe does not follow them yet. */
export async function refuseBranches(io: PaimonIO, table: string, command: string): Promise<void> {
  const branches = (await listDir(io, joinPath(table, 'branch'))).filter((n) => n.startsWith('branch-'));
  if (branches.length > 0) {
    throw new FloeError(
      'Unsupported',
      `${command} ${table}: the table has branches (${branches.join(', ')}); floe does not yet account for branch snapshots, so it will not delete anything`,
      {
        context: { table, branches },
      },
    );
  }
}
