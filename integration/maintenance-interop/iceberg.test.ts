/**
 * Snapshot expiry and orphan removal against Java Iceberg, on tables Java wrote (v2 and v3) with branches
 * and tags. The history (labels are used below):
 *
 *   main:  s1 ─ s2 ─ s3(eq delete) ─ s4(pos delete) ─ s5 ─ s6(floe compaction) ─ s7 ┊ s8 ─ s9(eq delete)
 *   tags:  tExpired@s1 (max-ref-age 1 ms), tKeep@s2 (no max age), tYoung@s5 (max-ref-age 1 day)
 *   stale: branch from s3 (max-ref-age 1 ms) + b1
 *   audit: branch from s4 (min-snapshots-to-keep 2) + a1 ─ a2 ┊ a3
 *                                                              ┊ = the cutoff passed to --older-than
 *
 * `floe expire --older-than <cutoff> --retain-last 1` must, by the spec's retention rules (worked out by
 * hand): keep s9, s8 (newer than the cutoff on main), a3, a2 (audit keeps its last 2), s2 (tKeep), s5
 * (tYoung); drop tExpired and stale; expire s1, s3, s4, s6, s7, a1, b1. Then:
 * - every retained snapshot and surviving ref reads the rows Java read before the run, in Java and DuckDB;
 * - exactly the files reachable only from expired snapshots (derived from Java's own listing of each
 *   snapshot's manifest list, manifests and live files) are gone, nothing else;
 * - Java's own ExpireSnapshots on a copy of the metadata (same cutoff / retain-last) keeps the same
 *   snapshots and refs and would delete the same files;
 * - `floe remove-orphans` deletes the planted old orphans and keeps the young (in-flight) one, and a
 *   forced zero-window dry run finds nothing else unreferenced on disk.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { FloeError } from '../../util/errors.js';
import { expireAction } from '../../src/shells/cli/commands/expire.js';
import { removeOrphansAction } from '../../src/shells/cli/commands/remove-orphans.js';
import type { MaintenanceReport } from '../../src/app/maintenance-report.js';
import {
  type CanonicalRow,
  type IcebergOp,
  type IcebergTableInfo,
  diffRows,
  duckdb,
  javaIceberg,
  javaMaintenance,
} from '../oracles/index.js';
import { skipLoudly } from '../iceberg-compaction/helpers.js';
import {
  copyDir,
  icebergExclusiveFiles,
  listFiles,
  localPath,
  minus,
  normSet,
  plant,
  sleep,
  sorted,
} from './helpers.js';
import { DAY, DAYS, buildHistory, rows } from './iceberg-history.js';

const javaOk = await javaMaintenance.available();
const duckOk = await duckdb.available();
if (!javaOk.ok) console.warn(`\n!!! SKIPPED: java oracle unavailable: ${javaOk.reason}\n`);
if (!duckOk.ok) console.warn(`\n!!! SKIPPED: duckdb oracle unavailable: ${duckOk.reason}\n`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-maint-iceberg-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Run {
  labels: Record<string, string>;
  cutoff: number;
  before: IcebergTableInfo;
  snapRows: Map<string, CanonicalRow[]>;
  refRows: Map<string, CanonicalRow[]>;
  javaExpire: { deleted: string[]; info: IcebergTableInfo };
  filesBefore: Set<string>;
  expire: MaintenanceReport;
  filesAfterExpire: Set<string>;
  after: IcebergTableInfo;
  oldOrphans: string[];
  youngOrphan: string;
  orphans: MaintenanceReport;
  filesAfterOrphans: Set<string>;
  forcedDryRun: MaintenanceReport;
}

async function buildAndMaintain(dir: string, formatVersion: 2 | 3): Promise<Run> {
  const { labels, cutoff } = await buildHistory(dir, formatVersion);

  // ---- what Java sees before any maintenance
  const before = await javaMaintenance.icebergInfo(dir);
  const snapRows = new Map<string, CanonicalRow[]>();
  for (const s of before.snapshots)
    snapRows.set(s.snapshotId, await javaIceberg.read(dir, { snapshotId: s.snapshotId }));
  const refRows = new Map<string, CanonicalRow[]>();
  for (const name of Object.keys(before.refs)) refRows.set(name, await javaMaintenance.icebergReadRef(dir, name));

  // ---- Java's own expiry, on a copy of the table directory: its metadata still names the original
  // files, so Java only collects what it would delete (the original files are read, never touched)
  const copy = `${dir}-java-copy`;
  await copyDir(dir, copy);
  const javaExpire = await javaMaintenance.icebergExpire(copy, { olderThanMs: cutoff, retainLast: 1 });

  // ---- floe expire, then plant orphans, then floe remove-orphans
  const filesBefore = await listFiles(dir);
  const expire = await expireAction(dir, { olderThan: String(cutoff), retainLast: '1' });
  const filesAfterExpire = await listFiles(dir);
  const after = await javaMaintenance.icebergInfo(dir);

  const old = Date.now() - 10 * DAY;
  const oldOrphans = [
    await plant(path.join(dir, 'data', `dt=${DAYS[0]}`, 'orphan-old-a.parquet'), old),
    await plant(path.join(dir, 'data', 'orphan-old-b.parquet'), old),
    await plant(path.join(dir, 'metadata', 'orphan-old-c-m0.avro'), old),
  ];
  const youngOrphan = await plant(path.join(dir, 'data', `dt=${DAYS[1]}`, 'inflight-young.parquet'), Date.now());
  const orphans = await removeOrphansAction(dir, {});
  const filesAfterOrphans = await listFiles(dir);
  const forcedDryRun = await removeOrphansAction(dir, {
    force: true,
    olderThan: String(Date.now() + 60_000),
    dryRun: true,
  });

  return {
    labels,
    cutoff,
    before,
    snapRows,
    refRows,
    javaExpire,
    filesBefore,
    expire,
    filesAfterExpire,
    after,
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

for (const formatVersion of [2, 3] as const) {
  describe(`Iceberg v${formatVersion}: expire + remove-orphans with branches and tags`, () => {
    const dir = path.join(work, `v${formatVersion}`);
    let run: Run | undefined;
    beforeAll(async () => {
      if (javaOk.ok) run = await buildAndMaintain(dir, formatVersion);
    });
    const need = (ctx: TestContext): Run => {
      if (!run) skipLoudly(ctx, `java unavailable: ${javaOk.reason}`);
      return run!;
    };
    // one DuckDB process per snapshot (refs point at retained snapshots: their reads are shared)
    const duckReads = new Map<string, Promise<CanonicalRow[]>>();
    const duckRead = (id: string) => {
      if (!duckReads.has(id)) duckReads.set(id, duckdb.read(dir, { snapshotId: id }));
      return duckReads.get(id)!;
    };
    const ids =
      (...names: string[]) =>
      (r: Run) =>
        new Set(names.map((n) => r.labels[n]!));

    it('the history is what the test scripted (refs, ancestry, old vs new)', (ctx) => {
      const r = need(ctx);
      expect(Object.keys(r.before.refs).sort()).toEqual(['audit', 'main', 'stale', 'tExpired', 'tKeep', 'tYoung']);
      expect(r.before.snapshots).toHaveLength(13);
      const ts = new Map(r.before.snapshots.map((s) => [s.snapshotId, s.timestampMs]));
      for (const n of ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 'a1', 'a2', 'b1'])
        expect(ts.get(r.labels[n]!)!, n).toBeLessThan(r.cutoff);
      for (const n of ['s8', 's9', 'a3']) expect(ts.get(r.labels[n]!)!, n).toBeGreaterThan(r.cutoff);
      // the old snapshots read different rows (the check below is not vacuous)
      expect(r.snapRows.get(r.labels.s1!)!.length).toBe(8);
      expect(r.refRows.get('audit')!.length).toBeGreaterThan(r.refRows.get('tKeep')!.length);
    });

    it('floe keeps exactly the snapshots and refs the retention rules keep, as Java itself does', (ctx) => {
      const r = need(ctx);
      const expectedRetained = ids('s9', 's8', 'a3', 'a2', 's2', 's5')(r);
      const floeRetained = minus(
        r.before.snapshots.map((s) => s.snapshotId),
        new Set((r.expire.details.expiredSnapshots as string[]) ?? []),
      );
      expect(sorted(floeRetained)).toEqual(sorted(expectedRetained));
      expect(sorted(r.after.snapshots.map((s) => s.snapshotId))).toEqual(sorted(expectedRetained));
      expect(sorted(r.expire.details.removedRefs as string[])).toEqual(['stale', 'tExpired']);
      expect(Object.keys(r.after.refs).sort()).toEqual(['audit', 'main', 'tKeep', 'tYoung']);
      for (const [name, ref] of Object.entries(r.after.refs)) expect(ref, name).toEqual(r.before.refs[name]);
      // Java's ExpireSnapshots with the same cutoff and retain-last
      expect(sorted(r.javaExpire.info.snapshots.map((s) => s.snapshotId))).toEqual(sorted(expectedRetained));
      expect(r.javaExpire.info.refs).toEqual(r.after.refs);
    });

    it('exactly the files only expired snapshots reached are deleted (and Java would delete the same)', (ctx) => {
      const r = need(ctx);
      const retained = new Set(r.after.snapshots.map((s) => s.snapshotId));
      const exclusive = icebergExclusiveFiles(r.before, retained);
      // not vacuous: data files of the stale branch and the compacted-away files are among them
      expect([...exclusive].some((f) => f.endsWith('.parquet') || f.endsWith('.puffin'))).toBe(true);
      const goneFromDisk = minus(r.filesBefore, r.filesAfterExpire);
      expect(sorted(goneFromDisk)).toEqual(sorted(exclusive));
      expect(sorted(normSet(r.expire.deleted))).toEqual(sorted(exclusive));
      expect(r.expire.failed).toEqual([]);
      // the only new file is the new metadata file
      const added = minus(r.filesAfterExpire, r.filesBefore);
      expect(sorted(added)).toEqual([localPath(r.after.metadataFile)]);
      expect(sorted(normSet(r.javaExpire.deleted))).toEqual(sorted(exclusive));
    });

    it('remove-orphans deletes the planted old orphans only; nothing else on disk is unreferenced', (ctx) => {
      const r = need(ctx);
      expect(sorted(normSet(r.orphans.deleted))).toEqual(sorted(r.oldOrphans));
      const present = new Set([...r.filesAfterExpire, ...r.oldOrphans, r.youngOrphan]);
      expect(sorted(minus(present, r.filesAfterOrphans))).toEqual(sorted(r.oldOrphans));
      expect(r.filesAfterOrphans.has(r.youngOrphan)).toBe(true);
      // a zero-window (forced) dry run sees only the young planted file as unreferenced
      expect(r.forcedDryRun.candidates.map((c) => localPath(c.location))).toEqual([r.youngOrphan]);
    });

    it('every retained snapshot reads the same rows in Java and DuckDB as Java read before', async (ctx) => {
      const r = need(ctx);
      for (const s of r.after.snapshots) {
        const want = r.snapRows.get(s.snapshotId)!;
        expectSame(await javaIceberg.read(dir, { snapshotId: s.snapshotId }), want, `java @${s.snapshotId}`);
      }
      if (!duckOk.ok) skipLoudly(ctx, `duckdb unavailable: ${duckOk.reason}`);
      for (const s of r.after.snapshots) {
        const want = r.snapRows.get(s.snapshotId)!;
        let got: CanonicalRow[];
        try {
          got = await duckRead(s.snapshotId);
        } catch (e) {
          if (e instanceof FloeError && e.kind === 'Unsupported')
            skipLoudly(ctx, `duckdb cannot read this table: ${e.message.slice(0, 300)}`);
          throw e;
        }
        expectSame(got, want, `duckdb @${s.snapshotId}`);
      }
    });

    it('every surviving branch and tag reads the same rows in Java and DuckDB as before', async (ctx) => {
      const r = need(ctx);
      for (const name of Object.keys(r.after.refs)) {
        expectSame(await javaMaintenance.icebergReadRef(dir, name), r.refRows.get(name)!, `java ref ${name}`);
      }
      if (!duckOk.ok) skipLoudly(ctx, `duckdb unavailable: ${duckOk.reason}`);
      for (const [name, ref] of Object.entries(r.after.refs)) {
        expectSame(await duckRead(ref.snapshotId), r.refRows.get(name)!, `duckdb ref ${name}`);
      }
    });
  });
}

/**
 * Retention settings from table properties (history.expire.max-ref-age-ms, min-snapshots-to-keep), a
 * branch with its own max-snapshot-age, and an explicitly named snapshot (--snapshot-ids) that retention
 * would otherwise keep — floe against Java's ExpireSnapshots on a copy, with the same inputs:
 *   main: m1 ─ m2 ─ m3 ─ m4 ─ m5 ┊ m6      tag tg@m1 (table max-ref-age 1 h: kept), tgOld@m1 (max-ref-age 1 ms)
 *   br:   from m2 (max-snapshot-age 1 ms) + c1 ─ c2 ─ c3
 * By hand: main keeps m6 and m5 (table min-snapshots-to-keep 2) but m5 is named → expired; br keeps c3,
 * c2 (its cutoff is "now", so only the 2 last); tg keeps m1; tgOld is dropped. Retained: m6, c3, c2, m1.
 */
