/** Issue 13.6: `floe inspect --explain` prints the health formula with the table's numbers (Iceberg and Paimon). */
import { Command } from 'commander';
import * as path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { register as registerInspect } from '../../../src/shells/cli/commands/inspect.js';
import { fixtures } from './helpers.js';

async function inspect(...args: string[]): Promise<string> {
  const program = new Command();
  registerInspect(program);
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    await program.parseAsync(['node', 'floe', 'inspect', ...args]);
    return write.mock.calls.map((c) => String(c[0])).join('');
  } finally {
    write.mockRestore();
  }
}

describe('floe inspect --explain', () => {
  it('Iceberg: the formula, every term and the score it adds up to', async () => {
    const out = await inspect(path.join(fixtures, 'impala/iceberg_partitioned'), '--explain');
    const score = /health score\s+(\d+\.\d) \/ 100/.exec(out)![1];
    expect(out).toContain('health score = 100 × ideal scan cost / actual scan cost');
    // 20 fragments of about 1 KiB in 3 partitions, 1 manifest: opens dominate
    expect(out).toMatch(/\+ 20 data file\(s\) × open-cost +80\.0 MiB/);
    expect(out).toMatch(/\+ 1 manifest\(s\) × open-cost/);
    expect(out).toMatch(/per partition = 3,/);
    expect(out).toContain(`= ${score}  (a partition's score`);
    // the hour transform prints as a date-hour, not an integer
    expect(out).toMatch(/\["2020-01-01-0[89]",/);
  });
  it('without --explain the formula is not printed', async () => {
    const out = await inspect(path.join(fixtures, 'impala/iceberg_partitioned'));
    expect(out).not.toContain('ideal scan cost');
  });
  it('Paimon tables explain their score too', async () => {
    const out = await inspect(path.join(fixtures, 'paimon-cpp/pk_table_scan_and_read_mor'), '--explain');
    expect(out).toContain('health score = 100 × ideal scan cost / actual scan cost');
  });
});
