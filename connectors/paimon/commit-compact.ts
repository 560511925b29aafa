/**
 * Publishing a snapshot of a Paimon table — the one commit path of floe's Paimon writes
 * (`commitPaimonSnapshot`): a compaction is one snapshot of kind COMPACT whose delta manifest holds
 * DELETE entries for the replaced (or upgraded) files at their old level and ADD entries for the new
 * files (`FileStoreCommitImpl` with a CompactIncrement); sort compaction and partition expiry commit
 * OVERWRITE snapshots the same way.
 *
 * - Base manifest list = the latest snapshot's base + delta manifests (listed again, not merged; Java's
 *   next commit merges them), delta list = our one manifest, index manifest carried over (we never touch
 *   index files), totalRecordCount = previous + delta, deltaRecordCount = rows added − rows removed,
 *   watermark / statistics / nextRowId carried.
 * - Publication: `snapshot/snapshot-N` is created only if absent (S3 If-None-Match, a hard link locally);
 *   then the LATEST hint is overwritten. A lost race re-reads the newest snapshot, checks that every file
 *   we replace is still live (and that no level ≥ 1 of a touched bucket would overlap), and retries at the
 *   next id; if a replaced file is gone the compaction is abandoned (CommitConflict, not retryable).
 * - Java's filesystem commit is "exists? then rename", which does not respect our create-only write: see
 *   docs/safety.md "Concurrency with other writers". After publishing we read snapshot-N back and fail loudly if
 *   it is not ours.
 * - A lost response is settled by reading `snapshot-N` back (create-verified.ts): our bytes (its uuid is
 *   ours alone) → committed; another writer's → rebase; undecidable → commit-state-unknown, and nothing we
 *   wrote is deleted (by us or by the caller). Retries follow Paimon's commit.max-retries / min/max-retry-wait.
 */
import { randomUUID } from 'node:crypto';
import { FloeError, isFloeError } from '../../util/errors.js';
import { runCommitLoop, isRetryableConflict, type CommitRetryPolicy } from '../../util/commit-retry.js';
import { faultPoint } from '../../util/fault-points.js';
import { parseDurationMs } from '../../util/units.js';
import { createVerified, isOutcomeUnknown } from '../storage/create-verified.js';
import { commitStateUnknown, isCommitStateUnknown } from '../commit-state.js';
import { decodeSerializedRow } from './binary-row.js';
import { joinPath, type PaimonWriteIO } from './io.js';
import {
  FILE_KIND_ADD,
  FILE_KIND_DELETE,
  entryIdentifier,
  mergeIndexEntries,
  readIndexManifest,
  readLiveEntries,
  readManifestList,
  type IndexManifestEntry,
  type ManifestEntry,
  type ManifestFileMeta,
} from './manifest.js';
import { IndexManifestNamer, writeIndexManifest, type NewIndexEntry } from './write-index-manifest.js';
import { changedDeletionVectorsOfReplacedFiles, dataFilesWithChangedDv } from './dv-conflicts.js';
import { carryOverDeletionVectors, carryOverEnabled, type AppendRowMap } from './dv-carry-over.js';
import { IndexFileNamer } from './compact-dv.js';
import type { HeldCommitLock, PaimonCommitLock, PaimonSnapshotCommitter } from './commit-lock.js';
import { latestSnapshotId, readSnapshot, snapshotPath, type PaimonSnapshot } from './metadata.js';
import { decodeKeys, partitionFields, trimmedPrimaryKeyFields, type PaimonTable } from './table.js';
import { rowComparator } from './values.js';
import {
  ManifestNamer,
  manifestCodec,
  writeManifest,
  writeManifestList,
  type ManifestWriteContext,
  type NewManifestEntry,
} from './write-manifest.js';
import { FLOE_COMMIT_USER_PREFIX } from './commit-user.js';
import { bucketKey, DELETION_VECTORS_INDEX } from './keys.js';

/** `BatchWriteBuilder.COMMIT_IDENTIFIER`: what batch jobs (and Java's compact actions) use. */
export const BATCH_COMMIT_IDENTIFIER = 9223372036854775807n;

