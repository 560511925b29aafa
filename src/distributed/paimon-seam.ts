/**
 * The distributed seam for Paimon tables: the same three steps as for Iceberg (seam.ts dispatches here on
 * the plan's format), with compactPaimon doing the table work — one task per bucket it picks.
 *
 * - plan: compactPaimon's dry run on the latest snapshot; the plan (base snapshot, clock, task ids) goes to
 *   `<table>/.floe/runs/<runId>/plan.json`.
 * - rewrite: compactPaimon on the base snapshot with the plan's clock, limited to one task, writing files
 *   named `data-floe-run-<runId>-<attemptId>-<n>.parquet` and stopping before the commit (`deferCommit`);
 *   the step returns what the commit would add and remove, as JSON.
 * - commit: the outputs' changes in one COMPACT snapshot through the Paimon committer (rebase, conflict
 *   checks, retries) with commit user `floe-run-<runId>`. Snapshots keep their commit user, and Java Paimon
 *   never rewrites a snapshot, so a commit that finds a snapshot of that user after the base returns it and
 *   commits nothing. Afterwards the run's files that no snapshot references are deleted — only names of the
 *   run's own pattern.
 */
import { FloeError, isFloeError } from '../../util/errors.js';
import type { MaintenanceJobSpec } from '../orchestration/job-types.js';
import type { ProgressListener } from '../core/execution/events.js';
import {
  compactPaimon,
  type DeferredPaimonCommit,
  type PaimonCompactOptions,
} from '../orchestration/compact-paimon.js';
import { cancelledError, isCancelled } from '../orchestration/cancel.js';
import { paimonCompactOptions } from '../orchestration/compact-spec.js';
import { commitPaimonSnapshot } from '../../connectors/paimon/commit-compact.js';
import { isCommitStateUnknown } from '../../connectors/commit-state.js';
import { normaliseLocation, openPaimonTable, type PaimonTable } from '../../connectors/paimon/table.js';
import { latestSnapshotId, readSnapshot, snapshotPath } from '../../connectors/paimon/metadata.js';
import { FILE_KIND_ADD } from '../../connectors/paimon/manifest.js';
import type { FileIO } from '../../connectors/storage/file-io.js';
import { fileIOFromEnv } from '../../connectors/storage/env.js';
import { fromTaggedJson, toTaggedJson } from '../orchestration/content-file-json.js';
import { outputPrefix, runPattern } from '../orchestration/iceberg-steps.js';
import type { TableStats } from '../orchestration/compact-iceberg.js';
import type { CommitOutcome, GroupOutput, PlanRef } from './seam.js';
import { emptyCommitOutcome } from './commit-outcome.js';
import { FLOE_COMMIT_USER_PREFIX } from '../../connectors/paimon/commit-user.js';

/** The commit user of a run's snapshot: how a retried commit finds it. */
export const paimonRunUser = (runId: string) => `${FLOE_COMMIT_USER_PREFIX}run-${runId}`;

const planDir = (location: string, runId: string) => `${location.replace(/\/+$/, '')}/.floe/runs/${runId}`;
const text = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

function filesOf(spec: MaintenanceJobSpec): FileIO {
  return fileIOFromEnv(spec.access?.locationMap);
}

/** The compaction options of a job spec, as runMaintenanceJob passes them for a Paimon table. */
function optionsOf(spec: MaintenanceJobSpec, nowMs: number, fileIO: FileIO): PaimonCompactOptions {
  return {
    ...paimonCompactOptions(spec.compact ?? {}, { ...(spec.properties ? { properties: spec.properties } : {}), nowMs }),
    fileIO,
  };
}

const statsOf = (table: PaimonTable): TableStats => ({
  dataFiles: table.files.length,
  dataBytes: table.files.reduce((n, f) => n + Number(f.meta.fileSize), 0),
  deleteFiles: 0,
  deleteBytes: 0,
  records: table.files.reduce((n, f) => n + Number(f.meta.rowCount), 0),
});

