/**
 * A commit that removes data files must not lose a deletion vector another writer added meanwhile: on an
 * append table a DELETE commits only DV index entries (no data file changes), so a compaction rewriting a
 * file that got a new DV after the plan would bring the deleted rows back. Java 1.3 checks the same in its
 * commit (`ConflictDeletionUtils`). Compared: the DV ranges of the newest snapshot's index against the
 * table's as opened, for the files the commit deletes.
 */
import { mergeIndexEntries, readIndexManifest, FILE_KIND_DELETE, type IndexManifestEntry } from './manifest.js';
import type { PaimonSnapshot } from './metadata.js';
import type { PaimonTable } from './table.js';
import type { NewManifestEntry } from './write-manifest.js';
import { bucketKey, DELETION_VECTORS_INDEX, partitionHex } from './keys.js';

function dvRangesOf(entries: readonly IndexManifestEntry[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of entries) {
    if (e.indexType !== DELETION_VECTORS_INDEX) continue;
    for (const r of e.dvRanges ?? [])
      out.set(`${partitionHex(e.partition)}|${r.dataFileName}`, `${e.fileName}@${r.offset}+${r.length}`);
  }
  return out;
}

/** Problems (for the commit's conflict message): replaced files whose DV changed since the table was opened. */
export async function changedDeletionVectorsOfReplacedFiles(
  table: PaimonTable,
  latest: PaimonSnapshot,
  changes: readonly NewManifestEntry[],
): Promise<string[]> {
  if (!latest.indexManifest || latest.indexManifest === table.snapshot?.indexManifest) return [];
  const replaced = changes.filter((c) => c.kind === FILE_KIND_DELETE);
  if (!replaced.length) return [];
  const now = dvRangesOf(mergeIndexEntries(await readIndexManifest(table.io, table.location, latest.indexManifest)));
  const was = dvRangesOf(table.indexEntries);
  const out: string[] = [];
  for (const c of replaced) {
    const k = `${partitionHex(c.partition)}|${c.file.fileName}`;
    const dv = now.get(k);
    if (dv !== undefined && dv !== was.get(k))
      out.push(`the deletion vector of ${c.file.fileName} changed (now ${dv}), which this compaction rewrites`);
  }
  return out;
}

/** Data files of the given buckets (`<partition hex>|<bucket>`) whose deletion vector differs between two index states. */
export function dataFilesWithChangedDv(
  was: readonly IndexManifestEntry[],
  now: readonly IndexManifestEntry[],
  buckets: ReadonlySet<string>,
): string[] {
  const inBuckets = (es: readonly IndexManifestEntry[]) =>
    dvRangesOf(es.filter((e) => buckets.has(bucketKey(e.partition, e.bucket))));
  const [a, b] = [inBuckets(was), inBuckets(now)];
  const files = new Set<string>();
  for (const k of new Set([...a.keys(), ...b.keys()]))
    if (a.get(k) !== b.get(k)) files.add(k.slice(k.indexOf('|') + 1));
  return [...files].sort();
}
