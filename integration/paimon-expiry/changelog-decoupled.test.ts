/**
 * Issue 15.6: a Paimon table whose changelog outlives its snapshots (`changelog.num-retained.max` above the
 * snapshot retention), written by Java Paimon 1.3 (write-only, so Java never expires on commit). floe's
 * `expire` runs on the table (compacted by floe twice, so files are removed) and Java's own ExpireSnapshots + ExpireChangelog (the oracle's paimon-expire,
 * with the same ExpireConfig) on an identical copy; then:
 *   - both leave exactly the same files (names; changelog/changelog-N, both hint files, data, manifests);
 *   - Java reads the same rows from both;
 *   - Java's streaming read from an early position (a snapshot that now only lives as changelog/changelog-N)
 *     sees exactly the changes a reader of the never-expired table sees — no gap, no duplicate;
 * twice: the first run writes the long-lived changelogs, the second (after more Java writes) also expires
 * some of them. For changelog-producer `input` (changelog files) and `none` (the delta is the changelog).
 */
import {
  cpSync,
  mkdirSync,
  writeFileSync,
  readFileSync,
  readdirSync,
  rmSync,
  mkdtempSync,
  statSync,
  existsSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { javaMaintenance, javaPaimon, type PaimonChange } from '../oracles/index.js';
import { expireAction } from '../../src/shells/cli/commands/expire.js';
import { printMaintenance } from '../../src/shells/cli/maintenance-output.js';
import { compactPaimon } from '../../src/orchestration/compact-paimon.js';
import { removePaimonOrphanFiles } from '../../connectors/paimon/orphans.js';
import { FileIO } from '../../connectors/storage/index.js';
import { expirePaimonSnapshots } from '../../connectors/paimon/expire.js';
import { acquireS3 } from '../support/s3-server.js';
import { downloadDir, s3FileIO, uploadDir } from '../iceberg-compaction/helpers.js';

const javaOk = await javaPaimon.available();
if (!javaOk.ok) throw new Error(`java oracle unavailable (${javaOk.reason}); run bash scripts/setup-oracles.sh`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-cl-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function files(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (!n.startsWith('.')) out.push(path.relative(root, p)); // .crc files of Hadoop's local FS
    }
  };
  walk(root);
  return out.sort();
}
const hint = (t: string, f: string) => readFileSync(path.join(t, f), 'utf8').trim();

/** Commits upserting keys i % 5 (so later commits update earlier rows). */
const commits = (from: number, n: number): PaimonChange[][] =>
  Array.from({ length: n }, (_, k) => [
    { kind: '+I', row: { id: String((from + k) % 5), v: `v${from + k}` } } as PaimonChange,
    { kind: '+I', row: { id: String(100 + from + k), v: `w${from + k}` } } as PaimonChange,
  ]);

const RETENTION = {
  'snapshot.num-retained.min': '2',
  'snapshot.num-retained.max': '3',
  'snapshot.time-retained': '1 ms',
  'changelog.num-retained.max': '6',
  'changelog.time-retained': '1 h',
};
/** Java's ExpireConfig for the same retention (snapshot.expire.limit 50 is also its changelog limit). */
const JAVA_EXPIRE = {
  database: 'default',
  retainMin: 2,
  retainMax: 3,
  timeRetainMs: 1,
  maxDeletes: 50,
  changelogRetainMax: 6,
  changelogTimeRetainMs: 3_600_000,
};

/** A Java-written table (write-only: Java never expires it) compacted twice by floe: snapshots 1..10. */
async function build(warehouse: string, table: string, producer: string): Promise<string> {
  const spec = { database: 'default', table };
  const w = await javaPaimon.write(warehouse, {
    ...spec,
    fields: [
      { name: 'id', type: 'long' },
      { name: 'v', type: 'string' },
    ],
    primaryKeys: ['id'],
    options: { bucket: '1', 'changelog-producer': producer, 'write-only': 'true', ...RETENTION },
    commits: commits(0, 4),
  });
  const t = w.tablePath.replace(/^file:/, '');
  // COMPACT snapshots that remove appended files (floe's compaction: Java's would expire on commit)
  expect((await compactPaimon(t, { full: true })).snapshotId).toBeDefined();
  await javaPaimon.write(warehouse, { ...spec, commits: commits(4, 4) });
  expect((await compactPaimon(t, { full: true })).snapshotId).toBeDefined();
  return t;
}

async function stream(warehouse: string, table: string, from: number) {
  const r = await javaPaimon.stream(warehouse, {
    database: 'default',
    table,
    options: { 'scan.mode': 'from-snapshot', 'scan.snapshot-id': String(from) },
  });
  return r.rows;
}

