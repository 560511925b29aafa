/**
 * Expiry and orphan removal of an Iceberg table on S3 (the floe S3 test server, or S3_TEST_ENDPOINT), with
 * branches and tags (the history of ./iceberg-history.ts, v2). The Java oracle writes local paths only, so:
 * Java writes the table locally → floe's storage layer uploads it → `floe expire s3://…` and
 * `floe remove-orphans s3://…` run there (floe follows the table to where it was opened) → the table is
 * downloaded back over its original directory → Java reads every retained snapshot and ref.
 * S3 objects cannot be back-dated, so the orphan window is a cutoff taken between planting the "old"
 * orphans and the young one (with --force, as it is shorter than 24 h).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { expireAction } from '../../src/shells/cli/commands/expire.js';
import { removeOrphansAction } from '../../src/shells/cli/commands/remove-orphans.js';
import type { MaintenanceReport } from '../../src/app/maintenance-report.js';
import type { FileIO } from '../../connectors/storage/file-io.js';
import { type CanonicalRow, type IcebergTableInfo, diffRows, javaIceberg, javaMaintenance } from '../oracles/index.js';
import { acquireS3, type S3Availability } from '../support/s3-server.js';
import { downloadDir, s3FileIO, skipLoudly, uploadDir, withS3Env } from '../iceberg-compaction/helpers.js';
import { icebergExclusiveFiles, minus, sleep, sorted } from './helpers.js';
import { buildHistory } from './iceberg-history.js';

const javaOk = await javaMaintenance.available();
const work = mkdtempSync(path.join(os.tmpdir(), 'floe-maint-s3-'));

/** Keys under `prefix`, relative to it. */
async function listRel(files: FileIO, prefix: string): Promise<Set<string>> {
  const root = files.resolve(prefix);
  const p = `${root.key.replace(/\/$/, '')}/`;
  const out = new Set<string>();
  for await (const e of root.store.list(p)) out.add(e.key.slice(p.length));
  return out;
}

async function put(files: FileIO, location: string): Promise<string> {
  const r = files.resolve(location);
  await r.store.put(r.key, Buffer.from('not a real file'));
  return location;
}

interface Run {
  before: IcebergTableInfo;
  snapRows: Map<string, CanonicalRow[]>;
  refRows: Map<string, CanonicalRow[]>;
  keysBefore: Set<string>;
  expire: MaintenanceReport;
  keysAfterExpire: Set<string>;
  oldOrphans: string[];
  youngOrphan: string;
  orphans: MaintenanceReport;
  keysAfterOrphans: Set<string>;
}

describe('S3: floe expire + remove-orphans on a Java-written table with branches and tags', () => {
  const dir = path.join(work, 't');
  let s3: (S3Availability & { release(): Promise<void> }) | undefined;
  let run: Run | undefined;

  beforeAll(async () => {
    s3 = await acquireS3();
    if (!javaOk.ok || !s3.available) return;
    const server = s3.server;
    const { cutoff } = await buildHistory(dir, 2);
    const before = await javaMaintenance.icebergInfo(dir);
    const snapRows = new Map<string, CanonicalRow[]>();
    for (const s of before.snapshots)
      snapRows.set(s.snapshotId, await javaIceberg.read(dir, { snapshotId: s.snapshotId }));
    const refRows = new Map<string, CanonicalRow[]>();
    for (const name of Object.keys(before.refs)) refRows.set(name, await javaMaintenance.icebergReadRef(dir, name));

    const prefix = `s3://${server.bucket}/maintenance-${Date.now().toString(36)}/t`;
    const files = s3FileIO(server);
    try {
      await uploadDir(files, dir, prefix);
      const keysBefore = await listRel(files, prefix);
      const expire = await withS3Env(server, () =>
        expireAction(prefix, { olderThan: String(cutoff), retainLast: '1' }),
      );
      const keysAfterExpire = await listRel(files, prefix);
      const oldOrphans = [
        await put(files, `${prefix}/data/orphan-old-a.parquet`),
        await put(files, `${prefix}/metadata/orphan-old-b-m0.avro`),
      ];
      await sleep(1100); // S3 LastModified may have second resolution
      const window = Date.now();
      await sleep(1100);
      const youngOrphan = await put(files, `${prefix}/data/inflight-young.parquet`);
      const orphans = await withS3Env(server, () =>
        removeOrphansAction(prefix, { force: true, olderThan: String(window) }),
      );
      const keysAfterOrphans = await listRel(files, prefix);
      await downloadDir(files, prefix, dir);
      run = {
        before,
        snapRows,
        refRows,
        keysBefore,
        expire,
        keysAfterExpire,
        oldOrphans,
        youngOrphan,
        orphans,
        keysAfterOrphans,
      };
    } finally {
      files.destroy();
    }
  });
  afterAll(async () => {
    await s3?.release();
    rmSync(work, { recursive: true, force: true });
  });

  const need = (ctx: TestContext): Run => {
    if (!javaOk.ok) skipLoudly(ctx, `java unavailable: ${javaOk.reason}`);
    if (s3 && !s3.available) skipLoudly(ctx, `S3 unavailable: ${s3.reason}`);
    if (!run) skipLoudly(ctx, 'the S3 run did not happen');
    return run!;
  };

  it('expire on S3 deletes exactly the objects only expired snapshots reached; remove-orphans only the old orphans', async (ctx) => {
    const r = need(ctx);
    const after = await javaMaintenance.icebergInfo(dir);
    expect(Object.keys(after.refs).sort()).toEqual(['audit', 'main', 'tKeep', 'tYoung']);
    expect(after.snapshots).toHaveLength(6);
    const retained = new Set(after.snapshots.map((s) => s.snapshotId));
    const exclusive = [...icebergExclusiveFiles(r.before, retained)].map((f) => path.relative(dir, f));
    expect(sorted(minus(r.keysBefore, r.keysAfterExpire))).toEqual(sorted(exclusive));
    expect(r.expire.deleted).toHaveLength(exclusive.length);
    expect(r.expire.failed).toEqual([]);
    const rel = (l: string) => l.slice(l.indexOf('/t/') + 3);
    expect(sorted(r.orphans.deleted.map(rel))).toEqual(sorted(r.oldOrphans.map(rel)));
    expect(sorted(minus(r.keysAfterExpire, r.keysAfterOrphans))).toEqual([]); // nothing the table uses
    expect(r.keysAfterOrphans.has(rel(r.youngOrphan))).toBe(true);
  });

  it('downloaded back, Java reads every retained snapshot and every surviving ref as before', async (ctx) => {
    const r = need(ctx);
    const after = await javaMaintenance.icebergInfo(dir);
    const same = (actual: CanonicalRow[], expected: CanonicalRow[], what: string) => {
      const d = diffRows(expected, actual, { expected: 'java before maintenance', actual: what });
      expect(d.text, d.text).toBe('');
    };
    for (const s of after.snapshots)
      same(
        await javaIceberg.read(dir, { snapshotId: s.snapshotId }),
        r.snapRows.get(s.snapshotId)!,
        `java @${s.snapshotId}`,
      );
    for (const name of Object.keys(after.refs))
      same(await javaMaintenance.icebergReadRef(dir, name), r.refRows.get(name)!, `java ref ${name}`);
  });
});
