/**
 * Paimon snapshot expiry that streaming users rely on, against Java Paimon 1.3's own ExpireSnapshots on a
 * copy of the same warehouse (same retention): a registered consumer (`consumer/consumer-<id>` with
 * `nextSnapshot`) holds expiry back to the snapshot it reads next; with `changelog-producer=input` the
 * changelog files of expired snapshots go with them (changelog retention not decoupled). Each case: the
 * same EARLIEST, the same files left behind, and Java reads the same rows afterwards.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { javaMaintenance, javaPaimon, type PaimonChange } from '../oracles/index.js';
import { expireAction } from '../../src/shells/cli/commands/expire.js';
import { copyDir } from '../maintenance-interop/helpers.js';

const javaOk = await javaPaimon.available();
if (!javaOk.ok) throw new Error(`java oracle unavailable (${javaOk.reason}); run bash scripts/setup-oracles.sh`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-exp2-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function files(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(path.relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

function commit(i: number): PaimonChange[] {
  const out: PaimonChange[] = [];
  for (let id = 2 * i; id < 2 * i + 4; id++) out.push({ kind: '+I', row: { id: String(id), v: `v${id}-${i}` } });
  if (i >= 2) out.push({ kind: '-D', row: { id: String(i - 2), v: null } });
  return out;
}

async function build(wh: string, name: string, options: Record<string, string>, n: number): Promise<string> {
  const w = await javaPaimon.write(wh, {
    database: 'default',
    table: name,
    fields: [
      { name: 'id', type: 'long' },
      { name: 'v', type: 'string' },
    ],
    primaryKeys: ['id'],
    options: { bucket: '1', 'num-sorted-run.compaction-trigger': '2', ...options },
    commits: Array.from({ length: n }, (_, i) => commit(i)),
  });
  return w.tablePath.replace(/^file:/, '');
}

describe('consumer-aware expiry vs Java', () => {
  it('a consumer at nextSnapshot 4 keeps snapshots 4.. even with retain-last 1; same files as Java', async () => {
    const wh = path.join(work, 'consumer');
    const T = { database: 'default', table: 'c' };
    const table = await build(wh, 'c', {}, 8);
    mkdirSync(path.join(table, 'consumer'), { recursive: true });
    writeFileSync(path.join(table, 'consumer', 'consumer-reader1'), '{\n  "nextSnapshot" : 4\n}');
    writeFileSync(path.join(table, 'consumer', 'consumer-reader2'), '{\n  "nextSnapshot" : 6\n}');
    const rowsBefore = await javaPaimon.read(wh, T);
    const copyWh = `${wh}-java`;
    await copyDir(wh, copyWh);
    const copyTable = path.join(copyWh, path.relative(wh, table));
    const r = await expireAction(table, { retainLast: '1', olderThan: String(Date.now() + 60_000), lease: false });
    await javaMaintenance.paimonExpire(copyWh, { ...T, retainMin: 1, timeRetainMs: 0 });
    expect(r.details.expiredSnapshots).toEqual(['1', '2', '3']);
    const info = await javaMaintenance.paimonInfo(wh, T);
    expect(info.earliest).toBe('4');
    expect((await javaMaintenance.paimonInfo(copyWh, T)).earliest).toBe('4');
    expect(files(table)).toEqual(files(copyTable));
    expect(await javaPaimon.read(wh, T)).toEqual(rowsBefore);
    // the consumer's snapshot itself still reads
    expect((await javaPaimon.read(wh, { ...T, snapshotId: '4' })).length).toBeGreaterThan(0);
  }, 240_000);
});

describe('changelog-producer=input: changelog files expire with their snapshots, as in Java', () => {
  it("deletes the expired snapshots' changelog files and keeps the retained ones; same files as Java", async () => {
    const wh = path.join(work, 'changelog');
    const T = { database: 'default', table: 'cl' };
    const table = await build(wh, 'cl', { 'changelog-producer': 'input', 'write-only': 'true' }, 7);
    const changelogFiles = (root: string) => files(root).filter((f) => path.basename(f).startsWith('changelog-'));
    const before = changelogFiles(table);
    expect(before.length).toBeGreaterThan(3);
    const rowsBefore = await javaPaimon.read(wh, T);
    const copyWh = `${wh}-java`;
    await copyDir(wh, copyWh);
    const copyTable = path.join(copyWh, path.relative(wh, table));
    await expireAction(table, { retainLast: '3', olderThan: String(Date.now() + 60_000), lease: false });
    await javaMaintenance.paimonExpire(copyWh, { ...T, retainMin: 3, timeRetainMs: 0 });
    const after = changelogFiles(table);
    expect(after.length).toBeLessThan(before.length);
    expect(after.length).toBeGreaterThan(0);
    expect(files(table)).toEqual(files(copyTable));
    expect(await javaPaimon.read(wh, T)).toEqual(rowsBefore);
  }, 240_000);
});
