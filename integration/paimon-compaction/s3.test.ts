/**
 * floe compaction of a Paimon table on S3 (the floe S3 test server): Java Paimon writes the table locally
 * (its oracle has no S3 FileIO) → uploaded with floe's storage layer → `compactPaimon('s3://…')` merges and
 * publishes snapshot-N with a conditional PUT (If-None-Match) → a lost race on S3 is retried → the table is
 * downloaded back and Java Paimon reads it.
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
import { parseJsonLossless, stringifyJsonLossless } from '../../util/json.js';

const TYPES = { id: 'int', p: 'string', v: 'string', n: 'long' };

describe('Paimon compaction on S3', async () => {
  const java = await javaPaimon.available();
  const s3: S3Availability & { release(): Promise<void> } = await acquireS3();
  const work = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-s3-'));
  afterAll(async () => {
    await s3.release();
    rmSync(work, { recursive: true, force: true });
  });

  it.skipIf(!java.ok || !s3.available)('Java-written L0 files compacted by floe on S3 read back in Java', async () => {
    if (!s3.available) return;
    const live = new Map<number, Record<string, unknown>>();
    const commits: PaimonChange[][] = Array.from({ length: 6 }, (_, c) =>
      Array.from({ length: 4 }, (_, i) => {
        const id = (c * 3 + i) % 9;
        const row = { id, p: id % 2 ? 'a' : 'b', v: `c${c}i${i}`, n: c * 10 + i };
        const del = c === 5 && i === 0;
        if (del) live.delete(id);
        else live.set(id, row);
        return { kind: del ? '-D' : '+I', row } as PaimonChange;
      }),
    );
    await javaPaimon.write(work, {
      database: 'db',
      table: 't',
      fields: [
        { name: 'id', type: 'int' },
        { name: 'p', type: 'string' },
        { name: 'v', type: 'string' },
        { name: 'n', type: 'long' },
      ],
      primaryKeys: ['id', 'p'],
      partitionKeys: ['p'],
      options: { bucket: '2', 'write-only': 'true' },
      commits,
    });
    const expected = [...live.values()].map((r) => canonicalLine(canonicalRow(TYPES, r))).sort();
    const local = path.join(work, 'db.db', 't');
    const prefix = `s3://${s3.server.bucket}/paimon-${Date.now().toString(36)}/db.db/t`;
    const files = s3FileIO(s3.server);
    try {
      await uploadDir(files, local, prefix);
      const io = files;
      const base = (await openPaimonTable(prefix, { io })).snapshot!.id;
      let raced = false;
      const report = await compactPaimon(prefix, {
        fileIO: files,
        full: true,
        // Another writer takes snapshot-N first: the create-only PUT must refuse, floe must retry at N+1.
        beforePublish: async (id) => {
          if (raced) return;
          raced = true;
          const r = files.resolve(`${prefix}/snapshot/snapshot-${base}`);
          // lossless: commitIdentifier is Long.MAX_VALUE, which a JS number would round (a corrupt snapshot)
          const prev = parseJsonLossless(new TextDecoder().decode(await r.store.get(r.key))) as Record<string, unknown>;
          const w = files.resolve(`${prefix}/snapshot/snapshot-${id}`);
          await w.store.put(
            w.key,
            stringifyJsonLossless({ ...prev, id, commitUser: 'other', commitKind: 'APPEND', deltaRecordCount: 0 }),
            { ifNoneMatch: '*' },
          );
        },
      });
      expect(report.commitAttempts).toBe(2);
      expect(report.snapshotId).toBe(String(base + 2n));
      const rows: string[] = [];
      for await (const r of scanPaimon(prefix, { io })) rows.push(canonicalLine(canonicalRow(TYPES, r)));
      expect(rows.sort()).toEqual(expected);
      rmSync(local, { recursive: true, force: true });
      await downloadDir(files, prefix, local);
    } finally {
      files.destroy();
    }
    const after = await openPaimonTable(local);
    expect(after.snapshot!.commitKind).toBe('COMPACT');
    expect(after.files.every((f) => f.meta.level === 5)).toBe(true);
    expect((await javaPaimon.read(work, { database: 'db', table: 't' })).map(canonicalLine).sort()).toEqual(expected);
  });
});
