/**
 * Append tables with deletion vectors on S3 (the floe S3 test server): Java Paimon 1.3 writes a
 * bucket-unaware and a fixed-bucket append table with DVs locally (its oracle has no S3 FileIO) and
 * deletes rows; the rows Java reads then are the expected ones. The tables are uploaded,
 * `compactPaimon('s3://…')` drops the deleted rows and writes the DV index file and index manifest through
 * the storage layer, the tables are downloaded back, and Java reads the expected rows, then keeps
 * deleting and compacting on top.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { javaPaimon } from '../oracles/index.js';
import { acquireS3, type S3Availability } from '../support/s3-server.js';
import { downloadDir, s3FileIO, uploadDir } from '../iceberg-compaction/helpers.js';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import { compactPaimon, renderPaimonPlan } from '../../src/orchestration/compact-paimon.js';
import { lines } from '../paimon-compaction/model.js';
import { AppendModel, FIELDS, danglingDvRanges } from './support.js';

const TABLES: { table: string; options: Record<string, string> }[] = [
  { table: 'unaware', options: { 'deletion-vectors.enabled': 'true' } },
  { table: 'fixed', options: { 'deletion-vectors.enabled': 'true', bucket: '2', 'bucket-key': 'id' } },
];

describe('Paimon append tables with deletion vectors, compacted on S3', async () => {
  const java = await javaPaimon.available();
  const s3: S3Availability & { release(): Promise<void> } = await acquireS3();
  if (!java.ok) console.warn(`SKIPPED: Java Paimon oracle unavailable: ${java.reason}`);
  if (!s3.available) console.warn('SKIPPED: no S3 test server');
  const work = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-s3-append-dv-'));
  afterAll(async () => {
    await s3.release();
    rmSync(work, { recursive: true, force: true });
  });

  for (const { table, options } of TABLES) {
    it.skipIf(!java.ok || !s3.available)(
      `${table}: floe compacts on S3; Java reads the rows it read before`,
      async () => {
        if (!s3.available) return;
        const m = new AppendModel();
        await javaPaimon.write(work, {
          database: 'db',
          table,
          fields: FIELDS,
          partitionKeys: ['p'],
          options: { ...options, 'write-only': 'true' },
          commits: [0, 1, 2, 3, 4, 5].map((c) => m.batch(c * 1000, 12)),
        });
        await m.delete(work, table, [0, 1, 1002, 3003, 5004]);
        const expected = lines(await javaPaimon.read(work, { database: 'db', table }));
        expect(expected).toEqual(m.lines());
        const local = path.join(work, 'db.db', table);
        const prefix = `s3://${s3.server.bucket}/paimon-append-dv-${Date.now().toString(36)}/db.db/${table}`;
        const files = s3FileIO(s3.server);
        try {
          await uploadDir(files, local, prefix);
          const report = await compactPaimon(prefix, { fileIO: files, full: true });
          expect(report.snapshotId, renderPaimonPlan(report, true)).toBeDefined();
          rmSync(local, { recursive: true, force: true });
          await downloadDir(files, prefix, local);
        } finally {
          files.destroy();
        }
        const after = await openPaimonTable(local);
        expect(after.snapshot!.commitKind).toBe('COMPACT');
        expect(after.files.some((f) => f.dv)).toBe(false);
        expect(danglingDvRanges(after)).toEqual([]);
        expect(lines(await javaPaimon.read(work, { database: 'db', table }))).toEqual(expected);
        await javaPaimon.write(work, { database: 'db', table, commits: [m.batch(9000, 12)] });
        await m.delete(work, table, [2, 9001]);
        await javaPaimon.compact(work, { database: 'db', table, full: true });
        expect(lines(await javaPaimon.read(work, { database: 'db', table }))).toEqual(m.lines());
      },
    );
  }
});
