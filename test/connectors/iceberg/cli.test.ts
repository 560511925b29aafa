/** `floe inspect` / `floe scan` through their command modules (no subprocess). */
import { Command } from 'commander';
import * as path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseJsonLossless } from '../../../util/json.js';
import { writeScan } from '../../../src/shells/cli/commands/scan.js';
import {
  buildInspectReport,
  openTableForCli,
  register as registerInspect,
  renderInspectText,
} from '../../../src/shells/cli/commands/inspect.js';
import { fixtures } from './helpers.js';

const bunnies = path.join(fixtures, 'icebird/spark_bunnies');
const pos = path.join(fixtures, 'impala/iceberg_v2_partitioned_position_deletes');

async function scanOut(ref: string, opts: Record<string, unknown>): Promise<string> {
  let out = '';
  await writeScan(ref, opts, (c) => {
    out += c;
  });
  return out;
}

describe('floe scan', () => {
  it('--count', async () => {
    expect(await scanOut(bunnies, { count: true })).toBe('20\n');
    expect(await scanOut(bunnies, { count: true, snapshot: '7505300640432048841' })).toBe('21\n');
  });
  it('jsonl: one object per row, keyed by column name, longs as exact integers', async () => {
    const lines = (await scanOut(pos, {})).trim().split('\n');
    expect(lines).toHaveLength(10);
    const first = parseJsonLossless(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(first)).toEqual(['id', 'user', 'action', 'event_time']);
    expect(String(first.event_time)).toMatch(/^2020-01-01T\d\d:00:00\.000000$/);
  });
  it('csv: header then rows', async () => {
    const out = await scanOut(path.join(fixtures, 'impala/iceberg_v2_delete_equality_nulls'), { format: 'csv' });
    const [header, ...rows] = out.trim().split('\n');
    expect(header).toBe('i,s');
    expect(rows.sort()).toEqual([',str5', '1,str1', '4,str4']);
  });
  it('rejects an unknown format', async () => {
    await expect(scanOut(bunnies, { format: 'xml' })).rejects.toThrow(/jsonl or csv/);
  });
});

describe('floe inspect', () => {
  it('reports files by size class, deletes by kind and partitions', async () => {
    const report = await buildInspectReport(await openTableForCli(pos, {}));
    expect(report.formatVersion).toBe(2);
    expect(report.currentSnapshotId).toBe(8885697082976537578n);
    expect(report.health.data.fragment.files).toBe(3);
    expect(report.health.deletes.position).toMatchObject({ files: 3, records: 10 });
    expect(report.health.partitions.map((p) => p.partition).sort()).toEqual([['click'], ['download'], ['view']]);
    const text = renderInspectText(report);
    expect(text).toContain('Iceberg v2');
    expect(text).toMatch(/health score\s+\d+\.\d \/ 100/);
  });
  it('counts deletion vectors and registers as a command', async () => {
    const report = await buildInspectReport(
      await openTableForCli(path.join(fixtures, 'impala/iceberg_v3_deletion_vectors'), {}),
    );
    expect(report.health.deletes.deletionVector).toMatchObject({ files: 2, records: 2 });
    const program = new Command();
    registerInspect(program);
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await program.parseAsync([
        'node',
        'floe',
        'inspect',
        path.join(fixtures, 'impala/iceberg_v3_default_value'),
        '--json',
      ]);
      const json = parseJsonLossless(String(write.mock.calls[0]![0])) as {
        formatVersion: number;
        currentSnapshotId: string;
      };
      expect(json.formatVersion).toBe(3);
      // issue 13.12: 64-bit ids are decimal strings in every JSON result (they were exact integers here)
      expect(json.currentSnapshotId).toBe('5466875730470528452');
    } finally {
      write.mockRestore();
    }
  });
});
