/**
 * Issue 13.12 / 13.19: one versioned JSON result schema (schema/floe-result.schema.json) for every command:
 * real command output is validated against it; 64-bit ids are decimal strings; Iceberg and Paimon compaction
 * share their field names; every planned task ends as committed, failed or skipped; stdout holds exactly one
 * JSON document while progress goes to stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { icebergCompactResult } from '../../../src/app/compact-result.js';
import { resultDocument, RESULT_SCHEMA_ID } from '../../../src/app/result.js';
import { compactIceberg } from '../../../src/orchestration/compact-iceberg.js';
import { openIcebergForWrite } from '../../../src/app/open-table.js';
import { copyFixture, floe, floeWith, resultOf, schemaErrors } from './support.js';

const pos = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
const small = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
const paimon = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-cli-json-'));
afterAll(() => {
  for (const t of [pos, small, paimon]) t.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

const quiet = ['--json', '--progress', 'none'];

describe('inspect --json', () => {
  it('Iceberg: ids as decimal strings (were exact integers), envelope, schema-valid', async () => {
    const r = await floe('inspect', pos.dir, '--json');
    expect(r.code).toBe(0);
    const doc = resultOf(r.stdout);
    expect(doc).toMatchObject({
      schemaVersion: RESULT_SCHEMA_ID,
      command: 'inspect',
      exitCode: 0,
      status: 'ok',
      format: 'iceberg',
    });
    expect(doc.currentSnapshotId).toBe('8885697082976537578');
    expect(doc.inspectedSnapshotId).toBe('8885697082976537578');
    expect((doc.refs as { snapshotId: unknown }[])[0]!.snapshotId).toBe('8885697082976537578');
  });
  it('Paimon: same envelope, snapshot id as a string', async () => {
    const r = await floe('inspect', paimon.dir, '--json');
    expect(r.code).toBe(0);
    const doc = resultOf(r.stdout);
    expect(doc).toMatchObject({ command: 'inspect', format: 'paimon' });
    expect(typeof doc.snapshotId).toBe('string');
  });
});

describe('compact --json', () => {
  it('Iceberg dry run: planned tasks, schema-valid', async () => {
    const r = await floe(
      'compact',
      small.dir,
      '--dry-run',
      '-o',
      'self-optimizing.minor.trigger.file-count=2',
      ...quiet,
    );
    expect(r.code).toBe(0);
    const doc = resultOf(r.stdout);
    expect(doc).toMatchObject({ command: 'compact', format: 'iceberg', dryRun: true, snapshots: [] });
    expect((doc.tasks as { outcome: string }[]).map((t) => t.outcome)).toEqual(['planned']);
  });

  it('Iceberg and Paimon real runs: the same field names, committed tasks, snapshot ids as strings', async () => {
    const ice = await floe('compact', small.dir, '-o', 'self-optimizing.minor.trigger.file-count=2', ...quiet);
    expect(ice.code, ice.stderr).toBe(0);
    const a = resultOf(ice.stdout);
    expect(a.snapshots as string[]).not.toHaveLength(0);
    for (const id of a.snapshots as string[]) expect(id).toMatch(/^\d+$/);
    expect((a.tasks as { outcome: string }[]).every((t) => t.outcome === 'committed')).toBe(true);
    expect(a.committedTasks).toEqual((a.tasks as { id: string }[]).map((t) => t.id));

    const pai = await floe('compact', paimon.dir, '--full', ...quiet);
    expect(pai.code, pai.stderr).toBe(0);
    const b = resultOf(pai.stdout);
    expect(b.format).toBe('paimon');
    expect((b.snapshots as string[]).length).toBe(1);
    expect((b.tasks as { outcome: string }[]).length).toBeGreaterThan(0);
    expect((b.tasks as { outcome: string }[]).every((t) => t.outcome === 'committed')).toBe(true);
    // the shared fields are the same set for both formats (format-specific detail lives under plan / paimon)
    const shared = (d: Record<string, unknown>) =>
      Object.keys(d)
        .filter((k) => k !== 'plan' && k !== 'paimon')
        .sort();
    expect(shared(b)).toEqual(shared(a));
    expect(Object.keys(b.before as object)).toEqual(Object.keys(a.before as object));
  });

  it('stdout holds exactly one document while progress lines go to stderr', async () => {
    const t = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
    try {
      const r = await floe(
        'compact',
        t.dir,
        '-o',
        'self-optimizing.minor.trigger.file-count=2',
        '--json',
        '--progress',
        'json',
      );
      expect(r.code).toBe(0);
      resultOf(r.stdout); // one JSON text, nothing else
      const lines = r.stderr.trim().split('\n');
      expect(lines.length).toBeGreaterThan(1);
      for (const l of lines) expect(JSON.parse(l)).toHaveProperty('progress', 'compact');
    } finally {
      t.cleanup();
    }
  });

  it('a stray write to stdout during a --json run (a library log line) lands on stderr, not in the document', async () => {
    let strays = 0;
    const r = await floeWith(
      {
        onStderr: (chunk) => {
          if (strays === 0 && chunk.includes('"event":"plan"')) {
            strays++;
            process.stdout.write('some library says hello\n');
          }
        },
      },
      'compact',
      small.dir,
      '--dry-run',
      '--json',
      '--progress',
      'json',
    );
    expect(strays).toBe(1);
    expect(r.code).toBe(0);
    resultOf(r.stdout);
    expect(r.stderr).toContain('some library says hello');
  });

  it('library return values map to the same documents', async () => {
    const t = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
    try {
      const opened = await openIcebergForWrite(t.dir, {});
      try {
        const report = await compactIceberg(opened.table, opened.io, opened.ops!, {
          dryRun: true,
          options: { 'self-optimizing.minor.trigger.file-count': '2' },
        });
        const doc = JSON.parse(JSON.stringify(resultDocument('compact', 0, icebergCompactResult(report))));
        expect(schemaErrors(doc)).toBeUndefined();
      } finally {
        opened.files.destroy();
      }
    } finally {
      t.cleanup();
    }
  });

  it('a skipped task is named with the reason the job gave (v3 eq→pos is no longer skipped: issue 14.2)', () => {
    const why = 'cancelled before its commit; its output was removed';
    const report = {
      table: 't',
      dryRun: false,
      snapshots: [],
      committedTasks: [],
      failedTasks: [],
      danglingDeletes: [],
      tasks: [{ id: 'eq-1', kind: 'eq-to-pos', outcome: 'skipped', reason: why }],
      skippedTasks: [{ id: 'eq-1', reason: why }],
      before: { dataFiles: 1, dataBytes: 1, deleteFiles: 1, deleteBytes: 1, records: 1 },
      bytesRead: 0,
      bytesWritten: 0,
      rowsIn: 0,
      rowsOut: 0,
      durationMs: 0,
      plan: {
        planner: 'tiered',
        plannedAtMs: 0,
        removableDeletes: [],
        trail: [],
        tasks: [
          {
            id: 'eq-1',
            kind: 'eq-to-pos',
            partition: [],
            inputs: [],
            inputBytes: 0,
            deletes: [],
            removableDeletes: [],
            targetFileSizeBytes: 1,
            trail: [],
          },
        ],
      },
    } as unknown as Parameters<typeof icebergCompactResult>[0];
    const r = icebergCompactResult(report, 3);
    expect(r.tasks[0]).toMatchObject({ id: 'eq-1', outcome: 'skipped' });
    expect(r.skippedTasks[0]!.reason).toBe(why);
    expect(schemaErrors(JSON.parse(JSON.stringify(resultDocument('compact', 0, r))))).toBeUndefined();
  });
});

describe('maintenance commands --json', () => {
  it.each([
    ['expire', ['--older-than', '1d', '--retain-last', '1']],
    ['remove-orphans', []],
    ['rewrite-manifests', []],
  ])('%s --dry-run', async (cmd, extra) => {
    const r = await floe(cmd, pos.dir, '--dry-run', ...extra, ...quiet);
    expect(r.code, r.stderr).toBe(0);
    const doc = resultOf(r.stdout);
    expect(doc).toMatchObject({ command: cmd, dryRun: true, deleted: [] });
  });
  it('expire --dry-run lists manifest lists with their size, not "?"', async () => {
    const r = await floe(
      'expire',
      pos.dir,
      '--dry-run',
      '--older-than',
      '1d',
      '--retain-last',
      '1',
      '--json',
      '--progress',
      'none',
    );
    const doc = resultOf(r.stdout);
    const lists = (doc.candidates as { kind: string; bytes?: number }[]).filter((c) => c.kind === 'manifest-list');
    expect(lists.length).toBeGreaterThan(0);
    for (const c of lists) expect(c.bytes).toBeGreaterThan(0);
    const text = await floe(
      'expire',
      pos.dir,
      '--dry-run',
      '--older-than',
      '1d',
      '--retain-last',
      '1',
      '--progress',
      'none',
    );
    expect(text.stdout).not.toMatch(/manifest-list\t\?\t/);
  });
  it('Paimon expire --dry-run: manifests and snapshot files with their size, not 0 B', async () => {
    const r = await floe('expire', paimon.dir, '--dry-run', '--older-than', '1d', '--retain-last', '1', ...quiet);
    expect(r.code, r.stderr).toBe(0);
    const doc = resultOf(r.stdout);
    const meta = (doc.candidates as { kind: string; bytes?: number }[]).filter((c) => c.kind !== 'data');
    expect(meta.length).toBeGreaterThan(0);
    for (const c of meta) expect(c.bytes, c.kind).toBeGreaterThan(0);
  });
});

describe('sizes of deleted metadata files in a real run (13.10: "?" / "0 B")', () => {
  it.each([
    ['impala/iceberg_v2_partitioned_position_deletes', 'manifest-list'],
    ['paimon-cpp/pk_table_scan_and_read_mor', 'snapshot'],
    ['paimon-cpp/pk_table_scan_and_read_mor', 'manifest'],
  ])('%s: %s', async (fixture, kind) => {
    const t = copyFixture(fixture);
    try {
      const r = await floe('expire', t.dir, '--older-than', '1d', '--retain-last', '1', ...quiet);
      expect(r.code, r.stderr).toBe(0);
      const doc = resultOf(r.stdout);
      const files = (doc.candidates as { kind: string; bytes?: number }[]).filter((c) => c.kind === kind);
      expect(files.length).toBeGreaterThan(0);
      for (const c of files) expect(c.bytes).toBeGreaterThan(0);
      expect((doc.deleted as string[]).length).toBe((doc.candidates as unknown[]).length);
    } finally {
      t.cleanup();
    }
  });
});

describe('other commands', () => {
  it('plan universal --json', async () => {
    const r = await floe('plan', 'universal', 'L0:10 L0:10 L0:10 L3:100 L5:100', '--json');
    expect(r.code).toBe(0);
    expect(resultOf(r.stdout)).toMatchObject({ command: 'plan universal', result: { outputLevel: 2 } });
  });
  it('simulate --json', async () => {
    const r = await floe('simulate', 'append-1h', '--json', '--out', path.join(scratch, 'c.svg'));
    expect(r.code).toBe(0);
    expect(resultOf(r.stdout)).toMatchObject({ command: 'simulate' });
  });
  it('a failing command with --json prints an error document (exit 1)', async () => {
    const r = await floe('inspect', path.join(scratch, 'missing'), '--json');
    expect(r.code).toBe(1);
    expect(resultOf(r.stdout)).toMatchObject({
      command: 'inspect',
      exitCode: 1,
      status: 'failed',
      error: { kind: 'NotFound' },
    });
  });
});
