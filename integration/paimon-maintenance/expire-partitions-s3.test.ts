/**
 * `floe expire-partitions` on S3 (the floe S3 test server): Java Paimon writes a date-partitioned table
 * locally (its oracle has no S3 FileIO), floe's storage layer uploads it, floe drops the old partitions on
 * `s3://…` (snapshot published by conditional PUT), the table is downloaded back and Java reads it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { javaPaimon, type PaimonChange } from '../oracles/index.js';
import { acquireS3, type S3Availability } from '../support/s3-server.js';
import { downloadDir, s3FileIO, uploadDir } from '../iceberg-compaction/helpers.js';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import { expirePaimonPartitions } from '../../connectors/paimon/expire-partitions.js';

describe('Paimon partition expiry on S3', async () => {
  const java = await javaPaimon.available();
  if (!java.ok) throw new Error(`java oracle unavailable (${java.reason}); run bash scripts/setup-oracles.sh`);
  const s3: S3Availability & { release(): Promise<void> } = await acquireS3();
  const work = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-pexp-s3-'));
  afterAll(async () => {
    await s3.release();
    rmSync(work, { recursive: true, force: true });
  });

  it.skipIf(!s3.available)('drops the old partitions on S3; Java reads the rest', async () => {
    if (!s3.available) return;
    const today = new Date().toISOString().slice(0, 10);
    const rows = (dt: string, from: number): PaimonChange[] =>
      Array.from({ length: 3 }, (_, i) => ({ kind: '+I', row: { dt, id: from + i, v: `${dt}-${from + i}` } }));
    await javaPaimon.write(work, {
      database: 'db',
      table: 't',
      fields: [
        { name: 'dt', type: 'string' },
        { name: 'id', type: 'int' },
        { name: 'v', type: 'string' },
      ],
      partitionKeys: ['dt'],
      primaryKeys: ['dt', 'id'],
      options: { bucket: '2', 'partition.expiration-time': '30 d', 'write-only': 'true' },
      commits: [rows('2021-06-01', 0), rows(today, 10), rows('2021-06-02', 20)],
    });
    const local = path.join(work, 'db.db', 't');
    const prefix = `s3://${s3.server.bucket}/paimon-pexp-${Date.now().toString(36)}/db.db/t`;
    const files = s3FileIO(s3.server);
    try {
      await uploadDir(files, local, prefix);
      const table = await openPaimonTable(prefix, { io: files });
      const r = await expirePaimonPartitions(table, files);
      expect(r.expired.map((p) => p.partition.dt)).toEqual(['2021-06-01', '2021-06-02']);
      expect(r.snapshotIds).toEqual([String(table.snapshot!.id + 1n)]);
      rmSync(local, { recursive: true, force: true });
      await downloadDir(files, prefix, local);
    } finally {
      files.destroy();
    }
    const after = await openPaimonTable(local);
    expect(after.snapshot!.commitKind).toBe('OVERWRITE');
    const got = (await javaPaimon.read(work, { database: 'db', table: 't' }))
      .map((r) => `${String(r.dt)}|${String(r.id)}`)
      .sort();
    expect(got).toEqual([`${today}|10`, `${today}|11`, `${today}|12`]);
  });
});
