/**
 * The Iceberg history the maintenance interop tests run on, written by Java Iceberg (plus one floe
 * compaction). Labels name its snapshots:
 *   main:  s1 ─ s2 ─ s3(eq delete) ─ s4(pos delete) ─ s5 ─ s6(floe compaction) ─ s7 ┊ s8 ─ s9(eq delete)
 *   tags:  tExpired@s1 (max-ref-age 1 ms), tKeep@s2 (no max age), tYoung@s5 (max-ref-age 1 day)
 *   stale: branch from s3 (max-ref-age 1 ms) + b1
 *   audit: branch from s4 (min-snapshots-to-keep 2) + a1 ─ a2 ┊ a3
 *                                                              ┊ = the cutoff passed to --older-than
 */
import { floeCompactCli } from '../iceberg-compaction/helpers.js';
import { type IcebergOp, type IcebergWriteResult, type InputRow, javaIceberg } from '../oracles/index.js';
import { sleep } from './helpers.js';

export const DAYS = ['2024-01-01', '2024-01-02', '2024-01-03'];
const row = (id: number): InputRow => ({ id: String(id), dt: DAYS[id % 3]!, v: `v${id}` });
export const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => row(from + i));
export const key = (id: number): InputRow => ({ id: String(id), dt: DAYS[id % 3]! });

/** Oracle ops plus the branch/tag ops this tier added to the Java oracle. */
type RefOp =
  | {
      op: 'create-branch' | 'create-tag';
      name: string;
      snapshotId?: string;
      maxRefAgeMs?: number;
      minSnapshotsToKeep?: number;
      maxSnapshotAgeMs?: number;
    }
  | { op: 'append'; branch: string; rows: InputRow[] };
const ops = (list: (IcebergOp | RefOp)[]) => list as IcebergOp[];

export const DAY = 86_400_000;

export interface History {
  labels: Record<string, string>;
  /** Between the old snapshots (before) and s8, s9, a3 (after). */
  cutoff: number;
}

/** Writes the history at `dir` (must not exist). */
export async function buildHistory(dir: string, formatVersion: 2 | 3): Promise<History> {
  const labels: Record<string, string> = {};
  const label = (r: IcebergWriteResult, names: (string | null)[]) =>
    names.forEach((n, i) => {
      if (n) labels[n] = r.ops[i]!.snapshotId!;
    });

  // ---- old history (all before the cutoff)
  const w1 = await javaIceberg.write(dir, {
    formatVersion,
    schema: [
      { name: 'id', type: 'long', required: true },
      { name: 'dt', type: 'date', required: true },
      { name: 'v', type: 'string' },
    ],
    partitionSpec: [{ source: 'dt' }],
    identifierFields: ['id', 'dt'],
    ops: [
      { op: 'append', rows: rows(1, 8) },
      { op: 'append', rows: rows(9, 8) },
      { op: 'delete-eq', rows: [key(3), key(10)] },
      { op: 'delete-pos', where: [{ id: '5' }, { id: '12' }] },
    ],
  });
  label(w1, ['s1', 's2', 's3', 's4']);
  const w2 = await javaIceberg.ops(
    dir,
    ops([
      { op: 'create-tag', name: 'tExpired', snapshotId: labels.s1!, maxRefAgeMs: 1 },
      { op: 'create-tag', name: 'tKeep', snapshotId: labels.s2! },
      { op: 'create-branch', name: 'stale', snapshotId: labels.s3!, maxRefAgeMs: 1 },
      { op: 'append', branch: 'stale', rows: rows(100, 3) },
      { op: 'create-branch', name: 'audit', snapshotId: labels.s4!, minSnapshotsToKeep: 2 },
      { op: 'append', branch: 'audit', rows: rows(200, 4) },
      { op: 'append', branch: 'audit', rows: rows(204, 2) },
      { op: 'append', rows: rows(17, 8) },
      { op: 'create-tag', name: 'tYoung', maxRefAgeMs: DAY },
    ]),
  );
  label(w2, [null, null, null, 'b1', null, 'a1', 'a2', 's5', null]);

  const { report, exitCode } = await floeCompactCli([
    dir,
    '--strategy',
    'binpack',
    '-o',
    'min-input-files=2',
    '-o',
    'delete-file-threshold=1',
  ]);
  if (exitCode !== 0 || report.snapshots.length !== 1)
    throw new Error(`floe compact did not commit one snapshot: ${JSON.stringify(report).slice(0, 2000)}`);
  labels.s6 = report.snapshots[0]!;
  label(await javaIceberg.append(dir, rows(25, 4)), ['s7']);

  // ---- the cutoff, strictly between the old and the new snapshots
  await sleep(30);
  const cutoff = Date.now();
  await sleep(30);
  const w3 = await javaIceberg.ops(
    dir,
    ops([
      { op: 'append', rows: rows(29, 4) },
      { op: 'delete-eq', rows: [key(17)] },
      { op: 'append', branch: 'audit', rows: rows(206, 2) },
    ]),
  );
  label(w3, ['s8', 's9', 'a3']);

  return { labels, cutoff };
}
