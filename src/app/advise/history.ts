/**
 * A table's own history as a simulator commit stream: every writer snapshot on the current branch's lineage
 * (compactions — `replace` snapshots — are left out: the simulated policy does its own) becomes one commit at
 * its real time offset, with the files, bytes and deletes its summary says it added.
 *
 * What a summary does not say is modelled, and the report's `replay.notes` say so:
 * - `added-files-size` covers data and delete files together: position deletes get the simulator's own size
 *   model (8 bytes a row + 1 KiB a file), the rest is split between data and equality deletes by records, a
 *   delete key weighing `keyColumnReadFraction` (0.1) of a data row;
 * - which partitions a commit touched: its files are spread over `changed-partition-count` labels (else over
 *   the table's live partitions), rotating from commit to commit;
 * - a position delete without data files in the same commit targets the most recent earlier data files;
 * - data files a writer removed (copy-on-write overwrite/delete) are not modelled (the simulator only adds).
 * The files live before the first replayed snapshot are its base. A history longer than `maxDays` is cut to
 * its newest `maxDays`; one shorter than `minMinutes` is replayed over `minMinutes` (the rest is quiet).
 */
import { FloeError } from '../../../util/errors.js';
import type { Snapshot } from '../../../model/index.js';
import {
  DEFAULT_SIZE_MODEL,
  normalizeStream,
  type CommitSpec,
  type CommitStream,
  type DataFileSpec,
  type EqualityDeleteSpec,
} from '../../core/simulate/index.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

export interface ReplayInfo {
  /** Writer snapshots replayed (one simulated commit each). */
  snapshots: number;
  /** Snapshots left out: compactions (`replace`) and those older than the cut. */
  skipped: number;
  fromMs: number;
  toMs: number;
  /** The simulated period in minutes (≥ minMinutes). */
  periodMinutes: number;
  /** Data files at the start of the replay. */
  baseFiles: number;
  partitions: number;
  notes: string[];
}

export interface HistoryOptions {
  /** Live partitions of the table (the spread when a summary lacks changed-partition-count); 0 = unpartitioned. */
  partitions: number;
  /** Replay at most this many days (newest first); default 1. */
  maxDays?: number;
  /** Replay at least this many minutes; default 60. */
  minMinutes?: number;
}

const int = (summary: Record<string, string>, key: string): number => {
  const v = Number(summary[key] ?? 0);
  return Number.isFinite(v) && v > 0 ? Math.round(v) : 0;
};

/** The current branch's snapshots, oldest first (parent chain from the current snapshot). */
function lineage(snapshots: readonly Snapshot[], currentId: bigint | undefined): Snapshot[] {
  const byId = new Map(snapshots.map((s) => [s.snapshotId, s]));
  const out: Snapshot[] = [];
  let s = currentId === undefined ? undefined : byId.get(currentId);
  while (s && out.length <= snapshots.length) {
    out.push(s);
    s = s.parentSnapshotId === undefined ? undefined : byId.get(s.parentSnapshotId);
  }
  return out.reverse();
}

/** `count` files sharing `bytes` and `records`, spread round-robin over partition labels from `offset`. */
function spread<T extends { partition?: string | null }>(
  count: number,
  bytes: number,
  records: number,
  labels: number,
  offset: number,
  make: (sizeBytes: number, records: number) => T,
): T[] {
  const out: T[] = [];
  for (let i = 0; i < count; i++) {
    const f = make(Math.max(1, Math.round(bytes / count)), Math.max(1, Math.round(records / count)));
    if (labels > 0) f.partition = `p${(offset + i) % labels}`;
    out.push(f);
  }
  return out;
}

