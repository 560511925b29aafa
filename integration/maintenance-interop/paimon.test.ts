/**
 * Snapshot expiry and orphan removal against Java Paimon, on a primary-key table Java wrote: 12 batch
 * commits of upserts and deletes (with Paimon's own compactions in between, so files get compacted away)
 * and a tag on an early snapshot. `floe expire --retain-last 3 --older-than <now>` must:
 * - expire every snapshot but the last 3 (moving EARLIEST), as Java's own ExpireSnapshots does on a copy
 *   of the warehouse with the same settings (retain-min 3, time-retained 0);
 * - leave the latest snapshot, every retained snapshot and the tag reading the same rows in Java;
 * - delete exactly the files reachable only from the expired snapshots (derived from Java's own listing
 *   of each snapshot's and tag's manifest lists, manifests and live data files), and the expired
 *   snapshot files — the same files Java's expiry deletes on the copy.
 * `floe remove-orphans` then deletes planted old orphans and keeps a young one; a forced zero-window dry
 * run finds nothing else unreferenced.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { expireAction } from '../../src/shells/cli/commands/expire.js';
import { removeOrphansAction } from '../../src/shells/cli/commands/remove-orphans.js';
import type { MaintenanceReport } from '../../src/app/maintenance-report.js';
import {
  type CanonicalRow,
  type PaimonChange,
  type PaimonTableInfo,
  diffRows,
  javaMaintenance,
  javaPaimon,
} from '../oracles/index.js';
import { skipLoudly } from '../iceberg-compaction/helpers.js';
import { copyDir, listFiles, localPath, minus, normSet, paimonReach, plant, sorted } from './helpers.js';

const javaOk = await javaMaintenance.available();
if (!javaOk.ok) console.warn(`\n!!! SKIPPED: java oracle unavailable: ${javaOk.reason}\n`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-maint-paimon-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const DAY = 86_400_000;
const RETAIN = 3;
const T = { database: 'default', table: 't' };

/** Commit i upserts ids [3i, 3i+6) with version i and deletes id i−1 (from commit 2 on). */
function commit(i: number): PaimonChange[] {
  const out: PaimonChange[] = [];
  for (let id = 3 * i; id < 3 * i + 6; id++) out.push({ kind: '+I', row: { id: String(id), v: `v${id}-${i}`, n: i } });
  if (i >= 2) out.push({ kind: '-D', row: { id: String(i - 1), v: null, n: null } });
  return out;
}

interface Run {
  table: string;
  before: PaimonTableInfo;
  tagSnapshot: string;
  snapRows: Map<string, CanonicalRow[]>;
  latestRows: CanonicalRow[];
  tagRows: CanonicalRow[];
  filesBefore: Set<string>;
  expire: MaintenanceReport;
  filesAfterExpire: Set<string>;
  after: PaimonTableInfo;
  javaCopy: { table: string; files: Set<string>; info: PaimonTableInfo; expired: number };
  oldOrphans: string[];
  youngOrphan: string;
  orphans: MaintenanceReport;
  filesAfterOrphans: Set<string>;
  forcedDryRun: MaintenanceReport;
}

async function buildAndMaintain(wh: string): Promise<Run> {
  const w = await javaPaimon.write(wh, {
    ...T,
    fields: [
      { name: 'id', type: 'long' },
      { name: 'v', type: 'string' },
      { name: 'n', type: 'int' },
    ],
    primaryKeys: ['id'],
    // Paimon compacts during the writes (sorted-run trigger 3), so some files live only in old snapshots
    options: { bucket: '2', 'num-sorted-run.compaction-trigger': '3' },
    commits: Array.from({ length: 12 }, (_, i) => commit(i)),
  });
  const table = localPath(w.tablePath);
  const tagSnapshot = '3';
  await javaMaintenance.paimonTag(wh, { ...T, name: 'early', snapshotId: tagSnapshot });

  const before = await javaMaintenance.paimonInfo(wh, T);
  const snapRows = new Map<string, CanonicalRow[]>();
  for (const s of before.snapshots) snapRows.set(s.id, await javaPaimon.read(wh, { ...T, snapshotId: s.id }));
  const latestRows = await javaPaimon.read(wh, T);
  const tagRows = await javaMaintenance.paimonReadTag(wh, { ...T, tag: 'early' });

  // Java's own expiry on a copy (Paimon manifests name files relative to the table: the copy is independent)
  const copyWh = `${wh}-java-copy`;
  await copyDir(wh, copyWh);
  const { expired } = await javaMaintenance.paimonExpire(copyWh, {
    ...T,
    retainMin: RETAIN,
    timeRetainMs: 0,
    maxDeletes: 50,
  });
  const copyTable = path.join(copyWh, path.relative(wh, table));
  const javaCopy = {
    table: copyTable,
    files: await listFiles(copyTable),
    info: await javaMaintenance.paimonInfo(copyWh, T),
    expired,
  };

  const filesBefore = await listFiles(table);
  const expire = await expireAction(table, { retainLast: String(RETAIN), olderThan: String(Date.now()) });
  const filesAfterExpire = await listFiles(table);
  const after = await javaMaintenance.paimonInfo(wh, T);

  const old = Date.now() - 10 * DAY;
  const oldOrphans = [
    await plant(path.join(table, 'bucket-0', 'data-orphan-old-a-0.parquet'), old),
    await plant(path.join(table, 'manifest', 'manifest-orphan-old-b-0'), old),
    await plant(path.join(table, 'manifest', 'manifest-list-orphan-old-c-0'), old),
  ];
  const youngOrphan = await plant(path.join(table, 'bucket-1', 'data-inflight-young-0.parquet'), Date.now());
  const orphans = await removeOrphansAction(table, {});
  const filesAfterOrphans = await listFiles(table);
  const forcedDryRun = await removeOrphansAction(table, {
    force: true,
    olderThan: String(Date.now() + 60_000),
    dryRun: true,
  });

  return {
    table,
    before,
    tagSnapshot,
    snapRows,
    latestRows,
    tagRows,
    filesBefore,
    expire,
    filesAfterExpire,
    after,
    javaCopy,
    oldOrphans,
    youngOrphan,
    orphans,
    filesAfterOrphans,
    forcedDryRun,
  };
}

