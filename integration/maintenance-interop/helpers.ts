/**
 * Shared pieces of the maintenance interop tier: file listings of a local table, the set arithmetic that
 * derives "files only expired snapshots reached" from the reference library's own view of each snapshot
 * (never from floe), planting orphan files with chosen modification times, and path normalisation
 * (floe reports `file:` URIs or plain paths; Java reports plain paths).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { IcebergSnapshotInfo, IcebergTableInfo, PaimonSnapshotInfo } from '../oracles/index.js';

/** Plain absolute path of a local location (`file:/x`, `file:///x` or `/x`). */
export function localPath(location: string): string {
  if (location.startsWith('file://')) return location.slice('file://'.length);
  if (location.startsWith('file:')) return location.slice('file:'.length);
  return location;
}

export function normSet(locations: Iterable<string>): Set<string> {
  return new Set([...locations].map(localPath));
}

export function sorted(s: Iterable<string>): string[] {
  return [...s].sort();
}

export function minus<T>(a: Iterable<T>, b: Set<T>): Set<T> {
  return new Set([...a].filter((x) => !b.has(x)));
}

/**
 * Every file under `dir` (absolute paths), except hidden ones (a path component starting with `.` — the
 * Hadoop `.crc` checksum siblings Java writes next to each file; no reader uses them).
 */
export async function listFiles(dir: string): Promise<Set<string>> {
  const out = new Set<string>();
  const walk = async (d: string): Promise<void> => {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) out.add(p);
    }
  };
  await walk(dir);
  return out;
}

/** Everything one Iceberg snapshot can reach: its manifest list, manifests and live content files. */
export function icebergReach(s: IcebergSnapshotInfo): string[] {
  return [s.manifestList, ...s.manifests, ...s.files].map(localPath);
}

/**
 * The files an expiry from `before` to the retained snapshot set must delete: reachable from an expired
 * snapshot and from no retained one (the spec's notion of "files only expired snapshots referenced").
 */
export function icebergExclusiveFiles(before: IcebergTableInfo, retained: Set<string>): Set<string> {
  const gone = new Set<string>();
  const kept = new Set<string>();
  for (const s of before.snapshots) for (const f of icebergReach(s)) (retained.has(s.snapshotId) ? kept : gone).add(f);
  return minus(gone, kept);
}

/** Paimon: names (not paths) reachable from a snapshot or tag — manifest/ (lists, index manifest,
 *  manifests) and bucket directories (data files). */
export function paimonReach(s: PaimonSnapshotInfo): { manifest: string[]; data: string[] } {
  return { manifest: [...s.lists, ...s.manifests], data: s.files };
}

/** Writes `bytes` at `file` (creating directories) with the given modification time. */
export async function plant(file: string, mtimeMs: number, bytes = 'not a real file'): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, bytes);
  const t = new Date(mtimeMs);
  await fs.utimes(file, t, t);
  return file;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Recursive copy of a directory (a reference engine runs its own expiry on the copy). */
export async function copyDir(from: string, to: string): Promise<void> {
  await fs.cp(from, to, { recursive: true, preserveTimestamps: true });
}
