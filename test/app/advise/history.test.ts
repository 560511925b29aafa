/**
 * historyStream on hand-written snapshot summaries: compactions are left out, a history longer than
 * --max-days is cut with the older files as the base (from the first kept snapshot's totals), and the
 * commits land at their real time offsets.
 */
import { describe, expect, it } from 'vitest';
import { historyStream } from '../../../src/app/advise/history.js';
import type { Snapshot } from '../../../model/index.js';

const HOUR = 3_600_000;

function snap(i: number, atMs: number, operation: string, summary: Record<string, string>): Snapshot {
  return {
    snapshotId: BigInt(i),
    ...(i > 1 ? { parentSnapshotId: BigInt(i - 1) } : {}),
    sequenceNumber: BigInt(i),
    timestampMs: atMs,
    operation,
    summary,
  };
}

describe('historyStream', () => {
  // one append an hour for 48 hours (2 files of 1000 bytes each), a compaction after hour 10
  const t0 = Date.UTC(2026, 0, 1);
  const snaps: Snapshot[] = [];
  let files = 0;
  for (let h = 0; h < 48; h++) {
    files += 2;
    snaps.push(
      snap(snaps.length + 1, t0 + h * HOUR, 'append', {
        'added-data-files': '2',
        'added-records': '20',
        'added-files-size': '2000',
        'total-data-files': String(files),
        'total-files-size': String(files * 1000),
        'total-records': String(files * 10),
      }),
    );
    if (h === 10) snaps.push(snap(snaps.length + 1, t0 + h * HOUR + 1000, 'replace', { 'added-data-files': '1' }));
  }

  it('replays writer snapshots only, at their offsets', () => {
    const { stream, replay } = historyStream('t', snaps, BigInt(snaps.length), { partitions: 0, maxDays: 3 });
    expect(replay.snapshots).toBe(48);
    expect(replay.skipped).toBe(1);
    expect(stream.commits.map((c) => c.atMs)).toEqual(Array.from({ length: 48 }, (_, h) => h * HOUR));
    expect(stream.commits[0]!.data).toHaveLength(2);
    expect(stream.commits[0]!.data[0]).toMatchObject({ sizeBytes: 1000, records: 10, partition: null });
    expect(replay.periodMinutes).toBe(47 * 60 + 2);
  });

  it('cuts to the newest --max-days, the older files becoming the base', () => {
    const { stream, replay } = historyStream('t', snaps, BigInt(snaps.length), { partitions: 0, maxDays: 1 });
    // hours 23..47 are within a day of the newest snapshot (hour 47)
    expect(replay.snapshots).toBe(25);
    expect(replay.notes).toContain('history cut to the newest 1 days');
    expect(replay.baseFiles).toBe(46); // 2 files an hour for hours 0..22
    expect(stream.base.reduce((s, f) => s + f.sizeBytes, 0)).toBe(46 * 1000);
  });

  it('a table without snapshots, or with compactions only, has no history to replay', () => {
    expect(() => historyStream('t', [], undefined, { partitions: 0 })).toThrow(/no snapshots/);
    expect(() => historyStream('t', [snap(1, t0, 'replace', {})], 1n, { partitions: 0 })).toThrow(
      /no writer snapshots to replay/,
    );
  });
});
