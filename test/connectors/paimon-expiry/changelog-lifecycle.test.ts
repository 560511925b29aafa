/**
 * Issue 15.6, decoupled changelog lifecycle on a copy of a real table (paimon-cpp pk_09: 8 snapshots,
 * APPEND/COMPACT alternating, changelog-producer none, deletion vectors) with changelog options added to its
 * schema. The expectations come from the table's own manifests, read before the run, and Java's rules
 * (ExpireSnapshotsImpl + ExpireChangelogImpl): expired snapshots the changelog retention covers become
 * changelog/changelog-N with the snapshot's JSON; a producer-none changelog keeps its base/delta lists and
 * manifests and every APPEND-sourced file its delta adds or removes; the latest changelog never expires.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileIO } from '../../../connectors/storage/index.js';
import { expirePaimonSnapshots } from '../../../connectors/paimon/expire.js';
import { removePaimonOrphanFiles } from '../../../connectors/paimon/orphans.js';
import { changelogExpiryEnd, changelogRetention } from '../../../connectors/paimon/changelog-lifecycle.js';
import { readManifest, readManifestList } from '../../../connectors/paimon/manifest.js';
import { scanPaimon } from '../../../connectors/paimon/scan.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURE = path.resolve(repoRoot, '../shared/fixtures/paimon-cpp/pk_09');
if (!existsSync(FIXTURE)) throw new Error(`fixture missing: ${FIXTURE} (see /work/shared/fixtures/MANIFEST.md)`);

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function walk(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((d) =>
      d.isDirectory() ? walk(path.join(dir, d.name), root) : [path.relative(root, path.join(dir, d.name))],
    )
    .sort();
}

/** A copy of pk_09 whose schema carries `options` on top of its own. */
function copyWith(options: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'floe-cl-'));
  temps.push(root);
  const t = path.join(root, 'pk_09');
  cpSync(FIXTURE, t, { recursive: true });
  setOptions(t, options);
  return t;
}
function setOptions(t: string, options: Record<string, string>, unset: string[] = []): void {
  const f = path.join(t, 'schema', 'schema-0');
  const s = JSON.parse(readFileSync(f, 'utf8')) as { options: Record<string, string> };
  Object.assign(s.options, options);
  for (const k of unset) delete s.options[k];
  writeFileSync(f, JSON.stringify(s));
}
/** A snapshot's JSON, or its long-lived changelog's once the snapshot expired. */
const snapJson = (t: string, id: number) =>
  JSON.parse(
    readFileSync(
      existsSync(path.join(t, 'snapshot', `snapshot-${id}`))
        ? path.join(t, 'snapshot', `snapshot-${id}`)
        : path.join(t, 'changelog', `changelog-${id}`),
      'utf8',
    ),
  ) as {
    baseManifestList: string;
    deltaManifestList: string;
  };

