/**
 * `floe expire` for Iceberg: remove snapshots by the table's retention rules (or CLI overrides), commit
 * the new metadata, then delete the files only the expired snapshots reached.
 *
 * Order matters for safety: the metadata commit comes first, and file cleanup is computed against the
 * table as re-read *after* the commit (so a writer that committed meanwhile is respected). If the commit
 * succeeds but cleanup fails or is interrupted, the table is consistent and the leftover files are
 * unreferenced: `remove-orphans` collects them (Java behaves the same: a cleanup failure does not undo
 * the commit). A dry run computes the same list against the would-be metadata and changes nothing.
 * Only files inside the table's locations are deleted (connectors/storage/confine.ts); files the metadata
 * places elsewhere are reported as skipped unless `allowOutsideTableLocation` is set.
 */
import { FloeError } from '../../util/errors.js';
import { toBigInt } from '../../util/json.js';
import { describeDuration } from '../../util/units.js';
import { faultPoint } from '../../util/fault-points.js';
import { confineCandidates, confinementWarnings, deleteCandidates } from '../storage/delete-batches.js';
import { newReport, type MaintenanceReport } from '../../model/maintenance-report.js';
import {
  decideRetention,
  retentionDefaults,
  type RetentionDecision,
  type RetentionRef,
} from '../../model/snapshot-retention.js';
import { snapshotsOf, type RawMetadata } from './commit-metadata.js';
import { commitTimestampMs } from './snapshot-producer.js';
import { tableUuidRequirement } from './table-requirement.js';
import { applyUpdates, type TableUpdate } from './table-update.js';
import { commitTransaction, transactionPolicy, type TableChange } from './transaction.js';
import { icebergDeleteScope } from './delete-scope.js';
import { planExpiredFiles } from './expire-files.js';
import { assertRetainedManifestListsReadable } from './validate-expiry.js';
import { assertGcEnabled, type MaintainedTable } from './expire-table.js';
import { parseMetadata, type IcebergMetadata } from './metadata.js';

export interface ExpireOptions {
  nowMs?: number;
  /** Absolute cutoff (epoch ms): snapshots older than this may expire. Default: now − history.expire.max-snapshot-age-ms. */
  olderThanMs?: number;
  /** Keep at least this many snapshots per branch (default history.expire.min-snapshots-to-keep). */
  retainLast?: number;
  /** Also expire these snapshots (never a ref head). */
  snapshotIds?: readonly bigint[];
  dryRun?: boolean;
  /** Commit only; leave files (default true = delete them). */
  cleanFiles?: boolean;
  deleteBatchSize?: number;
  deleteConcurrency?: number;
  /** Commit attempts when another writer wins the race (default commit.retry.num-retries + 1). */
  maxAttempts?: number;
  /**
   * Also delete files the metadata places outside the table's locations (table location, write.data.path,
   * write.metadata.path, write.object-storage.path). Off by default: such files are skipped and reported.
   */
  allowOutsideTableLocation?: boolean;
}

/**
 * The retention a run applies, in words, naming where each number came from (the flag, the table property or
 * Iceberg's default): "snapshots older than 5d (2025-01-01T00:00:00.000Z; history.expire.max-snapshot-age-ms
 * default), keeping at least 1 per branch (history.expire.min-snapshots-to-keep default)".
 */
export function describeRetention(md: IcebergMetadata, opts: ExpireOptions, nowMs: number): string {
  const d = retentionDefaults(md.properties);
  const from = (flag: unknown, key: string) =>
    flag !== undefined ? 'as asked' : md.properties[key] !== undefined ? `table property ${key}` : `${key} default`;
  const cutoff = opts.olderThanMs ?? nowMs - d.maxSnapshotAgeMs;
  const age = describeDuration(nowMs - cutoff).replace(/ \(\d+ ms\)$/, '');
  return (
    `snapshots older than ${age} (${new Date(cutoff).toISOString()}; ${from(opts.olderThanMs, 'history.expire.max-snapshot-age-ms')}), ` +
    `keeping at least ${opts.retainLast ?? d.minSnapshotsToKeep} per branch (${from(opts.retainLast, 'history.expire.min-snapshots-to-keep')})` +
    (opts.snapshotIds?.length ? `, and snapshots ${opts.snapshotIds.join(', ')}` : '')
  );
}