async function readJson<T>(files: FileIO, location: string): Promise<T | undefined> {
  try {
    return JSON.parse(new TextDecoder().decode(await files.read(location))) as T;
  } catch (e) {
    if (isFloeError(e, 'NotFound')) return undefined;
    throw e;
  }
}

/** Plans a Paimon compaction run; idempotent by run id (a stored plan is returned as it is). */
export async function planPaimonCompaction(spec: MaintenanceJobSpec, runId: string, nowMs: number): Promise<PlanRef> {
  const files = filesOf(spec);
  try {
    const location = normaliseLocation(spec.table);
    const planLocation = `${planDir(location, runId)}/plan.json`;
    const existing = await readJson<{ ref: PlanRef }>(files, planLocation);
    if (existing) return existing.ref;
    const report = await compactPaimon(spec.table, { ...optionsOf(spec, nowMs, files), dryRun: true });
    if (report.baseSnapshotId === undefined)
      throw new FloeError('InvalidArgument', `table ${spec.table} has no snapshot: nothing to compact`, {
        context: { table: spec.table },
      });
    const ref: PlanRef = {
      version: 1,
      runId,
      spec,
      format: 'paimon',
      metadataLocation: snapshotPath(report.table, BigInt(report.baseSnapshotId)),
      baseSnapshotId: report.baseSnapshotId,
      plannedAtMs: nowMs,
      planLocation,
      taskIds: (report.tasks ?? []).map((t) => t.id),
      before: {
        dataFiles: report.before.files,
        dataBytes: report.before.bytes,
        deleteFiles: 0,
        deleteBytes: 0,
        records: report.before.records,
      },
    };
    const buckets = report.buckets.filter((b) => b.compact).map((b) => ({ bucket: b.bucket, files: b.filesBefore }));
    try {
      await files.createNew(planLocation, new TextEncoder().encode(text({ ref, buckets })));
    } catch (e) {
      // two planners of one run: the first plan stands
      if (!isFloeError(e, 'PreconditionFailed')) throw e;
      return (await readJson<{ ref: PlanRef }>(files, planLocation))!.ref;
    }
    return ref;
  } finally {
    files.destroy();
  }
}

