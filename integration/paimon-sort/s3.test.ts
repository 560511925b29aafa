/**
 * Paimon sort compaction on S3 (the floe S3 test server): Java Paimon writes a bucket-unaware append table
 * locally (its oracle has no S3 FileIO) → uploaded with floe's storage layer → `compactPaimon('s3://…',
 * { sort })` z-orders it, spilling sorted runs to local disk, and publishes an OVERWRITE snapshot with a
 * conditional PUT → floe reads the rows from S3 → the table is downloaded back, Java Paimon reads the same
 * rows and appends on top.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalLine, canonicalRow, javaPaimon, type PaimonChange } from '../oracles/index.js';
import { acquireS3, type S3Availability } from '../support/s3-server.js';
import { downloadDir, s3FileIO, uploadDir } from '../iceberg-compaction/helpers.js';
import { openPaimonTable, scanPaimon } from '../../connectors/paimon/index.js';
import { compactPaimon } from '../../src/orchestration/compact-paimon.js';

const TYPES = { id: 'int', p: 'string', x: 'int', y: 'int' };

describe('Paimon sort compaction on S3', async () => {
  const java = await javaPaimon.available();
  const s3: S3Availability & { release(): Promise<void> } = await acquireS3();
  const work = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-sort-s3-'));
  afterAll(async () => {
    await s3.release();
    rmSync(work, { recursive: true, force: true });
  });

  it.skipIf(!java.ok || !s3.available)('z-order on S3 with spilling; Java reads it back and appends', async () => {
    if (!s3.available) return;
    const expected: string[] = [];
    let seed = 99;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 8) % n;
    let id = 0;
    const commits = (n: number): PaimonChange[][] =>
      Array.from({ length: n }, () =>
        Array.from({ length: 50 }, () => {
          const row = { id: id++, p: rnd(2) ? 'a' : 'b', x: rnd(500), y: rnd(500) };
          expected.push(canonicalLine(canonicalRow(TYPES, row)));
          return { row } as PaimonChange;
        }),
      );
    await javaPaimon.write(work, {
      database: 'db',
      table: 't',
      fields: [
        { name: 'id', type: 'int' },
        { name: 'p', type: 'string' },
        { name: 'x', type: 'int' },
        { name: 'y', type: 'int' },
      ],
      partitionKeys: ['p'],
      options: { bucket: '-1' },
      commits: commits(6),
    });
    const local = path.join(work, 'db.db', 't');
    const prefix = `s3://${s3.server.bucket}/paimon-sort-${Date.now().toString(36)}/db.db/t`;
    const files = s3FileIO(s3.server);
    const spills: string[] = [];
    try {
      await uploadDir(files, local, prefix);
      const report = await compactPaimon(prefix, {
        fileIO: files,
        // 8 KiB of rows in memory: the sort spills runs to the local temp dir and merges them
        sort: { strategy: 'zorder', columns: ['x', 'y'], memoryBytes: 8 * 1024 },
        onProgress: (e) => {
          if (e.type === 'message' && /spilled sorted run/.test(e.text)) spills.push(e.text);
        },
      });
      expect(report.snapshotId).toBeDefined();
      expect(spills.length).toBeGreaterThan(1);
      const rows: string[] = [];
      for await (const r of scanPaimon(prefix, { io: files })) rows.push(canonicalLine(canonicalRow(TYPES, r)));
      expect(rows.sort()).toEqual([...expected].sort());
      rmSync(local, { recursive: true, force: true });
      await downloadDir(files, prefix, local);
    } finally {
      files.destroy();
    }
    const after = await openPaimonTable(local);
    expect(after.snapshot!.commitKind).toBe('OVERWRITE');
    expect(new Set(after.files.map((f) => String(f.partition[0])))).toEqual(new Set(['a', 'b']));
    expect(after.files.length).toBe(2); // one sorted file per partition at the default 256 MB target
    const read = async () => (await javaPaimon.read(work, { database: 'db', table: 't' })).map(canonicalLine).sort();
    expect(await read()).toEqual([...expected].sort());
    await javaPaimon.write(work, { database: 'db', table: 't', commits: commits(1) });
    expect(await read()).toEqual([...expected].sort());
  });
});