async function rows(t: string): Promise<string[]> {
  const out: string[] = [];
  for await (const r of scanPaimon(t))
    out.push(JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  return out.sort();
}

/** Data files a snapshot's delta names, split by FileSource (0 APPEND, absent = APPEND) and kind. */
async function delta(io: FileIO, t: string, id: number) {
  const out = { appendAdds: [] as string[], appendRemovals: [] as string[], compactAdds: [] as string[] };
  for (const m of await readManifestList(io, t, snapJson(t, id).deltaManifestList))
    for (const e of await readManifest(io, t, m.fileName)) {
      const append = (e.file.fileSource ?? 0) === 0;
      if (append) (e.kind === 0 ? out.appendAdds : out.appendRemovals).push(e.file.fileName);
      else if (e.kind === 0) out.compactAdds.push(e.file.fileName);
    }
  return out;
}
/** Every data file name the given lists (of snapshots or changelogs) name. */
async function names(io: FileIO, t: string, ids: number[], which: 'base' | 'delta'): Promise<Set<string>> {
  const out = new Set<string>();
  for (const id of ids) {
    const s = snapJson(t, id);
    for (const m of await readManifestList(io, t, which === 'base' ? s.baseManifestList : s.deltaManifestList))
      for (const e of await readManifest(io, t, m.fileName)) out.add(e.file.fileName);
  }
  return out;
}
async function listsAndManifests(io: FileIO, t: string, id: number): Promise<string[]> {
  const s = snapJson(t, id);
  const out = [s.baseManifestList, s.deltaManifestList];
  for (const l of [s.baseManifestList, s.deltaManifestList])
    for (const m of await readManifestList(io, t, l)) out.push(m.fileName);
  return out.map((n) => `manifest/${n}`);
}
const plain = (l: string) => l.replace(/^file:\/\//, '');
const dataFiles = (t: string) =>
  new Set(
    walk(t)
      .filter((f) => f.includes('bucket-'))
      .map((f) => path.basename(f)),
  );

describe('changelog expiry range (ExpireChangelogImpl.expire)', () => {
  const r = (o: Record<string, string>, run = {}) => changelogRetention(o, { nowMs: 10_000_000, ...run });
  it('num-retained.min counts back from the latest snapshot, never past the latest changelog', () => {
    const ids = [1n, 2n, 3n, 4n, 5n, 6n];
    const time = () => 0;
    expect(changelogExpiryEnd(ids, time, 8n, undefined, r({ 'changelog.num-retained.min': '5' }))).toBe(4n);
    expect(changelogExpiryEnd(ids, time, 8n, undefined, r({ 'changelog.num-retained.min': '1' }))).toBe(6n);
    expect(changelogExpiryEnd([], time, 8n, undefined, r({}))).toBeUndefined();
  });
  it('consumers, snapshot.expire.limit and changelog.time-retained lower the end', () => {
    const ids = [3n, 4n, 5n, 6n];
    const o = { 'changelog.num-retained.min': '2' };
    expect(changelogExpiryEnd(ids, () => 0, 8n, 4n, r(o))).toBe(4n);
    expect(changelogExpiryEnd(ids, () => 0, 8n, undefined, r({ ...o, 'snapshot.expire.limit': '2' }))).toBe(5n);
    // changelog 5 is younger than now − 5 s: it and everything after stay
    const times = new Map([
      [3n, 9_990_000],
      [4n, 9_994_000],
      [5n, 9_996_000],
      [6n, 9_997_000],
    ]);
    expect(
      changelogExpiryEnd(ids, (id) => times.get(id), 8n, undefined, r({ ...o, 'changelog.time-retained': '5 s' })),
    ).toBe(5n);
  });
  it('num-retained.max expires beyond the maximum regardless of time; max < min is refused', () => {
    const ids = [1n, 2n, 3n, 4n, 5n, 6n];
    const o = {
      'changelog.num-retained.min': '1',
      'changelog.num-retained.max': '4',
      'changelog.time-retained': '1 d',
    };
    expect(changelogExpiryEnd(ids, () => 9_999_000, 8n, undefined, r(o))).toBe(5n);
    expect(() =>
      changelogExpiryEnd(
        ids,
        () => 0,
        8n,
        undefined,
        r({ 'changelog.num-retained.min': '5', 'changelog.num-retained.max': '4' }),
      ),
    ).toThrow(/must not be below/);
  });
  it('unset changelog options follow the run’s snapshot retention (Java ExpireConfig.Builder)', () => {
    const x = r({ 'snapshot.num-retained.min': '3' }, { retainMin: 2, olderThanMs: 500 });
    expect([x.retainMin, x.olderThanMs, x.decoupled, x.producesChangelog]).toEqual([2n, 500, undefined, false]);
    expect(r({ 'changelog-producer': 'input', 'changelog.num-retained.min': '20' }).decoupled).toMatch(/exceeds/);
  });
});

describe('floe expire on a decoupled changelog-producer=none table (pk_09)', () => {
  it('writes changelog-4..6, expires changelog 1..3, keeps what the changelogs need, then expires changelog 4..5', async () => {
    const t = copyWith({ 'changelog.num-retained.min': '5' });
    const io = new FileIO();
    const before = await rows(t);
    const originals = new Map([4, 5, 6].map((i) => [i, readFileSync(path.join(t, 'snapshot', `snapshot-${i}`))]));
    const needed = new Set<string>();
    for (const i of [4, 5, 6, 7, 8]) {
      const d = await delta(io, t, i);
      for (const n of [...d.appendAdds, ...d.appendRemovals]) needed.add(n);
    }
    const neededMeta = new Set([
      ...(await listsAndManifests(io, t, 4)),
      ...(await listsAndManifests(io, t, 5)),
      ...(await listsAndManifests(io, t, 6)),
    ]);
    // files only snapshots/changelogs 1..3 name: gone after the run (their delta lists always are)
    const later = new Set([...(await names(io, t, [4, 5, 6, 7, 8], 'delta')), ...(await names(io, t, [7, 8], 'base'))]);
    const freed = [...(await names(io, t, [1, 2, 3], 'delta'))].filter((n) => !later.has(n));
    const freedLists = [1, 2, 3].map((i) => `manifest/${snapJson(t, i).deltaManifestList}`);
    const filesBefore = walk(t);
    const dry = await expirePaimonSnapshots(io, t, { retainMin: 2, dryRun: true });
    expect(walk(t)).toEqual(filesBefore);
    expect(dry.details.expiredSnapshots).toEqual(['1', '2', '3', '4', '5', '6']);
    expect((dry.details.changelogsWritten as string[]).map(plain)).toEqual(
      [4, 5, 6].map((i) => path.join(path.resolve(t), 'changelog', `changelog-${i}`)),
    );
    expect(dry.details.expiredChangelogs).toEqual([]); // 1..3 were never written: they expire at once
    expect(dry.details.hintsWritten).toHaveLength(2);

    const report = await expirePaimonSnapshots(io, t, { retainMin: 2 });
    expect(report.failed).toEqual([]);
    expect(report.candidates.map((c) => c.location).sort()).toEqual(dry.candidates.map((c) => c.location).sort());
    expect(await rows(t)).toEqual(before);
    expect(readdirSync(path.join(t, 'changelog')).sort()).toEqual([
      'EARLIEST',
      'LATEST',
      'changelog-4',
      'changelog-5',
      'changelog-6',
    ]);
    for (const [i, bytes] of originals)
      expect(readFileSync(path.join(t, 'changelog', `changelog-${i}`))).toEqual(bytes);
    expect(readFileSync(path.join(t, 'changelog', 'EARLIEST'), 'utf8')).toBe('4');
    expect(readFileSync(path.join(t, 'changelog', 'LATEST'), 'utf8')).toBe('6');
    expect(readFileSync(path.join(t, 'snapshot', 'EARLIEST'), 'utf8')).toBe('7');
    const left = dataFiles(t);
    for (const n of needed) expect(left.has(n), n).toBe(true);
    for (const n of freed) expect(left.has(n), n).toBe(false);
    const all = new Set(walk(t));
    for (const m of freedLists) expect(all.has(m), m).toBe(false);
    for (const m of neededMeta) expect(all.has(m), m).toBe(true);

    // changelog expiry alone: min 3 → changelogs 4 and 5 go (no snapshot expires), 6 stays as the latest
    setOptions(t, { 'changelog.num-retained.min': '3' });
    const later2 = new Set([...(await names(io, t, [6, 7, 8], 'delta')), ...(await names(io, t, [7, 8], 'base'))]);
    const freed2 = [...(await names(io, t, [4, 5], 'delta'))].filter((n) => !later2.has(n));
    const still = new Set<string>();
    for (const i of [6, 7, 8]) {
      const d = await delta(io, t, i);
      for (const n of [...d.appendAdds, ...d.appendRemovals]) still.add(n);
    }
    const freedLists2 = [4, 5].map((i) => `manifest/${snapJson(t, i).deltaManifestList}`);
    const keptLists2 = await listsAndManifests(io, t, 6);
    const second = await expirePaimonSnapshots(io, t, { retainMin: 2 });
    expect(second.details.expiredSnapshots).toEqual([]);
    expect(second.details.expiredChangelogs).toEqual(['4', '5']);
    expect(second.deleted.map(plain)).toEqual(
      expect.arrayContaining([path.join(path.resolve(t), 'changelog', 'changelog-4')]),
    );
    expect(readdirSync(path.join(t, 'changelog')).sort()).toEqual(['EARLIEST', 'LATEST', 'changelog-6']);
    expect(readFileSync(path.join(t, 'changelog', 'EARLIEST'), 'utf8')).toBe('6');
    expect(await rows(t)).toEqual(before);
    const left2 = dataFiles(t);
    for (const n of still) expect(left2.has(n), n).toBe(true);
    for (const n of freed2) expect(left2.has(n), n).toBe(false);
    const all2 = new Set(walk(t));
    for (const m of [...keptLists2, ...(await listsAndManifests(io, t, 7))]) expect(all2.has(m), m).toBe(true);
    for (const m of freedLists2) expect(all2.has(m), m).toBe(false);
    // a third run changes nothing
    const third = await expirePaimonSnapshots(io, t, { retainMin: 2 });
    expect(third.candidates).toEqual([]);
    // remove-orphans counts what the long-lived changelogs name as used: nothing is an orphan
    const orphans = await removePaimonOrphanFiles(io, t, { nowMs: Date.now() + 86_400_000, dryRun: true });
    expect(orphans.candidates).toEqual([]);
  });

  it('a consumer holds both snapshot and changelog expiry back', async () => {
    const t = copyWith({ 'changelog.num-retained.min': '5' });
    const io = new FileIO();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path.join(t, 'consumer'));
    writeFileSync(path.join(t, 'consumer', 'consumer-app'), '{"nextSnapshot":3}');
    const r = await expirePaimonSnapshots(io, t, { retainMin: 2 });
    expect(r.details.expiredSnapshots).toEqual(['1', '2']);
    // changelog end = min(8 − 5 + 1, consumer 3, latest changelog 2) = 2: changelog 1 goes, 2 stays
    expect(readdirSync(path.join(t, 'changelog')).sort()).toEqual(['EARLIEST', 'LATEST', 'changelog-2']);
  });

  it('long-lived changelogs of an earlier configuration are neither written nor expired, and keep their files', async () => {
    const t = copyWith({ 'changelog.num-retained.min': '5' });
    const io = new FileIO();
    await expirePaimonSnapshots(io, t, { retainMin: 2 });
    setOptions(t, {}, ['changelog.num-retained.min']);
    const keep = new Set<string>();
    for (const i of [4, 5, 6]) {
      const d = await delta(io, t, i);
      for (const n of [...d.appendAdds, ...d.appendRemovals]) keep.add(n);
    }
    const meta = [...(await listsAndManifests(io, t, 4)), ...(await listsAndManifests(io, t, 6))];
    const r = await expirePaimonSnapshots(io, t, { retainMin: 1 });
    expect(r.details.expiredSnapshots).toEqual(['7']);
    expect(readdirSync(path.join(t, 'changelog')).sort()).toEqual([
      'EARLIEST',
      'LATEST',
      'changelog-4',
      'changelog-5',
      'changelog-6',
    ]);
    const left = dataFiles(t);
    for (const n of keep) expect(left.has(n), n).toBe(true);
    const all = new Set(walk(t));
    for (const m of meta) expect(all.has(m), m).toBe(true);
  });

  it('a run killed after writing the changelogs, before dropping the snapshots: the next run ends where a clean run does', async () => {
    const clean = copyWith({ 'changelog.num-retained.min': '5' });
    await expirePaimonSnapshots(new FileIO(), clean, { retainMin: 2 });
    const t = copyWith({ 'changelog.num-retained.min': '5' });
    class KilledAtFirstRemove extends FileIO {
      override async remove(location: string): Promise<void> {
        throw new Error(`killed before removing ${location}`);
      }
    }
    await expect(expirePaimonSnapshots(new KilledAtFirstRemove(), t, { retainMin: 2 })).rejects.toThrow(/killed/);
    expect(readdirSync(path.join(t, 'changelog')).sort()).toEqual([
      'LATEST',
      'changelog-4',
      'changelog-5',
      'changelog-6',
    ]);
    expect(existsSync(path.join(t, 'snapshot', 'snapshot-1'))).toBe(true);
    expect(await rows(t)).toEqual(await rows(clean));
    rmSync(path.join(t, 'changelog', 'LATEST')); // as if killed before the hint, too
    const r = await expirePaimonSnapshots(new FileIO(), t, { retainMin: 2 });
    expect(r.details.changelogsWritten).toEqual([]); // already there
    expect(walk(t)).toEqual(walk(clean));
  });

  it('without changelog options the changelog still expires with the snapshots (nothing written)', async () => {
    const t = copyWith({});
    const r = await expirePaimonSnapshots(new FileIO(), t, { retainMin: 2 });
    expect(r.details.expiredSnapshots).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(existsSync(path.join(t, 'changelog'))).toBe(false);
  });
});
