/**
 * Small conflict windows for tables a writer is committing to (issue 22 item 3): `partialProgress: 'hot'`
 * (floe serve's default) commits group by group only when a writer committed within the last hour, in at most
 * `maxCommits` commits; `leaveNewest` skips the partitions a writer wrote to in its last N commits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TestTable } from './harness.js';
import type { Row } from './model.js';
import { openIcebergForWrite } from '../../connectors/iceberg/open-for-write.js';
import {
  HOT_TABLE_WINDOW_MS,
  compactIceberg,
  type CompactOptions,
  type CompactReport,
} from '../../src/orchestration/compact-iceberg.js';

let seq = 0n;
const row = (id: number, part: string): Row => [BigInt(id), part, null, 'x', ++seq];

let open: TestTable[] = [];
afterEach(() => {
  for (const t of open) t.dispose();
  open = [];
});

/** Three partitions of three small files each, written in partition order (c last). */
async function threePartitions(): Promise<TestTable> {
  const t = await TestTable.create({ formatVersion: 2, partitioned: true });
  open.push(t);
  for (const part of ['a', 'b', 'c']) for (let k = 0; k < 3; k++) await t.append([row(k * 10, part)]);
  return t;
}

async function compact(t: TestTable, opts: CompactOptions): Promise<CompactReport> {
  const opened = await openIcebergForWrite(t.dir, {});
  try {
    return await compactIceberg(opened.table, opened.io, opened.ops!, {
      strategy: 'binpack',
      options: { 'min-input-files': '2' },
      ...opts,
    });
  } finally {
    opened.files.destroy();
  }
}

describe("partialProgress 'hot'", () => {
  it('commits in small batches when a writer committed within the window', async () => {
    const t = await threePartitions();
    const r = await compact(t, { partialProgress: 'hot', maxCommits: 2 });
    expect(r.committedTasks).toHaveLength(3);
    expect(r.snapshots).toHaveLength(2); // three groups, at most two commits
    expect(await t.scan()).toEqual(t.model.expected());
  });

  it('commits once when the last writer commit is older than the window', async () => {
    const t = await threePartitions();
    const r = await compact(t, { partialProgress: 'hot', nowMs: Date.now() + HOT_TABLE_WINDOW_MS + 60_000 });
    expect(r.committedTasks).toHaveLength(3);
    expect(r.snapshots).toHaveLength(1);
    expect(await t.scan()).toEqual(t.model.expected());
  });
});

describe('leaveNewest', () => {
  it('skips the partitions the last writer commits wrote to, and says why', async () => {
    const t = await threePartitions();
    const r = await compact(t, { leaveNewest: { commits: 2 } });
    const skipped = r.tasks.filter((x) => x.outcome === 'skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.reason).toMatch(/leaveNewest/);
    expect(r.committedTasks).toHaveLength(2);
    expect(await t.scan()).toEqual(t.model.expected());
  });

  it('within a duration: every partition written in the last hour is left alone', async () => {
    const t = await threePartitions();
    const r = await compact(t, { leaveNewest: { withinMs: 3_600_000 } });
    expect(r.committedTasks).toEqual([]);
    expect(r.tasks.every((x) => x.outcome === 'skipped')).toBe(true);
    expect(r.snapshots).toEqual([]);
  });
});
