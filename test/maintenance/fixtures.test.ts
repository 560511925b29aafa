/**
 * Expire and remove-orphans on copies of real tables written by Java/Spark/Flink (copied to a temp dir at
 * test time; the fixtures themselves are never touched), plus safety rules: dry runs change nothing,
 * in-flight files survive, gc.enabled=false refuses, unreadable retained manifests stop data deletion.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openForMaintenance } from '../../connectors/iceberg/expire-table.js';
import { removeOrphanFiles } from '../../connectors/iceberg/orphans.js';
import { expireSnapshots } from '../../connectors/iceberg/expire.js';
import { isFloeError } from '../../util/errors.js';
import { History, TABLE, reachableFiles } from './history.js';

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

/** Copies a fixture table and ages every file by `ageDays`. */
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

const snapshotOf = (dir: string) =>
  walk(dir)
    .map((f) => `${f}:${statSync(f).size}`)
    .sort();

describe('remove-orphans on copies of real tables', () => {
  it('finds exactly the planted orphans and the .avro_tmp leftover; dry run changes nothing', async () => {
    const t = copyFixture('impala/iceberg_v2_equality_delete_schema_evolution');
    const expected = new Set([
      plantIn(t, 'data/d=2024-03-20/orphan-1.parquet', 5),
      plantIn(t, 'metadata/stray-manifest.avro', 5),
      plantIn(t, 'elsewhere/x.bin', 5),
      `file://${t}/metadata/snap-5816823095034839884-1-fb7a4022-ee0a-4540-87d8-b8fa8e4c8596.avro_tmp`, // MANIFEST.md: an orphan
    ]);
    plantIn(t, 'data/d=2024-03-20/in-flight.parquet', 0.5); // younger than 3 days
    plantIn(t, 'data/_temporary/0/part.parquet', 5); // hidden (Java skips _ and . paths)
    plantIn(t, 'data/.part.parquet.crc', 5);

    const before = snapshotOf(t);
    const dry = await removeOrphanFiles(await openForMaintenance(t), { dryRun: true });
    expect(new Set(dry.candidates.map((c) => c.location))).toEqual(expected);
    expect(dry.deleted).toEqual([]);
    expect(snapshotOf(t)).toEqual(before);

    const real = await removeOrphanFiles(await openForMaintenance(t));
    expect(new Set(real.deleted)).toEqual(expected);
    const after = walk(t).map((f) => `file://${f}`);
    for (const e of expected) expect(after).not.toContain(e);
    expect(before.length - after.length).toBe(expected.size);
    // every file the table reaches is still there
    const table = await openForMaintenance(t);
    const reach = await reachableFiles(table.io, table.metadata.raw, table.metadataLocation);
    for (const f of reach) expect(after).toContain(f);
    // idempotent: a second run finds nothing
    expect((await removeOrphanFiles(await openForMaintenance(t))).candidates).toEqual([]);
  });

  // floe keeps version-hint.txt (Impala's hand-converted tables carry it) although Java would delete it.
  it('hand-renamed metadata: v1..v3 are not in the metadata-log, so (as in Java) they are orphans — with a warning', async () => {
    const t = copyFixture('impala/iceberg_v2_delete_equality');
    const report = await removeOrphanFiles(await openForMaintenance(t), { dryRun: true });
    const names = report.candidates.map((c) => path.basename(c.location)).sort();
    expect(names).toEqual(['v1.metadata.json', 'v2.metadata.json', 'v3.metadata.json']);
    expect(report.warnings.join(' ')).toMatch(/renamed by hand/);
  });

  it('refuses a window shorter than 24 hours unless forced; young files survive even then', async () => {
    const t = copyFixture('icebird/spark_bunnies');
    const young = plantIn(t, 'data/new-writer.parquet', 0);
    let err: unknown;
    try {
      await removeOrphanFiles(await openForMaintenance(t), { olderThanMs: Date.now() - 3_600_000 });
    } catch (e) {
      err = e;
    }
    expect(isFloeError(err, 'InvalidArgument')).toBe(true);
    const forced = await removeOrphanFiles(await openForMaintenance(t), {
      olderThanMs: Date.now() - 3_600_000,
      force: true,
      dryRun: true,
    });
    expect(forced.candidates.map((c) => c.location)).not.toContain(young);
  });
});