describe('Iceberg v2: table-level retention properties, branch max-snapshot-age and --snapshot-ids, vs Java', () => {
  const dir = path.join(work, 'props');
  let r:
    | {
        labels: Record<string, string>;
        before: IcebergTableInfo;
        after: IcebergTableInfo;
        java: { deleted: string[]; info: IcebergTableInfo };
        expire: MaintenanceReport;
        filesBefore: Set<string>;
        filesAfter: Set<string>;
        snapRows: Map<string, CanonicalRow[]>;
      }
    | undefined;
  beforeAll(async () => {
    if (!javaOk.ok) return;
    const labels: Record<string, string> = {};
    const w = await javaIceberg.write(dir, {
      formatVersion: 2,
      schema: [
        { name: 'id', type: 'long', required: true },
        { name: 'dt', type: 'date', required: true },
        { name: 'v', type: 'string' },
      ],
      properties: { 'history.expire.max-ref-age-ms': String(3_600_000), 'history.expire.min-snapshots-to-keep': '2' },
      ops: [1, 2, 3, 4, 5].map((i) => ({ op: 'append', rows: rows(i * 10, 3) }) as const),
    });
    w.ops.forEach((o, i) => (labels[`m${i + 1}`] = o.snapshotId!));
    const w2 = await javaIceberg.ops(dir, [
      { op: 'create-tag', name: 'tg', snapshotId: labels.m1 },
      { op: 'create-tag', name: 'tgOld', snapshotId: labels.m1, maxRefAgeMs: 1 },
      { op: 'create-branch', name: 'br', snapshotId: labels.m2, maxSnapshotAgeMs: 1 },
      { op: 'append', branch: 'br', rows: rows(100, 2) },
      { op: 'append', branch: 'br', rows: rows(110, 2) },
      { op: 'append', branch: 'br', rows: rows(120, 2) },
    ] as unknown as IcebergOp[]);
    ['c1', 'c2', 'c3'].forEach((n, i) => (labels[n] = w2.ops[3 + i]!.snapshotId!));
    await sleep(30);
    const cutoff = Date.now();
    await sleep(30);
    labels.m6 = (await javaIceberg.append(dir, rows(60, 3))).currentSnapshotId!;
    const before = await javaMaintenance.icebergInfo(dir);
    const snapRows = new Map<string, CanonicalRow[]>();
    for (const n of ['m6', 'c3', 'c2', 'm1'])
      snapRows.set(labels[n]!, await javaIceberg.read(dir, { snapshotId: labels[n]! }));
    await copyDir(dir, `${dir}-java-copy`);
    const java = await javaMaintenance.icebergExpire(`${dir}-java-copy`, {
      olderThanMs: cutoff,
      snapshotIds: [labels.m5!],
    });
    const filesBefore = await listFiles(dir);
    const expire = await expireAction(dir, { olderThan: String(cutoff), snapshotIds: labels.m5! });
    const filesAfter = await listFiles(dir);
    r = {
      labels,
      before,
      after: await javaMaintenance.icebergInfo(dir),
      java,
      expire,
      filesBefore,
      filesAfter,
      snapRows,
    };
  });

  it('same retained snapshots, refs and deleted files as Java; the survivors read as before', async (ctx) => {
    if (!r) skipLoudly(ctx, `java unavailable: ${javaOk.reason}`);
    const run = r!;
    const want = sorted(['m6', 'c3', 'c2', 'm1'].map((n) => run.labels[n]!));
    expect(sorted(run.after.snapshots.map((s) => s.snapshotId))).toEqual(want);
    expect(sorted(run.java.info.snapshots.map((s) => s.snapshotId))).toEqual(want);
    expect(Object.keys(run.after.refs).sort()).toEqual(['br', 'main', 'tg']);
    expect(run.java.info.refs).toEqual(run.after.refs);
    const exclusive = icebergExclusiveFiles(run.before, new Set(want));
    expect(sorted(minus(run.filesBefore, run.filesAfter))).toEqual(sorted(exclusive));
    expect(sorted(normSet(run.expire.deleted))).toEqual(sorted(exclusive));
    expect(sorted(normSet(run.java.deleted))).toEqual(sorted(exclusive));
    for (const id of want) {
      const d = diffRows(run.snapRows.get(id)!, await javaIceberg.read(dir, { snapshotId: id }), {
        expected: 'java before',
        actual: `java @${id}`,
      });
      expect(d.text, d.text).toBe('');
    }
  });
});
