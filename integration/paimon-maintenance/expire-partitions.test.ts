/**
 * `floe expire-partitions` against Java Paimon 1.3 (the oracle): Java writes a date-partitioned
 * primary-key table (bucket 2) and an append table (bucket -1), with old and current partitions and
 * `partition.expiration-time` set; floe drops the old partitions in one OVERWRITE snapshot; Java reads
 * exactly the rows of the remaining partitions, keeps writing on top (including into a dropped partition,
 * which comes back with only the new rows) and compacts (primary-key table); then `floe expire` deletes the dropped files once no
 * retained snapshot reads them, and Java still reads the same rows.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { javaPaimon, type PaimonChange } from '../oracles/index.js';
import { expirePartitionsAction } from '../../src/shells/cli/commands/expire-partitions.js';
import { expireAction } from '../../src/shells/cli/commands/expire.js';
import { openPaimonTable } from '../../connectors/paimon/table.js';
import { readSnapshot } from '../../connectors/paimon/metadata.js';

const javaOk = await javaPaimon.available();
if (!javaOk.ok) throw new Error(`java oracle unavailable (${javaOk.reason}); run bash scripts/setup-oracles.sh`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-pexp-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const OLD = ['2020-01-01', '2020-01-02'];
const today = new Date().toISOString().slice(0, 10);
const FUTURE = '2999-12-31';

function rowsFor(dt: string, from: number, n: number, tag: string): PaimonChange[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: '+I' as const,
    row: { dt, id: from + i, v: `${tag}-${from + i}` },
  }));
}

const line = (dt: string, id: number, v: string) => JSON.stringify({ dt, id, v });
const canon = (rows: Record<string, unknown>[]) =>
  rows.map((r) => line(String(r.dt), Number(r.id), String(r.v))).sort();

for (const kind of ['primary-key', 'append'] as const) {
  describe(`expire-partitions on a Java-written ${kind} table`, () => {
    const wh = path.join(work, kind);
    const T = { database: 'default', table: kind === 'append' ? 'a' : 'pk' };
    it('drops exactly the expired partitions; Java reads the rest, writes on top (and compacts, primary-key)', async () => {
      const commits = [...OLD, today, FUTURE].map((dt, i) => rowsFor(dt, i * 10, 4, 'w1'));
      const w = await javaPaimon.write(wh, {
        ...T,
        fields: [
          { name: 'dt', type: 'string' },
          { name: 'id', type: 'int' },
          { name: 'v', type: 'string' },
        ],
        partitionKeys: ['dt'],
        ...(kind === 'primary-key'
          ? {
              primaryKeys: ['dt', 'id'],
              options: { bucket: '2', 'partition.expiration-time': '7 d', 'write-only': 'true' },
            }
          : { options: { 'partition.expiration-time': '7 d', 'write-only': 'true' } }),
        commits,
      });
      const table = w.tablePath.replace(/^file:/, '');
      expect(existsSync(table)).toBe(true);
      const before = await openPaimonTable(table);
      const droppedFiles = before.files.filter((f) => OLD.includes(String(f.partition[0])));
      expect(droppedFiles.length).toBeGreaterThan(0);

      const dry = await expirePartitionsAction(table, { dryRun: true });
      expect(dry.expired.map((p) => p.partition.dt)).toEqual(OLD);
      expect((await openPaimonTable(table)).snapshot!.id).toBe(before.snapshot!.id);

      const r = await expirePartitionsAction(table, { lease: false });
      expect(r.expired.map((p) => p.partition.dt)).toEqual(OLD);
      expect(r.snapshotIds).toEqual([String(before.snapshot!.id + 1n)]);
      const snap = await readSnapshot(before.io, before.location, before.snapshot!.id + 1n);
      expect(snap.commitKind).toBe('OVERWRITE');
      expect(snap.commitIdentifier).toBe(9223372036854775807n);

      const keptRows = (rows: PaimonChange[][]) =>
        rows
          .flat()
          .map((c) => line(String(c.row.dt), Number(c.row.id), String(c.row.v)))
          .filter((l) => !OLD.some((d) => l.includes(`"${d}"`)))
          .sort();
      expect(canon(await javaPaimon.read(wh, T))).toEqual(keptRows(commits));
      // the snapshot before the drop still reads everything (nothing was deleted)
      expect(canon(await javaPaimon.read(wh, { ...T, snapshotId: before.snapshot!.id.toString() }))).toHaveLength(16);

      // Java keeps writing on top: into a kept and into a dropped partition, then compacts
      const more = [rowsFor(today, 100, 3, 'w2'), rowsFor(OLD[0]!, 200, 2, 'w2')];
      await javaPaimon.write(wh, { ...T, commits: more });
      // (Java cannot compact a write-only unaware-bucket append table on request: NoopCompactManager)
      if (kind === 'primary-key') await javaPaimon.compact(wh, T);
      const expected = [
        ...keptRows(commits),
        ...more.flat().map((c) => line(String(c.row.dt), Number(c.row.id), String(c.row.v))),
      ].sort();
      expect(canon(await javaPaimon.read(wh, T))).toEqual(expected);

      // snapshot expiry now deletes the dropped files, and Java reads the same rows
      await expireAction(table, { retainLast: '1', olderThan: String(Date.now() + 1000), lease: false });
      for (const f of droppedFiles) expect(existsSync(f.path), f.path).toBe(false);
      expect(canon(await javaPaimon.read(wh, T))).toEqual(expected);
    }, 240_000);
  });
}

describe('expire-partitions planned on an older snapshot', () => {
  it('abandons the drop (nothing committed) when a file was appended to an expired partition since', async () => {
    const wh = path.join(work, 'late-append');
    const T = { database: 'default', table: 'late' };
    const w = await javaPaimon.write(wh, {
      ...T,
      fields: [
        { name: 'dt', type: 'string' },
        { name: 'id', type: 'int' },
        { name: 'v', type: 'string' },
      ],
      partitionKeys: ['dt'],
      primaryKeys: ['dt', 'id'],
      options: { bucket: '1', 'partition.expiration-time': '7 d', 'write-only': 'true' },
      // the last commit lands in an old partition after floe "planned" on snapshot 3
      commits: [
        rowsFor(OLD[0]!, 0, 3, 'w1'),
        rowsFor(today, 10, 3, 'w1'),
        rowsFor(OLD[1]!, 20, 3, 'w1'),
        rowsFor(OLD[0]!, 30, 3, 'late'),
      ],
    });
    const table = w.tablePath.replace(/^file:/, '');
    const { expirePaimonPartitions } = await import('../../connectors/paimon/expire-partitions.js');
    const { FileIO } = await import('../../connectors/storage/file-io.js');
    const fileIO = new FileIO();
    try {
      const planned = await openPaimonTable(table, { snapshotId: 3n });
      await expect(expirePaimonPartitions(planned, fileIO)).rejects.toThrow(
        /was added to an expired partition meanwhile.*re-run/,
      );
    } finally {
      fileIO.destroy();
    }
    const latest = await openPaimonTable(table);
    expect(latest.snapshot!.id).toBe(4n); // nothing committed
    expect(latest.snapshot!.commitKind).toBe('APPEND');
    expect((await javaPaimon.read(wh, T)).length).toBe(12);
    // planned on the latest snapshot, the same drop goes through and takes the late rows too
    const r = await expirePartitionsAction(table, { lease: false });
    expect(r.expired.map((p) => p.partition.dt)).toEqual(OLD);
    expect(canon(await javaPaimon.read(wh, T))).toEqual(
      rowsFor(today, 10, 3, 'w1')
        .map((c) => line(today, Number(c.row.id), String(c.row.v)))
        .sort(),
    );
  }, 240_000);
});