describe('expire on copies of real tables', () => {
  it('java_bunnies (s3a location): expires old snapshots, deletes exactly the files only they reached', async () => {
    const t = copyFixture('icebird/java_bunnies');
    const table = await openForMaintenance(t);
    const reachBefore = await reachableFiles(table.io, table.metadata.raw, table.metadataLocation);
    const filesBefore = walk(t).map((f) => `file://${f}`);
    const dry = await expireSnapshots(table, { retainLast: 1, olderThanMs: Date.now(), dryRun: true });
    expect(
      walk(t)
        .map((f) => `file://${f}`)
        .sort(),
    ).toEqual([...filesBefore].sort()); // dry run: nothing changed
    const report = await expireSnapshots(await openForMaintenance(t), { retainLast: 1, olderThanMs: Date.now() });
    expect(report.warnings).toEqual([]);
    const after = await openForMaintenance(t);
    expect(after.metadataLocation).toMatch(/v6\.metadata\.json$/);
    expect(after.metadata.snapshots.map((s) => s.snapshotId)).toEqual([table.metadata.currentSnapshotId]);
    const reachAfter = await reachableFiles(after.io, after.metadata.raw, after.metadataLocation);
    const filesAfter = new Set(walk(t).map((f) => `file://${f}`));
    const deleted = filesBefore.filter((f) => !filesAfter.has(f));
    const expectedDeleted = [...reachBefore].filter((f) => !reachAfter.has(f));
    expect(new Set(deleted)).toEqual(new Set(expectedDeleted));
    expect(new Set(dry.candidates.map((c) => after.io.map(c.location)))).toEqual(new Set(expectedDeleted));
    for (const f of reachAfter) expect(filesAfter.has(f)).toBe(true);
  });

  it('equality_deletes_mytable: a missing manifest list of an expired snapshot is reported, the rest is cleaned', async () => {
    const t = copyFixture('duckdb-iceberg/equality_deletes_mytable');
    const report = await expireSnapshots(await openForMaintenance(t), { retainLast: 1, olderThanMs: Date.now() });
    expect(report.warnings.some((w) => w.includes('7342794868382145167'))).toBe(true);
    const after = await openForMaintenance(t);
    const reach = await reachableFiles(after.io, after.metadata.raw, after.metadataLocation);
    const files = new Set(walk(t).map((f) => `file://${f}`));
    for (const f of reach) expect(files.has(f)).toBe(true);
    expect(report.deleted.length).toBeGreaterThan(0);
  });
});

describe('safety rules on synthetic tables', () => {
  it('gc.enabled=false refuses expire and remove-orphans, naming the reason', async () => {
    const h = await History.create({ 'gc.enabled': 'false' });
    await h.commit('main', 'append', { add: 2 });
    const md = await h.metadata();
    const table = { io: h.io, tableLocation: TABLE, metadataLocation: md.location, metadata: md.md, ops: h.ops };
    await expect(expireSnapshots(table, { olderThanMs: h.now + 1 })).rejects.toThrow(/gc\.enabled=false/);
    await expect(removeOrphanFiles(table, { nowMs: Date.now() + 10 * DAY })).rejects.toThrow(/gc\.enabled=false/);
  });

  it("an uncommitted writer's young files survive remove-orphans (and are orphans once old)", async () => {
    const h = await History.create();
    await h.commit('main', 'append', { add: 2 });
    const inflight = `${TABLE}/data/uncommitted-writer.parquet`;
    await h.io.overwrite(inflight, Buffer.from('being written'));
    const md = await h.metadata();
    const table = { io: h.io, tableLocation: TABLE, metadataLocation: md.location, metadata: md.md, ops: h.ops };
    const now = await removeOrphanFiles(table, {});
    expect(now.candidates).toEqual([]);
    expect(await h.io.exists(inflight)).toBe(true);
    const later = await removeOrphanFiles(table, { nowMs: Date.now() + 4 * DAY, dryRun: true });
    expect(later.candidates.map((c) => c.location)).toEqual([h.io.map(inflight)]);
  });

  it('an unreadable retained manifest cancels data-file deletion (Java fail-safe) but the commit stands', async () => {
    const h = await History.create();
    await h.commit('main', 'append', { add: 2 });
    await h.commit('main', 'append', { add: 1 });
    await h.commit('main', 'replace', { remove: [0], add: 1 }); // s3 rewrites all entries into one manifest
    await h.commit('main', 'append', { add: 1 }); // s4 keeps s3's manifest
    const md = await h.metadata();
    const s3 = md.md.snapshots[2]!;
    const raw = await h.io.read(s3.manifestList!);
    const { readAvroContainer } = await import('../../connectors/formats/avro.js');
    const shared = String((readAvroContainer(raw, 'x').records[0] as Record<string, unknown>).manifest_path);
    // present but unreadable (a missing one is refused before the commit: validate-expiry.ts)
    await h.io.overwrite(shared, Buffer.from('not an avro file'));
    const before = await h.allFiles();
    const table = { io: h.io, tableLocation: TABLE, metadataLocation: md.location, metadata: md.md, ops: h.ops };
    const report = await expireSnapshots(table, { olderThanMs: h.now + 1, retainLast: 1 });
    expect(report.details.expiredSnapshots).toHaveLength(3);
    expect(report.warnings.join(' ')).toMatch(/no data or delete files are deleted/);
    const after = await h.allFiles();
    const deletedData = [...before].filter((f) => !after.has(f) && f.includes('/data/'));
    expect(deletedData).toEqual([]);
    expect(report.candidates.every((c) => c.kind === 'manifest' || c.kind === 'manifest-list')).toBe(true);
  });
});
