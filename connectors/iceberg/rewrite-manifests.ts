/**
 * `floe rewrite-manifests`: a `replace` snapshot on main whose data manifests of one partition spec (default:
 * the current one) are rewritten — live entries only (DELETED entries dropped), clustered by partition, packed
 * up to commit.manifest.target-size-bytes (8 MiB) — as Java's RewriteManifests does. Entries keep their
 * snapshot id and both sequence numbers (written explicitly as EXISTING); v3 entries get their inherited
 * first_row_id written explicitly. Delete manifests and other specs' manifests are carried over unchanged.
 * Java's check holds: the rewritten manifests have exactly the live files of the replaced ones.
 * Lost commit races are retried from fresh metadata; the manifests of a failed attempt are removed.
 *
 * Limitation: the entries of the rewritten spec are held in memory together (to sort them by partition).
 */
import { FloeError } from '../../util/errors.js';
import { readAvroContainer } from '../formats/avro.js';
import { newReport, type MaintenanceReport } from '../../model/maintenance-report.js';
import { currentSnapshotIdOf, snapshotById } from './commit-metadata.js';
import { removeWithin } from '../storage/confine.js';
import { icebergDeleteScope, rawTableLocations } from './delete-scope.js';
import type { MaintainedTable } from './expire-table.js';
import { parseMetadata } from './metadata.js';
import { COMMIT_ID_PROPERTY } from './commit-id.js';
import { commitTransaction, type AttemptContext, type CommitBase, type PreparedCommit } from './transaction.js';
import {
  STATUS_ADDED,
  STATUS_DELETED,
  STATUS_EXISTING,
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
} from './snapshot-producer.js';

export interface RewriteManifestsOptions {
  specId?: number;
  /** Override commit.manifest.target-size-bytes. */
  targetSizeBytes?: number;
  dryRun?: boolean;
  nowMs?: () => number;
  maxAttempts?: number;
}

function partitionKey(e: RawManifestEntry): string {
  return rawPartitionKey(e.data_file);
}

async function readEntries(table: MaintainedTable, m: RawManifestFile): Promise<RawManifestEntry[]> {
  return readAvroContainer<RawManifestEntry>(await table.io.read(m.manifest_path), m.manifest_path).records;
}

/** Entries carried as EXISTING with everything a reader would have inherited made explicit. */
function carry(entries: RawManifestEntry[], m: RawManifestFile, v: number): RawManifestEntry[] {
  let nextRowId = v >= 3 && m.content === 0 ? (m.first_row_id ?? undefined) : undefined;
  const out: RawManifestEntry[] = [];
  for (const e of entries) {
    if (e.status === STATUS_DELETED) continue;
    const inherit = e.status === STATUS_ADDED || m.sequence_number === 0n;
    let df = e.data_file;
    if (nextRowId !== undefined && (df.first_row_id === null || df.first_row_id === undefined)) {
      df = { ...df, first_row_id: nextRowId };
      nextRowId += BigInt(df.record_count);
    }
    out.push({
      status: STATUS_EXISTING,
      snapshot_id: e.snapshot_id ?? m.added_snapshot_id,
      sequence_number: e.sequence_number ?? (inherit ? m.sequence_number : null),
      file_sequence_number: e.file_sequence_number ?? (inherit ? m.sequence_number : null),
      data_file: df,
    });
  }
  return out;
}

export async function rewriteManifests(
  table: MaintainedTable,
  opts: RewriteManifestsOptions = {},
): Promise<MaintenanceReport> {
  const report = newReport('rewrite-manifests', table.tableLocation, opts.dryRun ?? false);
  const now = opts.nowMs ?? Date.now;
  return commitTransaction(
    table.ops,
    table.io,
    { prepare: (base, _v, ctx) => prepareRewrite(table, base, opts, report, ctx, now) },
    {
      table: table.tableLocation, // non-numeric commit.retry.* values refused
      ...(opts.maxAttempts !== undefined ? { maxAttempts: opts.maxAttempts } : {}),
      onRetry: (attempt) => report.warnings.push(`attempt ${attempt} lost a commit race; retrying on the new metadata`),
      // our own manifests, but deletes are confined all the same (crafted write.metadata.path …)
      discard: async (written, base) => {
        const scope = icebergDeleteScope(rawTableLocations(base.metadata), (l) => table.io.map(l));
        await removeWithin(scope, written, (w) => table.io.remove(w));
      },
    },
  );
}

