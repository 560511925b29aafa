/**
 * `floe expire` for Paimon. The range to expire follows Java's ExpireSnapshotsImpl:
 *   min = max(latest − num-retained.max + 1, earliest); maxExclusive = latest − num-retained.min + 1,
 *   lowered to the smallest consumer `nextSnapshot` and to earliest + snapshot.expire.limit; scanning id from
 *   min, the first snapshot newer than now − time-retained stops the range there. Expire [earliest, end).
 * File cleanup is a reachable-set difference (not Java's incremental walk): a file is deleted only when an
 * expired snapshot names it and it is not live in any retained snapshot (end..latest) or tag, nor one of
 * their changelog or index files; files are matched by name as Paimon does. (Retained manifests are kept
 * whole, so a file they still mention as DELETE is gone from storage but was not readable anyway.) Any unreadable manifest of a retained snapshot or tag aborts before anything changes.
 * The "commit" is deleting the expired snapshot-N files (oldest first) and writing EARLIEST; files are
 * deleted afterwards, so an interrupted run leaves only unreferenced files (remove-orphans collects them).
 * Only files inside the table directory and its `data-file.external-paths` are deleted
 * (connectors/storage/confine.ts); anything else the metadata names is reported as skipped.
 */
import { FloeError } from '../../src/errors.js';
import { confineCandidates, confinementWarnings, deleteCandidates } from '../storage/delete-batches.js';
import { absoluteLocation } from '../storage/location.js';
import { paimonDeleteScope } from './delete-scope.js';
import { newReport, type DeletionCandidate, type MaintenanceReport } from '../../src/model/maintenance-report.js';
import type { FileIO } from '../storage/file-io.js';
import { parseDurationMs } from '../../src/util/units.js';
import { joinPath, listDir, type PaimonIO } from './io.js';
import { assertManifestFormat } from './manifest.js';
import {
  addChangelogNeeds,
  addDeltaAppendRemovals,
  changelogExpiryEnd,
  changelogPath,
  changelogRetention,
  longLivedChangelogIds,
  readChangelog,
  readChangelogHint,
  writeChangelogHint,
  writeLongLivedChangelog,
} from './changelog-lifecycle.js';
import {
  earliestSnapshotId,
  latestSnapshotId,
  listSchemaIds,
  readSchema,
  readSnapshot,
  snapshotPath,
  type PaimonSnapshot,
} from './metadata.js';
import {
  addSnapshotReach,
  emptyReach,
  readTags,
  refuseBranches,
  type ManifestCache,
  type ReachableNames,
} from './expire-reach.js';

export interface PaimonExpireOptions {
  nowMs?: number;
  /** Absolute cutoff replacing now − snapshot.time-retained. */
  olderThanMs?: number;
  retainMin?: number;
  retainMax?: number;
  expireLimit?: number;
  dryRun?: boolean;
  deleteConcurrency?: number;
  deleteBatchSize?: number;
  /**
   * Also delete files the metadata places outside the table directory and its `data-file.external-paths`.
   * Off by default: such files are skipped and reported.
   */
  allowOutsideTableLocation?: boolean;
}

/** Paimon durations: "1 h", "1h", "30 min", "2 d", "100 ms", plain numbers = ms (one grammar: src/util/units.ts). */
export function parsePaimonDuration(text: string, option: string): number {
  return parseDurationMs(text, { bare: 'ms', what: `table option ${option}` });
}

async function latestOptions(io: PaimonIO, table: string): Promise<Record<string, string>> {
  const ids = await listSchemaIds(io, table);
  if (ids.length === 0)
    throw new FloeError('NotFound', `no Paimon schema under ${table}/schema`, { context: { table } });
  return (await readSchema(io, table, ids[ids.length - 1]!)).options;
}

async function minConsumerNext(io: PaimonIO, table: string): Promise<bigint | undefined> {
  let min: bigint | undefined;
  for (const name of await listDir(io, joinPath(table, 'consumer'))) {
    if (!name.startsWith('consumer-')) continue;
    const text = new TextDecoder().decode(await io.read(joinPath(table, 'consumer', name)));
    const m = /"nextSnapshot"\s*:\s*(\d+)/.exec(text);
    if (m) {
      const v = BigInt(m[1]!);
      if (min === undefined || v < min) min = v;
    }
  }
  return min;
}

