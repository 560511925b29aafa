/**
 * `floe serve --once` end to end on a real local Iceberg table with many small appends: the command compacts
 * it (rows unchanged, fewer files), expires the replaced snapshots, persists state so a second run finds
 * nothing due, and exits 3 when a job fails.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import Database from 'better-sqlite3';
import { Command } from 'commander';
import { register } from '../../../src/shells/cli/commands/serve.js';
import type { Field } from '../../../model/index.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { appendRows, createIcebergTable } from '../../../connectors/iceberg/write-table.js';
import { loadTableModel, openIcebergTable } from '../../../connectors/iceberg/table.js';
import { scanTable } from '../../../connectors/iceberg/scan.js';

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: false, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 's', required: false, type: { kind: 'primitive', name: 'string' } },
];
const APPENDS = 14;
const ROWS_PER_APPEND = 5;

let root: string;
let tableDir: string;
const files = new FileIO();
const io = files;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'floe-serve-once-'));
  tableDir = path.join(root, 'warehouse', 'orders');
  await createIcebergTable(io, tableDir, { formatVersion: 2, fields: FIELDS });
  for (let a = 0; a < APPENDS; a++) {
    await appendRows(
      io,
      tableDir,
      Array.from({ length: ROWS_PER_APPEND }, (_, i) => ({ id: BigInt(a * 100 + i), s: `row ${a}.${i}` })),
    );
  }
});
afterAll(() => {
  files.destroy();
  rmSync(root, { recursive: true, force: true });
});

async function liveRows(): Promise<string[]> {
  const table = await openIcebergTable(tableDir, { io });
  const out: string[] = [];
  for await (const b of scanTable(table)) {
    const id = b.fields.findIndex((f) => f.name === 'id');
    const s = b.fields.findIndex((f) => f.name === 's');
    for (const r of b.rows) out.push(`${String(r[id])}|${String(r[s])}`);
  }
  return out.sort();
}

async function shape(): Promise<{ dataFiles: number; snapshots: number }> {
  const table = await openIcebergTable(tableDir, { io });
  const m = await loadTableModel(table);
  return { dataFiles: m.dataFiles.length, snapshots: table.metadata.snapshots.length };
}

/**
 * `floe serve --config <file> --once` through commander, as main.ts runs it but in this process (a child
 * process would spend seconds compiling the sources again), capturing its JSON lines and exit code.
 */
async function serveInProcess(
  config: string,
): Promise<{ exitCode: number | undefined; lines: Record<string, unknown>[] }> {
  const program = new Command().exitOverride();
  register(program);
  const chunks: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => {
    chunks.push(String(c));
    return true;
  });
  const saved = process.exitCode;
  process.exitCode = undefined;
  try {
    await program.parseAsync(['node', 'floe', 'serve', '--config', config, '--once']);
    const exitCode = process.exitCode as number | undefined;
    return {
      exitCode,
      lines: chunks
        .join('')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    };
  } finally {
    process.exitCode = saved;
    write.mockRestore();
  }
}

describe('config sizes', () => {
  // here rather than in config.test.ts: sizes are read by `floe compact`'s parser, which loads the engine
  it("reads targetSize with the compact command's size parser and names the key when it cannot", async () => {
    const { parseServiceConfig } = await import('../../../src/shells/service/config.js');
    const raw = (targetSize: unknown) => ({
      stateDir: 's',
      tables: [{ location: '/w/t', jobs: { compact: { schedule: 'daily', targetSize } } }],
    });
    expect((await parseServiceConfig(raw('64MB'), 'floe.yaml')).tables[0]!.jobs[0]!.compact).toEqual({
      targetSize: '64MB',
    });
    expect((await parseServiceConfig(raw(134217728), 'floe.yaml')).tables[0]!.jobs[0]!.compact).toEqual({
      targetSize: '134217728',
    });
    await expect(parseServiceConfig(raw('12 parsecs'), 'floe.yaml')).rejects.toThrow(
      /^floe\.yaml: tables\[0\]\.jobs\.compact\.targetSize: .*"12 parsecs"/,
    );
  });
});

describe('runMaintenanceJob (the host seam)', () => {
  it('runs one job from a plain spec, reports progress, and honours an aborted signal', async () => {
    const { runMaintenanceJob } = await import('../../../src/app/maintenance-job.js');
    const events: string[] = [];
    const result = await runMaintenanceJob(
      { table: tableDir, job: 'compact', dryRun: true },
      { onProgress: (e) => events.push(e.type) },
    );
    expect(result).toMatchObject({ format: 'iceberg', ok: true, dryRun: true, snapshotIds: [], filesBefore: APPENDS });
    expect(events).toContain('plan');
    // the result is plain JSON: it survives a queue or a workflow history unchanged
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);

    const abort = new AbortController();
    abort.abort();
    await expect(
      runMaintenanceJob({ table: tableDir, job: 'compact' }, { signal: abort.signal }),
    ).rejects.toMatchObject({ kind: 'Transient', retryable: true });
    expect(await shape()).toEqual({ dataFiles: APPENDS, snapshots: APPENDS });
  });
});

