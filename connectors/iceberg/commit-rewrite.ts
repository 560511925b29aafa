/**
 * Atomic `replace` commits for compaction: files written by a rewrite replace the files they were read from,
 * validated against every snapshot committed since planning, rebased and retried when another writer won
 * the race, and published through the table's TableOperations (filesystem hint, SQL CAS or REST) — an
 * action on the one commit path, commitTransaction (transaction.ts), which owns retries and cleanup.
 *
 * Rules (Iceberg spec; Java BaseRewriteFiles / MergingSnapshotProducer):
 * - new data files keep the starting snapshot's data sequence number, so equality deletes committed since
 *   still apply to them (strictly greater sequence number) and need not conflict;
 * - a replaced file that is no longer live, or a new position delete / DV that may touch a replaced file,
 *   fails that group (its outputs are deleted by the caller — they were never referenced);
 * - manifests holding replaced files are rewritten (replaced → DELETED, others → EXISTING with explicit
 *   sequence numbers); all other manifests are reused as they are.
 */
import { FloeError, isFloeError } from '../../util/errors.js';
import { toBigInt } from '../../util/json.js';
import { readAvroContainer } from '../formats/avro.js';
import { currentSnapshotIdOf, snapshotById, snapshotsSince, withTotals, type RawMetadata } from './commit-metadata.js';
import {
  STATUS_ADDED,
  STATUS_DELETED,
  STATUS_EXISTING,
  manifestDataFile,
  type NewContentFile,
  type RawDataFile,
  type RawManifestEntry,
  type RawManifestFile,
} from './write-manifest.js';
import {
  assignRowLineage,
  draftSnapshot,
  manifestHeaderFor,
  rawPartitionKey,
  readManifestList,
  writeDraftManifest,
  writeDraftManifestList,
  preparedSnapshot,
  type ManifestHeader,
  type SnapshotDraft,
} from './snapshot-producer.js';
import { parseMetadata } from './metadata.js';
import { COMMIT_ID_PROPERTY } from './commit-id.js';
import { deleteFileWriter, type DataFileDeletes } from './delete-writer.js';
import { cannotCarry, deletedPositionsIn, toOutputPositions, writeCarriedDeletes } from './rebase-deletes.js';

/** Snapshot summary property: how many deleted rows the commit carried over to rewritten files. */
export const CARRIED_DELETES_PROPERTY = 'floe.carried-deletes';
import { faultPoint } from '../../util/fault-points.js';
import {
  commitTransaction,
  type AttemptContext,
  type CommitBase,
  type CommitIO,
  type PreparedCommit,
  type TableOperations,
  type TransactionAction,
} from './transaction.js';

export type { CommitIO, TableOperations } from './transaction.js';
export type { NewContentFile } from './write-manifest.js';

export interface RewriteGroup {
  id: string;
  replacedDataFiles: string[];
  /**
   * Delete files the plan says no surviving data file needs, by `deleteEntryKey`: the path, or for a deletion
   * vector `path#content_offset` — DVs of several data files share one Puffin file, and only the entries of
   * the DVs named here go. A bare Puffin path matches no DV entry, so it removes nothing.
   */
  removedDeleteFiles: string[];
  addedDataFiles: NewContentFile[];
  addedDeleteFiles: NewContentFile[];
  /**
   * v3: the previous deletion vectors (`path#content_offset`) of the data files this group writes a new DV
   * for — the new DV holds their positions too, and a table may hold one DV per data file. Each must still
   * be live (else the group fails: a concurrent writer replaced it) and goes in the same commit.
   */
  supersededDeleteFiles?: string[];
}

export interface RewriteCommitRequest {
  /** Snapshot the rewrite read from. */
  baseSnapshotId: bigint;
  groups: RewriteGroup[];
  useStartingSequenceNumber?: boolean;
  /** Extra summary properties (engine name, job id …). */
  summary?: Record<string, string>;
  nowMs?: () => number;
  /** Called for each retry, for progress output. */
  onRetry?: (attempt: number, reason: string) => void;
  /**
   * Position deletes / DVs committed since the start against replaced files are carried over to the outputs
   * (rebase-deletes.ts) instead of failing their group (default true; false: fail as Java does).
   */
  rebaseConcurrentDeletes?: boolean;
}

