/**
 * A Java-Paimon-written primary-key table for the distributed-compaction tests (BullMQ, Temporal): two
 * partitions × two buckets of small files (write-only, so Java left them), and what every such test checks
 * at the end — one COMPACT snapshot by the run's commit user, one file per bucket, the same rows read by
 * Java Paimon, no stray file of the run, the run's lease released.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { paimonRunUser } from '../../src/distributed/paimon-seam.js';
import { readTableLease } from '../../src/lease/lease.js';
import { LocalObjectStore } from '../../connectors/storage/index.js';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import { listSnapshotIds, readSnapshot } from '../../connectors/paimon/metadata.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { canonicalRows, javaPaimon, type PaimonChange } from '../oracles/index.js';

const temps: string[] = [];
export function removeJavaPaimonTables(): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** 12 rows of commit `commit`, over the two partitions. */
export const rowsOf = (commit: number): PaimonChange[] =>
  Array.from({ length: 12 }, (_, i) => ({
    row: { id: commit * 100 + i, dt: i % 2 ? '2024-01-01' : '2024-01-02', v: `c${commit} r${i}` },
  }));

/** The table directory of a new Java-written table `db.events` (5 commits, 60 rows). */
export async function javaPaimonTable(): Promise<string> {
  const warehouse = mkdtempSync(path.join(os.tmpdir(), 'floe-dist-paimon-'));
  temps.push(warehouse);
  const r = await javaPaimon.write(warehouse, {
    database: 'db',
    table: 'events',
    fields: [
      { name: 'id', type: 'long' },
      { name: 'dt', type: 'string' },
      { name: 'v', type: 'string' },
    ],
    primaryKeys: ['dt', 'id'],
    partitionKeys: ['dt'],
    options: { bucket: '2', 'write-only': 'true' },
    commits: [0, 1, 2, 3, 4].map(rowsOf),
  });
  return r.tablePath.startsWith('file:') ? fileURLToPath(r.tablePath) : r.tablePath;
}

export const warehouseOf = (table: string) => path.dirname(path.dirname(table));

export const javaRows = async (table: string) =>
  canonicalRows(await javaPaimon.read(warehouseOf(table), { database: 'db', table: 'events' }));

export async function snapshotsOf(table: string) {
  const io = new FileIO();
  try {
    const ids = await listSnapshotIds(io, table);
    return await Promise.all(ids.map((id) => readSnapshot(io, table, id)));
  } finally {
    io.destroy();
  }
}

export async function expectOnePaimonCompact(table: string, runId: string, before: number, refRows: string[]) {
  const snaps = await snapshotsOf(table);
  expect(snaps.length).toBe(before + 1);
  expect(snaps.filter((s) => s.commitUser === paimonRunUser(runId))).toHaveLength(1);
  expect(snaps.at(-1)!.commitKind).toBe('COMPACT');
  // full compaction: one file per bucket
  const live = new Set((await openPaimonTable(table)).files.map((f) => f.meta.fileName));
  expect(live.size).toBe(4);
  expect(await javaRows(table)).toEqual(refRows);
  // no file of the run is left that the table does not reference
  const runFiles = readdirSync(table, { recursive: true })
    .map(String)
    .filter((p) => path.basename(p).includes(`floe-run-${runId}-`));
  expect(runFiles.length).toBe(4);
  for (const p of runFiles) expect(live.has(path.basename(p))).toBe(true);
  const lease = await readTableLease(new LocalObjectStore('/'), `${table.slice(1)}/.floe/lease.json`);
  expect(lease?.runId).toBe(runId);
  expect(lease?.releasedAtMs).toBeDefined();
}