export interface PaimonExpiryRange {
  earliest: bigint;
  latest: bigint;
  /** Expire [begin, end). begin === end: nothing to do. */
  begin: bigint;
  end: bigint;
}

export async function decidePaimonRange(
  io: PaimonIO,
  table: string,
  options: Record<string, string>,
  o: PaimonExpireOptions,
): Promise<PaimonExpiryRange | undefined> {
  const latest = await latestSnapshotId(io, table);
  const earliest = await earliestSnapshotId(io, table);
  if (latest === undefined || earliest === undefined) return undefined;
  const num = (k: string, d: number) => (options[k] !== undefined ? Number(options[k]) : d);
  const retainMin = BigInt(o.retainMin ?? num('snapshot.num-retained.min', 10));
  const retainMax = BigInt(o.retainMax ?? num('snapshot.num-retained.max', 2147483647));
  if (retainMin < 1n) throw new FloeError('InvalidArgument', `${table}: snapshot.num-retained.min must be at least 1`);
  if (retainMax < retainMin)
    throw new FloeError(
      'InvalidArgument',
      `${table}: snapshot.num-retained.max (${retainMax}) must not be below snapshot.num-retained.min (${retainMin})`,
    );
  const limit = BigInt(o.expireLimit ?? num('snapshot.expire.limit', 50));
  const now = o.nowMs ?? Date.now();
  const olderThan =
    o.olderThanMs ?? now - parsePaimonDuration(options['snapshot.time-retained'] ?? '1 h', 'snapshot.time-retained');

  const min = latest - retainMax + 1n > earliest ? latest - retainMax + 1n : earliest;
  let maxExclusive = latest - retainMin + 1n;
  const consumer = await minConsumerNext(io, table);
  if (consumer !== undefined && consumer < maxExclusive) maxExclusive = consumer;
  if (earliest + limit < maxExclusive) maxExclusive = earliest + limit;
  let end = maxExclusive;
  for (let id = min; id < maxExclusive; id++) {
    if ((await io.exists(snapshotPath(table, id))) && (await readSnapshot(io, table, id)).timeMillis >= olderThan) {
      end = id;
      break;
    }
  }
  if (end <= earliest) return { earliest, latest, begin: earliest, end: earliest };
  // a gap below end means everything before it is already gone
  let begin = earliest;
  for (let id = end - 1n; id >= earliest; id--) {
    if (!(await io.exists(snapshotPath(table, id)))) {
      begin = id + 1n;
      break;
    }
  }
  return { earliest, latest, begin, end };
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

export async function expirePaimonSnapshots(
  io: FileIO,
  table: string,
  o: PaimonExpireOptions = {},
): Promise<MaintenanceReport> {
  const report = newReport('expire', table, o.dryRun ?? false);
  await refuseBranches(io, table, 'expire');
  const options = await latestOptions(io, table);
  assertManifestFormat(options, table);
  const retention = changelogRetention(options, o); // changelog-lifecycle.ts (changelog.num-retained.*)
  const range = await decidePaimonRange(io, table, options, o);
  if (!range) {
    report.details = { expiredSnapshots: [] };
    return report;
  }
  const expired: PaimonSnapshot[] = [];
  for (let id = range.begin; id < range.end; id++) expired.push(await readSnapshot(io, table, id));
  const cl = await planChangelogs(io, table, range, expired, retention);
  const noHints = cl.latestHint === undefined && cl.earliestHint === undefined;
  if (expired.length === 0 && cl.expire.length === 0 && cl.write.length === 0 && noHints) {
    report.details = {
      expiredSnapshots: [],
      earliest: range.earliest.toString(),
      latest: range.latest.toString(),
      ...cl.details,
    };
    return report;
  }

  // reachable from what stays: snapshots end..latest, every tag and every retained long-lived changelog
  // retained: only what they can read (live files, changelog, index files); expired: everything they name
  const kept = emptyReach();
  const readKept: ManifestCache = new Map();
  for (let id = range.end; id <= range.latest; id++) {
    if (!(await io.exists(snapshotPath(table, id)))) continue;
    const s = await readSnapshot(io, table, id);
    await addSnapshotReach(io, table, s, kept, readKept, 'live');
    if (retention.decoupled && !retention.producesChangelog) await addDeltaAppendRemovals(io, table, s, kept, readKept);
  }
  for (const tag of await readTags(io, table)) await addSnapshotReach(io, table, tag, kept, readKept, 'live');
  for (const c of cl.retained) await addChangelogNeeds(io, table, c, retention, kept, readKept);

  const gone = emptyReach();
  const readGone: ManifestCache = new Map();
  for (const s of expired) {
    try {
      await addSnapshotReach(io, table, s, gone, readGone);
    } catch (e) {
      report.warnings.push(
        `cannot read the files of expired snapshot ${s.id} (${(e as Error).message}); they are left for remove-orphans`,
      );
    }
  }
  for (const c of cl.expire) {
    try {
      await addSnapshotReach(io, table, c, gone, readGone, 'all', true);
    } catch (e) {
      report.warnings.push(
        `cannot read the files of expired changelog ${c.id} (${(e as Error).message}); they are left for remove-orphans`,
      );
    }
  }

  // files found by listing the table (already real locations) and files named by the metadata
  const candidates: DeletionCandidate[] = [];
  const named: DeletionCandidate[] = [];
  const root = absoluteLocation(table); // paths floe builds must not depend on the working directory
  const unused = (set: Set<string>, keep: Set<string>) => [...set].filter((n) => !keep.has(n));
  const size = (n: string) => gone.sizes.get(n);
  const by = cl.expire.length > 0 ? 'expired snapshots and changelogs' : 'expired snapshots';
  const dataNames = new Set(unused(gone.dataFiles, kept.dataFiles));
  const locations = await bucketFileLocations(io, table, dataNames);
  for (const n of dataNames) {
    for (const loc of locations.get(n) ?? []) {
      candidates.push({
        location: loc,
        ...(size(n) !== undefined ? { bytes: size(n)! } : {}),
        kind: 'data',
        reason: `used only by ${by}`,
      });
    }
  }
  for (const x of unused(gone.external, kept.external))
    named.push({ location: x, kind: 'data', reason: `external file used only by ${by}` });
  for (const n of unused(gone.indexFiles, kept.indexFiles)) {
    named.push({
      location: joinPath(root, 'index', n),
      ...(size(n) !== undefined ? { bytes: size(n)! } : {}),
      kind: 'index',
      reason: `index file used only by ${by}`,
    });
  }
  for (const n of unused(gone.manifests, kept.manifests)) {
    named.push({
      location: joinPath(root, 'manifest', n),
      ...(size(n) !== undefined ? { bytes: size(n)! } : {}),
      kind: 'manifest',
      reason: `manifest (list) used only by ${by}`,
    });
  }
  for (const n of unused(gone.statistics, kept.statistics)) {
    named.push({
      location: joinPath(root, 'statistics', n),
      kind: 'statistics',
      reason: `statistics of ${by} only`,
    });
  }
  for (const s of expired)
    named.push({ location: absoluteLocation(s.file), kind: 'snapshot', reason: `expired snapshot ${s.id}` });
  for (const c of cl.expire)
    named.push({ location: absoluteLocation(c.file), kind: 'changelog', reason: `expired changelog ${c.id}` });
  const scope = paimonDeleteScope(table, options, (l) => io.map(l), {
    allowOutside: o.allowOutsideTableLocation === true,
  });
  const fromListing = confineCandidates(io, scope, candidates, { listed: true });
  const fromMetadata = confineCandidates(io, scope, named);
  report.candidates = [...fromListing.allowed, ...fromMetadata.allowed];
  report.skipped = [...fromListing.skipped, ...fromMetadata.skipped];
  report.warnings.push(...confinementWarnings(scope, report.skipped.length));
  report.details = {
    expiredSnapshots: expired.map((s) => s.id.toString()),
    earliest: range.end.toString(),
    latest: range.latest.toString(),
    ...cl.details,
  };
  if (report.dryRun) return report;

  // commit: write the long-lived changelogs first (a streaming reader never meets a gap), then drop the
  // snapshot files oldest first and move EARLIEST, then the expired changelogs; only then delete their files
  for (const s of cl.write) await writeLongLivedChangelog(io, table, s);
  if (cl.latestHint !== undefined) await writeChangelogHint(io, table, 'LATEST', cl.latestHint);
  const metaFiles = (kind: string) => fromMetadata.allowed.filter((c) => c.kind === kind).map((c) => c.location);
  for (const s of expired) await io.remove(s.file);
  if (expired.length > 0)
    await io.overwrite(joinPath(table, 'snapshot', 'EARLIEST'), Buffer.from(range.end.toString()));
  for (const c of cl.expire) await io.remove(c.file); // oldest first, like the snapshots
  if (cl.earliestHint !== undefined) await writeChangelogHint(io, table, 'EARLIEST', cl.earliestHint);
  const batches = {
    ...(o.deleteConcurrency ? { concurrency: o.deleteConcurrency } : {}),
    ...(o.deleteBatchSize ? { batchSize: o.deleteBatchSize } : {}),
  };
  const listedOut = await deleteCandidates(io, scope, fromListing.allowed, { ...batches, listed: true });
  const namedOut = await deleteCandidates(
    io,
    scope,
    fromMetadata.allowed.filter((c) => c.kind !== 'snapshot' && c.kind !== 'changelog'),
    batches,
  );
  report.deleted = [...metaFiles('snapshot'), ...metaFiles('changelog'), ...listedOut.deleted, ...namedOut.deleted];
  report.failed = [...listedOut.failed, ...namedOut.failed];
  return report;
}

interface ChangelogPlan {
  /** Expired snapshots whose changelog is retained and not yet written. */
  write: PaimonSnapshot[];
  /** Long-lived changelogs (and snapshots about to become ones) that stay. */
  retained: PaimonSnapshot[];
  /** Existing long-lived changelogs to expire, oldest first. */
  expire: PaimonSnapshot[];
  latestHint?: bigint;
  earliestHint?: bigint;
  details: Record<string, unknown>;
}

/**
 * Decoupled lifecycle (changelog-lifecycle.ts): expired snapshots the changelog retention still covers
 * become changelog/changelog-<id>; the changelog expiry runs over the changelogs as they will be after that
 * (what Java's ExpireSnapshotsImpl then ExpireChangelogImpl leave). Not decoupled: existing long-lived
 * changelogs (from an earlier configuration) are neither written nor expired, and keep their files.
 */
async function planChangelogs(
  io: FileIO,
  table: string,
  range: PaimonExpiryRange,
  expired: PaimonSnapshot[],
  r: ReturnType<typeof changelogRetention>,
): Promise<ChangelogPlan> {
  const existingIds = await longLivedChangelogIds(io, table);
  const existing = new Map<bigint, PaimonSnapshot>();
  for (const id of existingIds) existing.set(id, await readChangelog(io, table, id));
  if (!r.decoupled) return { write: [], retained: [...existing.values()], expire: [], details: {} };
  const all = new Map(existing);
  for (const s of expired) if (!all.has(s.id)) all.set(s.id, s);
  const ids = [...all.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const end = changelogExpiryEnd(
    ids,
    (id) => all.get(id)?.timeMillis,
    range.latest,
    await minConsumerNext(io, table),
    r,
  );
  const stays = (id: bigint) => end === undefined || id >= end;
  const write = expired.filter((s) => stays(s.id) && !existing.has(s.id));
  const expire = [...existing.values()].filter((c) => !stays(c.id));
  const retained = ids.filter(stays).map((id) => all.get(id)!);
  const plan: ChangelogPlan = { write, retained, expire, details: {} };
  const after = retained.map((c) => c.id);
  const last = after[after.length - 1];
  // also repairs a hint an interrupted run did not get to write
  if (last !== undefined && (write.length > 0 || (await readChangelogHint(io, table, 'LATEST')) !== last))
    plan.latestHint = last;
  const first = after[0];
  if (
    first !== undefined &&
    (expire.length > 0 || write.length > 0 || (await readChangelogHint(io, table, 'EARLIEST')) !== first)
  )
    plan.earliestHint = first;
  plan.details = {
    changelogDecoupled: r.decoupled,
    changelogsWritten: write.map((s) => absoluteLocation(changelogPath(table, s.id))),
    expiredChangelogs: expire.map((c) => c.id.toString()),
    ...(first !== undefined ? { changelogEarliest: first.toString() } : {}),
    ...(after.length > 0 ? { changelogLatest: after[after.length - 1]!.toString() } : {}),
    hintsWritten: [
      ...(plan.latestHint !== undefined ? [absoluteLocation(joinPath(table, 'changelog', 'LATEST'))] : []),
      ...(plan.earliestHint !== undefined ? [absoluteLocation(joinPath(table, 'changelog', 'EARLIEST'))] : []),
    ],
  };
  return plan;
}

export type { ReachableNames };
