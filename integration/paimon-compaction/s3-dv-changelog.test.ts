/**
 * Deletion vectors and lookup changelog on S3 (the floe S3 test server): Java Paimon writes a DV table
 * with `changelog-producer=lookup` locally (its oracle has no S3 FileIO) — a max-level layout plus fresh
 * level-0 updates and deletes — it is uploaded, `compactPaimon('s3://…')` runs the lookup compaction on S3
 * (DV index files, index manifest and changelog files written through the storage layer), the table is
 * downloaded back, and Java reads the model's rows and streams the changelog without gap or duplicate.
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
import { Model, commits, lines, spec } from './model.js';
import { apply, changelogByKey } from './changelog-support.js';

describe('Paimon DV + lookup changelog compaction on S3', async () => {
  const java = await javaPaimon.available();
  const s3: S3Availability & { release(): Promise<void> } = await acquireS3();
  if (!java.ok) console.warn(`SKIPPED: Java Paimon oracle unavailable: ${java.reason}`);
  if (!s3.available) console.warn('SKIPPED: no S3 test server');
  const work = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-s3-dv-'));
  afterAll(async () => {
    await s3.release();
    rmSync(work, { recursive: true, force: true });
  });

  it.skipIf(!java.ok || !s3.available)('floe compacts on S3; Java reads the rows and the changelog', async () => {
    if (!s3.available) return;
    const model = new Model('deduplicate');
    const options = { 'deletion-vectors.enabled': 'true', 'changelog-producer': 'lookup' };
    await javaPaimon.write(
      work,
      spec(
        'deduplicate',
        't',
        commits('deduplicate', 0, model, { batches: 3, perBatch: 300, keys: 400 }),
        true,
        options,
      ),
    );
    await javaPaimon.compact(work, { database: 'db', table: 't', full: true });
    const state = new Map<string, string>();
    const first = await javaPaimon.stream(work, {
      database: 'db',
      table: 't',
      options: { 'scan.mode': 'from-snapshot', 'scan.snapshot-id': '1' },
    });
    apply(state, first.rows);
    await javaPaimon.write(
      work,
      spec('deduplicate', 't', commits('deduplicate', 1, model, { batches: 1, perBatch: 12, keys: 400 }), false),
    );
    const local = path.join(work, 'db.db', 't');
    const prefix = `s3://${s3.server.bucket}/paimon-dv-${Date.now().toString(36)}/db.db/t`;
    const files = s3FileIO(s3.server);
    try {
      await uploadDir(files, local, prefix);
      const report = await compactPaimon(prefix, { fileIO: files });
      expect(report.snapshotId, renderPaimonPlan(report, true)).toBeDefined();
      rmSync(local, { recursive: true, force: true });
      await downloadDir(files, prefix, local);
    } finally {
      files.destroy();
    }
    const after = await openPaimonTable(local);
    expect(after.snapshot!.commitKind).toBe('COMPACT');
    expect(after.files.some((f) => f.dv)).toBe(true);
    expect((await changelogByKey(local)).size).toBeGreaterThan(0);
    expect(lines(await javaPaimon.read(work, { database: 'db', table: 't' }))).toEqual(model.lines());
    apply(state, (await javaPaimon.stream(work, { database: 'db', table: 't', from: first.next })).rows);
    expect([...state.values()].sort()).toEqual(model.lines());
  });
});
