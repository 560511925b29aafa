/**
 * `floe remove-orphans` for Iceberg: list the table's storage (table location, plus write.data.path and
 * write.metadata.path when they lie elsewhere), subtract every file the table can still reach, and delete
 * what is left and older than the safety window.
 *
 * Reachable ("valid") = for every snapshot in the current metadata (all branches and tags): its manifest
 * list, every manifest in it, every file named by any entry of those manifests (ADDED, EXISTING *and*
 * DELETED — more than Java keeps, never less); the current metadata file and every file in its
 * metadata-log; version-hint.text (and .txt); all statistics and partition-statistics files.
 * As in Java, metadata files that fell off the metadata-log are orphans. Tables whose metadata files were
 * renamed by hand (metadata-log names files that do not exist) therefore lose their older `vN` files too:
 * they are not needed to read any snapshot; the run warns when it sees such a log.
 * Any unreadable manifest list or manifest aborts the run before anything is deleted.
 * Leftover `.<name>.floe-tmp-*` files of killed floe writes (hidden from readers' listings) are orphans too,
 * past the same safety window; every delete passes the table's DeleteScope (connectors/storage/confine.ts).
 */
import { FloeError } from '../../util/errors.js';
import { isTempName, parseLocation } from '../storage/index.js';
import { confineCandidates, confinementWarnings, deleteCandidates } from '../storage/delete-batches.js';
import {
  ValidIndex,
  classifyListing,
  collapseRoots,
  mismatchError,
  newStats,
  type ClassifyStats,
  type PrefixMismatchMode,
} from '../storage/orphan-scan.js';
import { newReport, type MaintenanceReport } from '../../model/maintenance-report.js';
import type { FileIO } from '../storage/file-io.js';
import { icebergDeleteScope } from './delete-scope.js';
import { entryPathsOf, manifestsOfSnapshot } from './expire-files.js';
import { assertGcEnabled, tableDirs, type MaintainedTable } from './expire-table.js';
import { parseMetadata, type IcebergMetadata } from './metadata.js';

export const DEFAULT_ORPHAN_AGE_MS = 3 * 86_400_000;
export const MIN_ORPHAN_AGE_MS = 86_400_000;

export interface RemoveOrphansOptions {
  nowMs?: number;
  /** Absolute cutoff: only files modified before it may be deleted. Default now − 3 days. */
  olderThanMs?: number;
  /** Allow a window shorter than 24 h (in-flight writes may be deleted!). */
  force?: boolean;
  prefixMismatch?: PrefixMismatchMode;
  /** List only these locations (each must be inside the table's locations). */
  locations?: readonly string[];
  dryRun?: boolean;
  deleteBatchSize?: number;
  deleteConcurrency?: number;
  /** Listing page size (S3 MaxKeys). */
  listPageSize?: number;
}

/** Checks the safety window; returns the cutoff. */
export function orphanCutoff(opts: { nowMs?: number; olderThanMs?: number; force?: boolean }, table: string): number {
  const now = opts.nowMs ?? Date.now();
  const cutoff = opts.olderThanMs ?? now - DEFAULT_ORPHAN_AGE_MS;
  if (now - cutoff < MIN_ORPHAN_AGE_MS && !opts.force) {
    throw new FloeError(
      'InvalidArgument',
      `remove-orphans ${table}: --older-than must be at least 24 hours in the past (got ${new Date(cutoff).toISOString()}); ` +
        'files of writes still in flight would be deleted and the table corrupted. Pass --force if no writer can be running',
      { context: { table, olderThanMs: cutoff } },
    );
  }
  return cutoff;
}

/** Every location the table metadata can reach, into `index`. */
export async function addReachableIceberg(
  io: FileIO,
  md: IcebergMetadata,
  metadataFile: string,
  index: ValidIndex,
): Promise<{ missingLogFiles: string[] }> {
  index.add(metadataFile);
  const { metadataDir } = tableDirs(md);
  index.add(`${metadataDir}/version-hint.text`);
  // not in Java's list, but some hand-converted tables (Impala's) carry this name: never delete a hint
  index.add(`${metadataDir}/version-hint.txt`);
  const missingLogFiles: string[] = [];
  for (const e of md.metadataLog) {
    index.add(e.metadataFile);
    if (!(await io.exists(e.metadataFile).catch(() => true))) missingLogFiles.push(e.metadataFile);
  }
  for (const s of md.statistics) index.add(s.path);
  for (const s of md.partitionStatistics) index.add(s.path);
  const seenManifests = new Set<string>();
  for (const snap of md.snapshots) {
    if (snap.manifestList) index.add(snap.manifestList);
    for (const m of await manifestsOfSnapshot(io, snap)) {
      const k = io.map(m.path);
      if (seenManifests.has(k)) continue;
      seenManifests.add(k);
      index.add(m.path);
      for (const e of await entryPathsOf(io, m.path)) index.add(e.path);
    }
  }
  return { missingLogFiles };
}

