/**
 * What every distributed-compaction test (BullMQ, Temporal) checks at the end of a run on the small-files
 * table: exactly one new snapshot, tagged with the run id, two data files, the same rows read by floe and by
 * PyIceberg, and the run's lease released.
 */
import { expect } from 'vitest';
import { LocalObjectStore } from '../../connectors/storage/index.js';
import { readTableLease } from '../../src/lease/lease.js';
import { RUN_ID_PROPERTY } from '../../src/distributed/seam.js';
import type { SmallTable } from '../../test/distributed/small-table.js';
import { canonicalRows, pyiceberg } from '../oracles/index.js';

export const tableLease = (t: SmallTable) =>
  readTableLease(new LocalObjectStore('/'), `${t.dir.slice(1)}/.floe/lease.json`);

export async function expectOneCommit(
  t: SmallTable,
  runId: string,
  snapshotsBefore: number,
  rowsBefore: string[],
  refRowsBefore: string[],
): Promise<void> {
  const shape = await t.shape();
  expect(shape.snapshots.length).toBe(snapshotsBefore + 1);
  expect(shape.snapshots.filter((s) => s.summary[RUN_ID_PROPERTY] === runId)).toHaveLength(1);
  expect(shape.dataFiles).toBe(2);
  expect(await t.rows()).toEqual(rowsBefore);
  expect(canonicalRows(await pyiceberg.read(t.dir))).toEqual(refRowsBefore);
  const lease = await tableLease(t);
  expect(lease?.runId).toBe(runId);
  expect(lease?.releasedAtMs).toBeDefined();
}