describe('floe serve --once', () => {
  it('compacts and expires a table of small appends, rows unchanged; a second run finds nothing due', async () => {
    // the rows written, derived from the loop above rather than read back through floe
    const expected = Array.from({ length: APPENDS }, (_, a) =>
      Array.from({ length: ROWS_PER_APPEND }, (_, i) => `${a * 100 + i}|row ${a}.${i}`),
    )
      .flat()
      .sort();
    expect(await liveRows()).toEqual(expected);
    expect(await shape()).toEqual({ dataFiles: APPENDS, snapshots: APPENDS });

    const config = path.join(root, 'floe.yaml');
    writeFileSync(
      config,
      [
        'state: state/floe.db',
        'tables:',
        '  - location: warehouse/orders',
        '    jobs:',
        '      compact: every 1h',
        // expire everything but the current snapshot: the appends' files become unreferenced and are deleted
        '      expire: { schedule: daily, olderThan: 0s, retainLast: 1 }',
      ].join('\n'),
    );
    const first = await serveInProcess(config);
    expect(first.exitCode).toBeUndefined();
    const events = first.lines.map((l) => `${l.event}:${l.job}`);
    expect(events).toEqual([
      // a new state database: it says both jobs start now and will change the table (issue 28.8)
      'first-start:undefined',
      'job-start:compact',
      'job-commit:compact',
      'job-finish:compact',
      'job-start:expire',
      'job-finish:expire',
    ]);
    expect(first.lines[0]).toMatchObject({
      level: 'warn',
      dueNow: [
        { table: 'orders', job: 'compact', dryRun: false },
        { table: 'orders', job: 'expire', dryRun: false },
      ],
    });
    const compact = first.lines.find((l) => l.event === 'job-finish' && l.job === 'compact')!;
    expect(compact).toMatchObject({
      table: 'orders',
      ok: true,
      format: 'iceberg',
      filesBefore: APPENDS,
      filesAfter: 1,
    });
    expect(compact.snapshotIds).toHaveLength(1);
    expect(compact.bytesWritten as number).toBeGreaterThan(0);
    const expire = first.lines.find((l) => l.event === 'job-finish' && l.job === 'expire')!;
    expect(expire.expiredSnapshotIds).toHaveLength(APPENDS);
    // the 14 small data files are gone with their snapshots (plus manifests and manifest lists)
    expect(expire.filesDeleted as number).toBeGreaterThanOrEqual(APPENDS);

    expect(await liveRows()).toEqual(expected);
    expect(await shape()).toEqual({ dataFiles: 1, snapshots: 1 });
    const table = await openIcebergTable(tableDir, { io });
    expect(String(table.metadata.currentSnapshotId)).toBe((compact.snapshotIds as string[])[0]);

    // the state database: schedule state, planner memory and one history row per job
    const db = new Database(path.join(root, 'state', 'floe.db'), { readonly: true });
    const jobs = db
      .prepare(
        'SELECT job, consecutive_failures, last_result_json FROM floe_schedule_state WHERE table_name = ? ORDER BY job',
      )
      .all('orders') as { job: string; consecutive_failures: number; last_result_json: string }[];
    expect(jobs.map((j) => [j.job, j.consecutive_failures, JSON.parse(j.last_result_json).ok])).toEqual([
      ['compact', 0, true],
      ['expire', 0, true],
    ]);
    // the tiered planner remembered the partition it optimized
    const planner = db.prepare('SELECT state_json FROM floe_planner_state WHERE table_name = ?').get('orders') as {
      state_json: string;
    };
    expect(Object.keys(JSON.parse(planner.state_json).partitions)).toHaveLength(1);
    const runs = db
      .prepare(
        'SELECT job, outcome, files_before, files_after, dry_run FROM floe_runs WHERE table_name = ? ORDER BY id',
      )
      .all('orders');
    expect(runs).toEqual([
      { job: 'compact', outcome: 'ok', files_before: APPENDS, files_after: 1, dry_run: 0 },
      { job: 'expire', outcome: 'ok', files_before: null, files_after: null, dry_run: 0 },
    ]);
    db.close();

    // a second run (a restart: a new service reads the state files) finds nothing due
    const second = await serveInProcess(config);
    expect(second.exitCode).toBeUndefined();
    expect(second.lines).toEqual([]);
  });

  it('exits with code 3 when a job fails, and logs the failure with its reason', async () => {
    const config = path.join(root, 'broken.yaml');
    writeFileSync(
      config,
      ['stateDir: state-broken', 'tables:', '  - location: warehouse/missing', '    jobs: { compact: hourly }'].join(
        '\n',
      ),
    );
    const r = await serveInProcess(config);
    expect(r.exitCode).toBe(3);
    const failed = r.lines.find((l) => l.event === 'job-failed')!;
    expect(failed).toMatchObject({ table: 'missing', job: 'compact', ok: false, consecutiveFailures: 1 });
    expect(String(failed.error)).toContain(path.join(root, 'warehouse', 'missing'));
  });
});
