/**
 * Issue 13.10: opening something that is not a table says what is wrong — the path does not exist, it is
 * a file, it is a Paimon table, or what floe looked for — instead of "no Iceberg table at …".
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openIcebergTable } from '../../../connectors/iceberg/table.js';
import { openIcebergForWrite } from '../../../connectors/iceberg/open-for-write.js';
import { caught, fixtures } from './helpers.js';

const base = mkdtempSync(path.join(os.tmpdir(), 'floe-open-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('opening a path that is not an Iceberg table', () => {
  it('a missing path: "does not exist" (read and write paths alike)', async () => {
    const missing = path.join(base, 'no-such-table');
    for (const open of [() => openIcebergTable(missing), () => openIcebergForWrite(missing, {})]) {
      const e = await caught(open());
      expect(e.kind).toBe('NotFound');
      expect(e.message).toBe(`${missing} does not exist`);
    }
  });

  it('a directory without table metadata: names what floe looked for', async () => {
    const dir = path.join(base, 'plain');
    mkdirSync(path.join(dir, 'metadata'), { recursive: true });
    writeFileSync(path.join(dir, 'notes.txt'), 'hello');
    const e = await caught(openIcebergTable(dir));
    expect(e.kind).toBe('NotFound');
    expect(e.message).toContain(`no table at ${dir}`);
    expect(e.message).toContain('metadata/version-hint.text');
    expect(e.message).toContain('metadata/v<N>.metadata.json');
    expect(e.message).toContain('schema/schema-<N>');
  });

  it('a regular file', async () => {
    const file = path.join(base, 'file.parquet');
    writeFileSync(file, 'x');
    const e = await caught(openIcebergTable(file));
    expect(e.message).toBe(`${file} is a file, not a table directory or an Iceberg metadata file (*.metadata.json)`);
  });

  it('a Paimon table opened as Iceberg says it is a Paimon table', async () => {
    const t = path.join(fixtures, 'paimon-cpp/pk_table_scan_and_read_mor');
    const e = await caught(openIcebergTable(t));
    expect(e.kind).toBe('Unsupported');
    expect(e.message).toBe(`${t} is a Paimon table (it has schema/schema-N), not an Iceberg table`);
  });
});
