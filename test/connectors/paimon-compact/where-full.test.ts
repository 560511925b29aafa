/**
 * Issue 13.1: `--where` (partition filter) on Paimon compaction selects whole partitions, and `--full` on an
 * append table of two small files compacts them into one. Runs on the shared Java-written fixtures.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openPaimonTable } from '../../../connectors/paimon/index.js';
import { compactPaimon, paimonPartitionLabeler, renderPaimonPlan } from '../../../src/orchestration/compact-paimon.js';
import { isFloeError } from '../../../util/errors.js';
import { cleanup, copyFixture, fixtures, hasFixtures, rowsOf } from './helpers.js';

afterEach(cleanup);

if (!hasFixtures) throw new Error(`the shared Paimon fixtures are missing at ${fixtures}; these tests need them`);

/** file names per partition (JSON of the partition tuple) */
async function filesByPartition(t: string): Promise<Map<string, string[]>> {
  const m = new Map<string, string[]>();
  for (const f of (await openPaimonTable(t)).files) {
    const k = JSON.stringify(f.partition);
    m.set(k, [...(m.get(k) ?? []), f.meta.fileName].sort());
  }
  return m;
}

describe('floe compact <paimon> --where', () => {
  it('--full --where "f1 = 20" leaves partition f1=10 alone (it has work a full compaction would do)', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    const before = await filesByPartition(t);
    const rows = await rowsOf(t);
    const r = await compactPaimon(t, { full: true, where: 'f1 = 20' });
    expect(r.where).toBe('f1 = 20');
    // partition 20 holds one run already: nothing to do; partition 10 is not selected
    expect(r.snapshotId).toBeUndefined();
    expect(await filesByPartition(t)).toEqual(before);
    const skipped = r.buckets.filter((b) => JSON.stringify(b.partition) === '[10]');
    expect(skipped.length).toBeGreaterThan(0);
    for (const b of skipped) {
      expect(b.compact).toBe(false);
      expect(b.decision[0]).toMatchObject({ gate: 'where', outcome: 'skip' });
    }
    expect(renderPaimonPlan(r, false)).toMatch(/partition f1=10 bucket \d: \d+ file\(s\) → not selected by --where/);
    expect(await rowsOf(t)).toEqual(rows);
  });

  it('--full --where "f1 IN (10, 30)" compacts only the buckets of partition 10; rows unchanged', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    const before = await filesByPartition(t);
    const rows = await rowsOf(t);
    const r = await compactPaimon(t, { full: true, where: 'f1 IN (10, 30)' });
    expect(r.snapshotId).toBeDefined();
    const after = await filesByPartition(t);
    expect(after.get('[20]')).toEqual(before.get('[20]'));
    expect(after.get('[10]')).not.toEqual(before.get('[10]'));
    expect(r.buckets.filter((b) => b.compact).every((b) => JSON.stringify(b.partition) === '[10]')).toBe(true);
    expect(await rowsOf(t)).toEqual(rows);
  });

  it('refuses a predicate on a non-partition column, naming the partition keys, and writes nothing', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    const id = (await openPaimonTable(t)).snapshot!.id;
    const err = await compactPaimon(t, { full: true, where: "f0 = 'Alice'" }).catch((e: unknown) => e);
    expect(isFloeError(err) && err.kind === 'InvalidArgument').toBe(true);
    expect(String((err as Error).message)).toMatch(/column f0 is not a partition column .*partition keys: f1/);
    expect((await openPaimonTable(t)).snapshot!.id).toBe(id);
  });

  it('a syntax error in --where is refused', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    await expect(compactPaimon(t, { where: 'f1 = ' })).rejects.toThrow(/expected a literal/);
  });
});

describe('floe compact <paimon append table> --full', () => {
  it('two small files per partition become one', async () => {
    const t = copyFixture('append_table_with_alter_table');
    const rows = await rowsOf(t);
    const before = await filesByPartition(t);
    expect([...before.values()].map((v) => v.length)).toEqual([2, 2]);
    const r = await compactPaimon(t, { full: true });
    expect(r.snapshotId).toBeDefined();
    const after = await filesByPartition(t);
    expect([...after.values()].map((v) => v.length)).toEqual([1, 1]);
    expect(await rowsOf(t)).toEqual(rows);
    // and a second --full has nothing left to do
    expect((await compactPaimon(t, { full: true })).snapshotId).toBeUndefined();
  });
});

describe('Paimon partition labels (issue 13.8)', () => {
  it('DATE and TIMESTAMP partition values print as dates and times', () => {
    const label = paimonPartitionLabeler([
      { id: 0, name: 'dt', type: { root: 'DATE', nullable: true } },
      { id: 1, name: 'ts', type: { root: 'TIMESTAMP', nullable: true, precision: 6 } },
      { id: 2, name: 'region', type: { root: 'VARCHAR', nullable: true, length: 10 } },
    ]);
    const micros = BigInt(Date.UTC(2024, 0, 2, 10, 15, 30)) * 1000n + 7n;
    expect(label([19724, micros, 'eu'])).toBe('dt=2024-01-02, ts=2024-01-02T10:15:30.000007, region=eu');
    expect(label([null, null, null])).toBe('dt=null, ts=null, region=null');
    expect(paimonPartitionLabeler([])([])).toBe('unpartitioned');
  });
});