export interface PaimonCommitRequest {
  /** The table as opened when compaction was planned (its snapshot is the base). */
  table: PaimonTable;
  storage: PaimonWriteIO;
  /** DELETE entries first (replaced files at their old level), then ADD entries. */
  changes: NewManifestEntry[];
  commitUser?: string;
  commitIdentifier?: bigint;
  nowMs?: number;
  maxRetries?: number;
  /** Test hook: called before each attempt to publish snapshot `id`. */
  beforePublish?: (id: bigint) => Promise<void>;
  /** COMPACT (default) or OVERWRITE (partition expiry: DELETE entries only, as Java's dropPartitions). */
  commitKind?: 'COMPACT' | 'OVERWRITE';
  /**
   * Extra check on a rebase, given the newest snapshot's live files: problems found abandon the commit
   * (non-retryable), like a replaced file that is gone. Partition expiry refuses files appended meanwhile.
   */
  validate?: (live: readonly ManifestEntry[]) => string[];
  /**
   * Deletion-vector changes: the DV index entries of `buckets` are replaced by `added` in a new index
   * manifest (Java's bucketed combiner); other index entries are carried over. The commit is abandoned
   * when another writer changed those buckets' DV entries since the table was opened.
   */
  deletionVectors?: { buckets: { partition: Uint8Array; bucket: number }[]; added: NewIndexEntry[] };
  /** Changelog files the compaction produced (ADD entries), listed in the snapshot's changelog manifest list. */
  changelog?: NewManifestEntry[];
  /**
   * The catalog's commit lock (a JDBC catalog with `lock.enabled`): held around publishing snapshot-N, as
   * Java's RenamingSnapshotCommit holds it around its exists-then-rename; checked still held just before.
   * Every writer takes it, so the snapshot's create is not relied on to be atomic and the store's
   * conditional-create check is skipped.
   */
  lock?: PaimonCommitLock;
  /**
   * A catalog that publishes the snapshot itself (Paimon's REST catalog): snapshot-N goes to it instead
   * of being created in the table directory; the catalog serialises commits, so no lock is taken and the
   * store's conditional create is not needed.
   */
  committer?: PaimonSnapshotCommitter;
  /**
   * Append rewrites: where each surviving row of the replaced files went. With it, DVs another writer
   * added meanwhile to replaced files are carried over to the outputs (dv-carry-over.ts) instead of
   * abandoning the commit — unless the table option floe.rebase-concurrent-deletes is false.
   */
  appendRows?: AppendRowMap[];
}

export interface PaimonCommitResult {
  snapshotId: bigint;
  snapshotFile: string;
  attempts: number;
  commitUser: string;
  deltaRecordCount: bigint;
  /** Rows other writers deleted meanwhile in replaced files, carried over to the outputs' DVs. */
  carriedDeletes: number;
}

// ------------------------------------------------------------------------------------------ snapshot JSON