export interface RewriteCommitResult {
  snapshotId: bigint;
  sequenceNumber: bigint;
  metadataLocation: string;
  attempts: number;
  committedGroups: string[];
  /** Groups that failed validation, with the reason; their outputs must be cleaned up by the caller. */
  failedGroups: { id: string; reason: string }[];
  /** Deleted rows carried over from concurrent position deletes / DVs to the outputs (0: none needed). */
  carriedDeletes: number;
  summary: Record<string, string>;
}

interface LiveEntry {
  entry: RawManifestEntry;
  manifest: RawManifestFile;
}

/**
 * The identity of a manifest entry: its path, except for a deletion vector (an entry with a
 * `content_offset`), which is one blob of a Puffin file that may hold the DVs of other data files too.
 * Same shape as `deleteFileId` in src/core/planning/deletes.ts.
 */
export function deleteEntryKey(df: RawDataFile): string {
  const offset = df.content_offset as bigint | number | null | undefined;
  return (df.content ?? 0) === 1 && offset !== null && offset !== undefined
    ? `${df.file_path}#${offset}`
    : df.file_path;
}

/** Resolves inherited snapshot id and sequence numbers, as a reader of this manifest would see them. */
function resolveEntry(e: RawManifestEntry, m: RawManifestFile): RawManifestEntry {
  const inherit = e.status === STATUS_ADDED || m.sequence_number === 0n;
  return {
    ...e,
    snapshot_id: e.snapshot_id ?? m.added_snapshot_id,
    sequence_number: e.sequence_number ?? (inherit ? m.sequence_number : null),
    file_sequence_number: e.file_sequence_number ?? (inherit ? m.sequence_number : null),
  };
}

/** v3: entries inheriting first_row_id get it written explicitly when carried into a new manifest. */
function resolveFirstRowIds(entries: RawManifestEntry[], m: RawManifestFile): RawManifestEntry[] {
  if (m.content !== 0 || m.first_row_id === undefined || m.first_row_id === null) return entries;
  let next = m.first_row_id;
  return entries.map((e) => {
    if (e.status === STATUS_DELETED) return e;
    const df = e.data_file;
    if (df.first_row_id !== null && df.first_row_id !== undefined) return e;
    const assigned = next;
    next += BigInt(df.record_count);
    return { ...e, data_file: { ...df, first_row_id: assigned } };
  });
}

export class IcebergRewriteCommitter {
  constructor(
    private readonly io: CommitIO,
    private readonly ops: TableOperations,
  ) {}

  private manifestCache = new Map<string, RawManifestEntry[]>();

  private async readEntries(m: RawManifestFile): Promise<RawManifestEntry[]> {
    let cached = this.manifestCache.get(m.manifest_path);
    if (!cached) {
      let bytes: Uint8Array;
      try {
        bytes = await this.io.read(m.manifest_path);
      } catch (e) {
        throw isFloeError(e) ? e.withContext({ manifest: m.manifest_path }) : e;
      }
      cached = readAvroContainer<RawManifestEntry>(bytes, m.manifest_path).records;
      this.manifestCache.set(m.manifest_path, cached);
    }
    return cached;
  }

  async commit(req: RewriteCommitRequest): Promise<RewriteCommitResult> {
    const now = req.nowMs ?? Date.now;
    return commitTransaction(this.ops, this.io, this.action(req, now), {
      now,
      onRetry: (attempt, e) => req.onRetry?.(attempt, e.message),
    });
  }

  /** The `replace` action: validated against what was committed since the start, then its manifests written. */
  private action(req: RewriteCommitRequest, now: () => number): TransactionAction<RewriteCommitResult, Validated> {
    return {
      validate: (base) => this.validate(base, req),
      prepare: (base, validated, ctx) => this.prepare(base, validated, req, now, ctx),
    };
  }