/** Partition directories whose field names start with '_' or '.' are not hidden (Java's filter). */
function partitionDirPrefixes(md: IcebergMetadata): string[] {
  const names = new Set<string>();
  for (const spec of md.specs) for (const f of spec.fields) if (/^[_.]/.test(f.name)) names.add(`${f.name}=`);
  return [...names];
}

/** The roots to list: table location + data/metadata paths, collapsed; extras may not contain the table. */
export function orphanRoots(io: FileIO, md: IcebergMetadata, requested?: readonly string[]): string[] {
  const own = io.map(md.location);
  const { metadataDir, dataDir } = tableDirs(md);
  const tableRoots = collapseRoots([own, io.map(dataDir), io.map(metadataDir)]);
  for (const r of tableRoots) {
    if (r !== own && (own.startsWith(`${r}/`) || parseLocation(r).path === '' || parseLocation(r).path === '/')) {
      throw new FloeError(
        'PreconditionFailed',
        `${md.location}: write.data.path / write.metadata.path ${r} contains the table location; other tables' files may live there, so remove-orphans will not scan it (pass --location to choose what to scan)`,
        { context: { table: md.location, root: r } },
      );
    }
  }
  if (!requested || requested.length === 0) return tableRoots;
  return collapseRoots(
    requested.map((l) => {
      const n = io.map(l);
      if (!tableRoots.some((r) => n === r || n.startsWith(`${r}/`))) {
        throw new FloeError(
          'InvalidArgument',
          `--location ${l} is outside the table's locations (${tableRoots.join(', ')})`,
          { context: { location: l } },
        );
      }
      return n;
    }),
  );
}

export async function removeOrphanFiles(
  table: MaintainedTable,
  opts: RemoveOrphansOptions = {},
): Promise<MaintenanceReport> {
  const name = table.tableLocation;
  const report = newReport('remove-orphans', name, opts.dryRun ?? false);
  const cutoff = orphanCutoff(opts, name);
  // re-read: the valid set must come from the newest metadata, after the listing cutoff is fixed
  const current = await table.ops.refresh();
  const md = parseMetadata(current.metadata, current.location);
  assertGcEnabled(md, name, 'remove-orphans');
  const roots = orphanRoots(table.io, md, opts.locations);

  const index = new ValidIndex((l) => table.io.map(l));
  const { missingLogFiles } = await addReachableIceberg(table.io, md, current.location, index);
  if (missingLogFiles.length > 0) {
    report.warnings.push(
      `metadata-log names ${missingLogFiles.length} file(s) that do not exist (e.g. ${missingLogFiles[0]}); metadata files may have been renamed by hand — ` +
        'older metadata files not in the log are treated as orphans (as Java does); no snapshot needs them',
    );
  }
  const stats: ClassifyStats = newStats();
  const mismatches: string[] = [];
  for (const root of roots) {
    const r = await classifyListing(
      root,
      table.io.list(root, opts.listPageSize, { includeTemporary: true }),
      index,
      {
        olderThanMs: cutoff,
        prefixMismatch: opts.prefixMismatch ?? 'error',
        allowedHiddenPrefixes: partitionDirPrefixes(md),
      },
      (c) =>
        report.candidates.push({
          location: c.location,
          bytes: c.bytes,
          kind: kindOf(c.location),
          reason: `${c.reason}; last modified ${c.lastModified.toISOString()}`,
        }),
      stats,
    );
    mismatches.push(...r.mismatches);
  }
  report.details = { roots, olderThan: new Date(cutoff).toISOString(), validFiles: index.size, ...stats };
  if (mismatches.length > 0) throw mismatchError(name, mismatches);
  // listings stay inside the roots; the scope is the same final gate every delete passes
  const scope = icebergDeleteScope(md, (l) => table.io.map(l));
  const { allowed, skipped } = confineCandidates(table.io, scope, report.candidates, { listed: true });
  report.candidates = allowed;
  report.skipped = skipped;
  if (skipped.length > 0) report.warnings.push(...confinementWarnings(scope, skipped.length));
  if (report.dryRun || report.candidates.length === 0) return report;
  const outcome = await deleteCandidates(table.io, scope, report.candidates, {
    listed: true,
    ...(opts.deleteBatchSize ? { batchSize: opts.deleteBatchSize } : {}),
    ...(opts.deleteConcurrency ? { concurrency: opts.deleteConcurrency } : {}),
  });
  report.deleted = outcome.deleted;
  report.failed = outcome.failed;
  return report;
}

function kindOf(location: string): string {
  const name = location.slice(location.lastIndexOf('/') + 1);
  if (isTempName(name)) return 'temporary';
  if (/\.metadata\.json(\.gz)?$/.test(name)) return 'metadata';
  if (/^snap-.*\.avro$/.test(name)) return 'manifest-list';
  if (/\.avro$/.test(name) && location.includes('/metadata/')) return 'manifest';
  if (/\.(stats|puffin)$/.test(name) && location.includes('/metadata/')) return 'statistics';
  return 'orphan';
}
