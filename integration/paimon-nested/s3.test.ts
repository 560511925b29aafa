/**
 * floe compaction of a Paimon table with nested and INT96 (TIMESTAMP(9)) columns on S3 (the floe S3 test
 * server): Java Paimon writes it locally (its oracle has no S3 FileIO) → uploaded with floe's storage layer
 * → `compactPaimon('s3://…', { full: true })` → downloaded back → Java Paimon reads the rows it read before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { javaPaimon } from '../oracles/index.js';
import { acquireS3, type S3Availability } from '../support/s3-server.js';
import { downloadDir, s3FileIO, uploadDir } from '../iceberg-compaction/helpers.js';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import { compactPaimon } from '../../src/orchestration/compact-paimon.js';
import { FIELDS, commitsOf, lines } from './model.js';

describe('Paimon nested columns: compaction on S3', async () => {
  const java = await javaPaimon.available();
  const s3: S3Availability & { release(): Promise<void> } = await acquireS3();
  const work = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-nested-s3-'));
  afterAll(async () => {
    await s3.release();
    rmSync(work, { recursive: true, force: true });
  });

  it.skipIf(!java.ok || !s3.available)(
    `${java.ok && s3.available ? '' : 'SKIPPED LOUDLY — Java oracle or S3 server unavailable: '}Java-written nested PK table compacted by floe on S3, read back in Java`,
    async () => {
      if (!s3.available) return;
      await javaPaimon.write(work, {
        database: 'db',
        table: 't',
        fields: FIELDS,
        primaryKeys: ['id'],
        options: { bucket: '2', 'write-only': 'true' },
        commits: [0, 1, 2].map((c) => commitsOf(c, true, FIELDS)),
      });
      const expected = lines(await javaPaimon.read(work, { database: 'db', table: 't' }));
      expect(expected).toHaveLength(10); // ids 0..11 written (some twice), ids 2 and 5 deleted
      const local = path.join(work, 'db.db', 't');
      const prefix = `s3://${s3.server.bucket}/paimon-nested-${Date.now().toString(36)}/db.db/t`;
      const files = s3FileIO(s3.server);
      try {
        await uploadDir(files, local, prefix);
        const report = await compactPaimon(prefix, { fileIO: files, full: true });
        expect(report.snapshotId).toBeDefined();
        rmSync(local, { recursive: true, force: true });
        await downloadDir(files, prefix, local);
      } finally {
        files.destroy();
      }
      const after = await openPaimonTable(local);
      expect(after.snapshot!.commitKind).toBe('COMPACT');
      expect(lines(await javaPaimon.read(work, { database: 'db', table: 't' }))).toEqual(expected);
    },
    300_000,
  );
});
