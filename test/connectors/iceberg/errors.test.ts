/**
 * Bad input: every failure is a FloeError that names the file (and the snapshot, for manifests).
 * The broken tables are copies of a fixture made at test time.
 */
import { readFileSync, truncateSync, unlinkSync, writeFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FloeError } from '../../../util/errors.js';
import { openIcebergTable } from '../../../connectors/iceberg/table.js';
import { countLiveRows } from '../../../connectors/iceberg/scan.js';
import { caught, copyFixture } from './helpers.js';

const FIXTURE = 'impala/iceberg_v2_delete_equality';
// v4 is current; its snapshot 5763349507283783091 lists manifests 490632c7-…-m0 (data) and -m1 (deletes).
const CURRENT = '5763349507283783091';
const MANIFEST = '490632c7-54bf-4362-97e7-b75ab18da9ac-m0.avro';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});
function copy(): string {
  const { dir, cleanup } = copyFixture(FIXTURE);
  cleanups.push(cleanup);
  return dir;
}

describe('Iceberg read errors', () => {
  it('the untouched copy reads fine (control)', async () => {
    const dir = copy();
    expect(await countLiveRows(await openIcebergTable(dir))).toBe(2);
  });

  it('truncated Avro manifest → Corrupt, naming the manifest and the snapshot', async () => {
    const dir = copy();
    const file = path.join(dir, 'metadata', MANIFEST);
    truncateSync(file, Math.floor(statSync(file).size / 2));
    const err = await caught(countLiveRows(await openIcebergTable(dir)));
    expect(err).toBeInstanceOf(FloeError);
    expect(err.kind).toBe('Corrupt');
    expect(err.message).toContain(MANIFEST);
    expect(err.message).toContain(CURRENT);
  });

  it('missing manifest → NotFound, naming the manifest and the snapshot', async () => {
    const dir = copy();
    unlinkSync(path.join(dir, 'metadata', MANIFEST));
    const err = await caught(countLiveRows(await openIcebergTable(dir)));
    expect(err).toBeInstanceOf(FloeError);
    expect(err.kind).toBe('NotFound');
    expect(err.message).toContain(MANIFEST);
    expect(err.message).toContain(CURRENT);
  });

  it('a missing manifest only breaks the snapshots that use it', async () => {
    const dir = copy();
    unlinkSync(path.join(dir, 'metadata', MANIFEST));
    const table = await openIcebergTable(dir);
    expect(await countLiveRows(table, { snapshotId: 361598097944440235n })).toBe(1);
  });

  it('corrupt metadata JSON → Corrupt naming the metadata file', async () => {
    const dir = copy();
    const file = path.join(dir, 'metadata', 'v4.metadata.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 200));
    const err = await caught(openIcebergTable(dir));
    expect(err).toBeInstanceOf(FloeError);
    expect(err.kind).toBe('Corrupt');
    expect(err.message).toContain(file);
  });

  it('unknown format version → Unsupported naming the metadata file', async () => {
    const dir = copy();
    const file = path.join(dir, 'metadata', 'v4.metadata.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"format-version"\s*:\s*2/, '"format-version" : 4'));
    const err = await caught(openIcebergTable(dir));
    expect(err).toBeInstanceOf(FloeError);
    expect(err.kind).toBe('Unsupported');
    expect(err.message).toContain(file);
    expect(err.message).toContain('4');
  });

  it('metadata that is not JSON at all → Corrupt naming the file', async () => {
    const dir = copy();
    const file = path.join(dir, 'metadata', 'v4.metadata.json');
    writeFileSync(file, Buffer.from([0x00, 0x01, 0x02]));
    const err = await caught(openIcebergTable(file));
    expect(err.kind).toBe('Corrupt');
    expect(err.message).toContain(file);
  });

  it('corrupt data file → Corrupt naming the data file', async () => {
    const dir = copy();
    const data = path.join(dir, 'data', '00000-0-931d6d35-d95e-468f-a7d9-d64f7a7b5282-00001.parquet');
    writeFileSync(data, 'not parquet');
    const err = await caught(countLiveRows(await openIcebergTable(dir)));
    expect(err).toBeInstanceOf(FloeError);
    expect(err.message).toContain('00000-0-931d6d35-d95e-468f-a7d9-d64f7a7b5282-00001.parquet');
  });

  it('unknown snapshot id → NotFound', async () => {
    const dir = copy();
    const err = await caught(countLiveRows(await openIcebergTable(dir), { snapshotId: 42n }));
    expect(err.kind).toBe('NotFound');
    expect(err.message).toContain('42');
  });

  it('a directory without metadata → NotFound', async () => {
    const dir = copy();
    const err = await caught(openIcebergTable(path.join(dir, 'data')));
    expect(err.kind).toBe('NotFound');
  });
});
