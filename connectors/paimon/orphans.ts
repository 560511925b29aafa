/**
 * `floe remove-orphans` for Paimon (OrphanFilesClean): files in manifest/, index/, statistics/ and in bucket
 * directories that no snapshot and no tag names (matched by file name), plus leftover temporary files in
 * snapshot/ (anything but snapshot-N, EARLIEST, LATEST) — all only when older than the safety window.
 * Leftover `.<name>.floe-tmp-*` files of killed floe writes count as orphans wherever floe writes (listings
 * hide them from readers; this scan asks for them). schema/, tag/, consumer/, changelog/ and branch/ are never touched; `*.blob` packs are kept. Files
 * long-lived changelogs (changelog/changelog-N) name are used. Tables with branches are refused (not followed
 * yet). Any unreadable manifest aborts the run.
 */
import { confineCandidates, confinementWarnings, deleteCandidates } from '../storage/delete-batches.js';
import { TEMP_REASON } from '../storage/orphan-scan.js';
import { isTempName } from '../storage/index.js';
import { paimonDeleteScope } from './delete-scope.js';
import { newReport, type MaintenanceReport } from '../../model/maintenance-report.js';
import type { FileIO } from '../storage/file-io.js';
import { orphanCutoff } from '../iceberg/orphans.js';
import { FloeError, isFloeError } from '../../util/errors.js';
import { addSnapshotReach, emptyReach, readTags, refuseBranches, type ManifestCache } from './expire-reach.js';
import { longLivedChangelogIds, readChangelog } from './changelog-lifecycle.js';
import { assertManifestFormat } from './manifest.js';
import { listSchemaIds, listSnapshotIds, readSchema, readSnapshot } from './metadata.js';

export interface PaimonOrphanOptions {
  nowMs?: number;
  olderThanMs?: number;
  force?: boolean;
  dryRun?: boolean;
  deleteConcurrency?: number;
  deleteBatchSize?: number;
}

export async function removePaimonOrphanFiles(
  io: FileIO,
  table: string,
  o: PaimonOrphanOptions = {},
): Promise<MaintenanceReport> {
  const report = newReport('remove-orphans', table, o.dryRun ?? false);
  const cutoff = orphanCutoff(o, table);
  await refuseBranches(io, table, 'remove-orphans');
  const schemaIds = await listSchemaIds(io, table);
  if (schemaIds.length === 0)
    throw new FloeError('NotFound', `no Paimon schema under ${table}/schema`, { context: { table } });
  const options = (await readSchema(io, table, schemaIds[schemaIds.length - 1]!)).options;
  assertManifestFormat(options, table);

  const used = emptyReach();
  const read: ManifestCache = new Map();
  for (const id of await listSnapshotIds(io, table)) {
    let snap;
    try {
      snap = await readSnapshot(io, table, id);
    } catch (e) {
      if (isFloeError(e, 'NotFound')) continue; // expired concurrently
      throw e;
    }
    await addSnapshotReach(io, table, snap, used, read);
  }
  for (const tag of await readTags(io, table)) await addSnapshotReach(io, table, tag, used, read);
  // long-lived changelogs (changelog/changelog-N) name files too; lists their snapshot's expiry deleted are gone
  for (const id of await longLivedChangelogIds(io, table))
    await addSnapshotReach(io, table, await readChangelog(io, table, id), used, read, 'all', true);
  const usedExternal = new Set([...used.external].map((l) => io.map(l)));

  const root = io.map(table);
  // `neverDeleted`: files orphan removal never touches (schema/, tag/, consumer/, files outside Paimon's
  // layout), named in `neverDeletedFiles` (the first 20) — not "skipped", which the report keeps for
  // candidates it left undeleted (the skipped[] list)
  const stats = { listed: 0, valid: 0, tooYoung: 0, neverDeleted: 0, orphans: 0 };
  const neverDeletedFiles: string[] = [];
  for await (const f of io.list(table, undefined, { includeTemporary: true })) {
    stats.listed++;
    const rel = f.location.slice(root.length + 1);
    const parts = rel.split('/');
    const name = parts[parts.length - 1]!;
    const top = parts[0]!;
    let verdict: 'candidate' | 'used' | 'skip';
    // `.<name>.floe-tmp-*` left by a killed floe write: never a table file (floe writes none in schema/, tag/ …)
    const temporary = isTempName(name) && !['schema', 'tag', 'consumer', 'branch'].includes(top);
    if (temporary) verdict = 'candidate';
    else if (parts.length === 2 && top === 'manifest') verdict = used.manifests.has(name) ? 'used' : 'candidate';
    else if (parts.length === 2 && top === 'index') verdict = used.indexFiles.has(name) ? 'used' : 'candidate';
    else if (parts.length === 2 && top === 'statistics') verdict = used.statistics.has(name) ? 'used' : 'candidate';
    else if (parts.length === 2 && top === 'snapshot')
      verdict = /^snapshot-\d+$|^EARLIEST$|^LATEST$/.test(name) ? 'used' : 'candidate';
    else if (
      parts.length >= 2 &&
      /^bucket-(-?\d+|postpone)$/.test(parts[parts.length - 2]!) &&
      parts.slice(0, -2).every((p) => p.includes('=')) &&
      !name.endsWith('.blob')
    ) {
      verdict = used.dataFiles.has(name) || usedExternal.has(f.location) ? 'used' : 'candidate';
    } else verdict = 'skip';
    if (verdict === 'skip') {
      stats.neverDeleted++;
      if (neverDeletedFiles.length < 20) neverDeletedFiles.push(rel);
      continue;
    }
    if (verdict === 'used') {
      stats.valid++;
      continue;
    }
    if (f.lastModified.getTime() >= cutoff) {
      stats.tooYoung++;
      continue;
    }
    stats.orphans++;
    report.candidates.push({
      location: f.location,
      bytes: f.size,
      kind: temporary
        ? 'temporary'
        : top === 'manifest' || top === 'index' || top === 'statistics' || top === 'snapshot'
          ? top
          : 'data',
      reason: `${temporary ? TEMP_REASON : 'not referenced by any snapshot or tag'}; last modified ${f.lastModified.toISOString()}`,
    });
  }
  report.details = {
    olderThan: new Date(cutoff).toISOString(),
    ...stats,
    ...(neverDeletedFiles.length ? { neverDeletedFiles } : {}),
  };
  // the listing stays inside the table; the scope is the same final gate every delete passes
  const scope = paimonDeleteScope(table, options, (l) => io.map(l));
  const { allowed, skipped } = confineCandidates(io, scope, report.candidates, { listed: true });
  report.candidates = allowed;
  report.skipped = skipped;
  if (skipped.length > 0) report.warnings.push(...confinementWarnings(scope, skipped.length));
  if (report.dryRun || report.candidates.length === 0) return report;
  const outcome = await deleteCandidates(io, scope, report.candidates, {
    listed: true,
    ...(o.deleteConcurrency ? { concurrency: o.deleteConcurrency } : {}),
    ...(o.deleteBatchSize ? { batchSize: o.deleteBatchSize } : {}),
  });
  report.deleted = outcome.deleted;
  report.failed = outcome.failed;
  return report;
}
