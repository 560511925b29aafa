/**
 * What writers other than floe are doing to a table, read from its snapshots: whether one committed lately
 * (a hot table commits as it goes, `partialProgress: 'hot'`) and which partitions they wrote to last (left
 * alone with `leaveNewest`).
 */
import { partitionKey, type TableModel } from '../../model/index.js';

/** The newest partitions to leave alone: written by one of the last `commits` writer snapshots, or within `withinMs`. */
export interface LeaveNewest {
  commits?: number;
  withinMs?: number;
}

/** A table whose writers (not floe) committed within this window counts as hot (`partialProgress: 'hot'`). */
export const HOT_TABLE_WINDOW_MS = 60 * 60_000;

/** A snapshot a writer committed: anything but floe's own maintenance (`replace` commits by floe). */
function isWriterSnapshot(s: TableModel['snapshots'][number]): boolean {
  return !(s.summary['engine-name'] === 'floe' && s.operation === 'replace');
}

/** Whether a writer (not floe's maintenance) committed a snapshot still in the table within `windowMs` of `now`. */
export function hasRecentWriterCommits(model: TableModel, now: number, windowMs = HOT_TABLE_WINDOW_MS): boolean {
  return model.snapshots.some((s) => isWriterSnapshot(s) && s.timestampMs >= now - windowMs);
}

/**
 * Partitions (partitionKey) that writers other than floe added data files to in their last `commits`
 * snapshots or within `withinMs` of `now`: compacting them would race the writer for no lasting gain.
 */
export function newestPartitions(model: TableModel, now: number, leave: LeaveNewest): Set<string> {
  const writers = model.snapshots.filter(isWriterSnapshot).sort((a, b) => b.timestampMs - a.timestampMs);
  const recent = new Set<bigint>();
  writers.slice(0, Math.max(0, leave.commits ?? 0)).forEach((s) => recent.add(s.snapshotId));
  if (leave.withinMs !== undefined)
    for (const s of writers) if (s.timestampMs >= now - leave.withinMs) recent.add(s.snapshotId);
  const keys = new Set<string>();
  for (const f of model.dataFiles)
    if (f.snapshotId !== undefined && recent.has(f.snapshotId)) keys.add(partitionKey(f.specId, f.partition));
  return keys;
}
