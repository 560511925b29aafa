/**
 * Issue 22.2 (Iceberg): a group whose commit a concurrent commit invalidated in a way that cannot be carried
 * over — here another compaction replaced the same files ("replaced file … is no longer live") — is planned
 * again on the newest snapshot, in its partition only, a bounded number of times; still racing after that,
 * it is reported failed naming the file and the count, and its outputs are gone.
 *
 * The table is written by Java Iceberg (v2, partitioned); between floe's plan and its commit (at the
 * round's first output file) a second floe compaction rewrites every partition, then Java appends two
 * files to each. Rows are checked against the hand-tracked model, by floe and by Java.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it, type TestContext } from 'vitest';
import { compactIceberg, type CompactReport } from '../../src/orchestration/compact-iceberg.js';
import { compactIcebergReplanning, DEFAULT_ICEBERG_REPLANS } from '../../src/orchestration/compact-iceberg-replan.js';
import type { ProgressEvent } from '../../src/core/execution/events.js';
import { openIcebergForWrite } from '../../connectors/iceberg/open-for-write.js';
import type { CommitIO } from '../../connectors/iceberg/commit-rewrite.js';
import { type Availability, type IcebergOp, type InputRow, diffRows, javaIceberg } from '../oracles/index.js';
import { RowModel, floeRows, skipLoudly } from './helpers.js';

const java: Availability = await javaIceberg.available();
if (!java.ok) console.warn(`\n!!! SKIPPED: java oracle unavailable, Iceberg re-plan tests skip: ${java.reason}\n`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-compact-replan-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const TYPES = { id: 'long', p: 'string', v: 'int' };
const KEY = ['id', 'p'];
const BINPACK = { strategy: 'binpack' as const, options: { 'min-input-files': '2' } };

class Table {
  readonly model = new RowModel(TYPES);
  private next = 1;
  constructor(readonly dir: string) {}
  rows(n: number): InputRow[] {
    return Array.from({ length: n }, () => {
      const id = this.next++;
      return { id: String(id), p: `p${id % 3}`, v: id };
    });
  }
  async create(): Promise<void> {
    const ops: IcebergOp[] = Array.from({ length: 4 }, () => ({ op: 'append' as const, rows: this.rows(6) }));
    await javaIceberg.write(this.dir, {
      formatVersion: 2,
      schema: Object.entries(TYPES).map(([name, type]) => ({ name, type, required: KEY.includes(name) })),
      partitionSpec: [{ source: 'p' }],
      identifierFields: KEY,
      ops,
    });
    for (const op of ops) if (op.op === 'append') this.model.append(op.rows);
  }
  private async appendTwice(): Promise<void> {
    const ops: IcebergOp[] = [
      { op: 'append', rows: this.rows(6) },
      { op: 'append', rows: this.rows(6) },
    ];
    await javaIceberg.ops(this.dir, ops);
    for (const op of ops) if (op.op === 'append') this.model.append(op.rows);
  }
  /**
   * Another writer between floe's plan and commit: another compaction of every partition (replacing the
   * files floe is rewriting), then two Java appends (so a re-plan has files to compact).
   */
  async race(): Promise<void> {
    const other = await openIcebergForWrite(this.dir, {});
    try {
      const r = await compactIceberg(other.table, other.io, other.ops!, BINPACK);
      expect(r.snapshots.length, 'the other compaction committed').toBeGreaterThan(0);
    } finally {
      other.files.destroy();
    }
    await this.appendTwice();
  }
  async expectRows(): Promise<void> {
    for (const [who, rows] of [
      ['floe', await floeRows(this.dir)],
      ['java', await javaIceberg.read(this.dir)],
    ] as const) {
      const d = diffRows(this.model.live(), rows, { expected: 'hand-tracked rows', actual: who });
      expect(d.text, d.text).toBe('');
    }
  }
}

/** compactIcebergReplanning with `race` run at the first output file of the first `rounds` rounds. */
async function compactRacing(
  t: Table,
  rounds: number,
): Promise<{ report: CompactReport; events: ProgressEvent[]; raced: number }> {
  const opened = await openIcebergForWrite(t.dir, {});
  const events: ProgressEvent[] = [];
  let armed = false;
  let raced = 0;
  const out: CommitIO = {
    read: (l) => opened.io.read(l),
    createNew: async (l, b) => {
      if (armed && l.endsWith('.parquet')) {
        armed = false;
        raced++;
        await t.race();
      }
      return opened.io.createNew(l, b);
    },
    overwrite: (l, b) => opened.io.overwrite(l, b),
    remove: (l) => opened.io.remove(l),
  };
  try {
    const report = await compactIcebergReplanning(opened.table, out, opened.ops!, {
      ...BINPACK,
      onProgress: (e) => {
        events.push(e);
        if (e.type === 'plan' && raced < rounds) armed = true; // a round starts: race its commit
      },
    });
    return { report, events, raced };
  } finally {
    opened.files.destroy();
  }
}

const requireJava = (ctx: TestContext) => {
  if (!java.ok) skipLoudly(ctx, `java unavailable: ${java.reason}`);
};

describe('Iceberg compaction re-plans groups a concurrent commit invalidated', () => {
  it('one race: the raced groups are re-planned on the newest snapshot and commit; rows intact', async (ctx) => {
    requireJava(ctx);
    const t = new Table(path.join(work, 'once'));
    await t.create();
    const { report, raced } = await compactRacing(t, 1);
    expect(raced).toBe(1);
    expect(report.replans).toBe(1);
    expect(report.failedTasks).toEqual([]);
    // the first round's groups were skipped as re-planned; the re-plan's tasks committed
    expect(report.skippedTasks.length).toBeGreaterThan(0);
    for (const s of report.skippedTasks)
      expect(s.reason).toMatch(/no longer live.*re-planned on the newest snapshot as replan-1:/);
    expect(report.committedTasks.length).toBeGreaterThan(0);
    expect(report.committedTasks.every((id) => id.startsWith('replan-1:'))).toBe(true);
    await t.expectRows();
  });

  it(`a race every round: reported failed after ${DEFAULT_ICEBERG_REPLANS} re-plans, naming the file; its outputs are removed`, async (ctx) => {
    requireJava(ctx);
    const t = new Table(path.join(work, 'always'));
    await t.create();
    const { report, events, raced } = await compactRacing(t, DEFAULT_ICEBERG_REPLANS + 1);
    expect(raced).toBe(DEFAULT_ICEBERG_REPLANS + 1);
    expect(report.replans).toBe(DEFAULT_ICEBERG_REPLANS);
    expect(report.committedTasks).toEqual([]);
    expect(report.failedTasks.length).toBeGreaterThan(0);
    for (const f of report.failedTasks) {
      expect(f.id.startsWith(`replan-${DEFAULT_ICEBERG_REPLANS}:`)).toBe(true);
      expect(f.reason).toMatch(/replaced file \S+\.parquet is no longer live/);
      expect(f.reason).toContain(`(re-planned ${DEFAULT_ICEBERG_REPLANS} times, each time raced)`);
    }
    for (const e of events)
      if (e.type === 'file-written') expect(existsSync(e.path.replace(/^file:\/\//, '')), e.path).toBe(false);
    await t.expectRows();
  });
});
