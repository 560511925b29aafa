/**
 * A Java DELETE (deletion vectors on an append table) landing while floe compacts the same files: floe's
 * commit is abandoned (the rows it rewrote would bring deleted rows back), and compactPaimon re-plans on the
 * newest snapshot, a bounded number of times. One race: the re-plan commits with the DELETE applied. A
 * DELETE before every publish: after DEFAULT_PAIMON_REPLANS re-plans the conflict is reported, naming the
 * file, and nothing of floe's stays. (interop.test.ts shows the same race failing with re-planning off.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import { compactPaimon, DEFAULT_PAIMON_REPLANS } from '../../src/orchestration/compact-paimon.js';
import { isFloeError, type FloeError } from '../../src/errors.js';
import { javaPaimon } from '../oracles/index.js';
import { lines } from '../paimon-compaction/model.js';
import { AppendModel, FIELDS, allFiles } from './support.js';

const DV = { 'deletion-vectors.enabled': 'true', 'write-only': 'true' };
const avail = await javaPaimon.available();
if (!avail.ok) console.warn(`SKIPPED: Java Paimon oracle unavailable: ${avail.reason}`);
const temps: string[] = [];
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function raceTable(): Promise<{ wh: string; loc: string; m: AppendModel }> {
  const wh = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-replan-'));
  temps.push(wh);
  const m = new AppendModel();
  await javaPaimon.write(wh, {
    database: 'db',
    table: 'race',
    fields: FIELDS,
    partitionKeys: ['p'],
    options: DV,
    commits: [0, 1, 2, 3, 4, 5].map((c) => m.batch(c * 100, 10)),
  });
  return { wh, loc: path.join(wh, 'db.db', 'race'), m };
}

const read = async (wh: string) => lines(await javaPaimon.read(wh, { database: 'db', table: 'race' }));

describe.skipIf(!avail.ok)('Paimon compaction re-plans after a deletion-vector race', () => {
  it('one DELETE during the commit: the re-plan commits with it applied; no deleted row comes back', async () => {
    const { wh, loc, m } = await raceTable();
    let deletes = 0;
    const report = await compactPaimon(loc, {
      beforePublish: async () => {
        if (deletes++ > 0) return;
        await m.delete(wh, 'race', [1, 302]);
      },
    });
    expect(report.replans).toBe(1);
    expect(report.snapshotId).toBeDefined();
    const after = await openPaimonTable(loc);
    expect(after.snapshot!.commitKind).toBe('COMPACT');
    expect(await read(wh)).toEqual(m.lines());
  });

  it('a DELETE before every publish: reported after the bounded re-plans, naming the file; nothing left', async () => {
    const { wh, loc, m } = await raceTable();
    const before = (await openPaimonTable(loc)).snapshot!.id;
    let n = 0;
    const ids = [1, 101, 201, 301, 401, 501, 2, 102];
    const err = (await compactPaimon(loc, {
      beforePublish: async () => void (await m.delete(wh, 'race', [ids[n++]!])),
    }).catch((e: unknown) => e)) as FloeError;
    expect(isFloeError(err, 'CommitConflict')).toBe(true);
    expect(err.message).toMatch(/the deletion vector of \S+\.parquet.* changed/);
    expect(err.message).toContain(`re-planned ${DEFAULT_PAIMON_REPLANS} times`);
    expect(n).toBe(DEFAULT_PAIMON_REPLANS + 1);
    const after = await openPaimonTable(loc);
    // only Java's DELETE commits landed
    expect(after.snapshot!.id).toBe(before + BigInt(n));
    expect(after.snapshot!.commitKind).not.toBe('COMPACT');
    const live = new Set(allFiles(loc));
    for (const f of after.files) expect(live.has(f.path)).toBe(true);
    expect(await read(wh)).toEqual(m.lines());
  });
});