/** One task (bucket) of a Paimon run: its files written under the run's names, not committed. */
export async function rewritePaimonGroup(
  ref: PlanRef,
  taskId: string,
  attemptId: string,
  opts: { onProgress?: ProgressListener; signal?: AbortSignal },
): Promise<GroupOutput> {
  if (!ref.taskIds.includes(taskId))
    throw new FloeError(
      'InvalidArgument',
      `run ${ref.runId} has no task "${taskId}" (tasks: ${ref.taskIds.join(', ') || 'none'})`,
    );
  if (isCancelled(opts.signal)) throw cancelledError(ref.spec.table, 0, opts.signal!.reason);
  const files = filesOf(ref.spec);
  try {
    const report = await compactPaimon(ref.spec.table, {
      ...optionsOf(ref.spec, ref.plannedAtMs, files),
      snapshotId: BigInt(ref.baseSnapshotId),
      onlyTasks: [taskId],
      fileId: outputPrefix(ref.runId, attemptId),
      deferCommit: true,
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const deferred = report.deferredCommit;
    if (!deferred || report.tasks?.length !== 1 || report.tasks[0]!.id !== taskId) {
      throw new FloeError(
        'Internal',
        `the plan of run ${ref.runId} could not be reproduced from ${ref.metadataLocation} (task ${taskId}); nothing was written`,
        { context: { table: ref.spec.table, file: ref.planLocation } },
      );
    }
    return {
      runId: ref.runId,
      taskId,
      attemptId,
      files: [],
      paimon: toTaggedJson(deferred),
      bytesRead: report.bytesRead,
      bytesWritten: report.bytesWritten,
      rowsIn: report.rowsIn,
      rowsOut: report.rowsOut,
    };
  } finally {
    files.destroy();
  }
}

/** The snapshot of this run after the base, if one was committed (its commit user names the run). */
async function runSnapshotOf(files: FileIO, location: string, ref: PlanRef): Promise<bigint | undefined> {
  const latest = await latestSnapshotId(files, location);
  const user = paimonRunUser(ref.runId);
  for (let id = latest ?? 0n; id > BigInt(ref.baseSnapshotId); id--) {
    try {
      if ((await readSnapshot(files, location, id)).commitUser === user) return id;
    } catch (e) {
      if (!isFloeError(e, 'NotFound')) throw e; // expired meanwhile
    }
  }
  return undefined;
}

/** The changes of several rewrite steps as one commit: every DELETE entry first, then every ADD. */
function mergedChanges(outputs: readonly GroupOutput[]): DeferredPaimonCommit {
  const parts = outputs.map((o) => fromTaggedJson(o.paimon) as DeferredPaimonCommit);
  const changes = parts.flatMap((p) => p.changes);
  const changelog = parts.flatMap((p) => p.changelog ?? []);
  const dvs = parts.flatMap((p) => (p.deletionVectors ? [p.deletionVectors] : []));
  return {
    changes: [...changes.filter((c) => c.kind !== FILE_KIND_ADD), ...changes.filter((c) => c.kind === FILE_KIND_ADD)],
    ...(changelog.length ? { changelog } : {}),
    ...(dvs.length
      ? { deletionVectors: { buckets: dvs.flatMap((d) => d.buckets), added: dvs.flatMap((d) => d.added) } }
      : {}),
  };
}

/** Commits a Paimon run's outputs in one COMPACT snapshot; idempotent by run id. */
export async function commitPaimonCompaction(
  ref: PlanRef,
  outputs: readonly GroupOutput[],
  opts: { partialProgress?: boolean; onProgress?: ProgressListener },
): Promise<CommitOutcome> {
  const files = filesOf(ref.spec);
  try {
    const location = normaliseLocation(ref.spec.table);
    const base = emptyCommitOutcome(ref);
    const found = async (): Promise<CommitOutcome | undefined> => {
      const sid = await runSnapshotOf(files, location, ref);
      if (sid === undefined) return undefined;
      const removedFiles = await removeUncommitted(ref, files, location);
      const after = statsOf(await openPaimonTable(location, { io: files }));
      return {
        ...base,
        after,
        snapshotId: sid.toString(),
        alreadyCommitted: true,
        committedTasks: [...ref.taskIds],
        removedFiles,
      };
    };
    const earlier = await found();
    if (earlier) return earlier;
    for (const o of outputs)
      if (o.runId !== ref.runId)
        throw new FloeError(
          'InvalidArgument',
          `output of task ${o.taskId} belongs to run ${o.runId}, not ${ref.runId}`,
        );
    const byTask = new Map(outputs.map((o) => [o.taskId, o]));
    const missing = ref.taskIds.filter((t) => !byTask.has(t));
    if (missing.length > 0 && !opts.partialProgress) {
      throw new FloeError(
        'InvalidArgument',
        `run ${ref.runId}: no output for task(s) ${missing.join(', ')}; nothing committed (pass partialProgress to commit the rest)`,
        { context: { table: ref.spec.table, missing } },
      );
    }
    const chosen = ref.taskIds.flatMap((t) => (byTask.has(t) ? [byTask.get(t)!] : []));
    if (chosen.length === 0) return { ...base, removedFiles: await removeUncommitted(ref, files, location) };
    const table = await openPaimonTable(location, { io: files, snapshotId: BigInt(ref.baseSnapshotId) });
    // the overrides the rewrite step planned with (compactPaimon layers them the same way)
    table.schema = { ...table.schema, options: { ...table.schema.options, ...(ref.spec.properties ?? {}) } };
    let res;
    try {
      res = await commitPaimonSnapshot({
        table,
        storage: files,
        ...mergedChanges(chosen),
        commitUser: paimonRunUser(ref.runId),
      });
    } catch (e) {
      // a second commit job of this run lost the race: the first one's snapshot stands
      if (!isCommitStateUnknown(e)) {
        const other = await found().catch(() => undefined);
        if (other) return other;
        await removeUncommitted(ref, files, location);
      }
      throw e;
    }
    opts.onProgress?.({
      type: 'commit',
      snapshotId: res.snapshotId.toString(),
      attempt: res.attempts,
      groups: chosen.length,
    });
    const after = statsOf(await openPaimonTable(location, { io: files }));
    return {
      ...base,
      snapshotId: res.snapshotId.toString(),
      committedTasks: chosen.map((o) => o.taskId),
      removedFiles: await removeUncommitted(ref, files, location),
      after,
    };
  } finally {
    files.destroy();
  }
}

/**
 * Deletes this run's files (names of the run's pattern, anywhere under the table) that neither the current
 * snapshot nor the run's own snapshot references, and the run's directory under `.floe/runs/`.
 */
async function removeUncommitted(ref: PlanRef, files: FileIO, location: string): Promise<string[]> {
  const pattern = runPattern(ref.runId);
  const referenced = new Set<string>();
  const current = await openPaimonTable(location, { io: files });
  for (const f of current.files) referenced.add(f.meta.fileName);
  const runSnap = await runSnapshotOf(files, location, ref);
  if (runSnap !== undefined && runSnap !== current.snapshot?.id) {
    const at = await openPaimonTable(location, { io: files, snapshotId: runSnap });
    for (const f of at.files) referenced.add(f.meta.fileName);
  }
  const { store, key } = files.resolve(location);
  const prefix = key === '' ? '' : `${key}/`;
  const doomed: string[] = [];
  const run: string[] = [];
  for await (const e of store.list(prefix)) {
    const rel = e.key.slice(prefix.length);
    if (rel.startsWith(`.floe/runs/${ref.runId}/`)) {
      run.push(e.key);
      continue;
    }
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    // a data file of this run: `<data-file.prefix>floe-run-<runId>-<attemptId>-<n>.<ext>`
    if (rel.startsWith('.floe/') || !name.includes(pattern)) continue;
    if (!referenced.has(name)) doomed.push(e.key);
  }
  for (const keys of [doomed, run]) {
    if (keys.length === 0) continue;
    const r = await store.deleteMany(keys);
    if (r.failed.length > 0) throw r.failed[0]!.error;
  }
  return doomed.map((k) => store.describe(k));
}

/** Gives a Paimon run up: removes its unreferenced files and its plan. */
export async function abandonPaimonCompaction(ref: PlanRef): Promise<string[]> {
  const files = filesOf(ref.spec);
  try {
    return await removeUncommitted(ref, files, normaliseLocation(ref.spec.table));
  } finally {
    files.destroy();
  }
}

/** Removes the files one rewrite attempt wrote (its output finished after the run was given up). */
export async function discardPaimonGroupOutput(ref: PlanRef, output: GroupOutput): Promise<void> {
  const files = filesOf(ref.spec);
  try {
    const location = normaliseLocation(ref.spec.table);
    const attempt = `${outputPrefix(ref.runId, output.attemptId)}-`;
    const changes = (fromTaggedJson(output.paimon) as DeferredPaimonCommit).changes;
    const names = new Set(
      changes.filter((c) => c.kind === FILE_KIND_ADD && c.file.fileName.includes(attempt)).map((c) => c.file.fileName),
    );
    if (names.size === 0) return;
    const { store, key } = files.resolve(location);
    const prefix = key === '' ? '' : `${key}/`;
    const doomed: string[] = [];
    for await (const e of store.list(prefix))
      if (names.has(e.key.slice(e.key.lastIndexOf('/') + 1))) doomed.push(e.key);
    if (doomed.length > 0) await store.deleteMany(doomed);
  } finally {
    files.destroy();
  }
}