function expectSame(actual: CanonicalRow[], expected: CanonicalRow[], what: string): void {
  const d = diffRows(expected, actual, { expected: 'java before maintenance', actual: what });
  expect(d.text, d.text).toBe('');
}

describe('Paimon: expire + remove-orphans on a Java-written primary-key table with a tag', () => {
  const wh = path.join(work, 'wh');
  let run: Run | undefined;
  beforeAll(async () => {
    if (javaOk.ok) run = await buildAndMaintain(wh);
  });
  const need = (ctx: TestContext): Run => {
    if (!run) skipLoudly(ctx, `java unavailable: ${javaOk.reason}`);
    return run!;
  };

  it('expires all but the last 3 snapshots and moves EARLIEST, as Java Paimon does', (ctx) => {
    const r = need(ctx);
    const latest = BigInt(r.before.latest!);
    expect(r.before.earliest).toBe('1');
    expect(latest).toBeGreaterThan(12n); // compactions added snapshots of their own
    expect(r.before.snapshots.some((s) => s.commitKind === 'COMPACT')).toBe(true);
    const wantEarliest = (latest - BigInt(RETAIN) + 1n).toString();
    const wantExpired = Array.from({ length: Number(latest) - RETAIN }, (_, i) => String(i + 1));
    expect(r.expire.details.expiredSnapshots).toEqual(wantExpired);
    expect(readFileSync(path.join(r.table, 'snapshot', 'EARLIEST'), 'utf8').trim()).toBe(wantEarliest);
    expect(r.after.earliest).toBe(wantEarliest);
    expect(r.after.latest).toBe(r.before.latest);
    expect(r.after.tags.map((t) => [t.name, t.id])).toEqual([['early', r.tagSnapshot]]);
    // Java's own expiry
    expect(r.javaCopy.expired).toBe(wantExpired.length);
    expect(r.javaCopy.info.earliest).toBe(wantEarliest);
  });

  it('deletes exactly the files only expired snapshots reached, the same files Java deletes', (ctx) => {
    const r = need(ctx);
    const retained = new Set(r.after.snapshots.map((s) => s.id));
    const goneNames = { manifest: new Set<string>(), data: new Set<string>() };
    const keptNames = { manifest: new Set<string>(), data: new Set<string>() };
    for (const s of [...r.before.snapshots, ...r.before.tags]) {
      const reach = paimonReach(s);
      const into = 'name' in s || retained.has(s.id) ? keptNames : goneNames;
      reach.manifest.forEach((n) => into.manifest.add(n));
      reach.data.forEach((n) => into.data.add(n));
    }
    const manifests = minus(goneNames.manifest, keptNames.manifest);
    const data = minus(goneNames.data, keptNames.data);
    expect(data.size, 'compactions made some data files exclusive to expired snapshots').toBeGreaterThan(0);
    // ... and the tag alone keeps some files that the expired snapshots also reached (not vacuous either)
    const retainedOnly = new Set(r.before.snapshots.filter((s) => retained.has(s.id)).flatMap((s) => s.files));
    const tagOnly = r.before.tags.flatMap((t) => t.files).filter((n) => goneNames.data.has(n) && !retainedOnly.has(n));
    expect(tagOnly.length).toBeGreaterThan(0);
    const expected = new Set<string>([
      ...[...manifests].map((n) => path.join(r.table, 'manifest', n)),
      ...[...r.filesBefore].filter((f) => /\/bucket-\d+\//.test(f) && data.has(path.basename(f))),
      ...r.before.snapshots
        .filter((s) => !retained.has(s.id))
        .map((s) => path.join(r.table, 'snapshot', `snapshot-${s.id}`)),
    ]);
    expect([...r.filesBefore].filter((f) => data.has(path.basename(f)))).toHaveLength(data.size);
    expect(sorted(minus(r.filesBefore, r.filesAfterExpire))).toEqual(sorted(expected));
    expect(sorted(minus(r.filesAfterExpire, r.filesBefore))).toEqual([]);
    expect(sorted(normSet(r.expire.deleted))).toEqual(sorted(expected));
    expect(r.expire.failed).toEqual([]);
    // Java's expiry on the copy leaves the same files behind
    const rel = (root: string, files: Set<string>) => sorted([...files].map((f) => path.relative(root, f)));
    expect(rel(r.javaCopy.table, r.javaCopy.files)).toEqual(rel(r.table, r.filesAfterExpire));
  });

  it('remove-orphans deletes the planted old orphans only; nothing else on disk is unreferenced', (ctx) => {
    const r = need(ctx);
    expect(sorted(normSet(r.orphans.deleted))).toEqual(sorted(r.oldOrphans));
    const present = new Set([...r.filesAfterExpire, ...r.oldOrphans, r.youngOrphan]);
    expect(sorted(minus(present, r.filesAfterOrphans))).toEqual(sorted(r.oldOrphans));
    expect(r.forcedDryRun.candidates.map((c) => localPath(c.location))).toEqual([r.youngOrphan]);
  });

  it('the latest snapshot, every retained snapshot and the tag read the same rows in Java', async (ctx) => {
    const r = need(ctx);
    expectSame(await javaPaimon.read(wh, T), r.latestRows, 'java latest');
    expectSame(await javaMaintenance.paimonReadTag(wh, { ...T, tag: 'early' }), r.tagRows, 'java tag early');
    for (const s of r.after.snapshots)
      expectSame(await javaPaimon.read(wh, { ...T, snapshotId: s.id }), r.snapRows.get(s.id)!, `java @${s.id}`);
    // the tag's rows are not the latest rows (the check is not vacuous)
    expect(r.tagRows).not.toEqual(r.latestRows);
  });
});

/**
 * Retention from the table's own options (no CLI overrides): snapshot.num-retained.min 2 / .max 5,
 * snapshot.time-retained 1 d (every snapshot is younger), snapshot.expire.limit 3. By Paimon's rule only
 * snapshots beyond num-retained.max expire, at most 3 per run: two runs, each compared with Java's own
 * expiry (same settings) on a copy of the warehouse — same EARLIEST, same files left behind.
 */
describe('Paimon: retention from table options (num-retained.max, expire.limit), two runs, vs Java', () => {
  const wh = path.join(work, 'wh-options');
  const T2 = { database: 'default', table: 'opts' };
  const cfg = { retainMin: 2, retainMax: 5, timeRetainMs: DAY, maxDeletes: 3 };
  const runs: {
    floeEarliest: string;
    javaEarliest: string;
    floeFiles: string[];
    javaFiles: string[];
    expired: unknown;
  }[] = [];
  beforeAll(async () => {
    if (!javaOk.ok) return;
    const w = await javaPaimon.write(wh, {
      ...T2,
      fields: [
        { name: 'id', type: 'long' },
        { name: 'v', type: 'string' },
        { name: 'n', type: 'int' },
      ],
      primaryKeys: ['id'],
      options: {
        bucket: '1',
        'num-sorted-run.compaction-trigger': '3',
        'snapshot.num-retained.min': '2',
        'snapshot.num-retained.max': '5',
        'snapshot.time-retained': '1 d',
        'snapshot.expire.limit': '3',
        // a committing writer expires snapshots itself; write-only keeps the history for floe to expire
        'write-only': 'true',
      },
      commits: Array.from({ length: 4 }, (_, i) => commit(i)),
    });
    // one Paimon compaction (its own commit may expire, but 5 snapshots are not beyond num-retained.max)
    await javaPaimon.compact(wh, T2);
    await javaPaimon.write(wh, { ...T2, commits: Array.from({ length: 6 }, (_, i) => commit(i + 4)) });
    const table = localPath(w.tablePath);
    const copyWh = `${wh}-java-copy`;
    const copyTable = path.join(copyWh, path.relative(wh, table));
    await copyDir(wh, copyWh);
    const rel = async (root: string) => sorted([...(await listFiles(root))].map((f) => path.relative(root, f)));
    for (let i = 0; i < 2; i++) {
      const expire = await expireAction(table, {});
      await javaMaintenance.paimonExpire(copyWh, { ...T2, ...cfg });
      runs.push({
        floeEarliest: (await javaMaintenance.paimonInfo(wh, T2)).earliest!,
        javaEarliest: (await javaMaintenance.paimonInfo(copyWh, T2)).earliest!,
        floeFiles: await rel(table),
        javaFiles: await rel(copyTable),
        expired: expire.details.expiredSnapshots,
      });
    }
  });

  it('each run expires what Java expires and leaves the same files', (ctx) => {
    if (runs.length === 0) skipLoudly(ctx, `java unavailable: ${javaOk.reason}`);
    expect(runs[0]!.expired).toEqual(['1', '2', '3']); // at most expire.limit per run
    expect(runs[1]!.expired).toEqual(['4', '5', '6']);
    for (const [i, run] of runs.entries()) {
      expect(run.floeEarliest, `run ${i + 1}`).toBe(run.javaEarliest);
      expect(run.floeFiles, `run ${i + 1}`).toEqual(run.javaFiles);
    }
  });
});
