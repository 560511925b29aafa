/**
 * Paimon expire / remove-orphans on copies of Java-written tables, Iceberg rewrite-manifests on a synthetic
 * history, and the CLI actions end to end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileIO } from '../../connectors/storage/index.js';
import { expirePaimonSnapshots } from '../../connectors/paimon/expire.js';
import { removePaimonOrphanFiles } from '../../connectors/paimon/orphans.js';
import { scanPaimon } from '../../connectors/paimon/scan.js';
import { rewriteManifests } from '../../connectors/iceberg/rewrite-manifests.js';
import { readManifest, readManifestList, allFieldsById } from '../../connectors/iceberg/manifests.js';
import { expireAction } from '../../src/shells/cli/commands/expire.js';
import { removeOrphansAction } from '../../src/shells/cli/commands/remove-orphans.js';
import { History, TABLE } from './history.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.resolve(repoRoot, '../shared/fixtures');
const DAY = 86_400_000;
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(path.join(dir, d.name)) : [path.join(dir, d.name)],
  );
}
function copyFixture(rel: string, ageDays = 10): string {
  const root = mkdtempSync(path.join(tmpdir(), 'floe-maint-'));
  temps.push(root);
  const dest = path.join(root, path.basename(rel));
  cpSync(path.join(FIXTURES, rel), dest, { recursive: true });
  const t = new Date(Date.now() - ageDays * DAY);
  for (const f of walk(dest)) utimesSync(f, t, t);
  return dest;
}
function plantIn(table: string, rel: string, ageDays: number): string {
  const p = path.join(table, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, 'orphan bytes');
  const t = new Date(Date.now() - ageDays * DAY);
  utimesSync(p, t, t);
  return `file://${p}`;
}
async function rows(table: string): Promise<string[]> {
  const out: string[] = [];
  for await (const r of scanPaimon(table))
    out.push(JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  return out.sort();
}

describe('Paimon expire', () => {
  it('pk_09: expires snapshots 1..6 (num-retained.min 2), keeps the data of 7 and 8, moves EARLIEST', async () => {
    const t = copyFixture('paimon-cpp/pk_09');
    const before = await rows(t);
    expect(before).toHaveLength(9); // MANIFEST.md
    const io = new FileIO();
    const dry = await expirePaimonSnapshots(io, t, { retainMin: 2, dryRun: true });
    expect(dry.details.expiredSnapshots).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(existsSync(path.join(t, 'snapshot', 'snapshot-1'))).toBe(true);
    const report = await expirePaimonSnapshots(io, t, { retainMin: 2 });
    expect(report.failed).toEqual([]);
    for (let i = 1; i <= 6; i++) expect(existsSync(path.join(t, 'snapshot', `snapshot-${i}`))).toBe(false);
    expect(readFileSync(path.join(t, 'snapshot', 'EARLIEST'), 'utf8')).toBe('7');
    expect(await rows(t)).toEqual(before); // the latest snapshot still reads completely
    expect(report.candidates.some((c) => c.kind === 'data')).toBe(true); // compactions freed old files
    // nothing left for orphan cleanup except what expiry could not know about
    const orphans = await removePaimonOrphanFiles(io, t, { nowMs: Date.now() + DAY, dryRun: true });
    expect(orphans.candidates).toEqual([]);
  });

  it('respects snapshot.time-retained: young snapshots stop the range', async () => {
    const t = copyFixture('paimon-cpp/pk_09');
    const io = new FileIO();
    // a cutoff before every snapshot: nothing may go
    const r = await expirePaimonSnapshots(io, t, { retainMin: 1, olderThanMs: 0, dryRun: true });
    expect(r.details.expiredSnapshots).toEqual([]);
  });
});

describe('Paimon remove-orphans', () => {
  it('finds exactly the planted files; schema/ and young files are never candidates', async () => {
    const t = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
    const partition = readdirSync(t).find((d) => d.includes('='))!;
    const expected = new Set([
      plantIn(t, `${partition}/bucket-0/data-orphan-0.parquet`, 5),
      plantIn(t, 'manifest/manifest-orphan-0', 5),
      plantIn(t, 'snapshot/.snapshot-99.0e3c.tmp', 5),
    ]);
    plantIn(t, `${partition}/bucket-0/data-young-0.parquet`, 0.2);
    plantIn(t, 'schema/.schema-9.tmp', 5);
    const io = new FileIO();
    const before = walk(t).sort();
    const dry = await removePaimonOrphanFiles(io, t, { dryRun: true });
    expect(new Set(dry.candidates.map((c) => c.location))).toEqual(expected);
    expect(walk(t).sort()).toEqual(before);
    const real = await removePaimonOrphanFiles(io, t);
    expect(new Set(real.deleted)).toEqual(expected);
    expect(await rows(t)).toHaveLength(11); // MANIFEST.md
  });
});

describe('rewrite-manifests', () => {
  it('merges many small manifests into one; live files, snapshot ids and sequence numbers unchanged', async () => {
    const h = await History.create();
    for (let i = 0; i < 4; i++) await h.commit('main', 'append', { add: 2 });
    await h.commit('main', 'delete', { remove: [1] });
    for (let i = 0; i < 3; i++) await h.commit('main', 'append', { add: 1 });
    const live = async () => {
      const { md } = await h.metadata();
      const snap = md.snapshots.find((s) => s.snapshotId === md.currentSnapshotId)!;
      const mfs = await readManifestList(h.io, md, snap);
      const files: string[] = [];
      for (const mf of mfs) {
        for (const e of await readManifest(h.io, mf, { md, fieldsById: allFieldsById(md) })) {
          if (e.status !== 'DELETED')
            files.push(`${e.file.path}|${e.snapshotId}|${e.file.dataSequenceNumber}|${e.file.fileSequenceNumber}`);
        }
      }
      return { manifests: mfs.length, files: files.sort(), md };
    };
    const before = await live();
    expect(before.manifests).toBe(4);
    const md = await h.metadata();
    const table = { io: h.io, tableLocation: TABLE, metadataLocation: md.location, metadata: md.md, ops: h.ops };
    const dry = await rewriteManifests(table, { dryRun: true });
    expect(dry.details).toMatchObject({ manifestsBefore: 4, manifestsAfter: 1 });
    expect((await live()).manifests).toBe(4);
    const report = await rewriteManifests(table);
    expect(report.details.committed).toBe(true);
    const after = await live();
    expect(after.manifests).toBe(1);
    expect(after.files).toEqual(before.files);
    const snap = after.md.snapshots.at(-1)!;
    expect(snap.summary?.operation).toBe('replace');
    expect(snap.summary?.['manifests-replaced']).toBe('4');
    // a second run has nothing to do
    expect((await rewriteManifests({ ...table, metadata: after.md })).details.committed).toBe(false);
  });
});

describe('CLI actions', () => {
  it('expire --dry-run and remove-orphans --json on a table directory', async () => {
    const t = copyFixture('icebird/spark_bunnies');
    const before = walk(t).sort();
    const r = await expireAction(t, { dryRun: true, olderThan: '1d', retainLast: '1' });
    expect(r.dryRun).toBe(true);
    expect(r.candidates.length).toBeGreaterThan(0);
    expect(walk(t).sort()).toEqual(before);
    const orphan = plantIn(t, 'data/stray.parquet', 5);
    const o = await removeOrphansAction(t, { olderThan: '2d' });
    expect(o.deleted).toEqual([orphan]);
    await expect(removeOrphansAction(t, { olderThan: '2h' })).rejects.toThrow(/24 hours/);
    await expect(removeOrphansAction(t, { prefixMismatch: 'maybe' })).rejects.toThrow(/prefix-mismatch/);
  });
});
