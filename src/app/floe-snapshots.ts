/**
 * The snapshots floe committed to a table since a moment, whatever the format, as `floe serve` compares them
 * with its run records at start (src/shells/service/reconcile-runs.ts, issue 29.2): Iceberg snapshots carrying
 * `floe.commit-id` in their summary, Paimon snapshots whose `commitUser` is floe's (connectors/paimon/commit-user.ts).
 */
import { COMMIT_ID_PROPERTY } from '../../connectors/iceberg/commit-id.js';
import { isFloeCommitUser } from '../../connectors/paimon/commit-user.js';
import { fileIOFromEnv } from '../../connectors/storage/env.js';
import { isPaimonCatalogSpec, withPaimonCatalogTable } from './paimon-catalog.js';
import { openTableForRead, type TableReadOptions } from './open-table.js';
import { tableFormatOf } from './table-format.js';

export interface FloeSnapshot {
  format: 'iceberg' | 'paimon';
  snapshotId: string;
  timestampMs: number;
  /** What marks it as floe's, in words: `floe.commit-id <id>` or `commitUser <user>`. */
  identity: string;
  /** Iceberg: the snapshot summary; Paimon: commitKind and the record counts the snapshot states. */
  summary: Record<string, string>;
}

/** floe's snapshots of `ref` committed at or after `sinceMs`, oldest first. */
export async function floeSnapshotsSince(
  ref: string,
  access: TableReadOptions,
  sinceMs: number,
  format?: 'iceberg' | 'paimon',
): Promise<FloeSnapshot[]> {
  const f = format ?? (await tableFormatOf(ref, access));
  return f === 'paimon' ? paimonFloeSnapshots(ref, access, sinceMs) : icebergFloeSnapshots(ref, access, sinceMs);
}

async function icebergFloeSnapshots(ref: string, access: TableReadOptions, sinceMs: number): Promise<FloeSnapshot[]> {
  const { snapshots } = (await openTableForRead(ref, access)).metadata;
  return snapshots
    .filter((s) => s.summary[COMMIT_ID_PROPERTY] !== undefined && s.timestampMs >= sinceMs)
    .map((s) => ({
      format: 'iceberg',
      snapshotId: s.snapshotId.toString(),
      timestampMs: s.timestampMs,
      identity: `${COMMIT_ID_PROPERTY} ${s.summary[COMMIT_ID_PROPERTY]}`,
      summary: s.summary,
    }));
}

async function paimonFloeSnapshots(ref: string, access: TableReadOptions, sinceMs: number): Promise<FloeSnapshot[]> {
  if (isPaimonCatalogSpec(access.catalog)) {
    const { catalog: _c, ...rest } = access;
    return withPaimonCatalogTable(ref, { ...access, catalog: access.catalog! }, (t) =>
      paimonFloeSnapshots(t.location, rest, sinceMs),
    );
  }
  const { listSnapshotIds, readSnapshot } = await import('../../connectors/paimon/metadata.js');
  const io = fileIOFromEnv(access.locationMap);
  try {
    const out: FloeSnapshot[] = [];
    const ids = await listSnapshotIds(io, ref);
    // newest first, stopping at the first snapshot older than `sinceMs`: a long history is not read whole
    for (let i = ids.length - 1; i >= 0; i--) {
      const s = await readSnapshot(io, ref, ids[i]!);
      if (s.timeMillis < sinceMs) break;
      if (!isFloeCommitUser(s.commitUser)) continue;
      const summary: Record<string, string> = { commitKind: s.commitKind };
      if (s.totalRecordCount !== undefined) summary.totalRecordCount = String(s.totalRecordCount);
      if (s.deltaRecordCount !== undefined) summary.deltaRecordCount = String(s.deltaRecordCount);
      out.push({
        format: 'paimon',
        snapshotId: s.id.toString(),
        timestampMs: s.timeMillis,
        identity: `commitUser ${s.commitUser}`,
        summary,
      });
    }
    return out.reverse();
  } finally {
    io.destroy();
  }
}