/** Jackson's default pretty printer: 2-space indent, `"key" : value`, empty objects as `{ }`. */
function prettyJson(v: unknown, indent = ''): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  const entries = Object.entries(v as Record<string, unknown>);
  if (!entries.length) return '{ }';
  const inner = indent + '  ';
  return `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)} : ${prettyJson(x, inner)}`).join(',\n')}\n${indent}}`;
}

export interface SnapshotFields {
  id: bigint;
  schemaId: number;
  baseManifestList: string;
  baseManifestListSize: bigint;
  deltaManifestList: string;
  deltaManifestListSize: bigint;
  changelogManifestList?: string;
  changelogManifestListSize?: bigint;
  changelogRecordCount?: bigint;
  indexManifest?: string;
  commitUser: string;
  commitIdentifier: bigint;
  timeMillis: number;
  totalRecordCount: bigint;
  deltaRecordCount: bigint;
  watermark?: bigint;
  statistics?: string;
  nextRowId?: bigint;
  uuid: string;
  /** Default COMPACT. */
  commitKind?: 'COMPACT' | 'OVERWRITE';
}

/** Snapshot JSON in the key order Java writes (v3); unknown-to-old-readers keys are ignored by them. */
export function snapshotJson(s: SnapshotFields): string {
  const o: Record<string, unknown> = {
    version: 3,
    uuid: s.uuid,
    id: s.id,
    schemaId: s.schemaId,
    baseManifestList: s.baseManifestList,
    baseManifestListSize: s.baseManifestListSize,
    deltaManifestList: s.deltaManifestList,
    deltaManifestListSize: s.deltaManifestListSize,
    changelogManifestList: s.changelogManifestList ?? null,
  };
  if (s.changelogManifestList) o.changelogManifestListSize = s.changelogManifestListSize ?? 0n;
  if (s.indexManifest) o.indexManifest = s.indexManifest;
  Object.assign(o, {
    commitUser: s.commitUser,
    commitIdentifier: s.commitIdentifier,
    commitKind: s.commitKind ?? 'COMPACT',
    timeMillis: s.timeMillis,
    logOffsets: {},
    totalRecordCount: s.totalRecordCount,
    deltaRecordCount: s.deltaRecordCount,
    changelogRecordCount: s.changelogRecordCount ?? 0n,
  });
  if (s.watermark !== undefined) o.watermark = s.watermark;
  if (s.statistics !== undefined) o.statistics = s.statistics;
  if (s.nextRowId !== undefined) o.nextRowId = s.nextRowId;
  return prettyJson(o);
}

// ------------------------------------------------------------------------------------------ conflicts

export interface ConflictReport {
  /** Replaced files that are no longer live in the newest snapshot. */
  missing: string[];
  /** Level ≥ 1 key-range overlaps the commit would create. */
  overlaps: string[];
  /** Buckets whose total bucket count changed (rescale). */
  rescaled: string[];
}

/**
 * Whether `changes` still apply on top of `live` (the newest snapshot's live files): every DELETE must
 * remove a live file, and after applying them no two files of one level ≥ 1 of a touched bucket may have
 * overlapping key ranges (`FileStoreCommitImpl.noConflictsOrFail`'s two checks).
 */
export function checkConflicts(
  table: PaimonTable,
  live: readonly ManifestEntry[],
  changes: readonly NewManifestEntry[],
): ConflictReport {
  const report: ConflictReport = { missing: [], overlaps: [], rescaled: [] };
  const liveById = new Map(live.map((e) => [entryIdentifier(e), e]));
  const after = new Map(liveById);
  for (const c of changes) {
    const id = entryIdentifier({ ...c, manifest: '' });
    if (c.kind === FILE_KIND_DELETE) {
      if (!after.has(id)) report.missing.push(`${c.file.fileName} (bucket ${c.bucket}, level ${c.file.level})`);
      after.delete(id);
    } else {
      after.set(id, { ...c, manifest: '(this commit)' });
    }
  }
  const touched = new Set(changes.map((c) => bucketKey(c.partition, c.bucket)));
  const totals = new Map<string, number>();
  for (const e of live) {
    const k = bucketKey(e.partition, e.bucket);
    if (touched.has(k)) totals.set(k, e.totalBuckets);
  }
  for (const c of changes) {
    const k = bucketKey(c.partition, c.bucket);
    const t = totals.get(k);
    if (t !== undefined && t !== c.totalBuckets && c.kind === FILE_KIND_ADD)
      report.rescaled.push(`bucket ${c.bucket}: ${c.totalBuckets} → ${t}`);
  }
  if (table.schema.primaryKeys.length) {
    const keyTypes = trimmedPrimaryKeyFields(table.schema).map((f) => f.type);
    const cmp = rowComparator(keyTypes);
    const groups = new Map<string, ManifestEntry[]>();
    for (const e of after.values()) {
      if (e.file.level < 1 || !touched.has(bucketKey(e.partition, e.bucket))) continue;
      const k = `${bucketKey(e.partition, e.bucket)}|${e.file.level}`;
      (groups.get(k) ?? groups.set(k, []).get(k)!).push(e);
    }
    for (const [k, files] of groups) {
      const ranged = files
        .map((e) => ({ e, keys: decodeKeys(table, e.file) }))
        .filter((x): x is { e: ManifestEntry; keys: { min: unknown[]; max: unknown[] } } => !!x.keys)
        .sort((a, b) => cmp(a.keys.min, b.keys.min));
      for (let i = 1; i < ranged.length; i++) {
        if (cmp(ranged[i]!.keys.min, ranged[i - 1]!.keys.max) <= 0) {
          report.overlaps.push(
            `${ranged[i - 1]!.e.file.fileName} and ${ranged[i]!.e.file.fileName} overlap at level ${k.split('|')[2]}`,
          );
        }
      }
    }
  }
  return report;
}

// ------------------------------------------------------------------------------------------ commit

/** The DV index file names of the given buckets, per bucket, sorted (to compare two snapshots' index). */
function dvFilesOf(entries: readonly IndexManifestEntry[], buckets: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string[]>();
  for (const e of entries) {
    const k = bucketKey(e.partition, e.bucket);
    if (e.indexType === DELETION_VECTORS_INDEX && buckets.has(k))
      (out.get(k) ?? out.set(k, []).get(k)!).push(e.fileName);
  }
  return new Map([...buckets].map((k) => [k, (out.get(k) ?? []).sort().join(',')]));
}

function sum(entries: readonly NewManifestEntry[], kind: number): bigint {
  return entries.filter((e) => e.kind === kind).reduce((n, e) => n + e.file.rowCount, 0n);
}

async function manifestMetas(table: PaimonTable, s: PaimonSnapshot): Promise<ManifestFileMeta[]> {
  return [
    ...(await readManifestList(table.io, table.location, s.baseManifestList)),
    ...(await readManifestList(table.io, table.location, s.deltaManifestList)),
  ];
}

/** Paimon's own commit retry options (`commit.max-retries` 10, `commit.min-retry-wait` 10 ms, `commit.max-retry-wait` 10 s, `commit.timeout` none). */
export function paimonCommitRetryPolicy(
  options: Readonly<Record<string, string>>,
  table: string,
  maxRetries?: number,
): CommitRetryPolicy {
  const duration = (key: string, d: number) =>
    options[key] === undefined
      ? d
      : parseDurationMs(options[key]!, { bare: 'ms', what: `Paimon table ${table}: option ${key}` });
  let retries = maxRetries;
  if (retries === undefined) {
    const raw = options['commit.max-retries'];
    if (raw !== undefined && !/^\d+$/.test(raw.trim())) {
      throw new FloeError(
        'InvalidArgument',
        `Paimon table ${table}: option commit.max-retries=${JSON.stringify(raw)} is not a non-negative integer`,
        { context: { table, option: 'commit.max-retries' } },
      );
    }
    retries = raw === undefined ? 10 : Number(raw.trim());
  }
  const minWaitMs = duration('commit.min-retry-wait', 10);
  return {
    numRetries: retries,
    minWaitMs,
    maxWaitMs: Math.max(minWaitMs, duration('commit.max-retry-wait', 10_000)),
    totalTimeoutMs: duration('commit.timeout', Number.POSITIVE_INFINITY),
  };
}

/**
 * The one way floe publishes a Paimon snapshot — compaction (COMPACT), sort compaction and partition
 * expiry (OVERWRITE) alike: manifests written once, then attempts under Paimon's retry options
 * (paimonCommitRetryPolicy, util/commit-retry.ts), each rebasing onto the newest snapshot.
 */
export async function commitPaimonSnapshot(req: PaimonCommitRequest): Promise<PaimonCommitResult> {
  const { table, storage, changes } = req;
  const base = table.snapshot;
  if (!base)
    throw new FloeError('InvalidArgument', `Paimon table ${table.location} has no snapshot to compact`, {
      context: { table: table.location },
    });
  if (!changes.length)
    throw new FloeError('InvalidArgument', `nothing to commit for Paimon table ${table.location}`, {
      context: { table: table.location },
    });
  // snapshot-N is published by create-if-absent: refuse a store that does not honour it, before any manifest
  if (!req.lock && !req.committer) await storage.requireConditionalCreate?.(table.location, 'Paimon');
  const commitUser = req.commitUser ?? `${FLOE_COMMIT_USER_PREFIX}${randomUUID()}`;
  const policy = paimonCommitRetryPolicy(table.schema.options, table.location, req.maxRetries);
  const ctx: ManifestWriteContext = {
    table: table.location,
    storage,
    codec: manifestCodec(table.schema.options, table.location),
    partitionTypes: partitionFields(table.schema).map((f) => f.type),
    schemaId: table.schema.id,
    names: new ManifestNamer(),
  };
  const written: string[] = [];
  const indexFiles: string[] = [];
  const deltaRecordCount = sum(changes, FILE_KIND_ADD) - sum(changes, FILE_KIND_DELETE);
  try {
    const lists = await writeDeltaLists(ctx, req, written);
    faultPoint('paimon.commit.after-manifests');
    const indexNames = new IndexManifestNamer();
    const state: CommitState = {
      indexFiles,
      dvFileNames: new IndexFileNamer(),
      carried: 0,
      superseded: [],
      req,
      ctx,
      base,
      latest: base,
      written,
      commitUser,
      deltaRecordCount,
      lists,
      indexNames,
    };
    return await withRetries(policy, table.location, (attempt) => attemptCommit(state, attempt));
  } catch (e) {
    // a snapshot whose state is unknown may reference our manifests (and carried-over DV index files): keep them
    if (!isCommitStateUnknown(e)) {
      await Promise.all(written.map((n) => removeManifest(storage, table.location, n)));
      await removeAll(storage, indexFiles);
    }
    throw e;
  }
}

const removeAll = async (storage: PaimonWriteIO, paths: string[]) => {
  await Promise.all(paths.splice(0).map((p) => storage.remove(p).catch(() => undefined)));
};

/** Whether this commit carries concurrent DVs over (append rewrites, the option not off). */
const carrying = (req: PaimonCommitRequest) => !!req.appendRows && carryOverEnabled(req.table.schema.options);

type ListRef = { name: string; size: bigint };

/** One commit across its attempts: the newest snapshot seen, and the manifests no snapshot references yet. */
interface CommitState {
  req: PaimonCommitRequest;
  ctx: ManifestWriteContext;
  base: PaimonSnapshot;
  latest: PaimonSnapshot;
  written: string[];
  commitUser: string;
  deltaRecordCount: bigint;
  lists: { delta: ListRef; changelog: ListRef | undefined };
  indexNames: IndexManifestNamer;
  /** DV index files written by carrying over (paths), not referenced by a published snapshot yet. */
  indexFiles: string[];
  dvFileNames: IndexFileNamer;
  /** This attempt's carried-over deletes, and the commit's own DV index files it made redundant. */
  carried: number;
  superseded: string[];
}

const removeManifest = (storage: PaimonWriteIO, table: string, name: string) =>
  storage.remove(joinPath(table, 'manifest', name)).catch(() => undefined);

/** The delta manifest and list, and the changelog manifest and list when the commit has changelog files. */
async function writeDeltaLists(
  ctx: ManifestWriteContext,
  req: PaimonCommitRequest,
  written: string[],
): Promise<CommitState['lists']> {
  const { table } = req;
  const pTypes = ctx.partitionTypes;
  const decodePartition = (b: Uint8Array) => decodeSerializedRow(b, pTypes, table.location);
  const delta = await writeManifest(ctx, req.changes, decodePartition);
  written.push(delta.fileName);
  const deltaList = await writeManifestList(ctx, [delta]);
  written.push(deltaList.name);
  let changelogList: ListRef | undefined;
  if (req.changelog?.length) {
    const m = await writeManifest(ctx, req.changelog, decodePartition);
    written.push(m.fileName);
    changelogList = await writeManifestList(ctx, [m]);
    written.push(changelogList.name);
  }
  return { delta: deltaList, changelog: changelogList };
}

/** The loop under `policy`; a conflict still there after the last retry says so. */
async function withRetries<T>(
  policy: CommitRetryPolicy,
  table: string,
  attempt: (n: number) => Promise<T>,
): Promise<T> {
  try {
    return await runCommitLoop(policy, attempt);
  } catch (e) {
    if (!isRetryableConflict(e)) throw e;
    throw new FloeError(
      'CommitConflict',
      `Paimon table ${table}: commit failed after ${policy.numRetries} retries (other writers kept committing)`,
      {
        context: { table },
        cause: e,
      },
    );
  }
}

/** One attempt: rebase onto the newest snapshot, write its base list (and DV index), publish, check. */
async function attemptCommit(s: CommitState, attempt: number): Promise<PaimonCommitResult> {
  const { table } = s.req;
  await removeAll(s.req.storage, s.indexFiles); // an earlier attempt's, never published
  await refreshLatest(s);
  if (s.latest.id !== s.base.id || attempt > 1) await assertStillApplies(s);
  const baseList = await writeManifestList(s.ctx, await manifestMetas(table, s.latest));
  s.written.push(baseList.name);
  const indexManifest = await indexManifestFor(s);
  const ownIndex = indexManifest !== s.latest.indexManifest; // written for this attempt
  const fields = snapshotFieldsFor(s, baseList, indexManifest);
  const file = snapshotPath(table.location, fields.id);
  const bytes = new TextEncoder().encode(snapshotJson(fields));
  const publishAndCheck = async (held?: HeldCommitLock) => {
    await s.req.beforePublish?.(fields.id);
    faultPoint('paimon.commit.before-publish');
    await held?.assertHeld(); // an expired lock may have a new holder: publish nothing
    await publish(s, file, bytes, fields, baseList.name, ownIndex ? indexManifest : undefined);
    s.written.length = 0; // referenced by a published snapshot now
    s.indexFiles.length = 0;
    faultPoint('paimon.commit.after-publish');
    await confirmOurs(s, fields, file);
  };
  await (s.req.lock ? s.req.lock.runWithLock(publishAndCheck) : publishAndCheck());
  // the rewrite's own DV index files that carrying over replaced: no snapshot references them
  await removeAll(s.req.storage, s.superseded);
  const { commitUser, deltaRecordCount, carried } = s;
  return {
    snapshotId: fields.id,
    snapshotFile: file,
    attempts: attempt,
    commitUser,
    deltaRecordCount,
    carriedDeletes: carried,
  };
}

/**
 * The snapshot's index manifest: the newest one when the commit changes no DV; the rewritten buckets' DV
 * entries replaced otherwise (rewriteDvIndex); and when carrying over, the buckets whose DVs another writer
 * changed since the plan rebuilt from the newest DVs plus the deletes carried to the outputs.
 */
async function indexManifestFor(s: CommitState): Promise<string | undefined> {
  const { req, latest } = s;
  const { table } = req;
  s.carried = 0;
  s.superseded = [];
  if (carrying(req) && latest.indexManifest !== table.snapshot?.indexManifest) {
    const live = latest.indexManifest
      ? mergeIndexEntries(await readIndexManifest(table.io, table.location, latest.indexManifest))
      : [];
    const own = req.deletionVectors;
    const r = await carryOverDeletionVectors({
      table,
      storage: req.storage,
      latest: live,
      changes: req.changes,
      rows: req.appendRows!,
      added: own?.added ?? [],
      nextIndexName: () => s.dvFileNames.next(),
    });
    s.indexFiles.push(...r.written);
    if (r.buckets.size) {
      s.carried = r.carried;
      const ownBuckets = new Set((own?.buckets ?? []).map((b) => bucketKey(b.partition, b.bucket)));
      const key = (e: { partition: Uint8Array; bucket: number }) => bucketKey(e.partition, e.bucket);
      const kept = live.filter(
        (e) => !(e.indexType === DELETION_VECTORS_INDEX && (r.buckets.has(key(e)) || ownBuckets.has(key(e)))),
      );
      const ownKept = (own?.added ?? []).filter((e) => !r.buckets.has(key(e)));
      s.superseded = (own?.added ?? [])
        .filter((e) => r.buckets.has(key(e)))
        .map((e) => joinPath(table.location, 'index', e.fileName));
      const name = await writeIndexManifest(s.ctx, [...kept, ...ownKept, ...r.entries], s.indexNames.next());
      s.written.push(name);
      return name;
    }
  }
  return req.deletionVectors ? rewriteDvIndex(s, req.deletionVectors) : latest.indexManifest;
}

async function refreshLatest(s: CommitState): Promise<void> {
  const { table } = s.req;
  const latestId = await latestSnapshotId(table.io, table.location);
  if (latestId === undefined)
    throw new FloeError('Corrupt', `Paimon table ${table.location} lost all its snapshots during compaction`, {
      context: { table: table.location },
    });
  if (latestId > s.latest.id) s.latest = await readSnapshot(table.io, table.location, latestId);
}

/** After another writer's commit: the changes must still apply (checkConflicts, `validate`), or the commit is abandoned. */
async function assertStillApplies(s: CommitState): Promise<void> {
  const { req, latest } = s;
  const { table } = req;
  const live = await readLiveEntries(table.io, table.location, [latest.baseManifestList, latest.deltaManifestList]);
  const conflicts = checkConflicts(table, live, req.changes);
  const validation = req.validate?.(live) ?? [];
  // a DELETE meanwhile (append DVs): carried over when this commit can (indexManifestFor), a conflict otherwise
  const dvChanged = carrying(req) ? [] : await changedDeletionVectorsOfReplacedFiles(table, latest, req.changes);
  const other = [...validation, ...dvChanged];
  // only deletion vectors changed: a new plan on the newest snapshot sees them (compactPaimon re-plans)
  const replannable =
    dvChanged.length > 0 &&
    !validation.length &&
    !conflicts.missing.length &&
    !conflicts.overlaps.length &&
    !conflicts.rescaled.length;
  if (!conflicts.missing.length && !conflicts.overlaps.length && !conflicts.rescaled.length && !other.length) return;
  throw new FloeError(
    'CommitConflict',
    `Paimon table ${table.location}: snapshot ${latest.id} (${latest.commitKind} by ${latest.commitUser}) conflicts with this compaction` +
      `${conflicts.missing.length ? `; files no longer live: ${conflicts.missing.slice(0, 5).join(', ')}` : ''}` +
      `${conflicts.overlaps.length ? `; level overlaps: ${conflicts.overlaps.slice(0, 3).join('; ')}` : ''}` +
      `${conflicts.rescaled.length ? `; buckets rescaled: ${conflicts.rescaled.join(', ')}` : ''}` +
      `${other.length ? `; ${other.slice(0, 5).join('; ')}` : ''}` +
      `. ${req.commitKind === 'OVERWRITE' ? 'Commit abandoned; re-run the command.' : 'Compaction abandoned; re-run floe compact.'}`,
    {
      context: {
        table: table.location,
        snapshotId: String(latest.id),
        ...conflicts,
        ...(replannable ? { replannable } : {}),
      },
      retryable: false,
    },
  );
}

/**
 * A new index manifest: the DV entries of the rewritten buckets replaced, the other entries carried over.
 * Abandoned when another writer changed those buckets' DVs since the table was opened.
 */
async function rewriteDvIndex(
  s: CommitState,
  dv: NonNullable<PaimonCommitRequest['deletionVectors']>,
): Promise<string> {
  const { table } = s.req;
  const latest = s.latest;
  const touched = new Set(dv.buckets.map((b) => bucketKey(b.partition, b.bucket)));
  const live = latest.indexManifest
    ? mergeIndexEntries(await readIndexManifest(table.io, table.location, latest.indexManifest))
    : [];
  const was = dvFilesOf(table.indexEntries, touched);
  const now = dvFilesOf(live, touched);
  const changed = [...touched].filter((k) => was.get(k) !== now.get(k));
  if (changed.length) {
    const files = dataFilesWithChangedDv(table.indexEntries, live, touched);
    const named = files.length
      ? ` (the deletion vector of ${files.slice(0, 5).join(', ')}${files.length > 5 ? ` and ${files.length - 5} more` : ''} changed)`
      : '';
    throw new FloeError(
      'CommitConflict',
      `Paimon table ${table.location}: snapshot ${latest.id} (${latest.commitKind} by ${latest.commitUser}) changed the deletion vectors of ${changed.length} bucket(s) this compaction rewrites${named}. Compaction abandoned; re-run floe compact.`,
      { context: { table: table.location, snapshotId: String(latest.id), replannable: true }, retryable: false },
    );
  }
  const kept = live.filter(
    (e) => !(e.indexType === DELETION_VECTORS_INDEX && touched.has(bucketKey(e.partition, e.bucket))),
  );
  const name = await writeIndexManifest(s.ctx, [...kept, ...dv.added], s.indexNames.next());
  s.written.push(name);
  return name;
}

/** The next snapshot on top of the newest: our lists, totals carried forward, the newest's watermark etc. */
function snapshotFieldsFor(s: CommitState, baseList: ListRef, indexManifest: string | undefined): SnapshotFields {
  const { req, latest, lists } = s;
  const fields: SnapshotFields = {
    id: latest.id + 1n,
    schemaId: Math.max(req.table.schema.id, latest.schemaId),
    baseManifestList: baseList.name,
    baseManifestListSize: baseList.size,
    deltaManifestList: lists.delta.name,
    deltaManifestListSize: lists.delta.size,
    ...(lists.changelog
      ? {
          changelogManifestList: lists.changelog.name,
          changelogManifestListSize: lists.changelog.size,
          changelogRecordCount: req.changelog!.reduce((n, e) => n + e.file.rowCount, 0n),
        }
      : {}),
    commitUser: s.commitUser,
    commitIdentifier: req.commitIdentifier ?? BATCH_COMMIT_IDENTIFIER,
    timeMillis: req.nowMs ?? Date.now(),
    totalRecordCount: (latest.totalRecordCount ?? 0n) + s.deltaRecordCount,
    deltaRecordCount: s.deltaRecordCount,
    uuid: randomUUID(),
  };
  if (req.commitKind) fields.commitKind = req.commitKind;
  if (indexManifest) fields.indexManifest = indexManifest;
  if (latest.watermark !== undefined) fields.watermark = latest.watermark;
  if (latest.statistics !== undefined) fields.statistics = latest.statistics;
  if (latest.nextRowId !== undefined) fields.nextRowId = latest.nextRowId;
  return fields;
}

/**
 * Creates snapshot-N if absent. Taken by another writer: the base list (and DV index) written for this
 * attempt are stale — removed, and the conflict is retried on top of that snapshot. A lost response that
 * reading back cannot settle is commit-state-unknown.
 */
async function publish(
  s: CommitState,
  file: string,
  bytes: Uint8Array,
  fields: SnapshotFields,
  baseList: string,
  dvIndex: string | undefined,
): Promise<void> {
  const { table, storage } = s.req;
  const id = fields.id;
  try {
    if (s.req.committer) await commitThroughCatalog(s, s.req.committer, fields, bytes);
    // the snapshot's uuid makes its bytes ours alone: reading them back settles a lost response
    else
      await createVerified(
        { location: file, create: () => storage.createNew(file, bytes), read: () => table.io.read(file) },
        bytes,
      );
  } catch (e) {
    if (isFloeError(e, 'PreconditionFailed')) {
      await removeAll(storage, s.indexFiles);
      await removeManifest(storage, table.location, baseList);
      if (dvIndex) {
        await removeManifest(storage, table.location, dvIndex);
        s.written.pop();
      }
      s.written.pop();
      s.latest = await readSnapshot(table.io, table.location, id);
      throw new FloeError(
        'CommitConflict',
        `Paimon table ${table.location}: snapshot ${id} was taken by ${s.latest.commitUser}`,
        {
          context: { table: table.location, snapshotId: String(id) },
        },
      );
    }
    if (isOutcomeUnknown(e))
      throw commitStateUnknown(`Paimon table ${table.location}, ${file}: ${(e as Error).message}`, e);
    throw e;
  }
}

/**
 * Snapshot-N through a catalog that publishes it. An unknown outcome (a 5xx, a lost answer) is settled
 * by reading snapshot-N from the table: ours (same commit user and identifier) is a commit, another
 * writer's is a taken id, none leaves the outcome unknown (the catalog may still publish it).
 */
async function commitThroughCatalog(
  s: CommitState,
  committer: PaimonSnapshotCommitter,
  fields: SnapshotFields,
  bytes: Uint8Array,
): Promise<void> {
  const id = fields.id;
  try {
    await committer.commitSnapshot(id, new TextDecoder().decode(bytes));
  } catch (e) {
    if (!isCommitStateUnknown(e)) throw e;
    const { table } = s.req;
    const found = await readSnapshot(table.io, table.location, id).catch(() => undefined);
    if (!found) throw e;
    if (isOurSnapshot(found, fields)) return;
    throw new FloeError('PreconditionFailed', `snapshot ${id} exists (written by ${found.commitUser})`, { cause: e });
  }
}

/** Whether `snap` is the one floe sent: the catalog re-serialises it (Java 1.x drops `uuid`), so by its commit. */
const isOurSnapshot = (snap: PaimonSnapshot, sent: SnapshotFields) =>
  snap.commitUser === sent.commitUser && snap.commitIdentifier === sent.commitIdentifier;

/** Moves the LATEST hint, then reads snapshot-N back: Java's "exists? then rename" may have overwritten it. */
async function confirmOurs(s: CommitState, fields: SnapshotFields, file: string): Promise<void> {
  const { table, storage } = s.req;
  const id = fields.id;
  // a publishing catalog moved LATEST itself (and may hold the table's files read-only to others)
  if (!s.req.committer)
    await storage
      .overwrite(joinPath(table.location, 'snapshot', 'LATEST'), new TextEncoder().encode(String(id)))
      .catch(() => undefined);
  let check: PaimonSnapshot;
  try {
    check = await readSnapshot(table.io, table.location, id);
  } catch (e) {
    throw commitStateUnknown(
      `Paimon table ${table.location}: published ${file} but cannot read it back to check it is still ours (${(e as Error).message})`,
      e,
    );
  }
  const ours = s.req.committer ? isOurSnapshot(check, fields) : check.raw.uuid === fields.uuid;
  if (!ours) {
    throw new FloeError(
      'CommitConflict',
      `Paimon table ${table.location}: snapshot ${id} was overwritten by another writer (${check.commitUser}) right after floe published it; ` +
        "the table is consistent (it holds the other writer's commit) and floe's new files are orphans. Serialise Java writers and floe with a lock.",
      { context: { table: table.location, snapshotId: String(id) }, retryable: false },
    );
  }
}