export function historyStream(
  name: string,
  snapshots: readonly Snapshot[],
  currentId: bigint | undefined,
  options: HistoryOptions,
): { stream: CommitStream; replay: ReplayInfo } {
  const all = lineage(snapshots, currentId);
  if (all.length === 0)
    throw new FloeError('NotFound', `advise ${name}: the table has no snapshots, so there is no history to replay`, {
      context: { table: name },
    });
  const maxDays = options.maxDays ?? 1;
  const minMinutes = options.minMinutes ?? 60;
  const newest = all[all.length - 1]!.timestampMs;
  const cut = newest - maxDays * DAY_MS;
  const inWindow = all.filter((s) => s.timestampMs >= cut);
  const writers = inWindow.filter((s) => s.operation !== 'replace');
  const notes: string[] = [];
  if (inWindow.length < all.length) notes.push(`history cut to the newest ${maxDays} days`);
  if (writers.length === 0)
    throw new FloeError(
      'NotFound',
      `advise ${name}: no writer snapshots to replay (${all.length} snapshot(s), all compactions)`,
      { context: { table: name } },
    );

  const t0 = writers[0]!.timestampMs;
  const spanMs = newest - t0;
  const periodMinutes = Math.max(minMinutes, Math.ceil((spanMs + 1) / MINUTE_MS) + 1);
  if (spanMs < minMinutes * MINUTE_MS)
    notes.push(`history spans ${Math.round(spanMs / 1000)} s: replayed over ${minMinutes} min, the rest quiet`);
  const labels = options.partitions;
  const keyWeight = DEFAULT_SIZE_MODEL.keyColumnReadFraction;

  // The base: what was live before the first replayed snapshot (its totals minus what it added).
  const first = writers[0]!.summary;
  const baseCount = Math.max(0, int(first, 'total-data-files') - int(first, 'added-data-files'));
  const baseBytes = Math.max(0, int(first, 'total-files-size') - int(first, 'added-files-size'));
  const baseRecords = Math.max(0, int(first, 'total-records') - int(first, 'added-records'));
  let nextId = 0;
  const withId = (f: DataFileSpec): DataFileSpec => ({ ...f, id: `f${nextId++}` });
  const base = spread(baseCount, baseBytes, Math.max(baseCount, baseRecords), labels, 0, (sizeBytes, records) =>
    withId({ sizeBytes, records }),
  );

  let recent: string[] = base.map((f) => f.id!);
  let removedFiles = 0;
  let guessedPartitions = 0;
  const commits: CommitSpec[] = writers.map((s, n) => {
    const m = s.summary;
    const dataFiles = int(m, 'added-data-files');
    const dataRecords = int(m, 'added-records');
    const posFiles = int(m, 'added-position-delete-files') + int(m, 'added-dvs');
    const posRecords = int(m, 'added-position-deletes');
    const deleteFiles = int(m, 'added-delete-files');
    // a summary that names delete files but not their kind: count them as equality deletes
    const eqFiles = int(m, 'added-equality-delete-files') || Math.max(0, deleteFiles - posFiles);
    const eqRecords = int(m, 'added-equality-deletes');
    removedFiles += int(m, 'deleted-data-files');
    const size = int(m, 'added-files-size');
    const posBytes = posFiles
      ? Math.min(
          size / 2,
          posRecords * DEFAULT_SIZE_MODEL.positionDeleteBytesPerRow +
            posFiles * DEFAULT_SIZE_MODEL.positionDeleteFileOverheadBytes,
        )
      : 0;
    const rest = size - posBytes;
    const dataUnits = dataFiles ? Math.max(1, dataRecords) : 0;
    const eqUnits = eqFiles ? Math.max(1, eqRecords) * keyWeight : 0;
    const dataBytes = dataUnits + eqUnits > 0 ? (rest * dataUnits) / (dataUnits + eqUnits) : 0;
    const eqBytes = rest - dataBytes;
    const touched = int(m, 'changed-partition-count');
    if (labels > 0 && touched === 0) guessedPartitions++;
    const spreadOver = labels === 0 ? 0 : labels;
    const offset = n * Math.max(1, Math.min(touched || dataFiles || 1, spreadOver || 1));

    const data = spread(
      dataFiles,
      dataBytes,
      Math.max(dataFiles, dataRecords),
      spreadOver,
      offset,
      (sizeBytes, records) => withId({ sizeBytes, records }),
    );
    const equalityDeletes = spread<EqualityDeleteSpec>(
      eqFiles,
      eqBytes,
      Math.max(eqFiles, eqRecords),
      spreadOver,
      offset,
      (sizeBytes, records) => ({
        sizeBytes,
        records,
      }),
    );
    const positionDeletes = Array.from({ length: posFiles }, (_, i) => {
      const records = Math.max(1, Math.round(posRecords / posFiles));
      const sizeBytes = Math.max(1, Math.round(posBytes / posFiles));
      if (data.length > 0) return { sizeBytes, records, target: i % data.length };
      const target = recent.length > 0 ? recent[recent.length - 1 - (i % recent.length)] : undefined;
      return target === undefined ? undefined : { sizeBytes, records, target };
    }).filter((d) => d !== undefined);
    if (data.length > 0) recent = data.map((f) => f.id!);
    return { atMs: s.timestampMs - t0, data, equalityDeletes, positionDeletes };
  });
  if (removedFiles > 0)
    notes.push(`${removedFiles} data file(s) removed by writers are not modelled (the replay only adds)`);
  if (guessedPartitions > 0)
    notes.push(
      `${guessedPartitions} snapshot(s) without changed-partition-count: files spread over ${labels} partitions`,
    );

  const stream = normalizeStream(
    { name, description: `history of ${name}`, durationMinutes: periodMinutes, base, commits },
    `history of ${name}`,
  );
  return {
    stream,
    replay: {
      snapshots: writers.length,
      skipped: all.length - writers.length,
      fromMs: t0,
      toMs: newest,
      periodMinutes,
      baseFiles: base.length,
      partitions: labels,
      notes,
    },
  };
}