  /** Which groups still apply on `base`, and the files the commit removes. */
  private async validate(base: CommitBase, req: RewriteCommitRequest): Promise<Validated> {
    const { startingSeq, current, currentId } = startAndCurrent(base, req.baseSnapshotId);
    const state = await this.liveFiles(current);
    const concurrent = await this.addedSince(base.metadata, req.baseSnapshotId);
    const checked = validateGroups(req, state.live, concurrent.positionDeletes);
    const carried = await this.carriedPositions(checked.carry);
    const groups = checked.groups;
    const toRemove = new Set([
      ...groups.flatMap((g) => g.replacedDataFiles),
      ...removableDeletes(groups, state.live, concurrent.dataFiles, startingSeq),
      // a concurrent DV / single-file delete of a replaced file would dangle: its rows are carried over
      ...[...checked.carry.values()].flatMap((c) => c.dangling),
    ]);
    return { startingSeq, current, currentId, state, groups, failed: checked.failed, toRemove, carried };
  }

  /** The carried deletes of each rebased group, as positions of its outputs (read from the concurrent files). */
  private async carriedPositions(carry: ReadonlyMap<RewriteGroup, Carry>): Promise<Map<string, DataFileDeletes[]>> {
    const out = new Map<string, DataFileDeletes[]>();
    for (const [g, c] of carry) {
      const replaced = new Set(g.replacedDataFiles);
      const deleted = new Map<string, Set<number>>();
      for (const d of c.deletes) {
        for (const [path, positions] of await deletedPositionsIn(this.io, d, replaced)) {
          const into = deleted.get(path) ?? new Set<number>();
          for (const p of positions) into.add(p);
          deleted.set(path, into);
        }
      }
      out.set(g.id, toOutputPositions(g.addedDataFiles, deleted));
    }
    return out;
  }

  /** Writes the manifests and the manifest list; the snapshot is the update. */
  private async prepare(
    base: CommitBase,
    v: Validated,
    req: RewriteCommitRequest,
    now: () => number,
    ctx: AttemptContext,
  ): Promise<PreparedCommit<RewriteCommitResult>> {
    const meta = base.metadata;
    const typed = parseMetadata(meta, base.location);
    if (!typed.schemas.some((x) => x.schemaId === typed.currentSchemaId))
      throw new FloeError('Corrupt', `current schema ${typed.currentSchemaId} is missing from ${base.location}`);
    const draft = draftSnapshot(meta, Number(meta['format-version'] ?? 1), ctx.written);
    const changes = new SnapshotChanges();
    const header = (specId: number) => manifestHeaderFor(meta, typed, specId, base.location);
    const { groups, carriedDeletes } = await this.withCarriedDeletes(typed, v, draft.commitUuid, ctx);
    const outManifests = await this.writeManifests(
      draft,
      header,
      groups,
      v.state,
      v.toRemove,
      v.startingSeq,
      req,
      changes,
    );
    const { firstRowId, addedRows } = assignRowLineage(draft, meta, outManifests);

    faultPoint('iceberg.commit.after-manifests');
    const listPath = await writeDraftManifestList(this.io, draft, ctx.attempt, v.currentId, outManifests, firstRowId);
    const summary: Record<string, string> = {
      operation: 'replace',
      ...changes.totals(v.current.summary as Record<string, string> | undefined),
      'engine-name': 'floe',
      ...req.summary,
      ...(carriedDeletes > 0 ? { [CARRIED_DELETES_PROPERTY]: String(carriedDeletes) } : {}),
      [COMMIT_ID_PROPERTY]: draft.commitUuid,
    };
    const facts = { parentSnapshotId: v.currentId, manifestList: listPath, summary, schemaId: typed.currentSchemaId };
    return preparedSnapshot(meta, draft, { ...facts, firstRowId, addedRows }, now, (location) => ({
      snapshotId: draft.snapshotId,
      sequenceNumber: draft.sequenceNumber,
      metadataLocation: location!,
      attempts: ctx.attempt,
      committedGroups: v.groups.map((g) => g.id),
      failedGroups: v.failed,
      carriedDeletes,
      summary,
    }));
  }

