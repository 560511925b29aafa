/**
 * bench/live's bridge to the simulator: the writer's commit log becomes the commit stream the simulator
 * replays (files per partition, sizes, the upsert base), on the measured schedule.
 */
import { describe, expect, it } from 'vitest';
import { predict, streamOf, type StreamShape } from '../../bench/live/predict.js';
import type { WriterCommit, WriterResult } from '../../bench/live/java.js';

const writer = (o: Partial<WriterResult> = {}): WriterResult => ({
  commits: 2,
  attempts: 2,
  conflicts: 0,
  failures: [],
  expectedRows: 0,
  bytesData: 0,
  bytesDeletes: 0,
  baseFiles: 0,
  baseBytes: 0,
  ...o,
});
const commit = (atMs: number, o: Partial<WriterCommit> = {}): WriterCommit => ({
  atMs,
  commitMs: 200,
  dataFiles: 8,
  deleteFiles: 0,
  dataBytes: 8 * 3000,
  deleteBytes: 0,
  conflicts: 0,
  ...o,
});
const append: StreamShape = {
  mode: 'append',
  seconds: 90,
  partitions: 4,
  rowsPerFile: 200,
  baseRows: 0,
  upsertRows: 0,
};
const upsert: StreamShape = { ...append, mode: 'upsert', baseRows: 20_000, upsertRows: 50 };

describe('bench live: the simulator replays what the writer committed', () => {
  it('append: each logged commit is its files, round-robin over the partitions, at its (whole-second) time', () => {
    const s = streamOf(append, [commit(1200), commit(4300)], writer());
    expect(s.commits.map((c) => c.atMs)).toEqual([1000, 4000]);
    const first = s.commits[0]!;
    expect(first.data).toHaveLength(8);
    expect(first.data.map((f) => f.partition)).toEqual([0, 1, 2, 3, 0, 1, 2, 3].map((k) => `part=${k}`));
    expect(first.data.every((f) => f.sizeBytes === 3000 && f.records === 200)).toBe(true);
    expect(s.base).toEqual([]);
  });

  it('upsert: the base table, and per commit an insert and an equality delete per partition', () => {
    const log = [commit(3000, { dataFiles: 4, deleteFiles: 4, dataBytes: 4 * 2500, deleteBytes: 4 * 900 })];
    const s = streamOf(upsert, log, writer({ baseFiles: 4, baseBytes: 4 * 150_000 }));
    expect(s.base.map((f) => [f.partition, f.records, f.sizeBytes])).toEqual(
      [0, 1, 2, 3].map((k) => [`part=${k}`, 5000, 150_000]),
    );
    const c = s.commits[0]!;
    expect(c.data.map((f) => f.records)).toEqual([50, 50, 50, 50]);
    expect(c.equalityDeletes.map((d) => [d.sizeBytes, d.records, d.deletesRows])).toEqual(
      Array.from({ length: 4 }, () => [900, 50, 50]),
    );
  });

  it('refuses an upsert writer that reported no base table (an oracle jar older than its source)', () => {
    expect(() => streamOf(upsert, [commit(0)], writer())).toThrow(/no base table/);
  });

  it('replays on the measured schedule: every 30 s over 90 s of commits is 2 planner calls (30 s, 60 s)', () => {
    const log = Array.from({ length: 30 }, (_, i) => commit(i * 3000));
    const r = predict(streamOf(append, log, writer()), 'binpack', { 'min-input-files': '1' }, 30);
    expect(r.plannerCalls).toBe(2);
    expect(r.compactionRuns).toBe(2);
    expect(r.bytesIngested).toBe(30 * 8 * 3000);
  });
});
