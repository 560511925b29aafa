/**
 * Equality deletes keyed on values a lossy reader would confuse: binary keys that are not valid UTF-8
 * (ff01 and fe01 both decode to U+FFFD 01) and decimals wider than a double (…567.01 and …567.02).
 * Java deletes exactly the keyed rows; compaction applies the same deletes while rewriting and must keep
 * the look-alike rows. Java reads the result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalRow, diffRows, javaIceberg } from '../oracles/index.js';
import { floeCompactCli, skipLoudly } from './helpers.js';

const java = await javaIceberg.available();
const work = mkdtempSync(path.join(os.tmpdir(), 'floe-compact-eqkeys-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const TYPES = { id: 'long', raw: 'binary', amount: 'decimal(38,2)' };
const SCHEMA = Object.entries(TYPES).map(([name, type]) => ({ name, type, required: name === 'id' }));

describe('equality deletes on look-alike keys survive compaction exactly', () => {
  for (const [column, deleted, lookAlike] of [
    ['raw', 'ff01', 'fe01'],
    ['amount', '12345678901234567.01', '12345678901234567.02'],
  ] as const) {
    it(`${column}: deleting ${deleted} keeps ${lookAlike} (binpack, then java reads)`, async (ctx) => {
      if (!java.ok) skipLoudly(ctx, `java unavailable: ${java.reason}`);
      const dir = path.join(work, column);
      const other: Record<string, string> = column === 'raw' ? { amount: '1.00' } : { raw: '00' };
      const a = { id: '1', [column]: deleted, ...other };
      const b = { id: '2', [column]: lookAlike, ...other };
      await javaIceberg.write(dir, {
        formatVersion: 2,
        schema: SCHEMA,
        ops: [
          { op: 'append', rows: [a] },
          { op: 'append', rows: [b] },
          { op: 'delete-eq', rows: [{ [column]: deleted }], fields: [column] },
        ],
      });
      const expected = [canonicalRow(TYPES, b)];
      const { report } = await floeCompactCli([dir, '--strategy', 'binpack', '-o', 'min-input-files=2']);
      expect(report.failedTasks).toEqual([]);
      expect(report.snapshots).toHaveLength(1);
      const d = diffRows(expected, await javaIceberg.read(dir), {
        expected: 'hand-derived',
        actual: 'java after compaction',
      });
      expect(d.text, d.text).toBe('');
    });
  }
});
