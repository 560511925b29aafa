/**
 * Issue 29.8 through the command line: compaction is all or nothing by default (as Spark). A table with
 * three partitions, one of whose data files is gone: without `--partial-progress` nothing is committed,
 * no file is left behind, exit 1; with it the two other partitions commit, exit 3.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileIO } from '../../../connectors/storage/index.js';
import { appendRows, createIcebergTable } from '../../../connectors/iceberg/write-table.js';
import { floe } from './support.js';

const base = mkdtempSync(path.join(tmpdir(), 'floe-all-or-nothing-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.parentPath.includes('.floe'))
    .map(
      (e) => `${path.relative(dir, path.join(e.parentPath, e.name))} ${statSync(path.join(e.parentPath, e.name)).size}`,
    )
    .sort();
}

async function tableMissingOneFile(name: string): Promise<string> {
  const dir = path.join(base, name);
  const io = new FileIO();
  await createIcebergTable(io, dir, {
    formatVersion: 2,
    fields: [
      { id: 1, name: 'id', required: false, type: { kind: 'primitive', name: 'long' } },
      { id: 2, name: 'region', required: false, type: { kind: 'primitive', name: 'string' } },
    ],
    partitionBy: ['region'],
  });
  for (let a = 0; a < 4; a++)
    await appendRows(
      io,
      dir,
      ['a', 'b', 'c'].map((region, i) => ({ id: BigInt(a * 10 + i), region })),
    );
  io.destroy();
  const b = path.join(
    dir,
    'data',
    readdirSync(path.join(dir, 'data')).find((d) => d.includes('b'))!,
  );
  rmSync(path.join(b, readdirSync(b).sort()[0]!));
  return dir;
}

/** A bin-pack of every file, so each partition is a task; `extra` adds flags. */
const compactArgs = (dir: string, ...extra: string[]): string[] => [
  'compact',
  dir,
  '--strategy',
  'binpack',
  '-o',
  'rewrite-all=true',
  ...extra,
  '--json',
  '--progress',
  'none',
];

describe('compact without and with --partial-progress', () => {
  it('default: one failed task commits nothing and leaves nothing (exit 1)', async () => {
    const dir = await tableMissingOneFile('default');
    const before = files(dir);
    const r = await floe(...compactArgs(dir));
    expect(r.code, r.stderr).toBe(1);
    const doc = JSON.parse(r.stdout) as { exitCode: number; snapshots?: unknown[] };
    expect(doc.exitCode).toBe(1);
    expect(JSON.stringify(doc)).toMatch(/all or nothing/);
    expect(files(dir)).toEqual(before);
  });

  it('--partial-progress: the other partitions commit (exit 3)', async () => {
    const dir = await tableMissingOneFile('partial');
    const r = await floe(...compactArgs(dir, '--partial-progress'));
    expect(r.code, r.stderr).toBe(3);
    expect((JSON.parse(r.stdout) as { exitCode: number }).exitCode).toBe(3);
  });
});