/** The retention decision for a metadata document. */
export function decideExpiry(md: IcebergMetadata, opts: ExpireOptions): RetentionDecision {
  const now = opts.nowMs ?? Date.now();
  const defaults = retentionDefaults(md.properties);
  const refs: RetentionRef[] = md.refs.map((r) => ({
    name: r.name,
    type: r.type,
    snapshotId: r.snapshotId,
    ...(r.maxRefAgeMs !== undefined ? { maxRefAgeMs: r.maxRefAgeMs } : {}),
    ...(r.maxSnapshotAgeMs !== undefined ? { maxSnapshotAgeMs: r.maxSnapshotAgeMs } : {}),
    ...(r.minSnapshotsToKeep !== undefined ? { minSnapshotsToKeep: r.minSnapshotsToKeep } : {}),
  }));
  const known = new Set(md.snapshots.map((s) => s.snapshotId));
  return decideRetention(
    md.snapshots.map((s) => ({
      id: s.snapshotId,
      ...(s.parentSnapshotId !== undefined ? { parentId: s.parentSnapshotId } : {}),
      timestampMs: s.timestampMs,
    })),
    refs,
    {
      nowMs: now,
      expireOlderThanMs: opts.olderThanMs ?? now - defaults.maxSnapshotAgeMs,
      minSnapshotsToKeep: opts.retainLast ?? defaults.minSnapshotsToKeep,
      ...(defaults.maxRefAgeMs !== undefined ? { maxRefAgeMs: defaults.maxRefAgeMs } : {}),
      expireIds: (opts.snapshotIds ?? []).filter((id) => known.has(id)),
    },
  );
}

/**
 * The expiry as updates: remove-snapshots for every snapshot the decision does not retain and
 * remove-snapshot-ref for each dropped ref (applyUpdates then drops their statistics and trims snapshot-log
 * by Java's rule). The only requirement is the table's identity: refs that stay are not moved.
 */
export function expiryChange(base: RawMetadata, decision: RetentionDecision): TableChange {
  const removed = snapshotsOf(base)
    .map((s) => toBigInt(s['snapshot-id'], 'snapshot-id'))
    .filter((id) => !decision.retained.has(id));
  const updates: TableUpdate[] = [];
  if (removed.length > 0) updates.push({ action: 'remove-snapshots', 'snapshot-ids': removed });
  for (const name of decision.removedRefs) updates.push({ action: 'remove-snapshot-ref', 'ref-name': name });
  return { updates, requirements: tableUuidRequirement(base) };
}

/**
 * The next metadata document: expired snapshots, dropped refs, their statistics removed, snapshot-log
 * trimmed (Java rule), the previous metadata file appended to metadata-log.
 */
export function expiredMetadata(
  base: RawMetadata,
  baseLocation: string,
  decision: RetentionDecision,
  nowMs: number,
): RawMetadata {
  return applyUpdates(
    base,
    baseLocation,
    expiryChange(base, decision).updates,
    commitTimestampMs(base, () => nowMs),
  );
}