/** One attempt on `base`: the manifests of the chosen spec rewritten and a `replace` snapshot naming them. */
async function prepareRewrite(
  table: MaintainedTable,
  base: CommitBase,
  opts: RewriteManifestsOptions,
  report: MaintenanceReport,
  ctx: AttemptContext,
  now: () => number,
): Promise<PreparedCommit<MaintenanceReport>> {
  const nothing = { updates: [], requirements: [], timestampMs: 0, result: () => report };
  const meta = base.metadata;
  const md = parseMetadata(meta, base.location);
  const v = md.formatVersion;
  const props = md.properties;
  const currentId = currentSnapshotIdOf(meta);
  const current = currentId === undefined ? undefined : snapshotById(meta, currentId);
  if (!current) {
    report.details = { rewritten: 0, reason: 'table has no current snapshot' };
    return nothing;
  }
  const specId = opts.specId ?? md.defaultSpecId;
  const spec = md.specs.find((s) => s.specId === specId);
  if (!spec) throw new FloeError('InvalidArgument', `${table.tableLocation} has no partition spec ${specId}`);
  const targetSize = opts.targetSizeBytes ?? Number(props['commit.manifest.target-size-bytes'] ?? 8 * 1024 * 1024);

  const manifests = await readManifestList(table.io, String(current['manifest-list']));
  const chosen = manifests.filter((m) => m.content === 0 && m.partition_spec_id === specId);
  const kept = manifests.filter((m) => !chosen.includes(m));
  const entries: RawManifestEntry[] = [];
  let oldBytes = 0;
  let deletedDropped = 0;
  for (const m of chosen) {
    const raw = await readEntries(table, m);
    deletedDropped += raw.filter((e) => e.status === STATUS_DELETED).length;
    entries.push(...carry(raw, m, v));
    oldBytes += Number(m.manifest_length);
  }
  // cluster by partition, then by path for a deterministic layout
  entries.sort((a, b) => {
    const pa = partitionKey(a);
    const pb = partitionKey(b);
    return pa < pb
      ? -1
      : pa > pb
        ? 1
        : a.data_file.file_path < b.data_file.file_path
          ? -1
          : a.data_file.file_path > b.data_file.file_path
            ? 1
            : 0;
  });
  const perEntry = entries.length > 0 ? Math.max(1, oldBytes / Math.max(1, entries.length + deletedDropped)) : 1;
  const perManifest = Math.max(1, Math.floor(targetSize / perEntry));
  const groups: RawManifestEntry[][] = [];
  for (let i = 0; i < entries.length; i += perManifest) groups.push(entries.slice(i, i + perManifest));
  report.details = {
    specId,
    manifestsBefore: chosen.length,
    manifestsAfter: groups.length,
    entries: entries.length,
    deletedEntriesDropped: deletedDropped,
    targetSizeBytes: targetSize,
    keptManifests: kept.length,
  };
  if (chosen.length === 0 || (groups.length >= chosen.length && deletedDropped === 0)) {
    report.details.committed = false;
    report.details.reason = 'manifests are already as compact as the target size allows';
    return nothing;
  }
  if (report.dryRun) return nothing;

  const draft = draftSnapshot(meta, v, ctx.written);
  const header = manifestHeaderFor(meta, md, specId, base.location);
  const out: RawManifestFile[] = [];
  for (const group of groups) out.push(await writeDraftManifest(table.io, draft, header, 'data', group));
  const liveBefore = chosen.reduce((n, m) => n + m.added_files_count + m.existing_files_count, 0);
  const liveAfter = out.reduce((n, m) => n + m.added_files_count + m.existing_files_count, 0);
  if (liveBefore !== liveAfter) {
    throw new FloeError(
      'Internal',
      `rewrite-manifests: replaced manifests hold ${liveBefore} live files but the new ones ${liveAfter}`,
    );
  }
  const all = [...out, ...kept];
  const { firstRowId, addedRows } = assignRowLineage(draft, meta, all);
  const listPath = await writeDraftManifestList(table.io, draft, ctx.attempt, currentId, all, firstRowId);
  const parentSummary = (current.summary as Record<string, string> | undefined) ?? {};
  const summary: Record<string, string> = { operation: 'replace' };
  for (const [k, val] of Object.entries(parentSummary)) if (k.startsWith('total-')) summary[k] = val;
  Object.assign(summary, {
    'manifests-created': String(out.length),
    'manifests-kept': String(kept.length),
    'manifests-replaced': String(chosen.length),
    'entries-processed': String(entries.length + deletedDropped),
    'engine-name': 'floe',
    [COMMIT_ID_PROPERTY]: draft.commitUuid,
  });
  const facts = { parentSnapshotId: currentId, manifestList: listPath, summary, schemaId: md.currentSchemaId };
  return preparedSnapshot(meta, draft, { ...facts, firstRowId, addedRows }, now, (location) => {
    report.details.newMetadata = location;
    report.details.snapshotId = draft.snapshotId.toString();
    report.details.committed = true;
    return report;
  });
}
