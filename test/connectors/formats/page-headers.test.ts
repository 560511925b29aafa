/**
 * A corrupt page header used to make parquet-wasm (arrow-rs) trap inside an async callback — an uncaught
 * "RuntimeError: unreachable" that ended the whole process during `floe compact`. The header walk turns it
 * into a Corrupt error naming the file, before the bytes reach arrow-rs.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FloeError } from '../../../util/errors.js';
import { readParquetTable } from '../../../connectors/formats/parquet/read.js';
import { fixtures } from '../iceberg/helpers.js';

const FILE = path.join(
  fixtures,
  'impala/iceberg_v3_deletion_vectors/data/00000-0-ec047627-1122-495a-9b07-87e0c47aebbb-0-00001.parquet',
);

describe('Parquet page headers are checked before arrow-rs reads the pages', () => {
  it('an intact file reads (control)', async () => {
    const t = await readParquetTable(readFileSync(FILE), FILE);
    expect(t.numRows).toBeGreaterThan(0);
  });
  it('a corrupt first page header is a Corrupt error naming the file, not a process-ending trap', async () => {
    const bytes = Buffer.from(readFileSync(FILE));
    bytes.fill(0xff, 4, 10);
    const e = await readParquetTable(bytes, FILE).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FloeError);
    expect((e as FloeError).kind).toBe('Corrupt');
    expect((e as FloeError).message).toContain(FILE);
    expect((e as FloeError).message).toMatch(/page header/);
  });
  it('a page header of zeros (an empty thrift struct) is refused', async () => {
    const bytes = Buffer.from(readFileSync(FILE));
    bytes.fill(0x00, 4, 10);
    const e = await readParquetTable(bytes, FILE).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FloeError);
    expect((e as FloeError).message).toContain(FILE);
  });
});