export async function expireSnapshots(table: MaintainedTable, opts: ExpireOptions = {}): Promise<MaintenanceReport> {
  const name = table.tableLocation;
  const report = newReport('expire', name, opts.dryRun ?? false);
  assertGcEnabled(table.metadata, name, 'expire');
  const now = () => opts.nowMs ?? Date.now();
  const present = new Set(table.metadata.snapshots.map((s) => s.snapshotId));
  const unknown = (opts.snapshotIds ?? []).filter((sid) => !present.has(sid));
  for (const sid of unknown) report.warnings.push(`snapshot ${sid} is not in the table (already expired?); ignored`);

  const base = await table.ops.refresh();
  // the same document as the opened table's (refresh reuses it): no second parse
  let before = base.metadata === table.metadata.raw ? table.metadata : parseMetadata(base.metadata, base.location);
  assertGcEnabled(before, name, 'expire');
  let decision = decideExpiry(before, { ...opts, nowMs: now() });
  transactionPolicy(base, name, opts.maxAttempts); // a non-numeric commit.retry.* is refused before anything is decided

  const retention = describeRetention(before, opts, now());
  if (decision.expired.length === 0 && decision.removedRefs.length === 0) {
    report.details = {
      retention,
      expiredSnapshots: [],
      removedRefs: [],
      retainedSnapshots: decision.retained.size,
      committed: false,
    };
    return report;
  }

  let after: IcebergMetadata;
  if (report.dryRun) {
    // the same refusal the real run makes, so a dry run predicts it instead of reporting a cleanup it cannot plan
    if (opts.cleanFiles !== false) await assertRetainedManifestListsReadable(table.io, before, decision);
    after = parseMetadata(expiredMetadata(base.metadata, base.location, decision, now()), base.location);
  } else {
    if (opts.cleanFiles !== false) await assertRetainedManifestListsReadable(table.io, before, decision); // refuse before writing
    report.details.newMetadata = await commitTransaction<string>(
      table.ops,
      table.io,
      {
        // attempt 1 commits the decision made above; after a lost race it is made again on the winner's metadata
        // (Java re-applies the whole expiry)
        prepare: async (b, _v, ctx) => {
          if (ctx.attempt > 1) {
            before = parseMetadata(b.metadata, b.location);
            assertGcEnabled(before, name, 'expire');
            decision = decideExpiry(before, { ...opts, nowMs: now() });
          }
          const change = expiryChange(b.metadata, decision);
          return { ...change, timestampMs: commitTimestampMs(b.metadata, now), result: (location) => location! };
        },
      },
      { base, table: name, ...(opts.maxAttempts !== undefined ? { maxAttempts: opts.maxAttempts } : {}) },
    );
    faultPoint('iceberg.expire.before-cleanup');
    const fresh = await table.ops.refresh();
    after = parseMetadata(fresh.metadata, fresh.location);
  }
  report.details = {
    retention,
    ...report.details,
    expiredSnapshots: decision.expired.map(String),
    removedRefs: decision.removedRefs,
    retainedSnapshots: decision.retained.size,
    committed: !report.dryRun,
  };
  if (opts.cleanFiles === false) {
    report.warnings.push('file cleanup disabled: files of expired snapshots are left for remove-orphans');
    return report;
  }
  let plan;
  try {
    plan = await planExpiredFiles(table.io, before, after, { committed: !report.dryRun });
  } catch (e) {
    if (report.dryRun || !(e instanceof FloeError)) throw e;
    report.warnings.push(e.message);
    return report;
  }
  // only files inside the table's own locations are deleted; the rest is listed as skipped
  const scope = icebergDeleteScope(after, (l) => table.io.map(l), {
    allowOutside: opts.allowOutsideTableLocation === true,
  });
  const { allowed, skipped } = confineCandidates(table.io, scope, plan.candidates);
  report.candidates = allowed;
  report.skipped = skipped;
  report.warnings.push(...plan.warnings, ...confinementWarnings(scope, skipped.length));
  if (report.dryRun || allowed.length === 0) return report;
  const outcome = await deleteCandidates(table.io, scope, allowed, {
    ...(opts.deleteBatchSize ? { batchSize: opts.deleteBatchSize } : {}),
    ...(opts.deleteConcurrency ? { concurrency: opts.deleteConcurrency } : {}),
  });
  report.deleted = outcome.deleted;
  report.failed = outcome.failed;
  return report;
}
