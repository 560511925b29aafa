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
import { describeDuration } from '../../util/units.js';
import { FloeError } from '../../util/errors.js';
import { confineCandidates, confinementWarnings, deleteCandidates } from '../storage/delete-batches.js';
import type { DeleteScope } from '../storage/confine.js';
import { absoluteLocation } from '../storage/location.js';
import { paimonDeleteScope } from './delete-scope.js';
import { newReport, type DeletionCandidate, type MaintenanceReport } from '../../model/maintenance-report.js';
import type { FileIO } from '../storage/file-io.js';
import { parseDurationMs } from '../../util/units.js';
import { joinPath, listDir, type PaimonIO } from './io.js';
import { assertManifestFormat } from './manifest.js';
import {
  changelogExpiryEnd,
  changelogPath,
  changelogRetention,
  longLivedChangelogIds,
  readChangelog,
  readChangelogHint,
  writeChangelogHint,
  writeLongLivedChangelog,
  type ChangelogRetention,
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
import { refuseBranches, type ReachableNames } from './expire-reach.js';
import { reachFromExpired, reachFromRetained, unreachableCandidates } from './expire-candidates.js';

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

/** Paimon durations: "1 h", "1h", "30 min", "2 d", "100 ms", plain numbers = ms (one grammar: util/units.ts). */
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
  /** The retention applied, in words, naming where each number came from (the flag, the option, the default). */
  retention: string;
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

  const from = (flag: unknown, key: string) =>
    flag !== undefined ? 'as asked' : options[key] !== undefined ? `table option ${key}` : `${key} default`;
  const retention =
    `snapshots older than ${describeDuration(now - olderThan).replace(/ \(\d+ ms\)$/, '')} (${new Date(olderThan).toISOString()}; ${from(o.olderThanMs, 'snapshot.time-retained')}), ` +
    `keeping at least ${retainMin} (${from(o.retainMin, 'snapshot.num-retained.min')})` +
    (retainMax < 2147483647n ? ` and at most ${retainMax} (${from(o.retainMax, 'snapshot.num-retained.max')})` : '');

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
  if (end <= earliest) return { earliest, latest, begin: earliest, end: earliest, retention };
  // a gap below end means everything before it is already gone
  let begin = earliest;
  for (let id = end - 1n; id >= earliest; id--) {
    if (!(await io.exists(snapshotPath(table, id)))) {
      begin = id + 1n;
      break;
    }
  }
  return { earliest, latest, begin, end, retention };
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
    const { earliest, latest } = range;
    report.details = {
      retention: range.retention,
      expiredSnapshots: [],
      earliest: earliest.toString(),
      latest: latest.toString(),
      ...cl.details,
    };
    return report;
  }

  // retained: only what they can read (live files, changelog, index files); expired: everything they name
  const kept = await reachFromRetained(io, table, range, retention, cl.retained);
  const gone = await reachFromExpired(io, table, expired, cl.expire, report.warnings);
  const { listed, named } = await unreachableCandidates(io, table, kept, gone, expired, cl.expire);
  const scope = paimonDeleteScope(table, options, (l) => io.map(l), {
    allowOutside: o.allowOutsideTableLocation === true,
  });
  const fromListing = confineCandidates(io, scope, listed, { listed: true });
  const fromMetadata = confineCandidates(io, scope, named);
  report.candidates = [...fromListing.allowed, ...fromMetadata.allowed];
  report.skipped = [...fromListing.skipped, ...fromMetadata.skipped];
  report.warnings.push(...confinementWarnings(scope, report.skipped.length));
  report.details = {
    retention: range.retention,
    expiredSnapshots: expired.map((s) => s.id.toString()),
    earliest: range.end.toString(),
    latest: range.latest.toString(),
    ...cl.details,
  };
  if (report.dryRun) return report;

  await publishExpiry(io, table, range, expired, cl);
  const { deleted, failed } = await deleteUnreachable(io, scope, fromListing.allowed, fromMetadata.allowed, o);
  report.deleted = deleted;
  report.failed = failed;
  return report;
}

/**
 * Deletes the confined candidates, in batches; the snapshot and changelog files are already gone
 * (publishExpiry) and are reported first.
 */
async function deleteUnreachable(
  io: FileIO,
  scope: DeleteScope,
  listed: readonly DeletionCandidate[],
  named: readonly DeletionCandidate[],
  o: PaimonExpireOptions,
): Promise<Pick<MaintenanceReport, 'deleted' | 'failed'>> {
  const metaFiles = (kind: string) => named.filter((c) => c.kind === kind).map((c) => c.location);
  const batches = {
    ...(o.deleteConcurrency ? { concurrency: o.deleteConcurrency } : {}),
    ...(o.deleteBatchSize ? { batchSize: o.deleteBatchSize } : {}),
  };
  const listedOut = await deleteCandidates(io, scope, listed, { ...batches, listed: true });
  const namedOut = await deleteCandidates(
    io,
    scope,
    named.filter((c) => c.kind !== 'snapshot' && c.kind !== 'changelog'),
    batches,
  );
  return {
    deleted: [...metaFiles('snapshot'), ...metaFiles('changelog'), ...listedOut.deleted, ...namedOut.deleted],
    failed: [...listedOut.failed, ...namedOut.failed],
  };
}

/**
 * The "commit" of an expiry: the long-lived changelogs first (a streaming reader never meets a gap), then
 * the snapshot files dropped oldest first and EARLIEST moved, then the expired changelogs; the files they
 * alone reached are deleted only after this.
 */
async function publishExpiry(
  io: FileIO,
  table: string,
  range: PaimonExpiryRange,
  expired: readonly PaimonSnapshot[],
  cl: ChangelogPlan,
): Promise<void> {
  for (const s of cl.write) await writeLongLivedChangelog(io, table, s);
  if (cl.latestHint !== undefined) await writeChangelogHint(io, table, 'LATEST', cl.latestHint);
  for (const s of expired) await io.remove(s.file);
  if (expired.length > 0)
    await io.overwrite(joinPath(table, 'snapshot', 'EARLIEST'), Buffer.from(range.end.toString()));
  for (const c of cl.expire) await io.remove(c.file); // oldest first, like the snapshots
  if (cl.earliestHint !== undefined) await writeChangelogHint(io, table, 'EARLIEST', cl.earliestHint);
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
  r: ChangelogRetention,
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
