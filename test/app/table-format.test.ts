/**
 * The one table-format detector (connectors/table-format.ts) on real tables written by other engines, in
 * place: every entry point — CLI, jobs, service, seam — asks it, so its two modes are pinned here.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectTableFormat, tableFormatOf } from '../../src/app/table-format.js';
import { fileIOFromEnv } from '../../src/app/open-table.js';
import { isPaimonTable } from '../../connectors/paimon/table.js';
import { caught, fixtures } from '../connectors/iceberg/helpers.js';

const iceberg = path.join(fixtures, 'impala/iceberg_v2_partitioned_position_deletes');
const paimon = path.join(fixtures, 'paimon-cpp/pk_table_scan_and_read_mor');
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-format-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('detectTableFormat', () => {
  const files = fileIOFromEnv();
  afterAll(() => files.destroy());

  it('Paimon by schema/schema-N, Iceberg by its metadata, whatever the trailing slash', async () => {
    expect(await detectTableFormat(paimon, files)).toBe('paimon');
    expect(await detectTableFormat(`${paimon}/`, files)).toBe('paimon');
    expect(await detectTableFormat(iceberg, files)).toBe('iceberg');
    expect(await detectTableFormat(iceberg, files, { require: true })).toBe('iceberg');
    expect(await detectTableFormat(paimon, files, { require: true })).toBe('paimon');
    expect(await detectTableFormat(`${iceberg}/metadata/v1.metadata.json`, files)).toBe('iceberg');
    expect(await detectTableFormat('ns.t', files, { catalog: 'rest:http://127.0.0.1:1' })).toBe('iceberg');
    expect(await isPaimonTable(paimon, files)).toBe(true);
    expect(await isPaimonTable(iceberg, files)).toBe(false);
  });

  it('schema/ files that are not schema-<N> do not make a Paimon table', async () => {
    const dir = path.join(scratch, 'not-paimon');
    mkdirSync(path.join(dir, 'schema'), { recursive: true });
    writeFileSync(path.join(dir, 'schema', 'schema-latest'), '{}');
    expect(await detectTableFormat(dir, files)).toBe('iceberg');
    expect(await isPaimonTable(dir, files)).toBe(false);
  });

  it('a folder that holds no table: Iceberg (the locator explains) unless the caller requires a table', async () => {
    const empty = path.join(scratch, 'empty');
    mkdirSync(empty);
    expect(await detectTableFormat(empty, files)).toBe('iceberg');
    const err = await caught(detectTableFormat(empty, files, { require: true }));
    expect(err).toMatchObject({ kind: 'NotFound', context: { table: empty } });
    expect(err.message).toContain(`no Iceberg or Paimon table at ${empty}`);
  });

  it('tableFormatOf opens the job storage, location map included', async () => {
    expect(await tableFormatOf(paimon, {})).toBe('paimon');
    expect(await tableFormatOf('/elsewhere/t', { locationMap: [`/elsewhere/t=${paimon}`] })).toBe('paimon');
    expect(await tableFormatOf('ns.t', { catalog: 'sql:/nowhere.db' })).toBe('iceberg');
  });
});
