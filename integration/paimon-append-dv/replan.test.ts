/**
 * A Java DELETE (deletion vectors on an append table) landing while floe compacts the same files. By
 * default floe carries the deleted rows over to its rewritten files in the same commit (issue 22.2,
 * connectors/paimon/dv-carry-over.ts): no re-plan, Java reads exactly its rows. With
 * `floe.rebase-concurrent-deletes=false` the commit is abandoned (the rows it rewrote would bring deleted
 * rows back) and compactPaimon re-plans on the newest snapshot, a bounded number of times: one race → the
 * re-plan commits with the DELETE applied; a DELETE before every publish → after DEFAULT_PAIMON_REPLANS
 * re-plans the conflict is reported, naming the file, and nothing of floe's stays. (interop.test.ts: the
 * same race failing with carrying over and re-planning off.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import { compactPaimon, DEFAULT_PAIMON_REPLANS } from '../../src/orchestration/compact-paimon.js';
import { isFloeError, type FloeError } from '../../util/errors.js';
import { javaPaimon } from '../oracles/index.js';
import { lines } from '../paimon-compaction/model.js';
import { AppendModel, FIELDS, allFiles } from './support.js';

const DV = { 'deletion-vectors.enabled': 'true', 'write-only': 'true' };
const NO_CARRY = { 'floe.rebase-concurrent-deletes': 'false' };
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

describe.skipIf(!avail.ok)('Paimon compaction carries over, or re-plans after, a deletion-vector race', () => {
  it('one DELETE during the commit: carried over to the rewritten files in the same run; no deleted row comes back', async () => {
    const { wh, loc, m } = await raceTable();
    let deletes = 0;
    const report = await compactPaimon(loc, {
      beforePublish: async () => {
        if (deletes++ > 0) return;
        await m.delete(wh, 'race', [1, 302]);
      },
    });
    expect(report.replans).toBeUndefined();
    expect(report.carriedDeletes).toBeGreaterThan(0);
    expect(report.carriedDeletes).toBeLessThanOrEqual(2);
    expect(report.commitAttempts).toBe(2);
    const after = await openPaimonTable(loc);
    expect(after.snapshot!.commitKind).toBe('COMPACT');
    // the rewritten files carry the DVs; none of the replaced files is still live
    expect(after.files.filter((f) => f.dv).length).toBeGreaterThan(0);
    expect(await read(wh)).toEqual(m.lines());
    // Java keeps writing and compacting on top
    await m.delete(wh, 'race', [2, 303]);
    await javaPaimon.compact(wh, { database: 'db', table: 'race', full: true });
    expect(await read(wh)).toEqual(m.lines());
  });

  it('carrying over off, one DELETE during the commit: the re-plan commits with it applied; no deleted row comes back', async () => {
    const { wh, loc, m } = await raceTable();
    let deletes = 0;
    const report = await compactPaimon(loc, {
      options: NO_CARRY,
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

  it('carrying over off, a DELETE before every publish: reported after the bounded re-plans, naming the file; nothing left', async () => {
    const { wh, loc, m } = await raceTable();
    const before = (await openPaimonTable(loc)).snapshot!.id;
    let n = 0;
    const ids = [1, 101, 201, 301, 401, 501, 2, 102];
    const err = (await compactPaimon(loc, {
      options: NO_CARRY,
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