  /** The groups with the delete files that carry concurrent deletes over to their outputs, written now. */
  private async withCarriedDeletes(
    md: ReturnType<typeof parseMetadata>,
    v: Validated,
    commitUuid: string,
    ctx: AttemptContext,
  ): Promise<{ groups: RewriteGroup[]; carriedDeletes: number }> {
    if (v.carried.size === 0) return { groups: v.groups, carriedDeletes: 0 };
    const writer = deleteFileWriter(md, this.io);
    let carriedDeletes = 0;
    const groups: RewriteGroup[] = [];
    for (const g of v.groups) {
      const deletes = v.carried.get(g.id);
      if (!deletes || deletes.length === 0) {
        groups.push(g);
        continue;
      }
      const name = `floe-rebase-${commitUuid}-${ctx.attempt}-${g.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
      const files = await writeCarriedDeletes(writer, name, deletes, g.replacedDataFiles[0]!);
      ctx.written.push(...new Set(files.map((f) => f.path)));
      for (const d of deletes) carriedDeletes += [...d.positions].length;
      groups.push({ ...g, addedDeleteFiles: [...g.addedDeleteFiles, ...files] });
    }
    return { groups, carriedDeletes };
  }

  /** New files first, then the manifests that lose a file; all others are reused untouched. */
  private async writeManifests(
    draft: SnapshotDraft,
    header: (specId: number) => ManifestHeader,
    groups: RewriteGroup[],
    state: LiveFiles,
    toRemove: Set<string>,
    startingSeq: bigint,
    req: RewriteCommitRequest,
    changes: SnapshotChanges,
  ): Promise<RawManifestFile[]> {
    const writeOne = (specId: number, content: 'data' | 'deletes', entries: RawManifestEntry[]) =>
      writeDraftManifest(this.io, draft, header(specId), content, entries);
    const out: RawManifestFile[] = [];
    for (const [key, entries] of addedEntriesBySpec(groups, state.live, draft, startingSeq, req, changes)) {
      const [spec, content] = key.split('|');
      out.push(await writeOne(Number(spec), content as 'data' | 'deletes', entries));
    }
    for (const m of state.manifests) {
      const carried = carriedEntries(m, state.entriesByManifest.get(m.manifest_path)!, toRemove, draft, changes);
      out.push(carried ? await writeOne(m.partition_spec_id, m.content === 0 ? 'data' : 'deletes', carried) : m);
    }
    return out;
  }

  /** The live files of the current snapshot, by entry key, for validation and rebasing. */
  private async liveFiles(current: RawMetadata): Promise<LiveFiles> {
    const manifests = await readManifestList(this.io, String(current['manifest-list']));
    const live = new Map<string, LiveEntry>();
    const entriesByManifest = new Map<string, RawManifestEntry[]>();
    for (const m of manifests) {
      const entries = (await this.readEntries(m)).map((e) => resolveEntry(e, m));
      entriesByManifest.set(m.manifest_path, entries);
      for (const e of entries)
        if (e.status !== STATUS_DELETED) live.set(deleteEntryKey(e.data_file), { entry: e, manifest: m });
    }
    return { manifests, live, entriesByManifest };
  }

  /** Position deletes and data files the snapshots committed since the start added. */
  private async addedSince(meta: RawMetadata, baseSnapshotId: bigint): Promise<ConcurrentAdds> {
    const positionDeletes: { file: RawDataFile; specId: number }[] = [];
    const dataFiles: RawManifestEntry[] = [];
    for (const s of snapshotsSince(meta, baseSnapshotId)) {
      const sid = toBigInt(s['snapshot-id'], 'snapshot-id');
      for (const m of await readManifestList(this.io, String(s['manifest-list']))) {
        if (m.added_snapshot_id !== sid) continue;
        for (const e of (await this.readEntries(m)).map((x) => resolveEntry(x, m))) {
          if (e.status !== STATUS_ADDED) continue;
          if (m.content === 1 && (e.data_file.content ?? 0) === 1)
            positionDeletes.push({ file: e.data_file, specId: m.partition_spec_id });
          if (m.content === 0) dataFiles.push(e);
        }
      }
    }
    return { positionDeletes, dataFiles };
  }
}

/** What validation found on a base, for the attempt's manifests. */
interface Validated {
  startingSeq: bigint;
  current: RawMetadata;
  currentId: bigint | undefined;
  state: LiveFiles;
  groups: RewriteGroup[];
  failed: { id: string; reason: string }[];
  toRemove: Set<string>;
  /** By group id: concurrent deletes of its inputs as positions of its outputs (rebased groups only). */
  carried: Map<string, DataFileDeletes[]>;
}

/** A group that stays by carrying concurrent deletes over: the deletes, and which of them would dangle. */
interface Carry {
  deletes: RawDataFile[];
  /** Entry keys of concurrent DVs / single-file deletes whose data file the group replaces. */
  dangling: string[];
}

interface LiveFiles {
  manifests: RawManifestFile[];
  live: Map<string, LiveEntry>;
  entriesByManifest: Map<string, RawManifestEntry[]>;
}

interface ConcurrentAdds {
  positionDeletes: { file: RawDataFile; specId: number }[];
  dataFiles: RawManifestEntry[];
}

/** The snapshot the rewrite read from (still there?) and the current one (there must be one). */
function startAndCurrent(
  base: CommitBase,
  baseSnapshotId: bigint,
): { startingSeq: bigint; current: RawMetadata; currentId: bigint | undefined } {
  const meta = base.metadata;
  const startSnap = snapshotById(meta, baseSnapshotId);
  if (!startSnap) {
    throw new FloeError(
      'PreconditionFailed',
      `snapshot ${baseSnapshotId} the rewrite started from is no longer in ${base.location} (expired meanwhile)`,
    );
  }
  const startingSeq = toBigInt(startSnap['sequence-number'] ?? 0, 'sequence-number');
  const currentId = currentSnapshotIdOf(meta);
  const current = currentId === undefined ? undefined : snapshotById(meta, currentId);
  if (!current) throw new FloeError('PreconditionFailed', `table ${base.location} has no current snapshot`);
  return { startingSeq, current, currentId };
}

/** Splits the groups into those that still apply and those a concurrent commit invalidated (with why). */
function validateGroups(
  req: RewriteCommitRequest,
  live: Map<string, LiveEntry>,
  newPositionDeletes: ConcurrentAdds['positionDeletes'],
): { groups: RewriteGroup[]; failed: { id: string; reason: string }[]; carry: Map<RewriteGroup, Carry> } {
  const failed: { id: string; reason: string }[] = [];
  const carry = new Map<RewriteGroup, Carry>();
  const groups = req.groups.filter((g) => {
    const c = groupConflict(g, live, newPositionDeletes, req.baseSnapshotId, req.rebaseConcurrentDeletes !== false);
    if (typeof c === 'string') failed.push({ id: g.id, reason: c });
    else if (c) carry.set(g, c);
    return typeof c !== 'string';
  });
  if (groups.length === 0) {
    throw new FloeError(
      'PreconditionFailed',
      `every rewrite group conflicts with concurrent commits: ${failed.map((f) => f.reason).join('; ')}`,
      {
        context: { failedGroups: failed },
        retryable: false,
      },
    );
  }
  return { groups, failed, carry };
}

/**
 * Why a concurrent commit invalidates this group; undefined when it still applies as it is; a Carry when it
 * applies once the concurrent position deletes of its replaced files are carried over to its outputs.
 */
function groupConflict(
  g: RewriteGroup,
  live: Map<string, LiveEntry>,
  newPositionDeletes: ConcurrentAdds['positionDeletes'],
  baseSnapshotId: bigint,
  rebase: boolean,
): string | Carry | undefined {
  const missing = g.replacedDataFiles.find((p) => !live.has(p));
  if (missing) return `replaced file ${missing} is no longer live (removed by a concurrent commit)`;
  // every output takes its partition from a data file, which must still be live
  const orphaned = [...g.addedDataFiles, ...g.addedDeleteFiles].find((f) => !live.has(f.partitionOf));
  if (orphaned) return `data file ${orphaned.partitionOf} is no longer live (removed by a concurrent commit)`;
  // a new DV names its data file, which must still be live; it replaces the file's old DV (still live too)
  const dvTargets = g.addedDeleteFiles
    .filter((f) => f.format === 'PUFFIN' && f.referencedDataFile !== undefined)
    .map((f) => f.referencedDataFile!);
  const gone = dvTargets.find((p) => !live.has(p));
  if (gone) return `data file ${gone} of a new deletion vector is no longer live (removed by a concurrent commit)`;
  const supersededGone = (g.supersededDeleteFiles ?? []).find((k) => !live.has(k));
  if (supersededGone)
    return `deletion vector ${supersededGone} was replaced by a concurrent commit; the new one would not hold its positions`;
  // replaced files lose rows a concurrent position delete removes; a data file given a new DV would hide
  // such a delete from readers (a DV masks position delete files, and a second DV is not allowed)
  const touched = new Set([...g.replacedDataFiles, ...dvTargets]);
  const replacedPartitions = new Set([...touched].map((p) => partitionKeyOf(live.get(p)!)));
  const carry: Carry = { deletes: [], dangling: [] };
  const replaced = new Set(g.replacedDataFiles);
  for (const { file: d, specId } of newPositionDeletes) {
    const target = singleReferencedFile(d);
    // same key shape as partitionKeyOf: spec id, then the partition tuple
    const conflict =
      target !== undefined ? touched.has(target) : replacedPartitions.has(`${specId}:${rawPartitionKey(d)}`);
    if (!conflict) continue;
    const givenNewDv = target !== undefined && dvTargets.includes(target);
    const why = `a position delete committed since snapshot ${baseSnapshotId} (${d.file_path}) may delete rows of ${givenNewDv ? 'a data file given a new deletion vector' : 'a replaced file'}`;
    // only rows a rewrite copied can be carried over; a new DV of an eq-to-pos task would need merging
    if (!rebase || givenNewDv || dvTargets.length > 0) return why;
    const unmapped = cannotCarry(g.addedDataFiles);
    if (unmapped) return `${why}, and it cannot be carried over: ${unmapped}`;
    carry.deletes.push(d);
    const key = deleteEntryKey(d);
    if (target !== undefined && replaced.has(target) && live.has(key)) carry.dangling.push(key);
  }
  return carry.deletes.length > 0 ? carry : undefined;
}

/** Delete files the groups drop: only while nothing added since the start still needs them. */
function removableDeletes(
  groups: RewriteGroup[],
  live: Map<string, LiveEntry>,
  newDataFiles: RawManifestEntry[],
  startingSeq: bigint,
): Set<string> {
  const removedDeletes = new Set<string>();
  for (const g of groups) {
    for (const p of g.removedDeleteFiles) {
      const le = live.get(p);
      if (!le) continue;
      const needed = newDataFiles.some((d) => stillNeeds(d, le, startingSeq));
      if (!needed) removedDeletes.add(p);
    }
    for (const k of g.supersededDeleteFiles ?? []) removedDeletes.add(k);
  }
  return removedDeletes;
}

/** The summary's counters (added/removed files, rows, sizes) and the partitions the snapshot changes. */
class SnapshotChanges {
  private readonly counts: Record<string, bigint> = {};
  readonly partitions = new Set<string>();

  add = (k: string, n: bigint | number): void => {
    this.counts[k] = (this.counts[k] ?? 0n) + BigInt(n);
  };

  totals(parentSummary: Record<string, string> | undefined): Record<string, string> {
    return withTotals({ ...this.counts, 'changed-partition-count': BigInt(this.partitions.size) }, parentSummary);
  }
}

/** The groups' outputs as ADDED entries, by `specId|content`; they keep the starting data sequence number. */
function addedEntriesBySpec(
  groups: RewriteGroup[],
  live: Map<string, LiveEntry>,
  draft: SnapshotDraft,
  startingSeq: bigint,
  req: RewriteCommitRequest,
  changes: SnapshotChanges,
): Map<string, RawManifestEntry[]> {
  const newBySpec = new Map<string, RawManifestEntry[]>();
  for (const g of groups) {
    for (const f of [...g.addedDataFiles, ...g.addedDeleteFiles]) {
      const from = live.get(f.partitionOf);
      if (!from)
        throw new FloeError(
          'Internal',
          `output ${f.path} takes its partition from ${f.partitionOf}, which is not live`,
        );
      const df = manifestDataFile(f, from.entry.data_file.partition);
      const key = `${f.specId}|${f.content === 0 ? 'data' : 'deletes'}`;
      const list = newBySpec.get(key) ?? [];
      list.push({
        status: STATUS_ADDED,
        snapshot_id: draft.snapshotId,
        sequence_number: req.useStartingSequenceNumber === false || draft.formatVersion < 2 ? null : startingSeq,
        file_sequence_number: null,
        data_file: df,
      });
      newBySpec.set(key, list);
      changes.partitions.add(partitionKeyOf(from));
      countFile(changes.add, df, 'added');
    }
  }
  return newBySpec;
}

/**
 * A manifest holding removed files, rewritten: removed → DELETED, the rest → EXISTING with explicit sequence
 * numbers (and v3 first_row_id). Undefined when it holds none, so it is reused as it is.
 */
function carriedEntries(
  m: RawManifestFile,
  entries: RawManifestEntry[],
  toRemove: Set<string>,
  draft: SnapshotDraft,
  changes: SnapshotChanges,
): RawManifestEntry[] | undefined {
  if (!entries.some((e) => e.status !== STATUS_DELETED && toRemove.has(deleteEntryKey(e.data_file)))) return undefined;
  return resolveFirstRowIds(entries, m)
    .filter((e) => e.status !== STATUS_DELETED)
    .map((e): RawManifestEntry => {
      if (!toRemove.has(deleteEntryKey(e.data_file))) return { ...e, status: STATUS_EXISTING };
      changes.partitions.add(`${m.partition_spec_id}:${rawPartitionKey(e.data_file)}`);
      countFile(changes.add, e.data_file, 'removed');
      return { ...e, status: STATUS_DELETED, snapshot_id: draft.snapshotId };
    });
}

function countFile(add: (k: string, n: bigint | number) => void, df: RawDataFile, how: 'added' | 'removed'): void {
  const content = df.content ?? 0;
  // a DV counts its blob, not the Puffin file it shares with other DVs (Java: ScanTaskUtil.contentSizeInBytes)
  const blob = df.content_size_in_bytes as bigint | number | null | undefined;
  const size = content === 1 && blob !== null && blob !== undefined ? BigInt(blob) : BigInt(df.file_size_in_bytes);
  const rows = BigInt(df.record_count);
  add(how === 'added' ? 'added-files-size' : 'removed-files-size', size);
  if (content === 0) {
    add(how === 'added' ? 'added-data-files' : 'deleted-data-files', 1);
    add(how === 'added' ? 'added-records' : 'deleted-records', rows);
    return;
  }
  add(how === 'added' ? 'added-delete-files' : 'removed-delete-files', 1);
  const isDv = String(df.file_format).toUpperCase() === 'PUFFIN';
  if (content === 1 && isDv) add(how === 'added' ? 'added-dvs' : 'removed-dvs', 1);
  else if (content === 1) add(how === 'added' ? 'added-position-delete-files' : 'removed-position-delete-files', 1);
  else add(how === 'added' ? 'added-equality-delete-files' : 'removed-equality-delete-files', 1);
  if (content === 1) add(how === 'added' ? 'added-position-deletes' : 'removed-position-deletes', rows);
  else add(how === 'added' ? 'added-equality-deletes' : 'removed-equality-deletes', rows);
}

function partitionKeyOf(le: LiveEntry): string {
  return `${le.manifest.partition_spec_id}:${rawPartitionKey(le.entry.data_file)}`;
}

/** The one data file a position delete file can touch, when its metadata says so. */
function singleReferencedFile(d: RawDataFile): string | undefined {
  if (typeof d.referenced_data_file === 'string') return d.referenced_data_file;
  const lo = (d.lower_bounds as { key: number; value: Buffer }[] | null)?.find((b) => b.key === 2147483546)?.value;
  const hi = (d.upper_bounds as { key: number; value: Buffer }[] | null)?.find((b) => b.key === 2147483546)?.value;
  if (lo && hi && Buffer.compare(lo, hi) === 0) return lo.toString('utf8');
  return undefined;
}

/** Does a data file added since the start (with an older explicit data sequence number) need this delete? */
function stillNeeds(d: RawManifestEntry, del: LiveEntry, startingSeq: bigint): boolean {
  void startingSeq;
  const delSeq = del.entry.sequence_number ?? 0n;
  const dataSeq = d.sequence_number ?? 0n;
  const content = del.entry.data_file.content ?? 0;
  if (content === 2) {
    const global = Object.keys(del.entry.data_file.partition ?? {}).length === 0;
    return dataSeq < delSeq && (global || rawPartitionKey(d.data_file) === rawPartitionKey(del.entry.data_file));
  }
  return false; // position deletes name their data files by path; a new file is never among them
}
