import { describe, expect, it } from 'vitest';
import { compactJobResult, compactionRunResult, type CompactResultFields } from '../../src/app/job-result.js';
import { compactResult, compactTable } from '../../src/app/compact.js';
import { runMaintenanceJob } from '../../src/app/maintenance-job.js';
import type { CommitOutcome, PlanRef } from '../../src/distributed/seam.js';
import { copyFixture } from '../connectors/iceberg/helpers.js';

const stats = (dataFiles: number, deleteFiles: number) => ({
  dataFiles,
  dataBytes: dataFiles * 100,
  deleteFiles,
  deleteBytes: deleteFiles * 10,
  records: dataFiles * 5,
});

const iceberg: CompactResultFields = {
  format: 'iceberg',
  dryRun: false,
  snapshots: ['9007199254740993'],
  failedTasks: [{ id: 't2', reason: 'boom' }],
  before: stats(4, 2),
  after: stats(2, 0),
  bytesRead: 400,
  bytesWritten: 200,
  rowsIn: 20,
  rowsOut: 20,
  plan: {
    planner: 'binpack',
    trail: [{ gate: 'g', detail: 'd', outcome: 'pass' }],
    removableDeletes: [],
    tasks: [
      {
        id: 't1',
        kind: 'minor',
        partition: [7n, 'eu'],
        inputs: ['a', 'b'],
        inputBytes: 200,
        deletes: ['d1'],
        removableDeletes: [],
        targetFileSizeBytes: 1000,
        trail: [],
      },
      {
        id: 't2',
        kind: 'minor',
        partition: [],
        inputs: ['c', 'd'],
        inputBytes: 200,
        deletes: [],
        removableDeletes: [],
        targetFileSizeBytes: 1000,
        trail: [],
      },
    ],
  },
};

describe('job result: a view of the compaction result', () => {
  it('Iceberg: snapshots, before/after, failures and the plan summary come from the result', () => {
    const r = compactJobResult(iceberg, { table: 'db.t', startedAtMs: 5, warnings: ['w'] });
    expect(r).toMatchObject({
      table: 'db.t',
      job: 'compact',
      format: 'iceberg',
      ok: false,
      startedAtMs: 5,
      snapshotIds: ['9007199254740993'],
      filesBefore: 4,
      filesAfter: 2,
      bytesBefore: 400,
      bytesAfter: 200,
      deleteFilesBefore: 2,
      deleteFilesAfter: 0,
      filesDeleted: 0,
      failures: ['t2: boom'],
      warnings: ['w'],
    });
    expect(r.plan).toEqual({
      planner: 'binpack',
      tasks: 2,
      inputFiles: 4,
      inputBytes: 400,
      trail: [{ gate: 'g', detail: 'd', outcome: 'pass' }],
      taskList: [
        { id: 't1', kind: 'minor', partition: '7, "eu"', inputFiles: 2, inputBytes: 200, deletes: 1, trail: [] },
        {
          id: 't2',
          kind: 'minor',
          partition: '(unpartitioned)',
          inputFiles: 2,
          inputBytes: 200,
          deletes: 0,
          trail: [],
        },
      ],
    });
  });

  it('a run that committed nothing reports the table as it was; a dry run has no after figures', () => {
    const nothing = compactJobResult(
      { ...iceberg, snapshots: [], failedTasks: [], after: null },
      { table: 't', startedAtMs: 0, warnings: [] },
    );
    expect(nothing).toMatchObject({ ok: true, filesAfter: 4, bytesAfter: 400, deleteFilesAfter: 2 });
    const dry = compactJobResult(
      { ...iceberg, dryRun: true, snapshots: [], after: null },
      { table: 't', startedAtMs: 0, warnings: [] },
    );
    expect(dry).not.toHaveProperty('filesAfter');
    expect(dry).not.toHaveProperty('deleteFilesAfter');
  });

  it('an engine run: the commit outcome and the outputs give the same fields; Paimon has no delete counts', () => {
    const ref = { runId: 'r1', format: 'paimon', spec: { table: 's3://b/t', job: 'compact' } } as unknown as PlanRef;
    const outcome: CommitOutcome = {
      runId: 'r1',
      snapshotId: '12',
      alreadyCommitted: true,
      committedTasks: ['bucket-0'],
      failedTasks: [],
      removedFiles: ['x', 'y'],
      before: stats(3, 0),
    };
    const out = { runId: 'r1', taskId: 'bucket-0', attemptId: 'a', files: [], rowsIn: 7, rowsOut: 6 };
    const r = compactionRunResult(ref, Date.now(), outcome, [
      { ...out, bytesRead: 10, bytesWritten: 4 },
      { ...out, bytesRead: 5, bytesWritten: 1 },
    ]);
    expect(r).toMatchObject({
      runId: 'r1',
      table: 's3://b/t',
      format: 'paimon',
      ok: true,
      snapshotIds: ['12'],
      bytesRead: 15,
      bytesWritten: 5,
      rowsIn: 14,
      rowsOut: 12,
      filesDeleted: 2,
      filesBefore: 3,
      filesAfter: 3,
      warnings: ['run r1 was already committed (snapshot 12); nothing was committed again'],
    });
    expect(r).not.toHaveProperty('deleteFilesBefore');
    expect(r).not.toHaveProperty('plan');
  });
});

describe('job result: the service and the CLI say the same of a run', () => {
  it('Paimon (full compaction): the job result counts what the compact result says; then a dry run plans', async () => {
    const t = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
    const u = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
    try {
      const job = await runMaintenanceJob({ table: t.dir, job: 'compact', compact: { full: true } });
      const cli = compactResult(await compactTable(u.dir, { full: true }));
      expect(job.format).toBe('paimon');
      expect(job.snapshotIds).toHaveLength(1);
      expect(cli.snapshots).toHaveLength(1);
      expect(job.filesBefore).toBe(cli.before.dataFiles);
      expect(job.filesAfter).toBe(cli.after!.dataFiles);
      expect(job.rowsIn).toBe(cli.rowsIn);
      expect(job.plan?.planner).toBe('paimon-lsm');
      expect(job.plan?.tasks).toBe(cli.tasks.length);
      expect(job.plan?.tasks).toBeGreaterThan(0);
      expect(job).not.toHaveProperty('deleteFilesBefore');
    } finally {
      t.cleanup();
      u.cleanup();
    }
  });

  it('Iceberg (dry run): the plan summary lists the planned tasks; nothing after', async () => {
    const t = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
    try {
      const spec = { strategy: 'binpack' as const, parallelism: 1 };
      const props = { 'rewrite-all': 'true' };
      const job = await runMaintenanceJob({
        table: t.dir,
        job: 'compact',
        dryRun: true,
        compact: spec,
        properties: props,
      });
      const cli = compactResult(await compactTable(t.dir, { ...spec, dryRun: true, options: props }));
      expect(job).toMatchObject({ format: 'iceberg', ok: true, dryRun: true, snapshotIds: [] });
      expect(cli.tasks.length).toBeGreaterThan(0);
      expect(job.plan?.taskList.map((x) => x.id)).toEqual(cli.tasks.map((x) => x.id));
      expect(job.plan?.inputFiles).toBe(cli.tasks.reduce((n, x) => n + x.inputFiles, 0));
      expect(job.deleteFilesBefore).toBe(cli.before.deleteFiles);
      expect(job).not.toHaveProperty('filesAfter');
    } finally {
      t.cleanup();
    }
  });
});