describe('decoupled changelog lifecycle: floe expire against Java Paimon 1.3', () => {
  for (const producer of ['input', 'none']) {
    it(`changelog-producer=${producer}: same files as Java's expiry, same rows, streaming from an expired snapshot has no gap`, async () => {
      const table = `t_${producer}`;
      const floeWh = path.join(work, `floe-${producer}`);
      const spec = { database: 'default', table };
      const t = await build(floeWh, table, producer);
      expect(existsSync(path.join(t, 'changelog'))).toBe(false);
      const rel = path.relative(floeWh, t);
      const javaWh = path.join(work, `java-${producer}`);
      const pristineWh = path.join(work, `pristine-${producer}`);
      cpSync(floeWh, javaWh, { recursive: true });
      cpSync(floeWh, pristineWh, { recursive: true });
      const jt = path.join(javaWh, rel);
      const rows = await javaPaimon.read(floeWh, spec);

      // dry run: says what it would write and delete, changes nothing
      const before = files(t);
      const dry = await expireAction(t, { dryRun: true, lease: false });
      expect(files(t)).toEqual(before);
      let printed = '';
      printMaintenance(dry, true, (s) => (printed += s));
      const doc = JSON.parse(printed) as { details: Record<string, unknown> };
      // snapshots 1..8 expire (num-retained.max 3); changelogs below 10 − 6 + 1 = 5 expire at once
      expect(doc.details.expiredSnapshots).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
      expect((doc.details.changelogsWritten as string[]).map((l) => path.basename(l))).toEqual(
        ['5', '6', '7', '8'].map((i) => `changelog-${i}`),
      );
      expect(dry.candidates.length).toBeGreaterThan(0);

      const report = await expireAction(t, { lease: false });
      expect(report.failed).toEqual([]);
      expect(report.candidates.map((c) => c.location).sort()).toEqual(dry.candidates.map((c) => c.location).sort());
      const java = await javaMaintenance.paimonExpire(javaWh, { ...JAVA_EXPIRE, table });
      expect(java.expired).toBe(8);
      expect(files(t)).toEqual(files(jt));
      expect(readdirSync(path.join(t, 'changelog')).sort()).toEqual(
        ['EARLIEST', 'LATEST', 'changelog-5', 'changelog-6', 'changelog-7', 'changelog-8'].sort(),
      );
      for (const f of ['changelog/EARLIEST', 'changelog/LATEST', 'snapshot/EARLIEST'])
        expect(hint(t, f), f).toBe(hint(jt, f));
      expect(await javaPaimon.read(floeWh, spec)).toEqual(rows);
      expect(await javaPaimon.read(javaWh, spec)).toEqual(rows);
      // remove-orphans sees the long-lived changelogs' files as used
      const orphans = await removePaimonOrphanFiles(new FileIO(), t, { nowMs: Date.now() + 86_400_000, dryRun: true });
      expect(orphans.candidates).toEqual([]);
      // snapshot 5 now lives only as changelog/changelog-5: a streaming reader from there sees every change
      expect(existsSync(path.join(t, 'snapshot', 'snapshot-5'))).toBe(false);
      const expected = await stream(pristineWh, table, 5);
      expect(expected.length).toBeGreaterThan(0);
      expect(await stream(floeWh, table, 5)).toEqual(expected);
      expect(await stream(javaWh, table, 5)).toEqual(expected);

      // more Java writes, fresh copies, then a second expiry that also expires long-lived changelogs 5 and 6
      await javaPaimon.write(floeWh, { ...spec, commits: commits(8, 2) });
      const javaWh2 = path.join(work, `java2-${producer}`);
      const pristineWh2 = path.join(work, `pristine2-${producer}`);
      cpSync(floeWh, javaWh2, { recursive: true });
      cpSync(floeWh, pristineWh2, { recursive: true });
      const jt2 = path.join(javaWh2, rel);
      const second = await expireAction(t, { lease: false });
      expect(second.failed).toEqual([]);
      expect(second.details.expiredSnapshots).toEqual(['9', '10']);
      expect(second.details.expiredChangelogs).toEqual(['5', '6']);
      await javaMaintenance.paimonExpire(javaWh2, { ...JAVA_EXPIRE, table });
      expect(files(t)).toEqual(files(jt2));
      for (const f of ['changelog/EARLIEST', 'changelog/LATEST', 'snapshot/EARLIEST'])
        expect(hint(t, f), f).toBe(hint(jt2, f));
      expect(
        readdirSync(path.join(t, 'changelog'))
          .filter((n) => n.startsWith('changelog-'))
          .sort(),
      ).toEqual(['changelog-10', 'changelog-7', 'changelog-8', 'changelog-9']);
      const rows2 = await javaPaimon.read(pristineWh2, spec);
      expect(await javaPaimon.read(floeWh, spec)).toEqual(rows2);
      // the never-expired copy, given the same writes, is the reference for streaming from 7
      await javaPaimon.write(pristineWh, { ...spec, commits: commits(8, 2) });
      const expected7 = await stream(pristineWh, table, 7);
      expect(expected7.length).toBeGreaterThan(0);
      expect(await stream(floeWh, table, 7)).toEqual(expected7);
      expect(await stream(javaWh2, table, 7)).toEqual(expected7);
      // Java keeps writing on top of floe's expiry
      await javaPaimon.write(floeWh, { ...spec, commits: commits(10, 1) });
      await javaPaimon.write(pristineWh2, { ...spec, commits: commits(10, 1) });
      expect(await javaPaimon.read(floeWh, spec)).toEqual(await javaPaimon.read(pristineWh2, spec));
    }, 600_000);
  }

  it('a consumer (nextSnapshot 4) holds snapshot and changelog expiry back, as in Java', async () => {
    const table = 't_consumer';
    const floeWh = path.join(work, 'floe-consumer');
    const t = await build(floeWh, table, 'input');
    mkdirSync(path.join(t, 'consumer'));
    writeFileSync(path.join(t, 'consumer', 'consumer-c1'), '{"nextSnapshot":4}');
    const javaWh = path.join(work, 'java-consumer');
    cpSync(floeWh, javaWh, { recursive: true });
    const report = await expireAction(t, { lease: false });
    expect(report.details.expiredSnapshots).toEqual(['1', '2', '3']);
    const java = await javaMaintenance.paimonExpire(javaWh, { ...JAVA_EXPIRE, table });
    expect(java.expired).toBe(3);
    const jt = path.join(javaWh, path.relative(floeWh, t));
    expect(files(t)).toEqual(files(jt));
    // changelogs below min(10 − 2 + 1, consumer 4, latest changelog 3) = 3 expire; changelog-3 stays
    expect(readdirSync(path.join(t, 'changelog')).sort()).toEqual(['EARLIEST', 'LATEST', 'changelog-3']);
    for (const f of ['changelog/EARLIEST', 'changelog/LATEST', 'snapshot/EARLIEST'])
      expect(hint(t, f), f).toBe(hint(jt, f));
  }, 600_000);

  it('changelog-producer=none with a tag on snapshot 6: the tag keeps its files through snapshot and changelog expiry, as in Java', async () => {
    const table = 't_tag';
    const floeWh = path.join(work, 'floe-tag');
    const t = await build(floeWh, table, 'none');
    await javaMaintenance.paimonTag(floeWh, { database: 'default', table, name: 'keep', snapshotId: 6 });
    const tagRows = await javaMaintenance.paimonReadTag(floeWh, { database: 'default', table, tag: 'keep' });
    const javaWh = path.join(work, 'java-tag');
    cpSync(floeWh, javaWh, { recursive: true });
    const jt = path.join(javaWh, path.relative(floeWh, t));
    await expireAction(t, { lease: false });
    await javaMaintenance.paimonExpire(javaWh, { ...JAVA_EXPIRE, table });
    expect(files(t)).toEqual(files(jt));
    expect(await javaMaintenance.paimonReadTag(floeWh, { database: 'default', table, tag: 'keep' })).toEqual(tagRows);
  }, 600_000);

  it('on S3: floe writes the long-lived changelogs and hints through its S3 FileIO; same files as Java locally', async () => {
    const s3 = await acquireS3();
    if (!s3.available) throw new Error(`S3 test server unavailable (${s3.reason}); run bash scripts/setup-s3.sh`);
    try {
      const table = 't_s3';
      const floeWh = path.join(work, 'floe-s3');
      const t = await build(floeWh, table, 'input');
      const rel = path.relative(floeWh, t);
      const javaWh = path.join(work, 'java-s3');
      cpSync(floeWh, javaWh, { recursive: true });
      const prefix = `s3://${s3.server.bucket}/paimon-cl-${Date.now().toString(36)}/${rel}`;
      const io = s3FileIO(s3.server);
      await uploadDir(io, t, prefix);
      const report = await expirePaimonSnapshots(io, prefix, {});
      expect(report.failed).toEqual([]);
      expect(report.details.expiredSnapshots).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
      await javaMaintenance.paimonExpire(javaWh, { ...JAVA_EXPIRE, table });
      await downloadDir(io, prefix, t);
      io.destroy();
      const jt = path.join(javaWh, rel);
      expect(files(t)).toEqual(files(jt));
      for (const f of ['changelog/EARLIEST', 'changelog/LATEST', 'snapshot/EARLIEST'])
        expect(hint(t, f), f).toBe(hint(jt, f));
      expect(await stream(floeWh, table, 5)).toEqual(await stream(javaWh, table, 5));
    } finally {
      await s3.release();
    }
  }, 600_000);
});
