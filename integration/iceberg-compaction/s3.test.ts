/**
 * Compaction of a table on S3 (the floe S3 test server, or S3_TEST_ENDPOINT). The Java oracle writes local
 * paths only, so: Java writes the table locally → floe's storage layer uploads it to the S3 server →
 * `floe compact s3://…` (S3 settings from FLOE_S3_ENDPOINT / AWS_*) rewrites and commits there with
 * conditional PUTs → the table is downloaded back to its original directory → Java and DuckDB read it.
 * The table's metadata keeps naming its local location; floe follows the copied table to where it was
 * opened (connectors/iceberg/open-for-write.ts), so everything it writes lands on S3 under that table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import {
  type Availability,
  type CanonicalRow,
  type IcebergOp,
  type InputRow,
  diffRows,
  duckdb,
  javaIceberg,
} from '../oracles/index.js';
import { acquireS3, type S3Availability } from '../support/s3-server.js';
import {
  RowModel,
  downloadDir,
  floeCompactCli,
  floeRows,
  s3FileIO,
  skipLoudly,
  uploadDir,
  withS3Env,
  type CliReport,
} from './helpers.js';

const java: Availability = await javaIceberg.available();
const duck: Availability = await duckdb.available();
const work = mkdtempSync(path.join(os.tmpdir(), 'floe-compact-s3-'));

const TYPES = { id: 'long', region: 'string', amount: 'decimal(20,4)', at: 'timestamptz', tag: 'string' };
const KEY = ['id', 'region'];
const region = (id: number) => ['eu', 'us', 'ap'][id % 3]!;
const mk = (id: number, v = 0): InputRow => ({
  id: String(id),
  region: region(id),
  amount: `${id * 13 + v}.${String(id % 10000).padStart(4, '0')}`,
  at: `2024-03-${String((id % 28) + 1).padStart(2, '0')}T10:00:00.000000+00:00`,
  tag: v ? `v${v}` : null,
});

describe('S3: Java-written table compacted by floe on the S3 test server', () => {
  const dir = path.join(work, 'orders');
  const model = new RowModel(TYPES);
  let s3: (S3Availability & { release(): Promise<void> }) | undefined;
  let prefix = '';
  let preCompactionSnapshot = '';
  let report: CliReport | undefined;

  const ops: IcebergOp[] = [
    ...Array.from({ length: 6 }, (_, i): IcebergOp => ({
      op: 'append',
      rows: Array.from({ length: 5 }, (_, j) => mk(i * 5 + j + 1)),
    })),
    { op: 'upsert', rows: [mk(2, 1), mk(7, 1), mk(12, 1)] },
    { op: 'delete-pos', where: [{ id: '4' }, { id: '20' }] },
    { op: 'upsert', rows: [mk(7, 2)] },
  ];

  beforeAll(async () => {
    s3 = await acquireS3();
    if (!java.ok || !s3.available) return;
    const w = await javaIceberg.write(dir, {
      formatVersion: 2,
      schema: Object.entries(TYPES).map(([name, type]) => ({ name, type, required: KEY.includes(name) })),
      partitionSpec: [{ source: 'region' }],
      identifierFields: KEY,
      ops,
    });
    preCompactionSnapshot = w.currentSnapshotId!;
    for (const op of ops) {
      if (op.op === 'append') model.append(op.rows);
      else if (op.op === 'upsert') model.upsert(op.rows, KEY);
      else if (op.op === 'delete-pos') model.deleteWhere(Array.isArray(op.where) ? op.where : [op.where]);
    }
    prefix = `s3://${s3.server.bucket}/compaction-${Date.now().toString(36)}/orders`;
  }, 300_000);

  afterAll(async () => {
    await s3?.release();
    rmSync(work, { recursive: true, force: true });
  });

  const ready = (ctx: TestContext) => {
    if (!s3?.available) skipLoudly(ctx, `no S3 server: ${s3 && !s3.available ? s3.reason : 'not acquired'}`);
    if (!java.ok) skipLoudly(ctx, `java unavailable: ${java.reason}`);
    return s3.server;
  };

  const same = (expected: CanonicalRow[], actual: CanonicalRow[], who: string) => {
    const d = diffRows(expected, actual, { expected: 'hand-tracked rows', actual: who });
    expect(d.text, d.text).toBe('');
  };

  it('uploads the table and floe compacts it on S3 (tiered, then bin-pack)', async (ctx) => {
    const server = ready(ctx);
    const files = s3FileIO(server);
    try {
      expect(await uploadDir(files, dir, prefix)).toBeGreaterThan(10);
    } finally {
      files.destroy();
    }
    await withS3Env(server, async () => {
      same(model.live(), await floeRows(prefix), 'floe scan on S3 before');
      const tiered = await floeCompactCli([
        prefix,
        '--strategy',
        'tiered',
        '-o',
        'self-optimizing.minor.trigger.file-count=2',
      ]);
      expect(tiered.report.failedTasks).toEqual([]);
      expect(tiered.exitCode).toBe(0);
      expect(tiered.report.snapshots.length).toBeGreaterThanOrEqual(1);
      expect(tiered.report.after!.deleteFiles).toBeLessThan(tiered.report.before.deleteFiles);
      same(model.live(), await floeRows(prefix), 'floe scan on S3 after tiered');
      const binpack = await floeCompactCli([
        prefix,
        '--strategy',
        'binpack',
        '-o',
        'rewrite-all=true',
        '--partial-progress',
      ]);
      expect(binpack.report.failedTasks).toEqual([]);
      expect(binpack.report.snapshots.length).toBeGreaterThanOrEqual(1);
      same(model.live(), await floeRows(prefix), 'floe scan on S3 after binpack');
      report = binpack.report;
    });
  });

  it('downloaded back, Java reads the S3-compacted table and time-travels to before compaction', async (ctx) => {
    const server = ready(ctx);
    if (!report) skipLoudly(ctx, 'compaction on S3 did not happen (an earlier step failed)');
    const files = s3FileIO(server);
    try {
      await downloadDir(files, prefix, dir);
    } finally {
      files.destroy();
    }
    same(model.live(), await javaIceberg.read(dir), 'java');
    same(model.live(), await javaIceberg.read(dir, { snapshotId: preCompactionSnapshot }), 'java @pre-compaction');
  });

  it('duckdb reads the S3-compacted table', async (ctx) => {
    ready(ctx);
    if (!report) skipLoudly(ctx, 'compaction on S3 did not happen (an earlier step failed)');
    if (!duck.ok) skipLoudly(ctx, `duckdb unavailable: ${duck.reason}`);
    same(model.live(), await duckdb.read(dir), 'duckdb');
  });
});
