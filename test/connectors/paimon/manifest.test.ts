/**
 * DataFileMeta across versions, written here with the field lists of docs/reference (paimon.md §2.3):
 * the 0.5–0.7 shape (13 fields) and the master shape (21 fields), plus _VERSION checks and entry merging.
 */
import path from 'node:path';
import os from 'node:os';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { writeAvroContainer } from '../../../connectors/formats/avro.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { mergeEntries, readManifest, type ManifestEntry } from '../../../connectors/paimon/manifest.js';
import { isFloeError } from '../../../util/errors.js';

const localIO = new FileIO();

const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-manifest-'));
mkdirSync(path.join(dir, 'manifest'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stats = (name: string) => ({
  type: 'record',
  name,
  fields: [
    { name: '_MIN_VALUES', type: 'bytes' },
    { name: '_MAX_VALUES', type: 'bytes' },
    { name: '_NULL_COUNTS', type: ['null', { type: 'array', items: ['null', 'long'] }], default: null },
  ],
});
const oldFile = [
  { name: '_FILE_NAME', type: 'string' },
  { name: '_FILE_SIZE', type: 'long' },
  { name: '_ROW_COUNT', type: 'long' },
  { name: '_MIN_KEY', type: 'bytes' },
  { name: '_MAX_KEY', type: 'bytes' },
  { name: '_KEY_STATS', type: stats('record__FILE__KEY_STATS') },
  { name: '_VALUE_STATS', type: stats('record__FILE__VALUE_STATS') },
  { name: '_MIN_SEQUENCE_NUMBER', type: 'long' },
  { name: '_MAX_SEQUENCE_NUMBER', type: 'long' },
  { name: '_SCHEMA_ID', type: 'long' },
  { name: '_LEVEL', type: 'int' },
  { name: '_EXTRA_FILES', type: { type: 'array', items: 'string' } },
  { name: '_CREATION_TIME', type: ['null', { type: 'long', logicalType: 'timestamp-millis' }], default: null },
];
const newFile = [
  ...oldFile,
  { name: '_DELETE_ROW_COUNT', type: ['null', 'long'], default: null },
  { name: '_EMBEDDED_FILE_INDEX', type: ['null', 'bytes'], default: null },
  { name: '_FILE_SOURCE', type: ['null', 'int'], default: null },
  { name: '_VALUE_STATS_COLS', type: ['null', { type: 'array', items: 'string' }], default: null },
  { name: '_EXTERNAL_PATH', type: ['null', 'string'], default: null },
  { name: '_FIRST_ROW_ID', type: ['null', 'long'], default: null },
  { name: '_WRITE_COLS', type: ['null', { type: 'array', items: 'string' }], default: null },
  { name: '_WRITE_COLS_SEQUENCES', type: ['null', { type: 'array', items: 'long' }], default: null },
];
const entrySchema = (fileFields: unknown[]) => ({
  type: 'record',
  name: 'record',
  namespace: 'org.apache.paimon.avro.generated',
  fields: [
    { name: '_VERSION', type: 'int' },
    { name: '_KIND', type: 'int' },
    { name: '_PARTITION', type: 'bytes' },
    { name: '_BUCKET', type: 'int' },
    { name: '_TOTAL_BUCKETS', type: 'int' },
    { name: '_FILE', type: { type: 'record', name: 'record__FILE', fields: fileFields } },
  ],
});
const emptyRow = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
const emptyStats = { _MIN_VALUES: emptyRow, _MAX_VALUES: emptyRow, _NULL_COUNTS: [] };
const file = (name: string, extra: Record<string, unknown> = {}) => ({
  _FILE_NAME: name,
  _FILE_SIZE: 100n,
  _ROW_COUNT: 3n,
  _MIN_KEY: emptyRow,
  _MAX_KEY: emptyRow,
  _KEY_STATS: emptyStats,
  _VALUE_STATS: emptyStats,
  _MIN_SEQUENCE_NUMBER: 1n,
  _MAX_SEQUENCE_NUMBER: 2n ** 40n,
  _SCHEMA_ID: 0n,
  _LEVEL: 2,
  _EXTRA_FILES: [],
  _CREATION_TIME: 1_700_000_000_000,
  ...extra,
});
const entry = (kind: number, f: Record<string, unknown>, version = 2) => ({
  _VERSION: version,
  _KIND: kind,
  _PARTITION: emptyRow,
  _BUCKET: 0,
  _TOTAL_BUCKETS: 1,
  _FILE: f,
});

async function write(name: string, schema: unknown, records: unknown[]) {
  writeFileSync(path.join(dir, 'manifest', name), await writeAvroContainer(schema, records, { codec: 'null' }));
}

describe('manifest entries', () => {
  it('reads the oldest DataFileMeta shape, leaving newer fields unset', async () => {
    await write('m-old', entrySchema(oldFile), [entry(0, file('data-a.parquet'))]);
    const [e] = await readManifest(localIO, dir, 'm-old');
    expect(e!.file).toMatchObject({
      fileName: 'data-a.parquet',
      level: 2,
      maxSequenceNumber: 2n ** 40n,
      creationTime: 1_700_000_000_000,
    });
    expect(e!.file.deleteRowCount).toBeUndefined();
    expect(e!.file.fileSource).toBeUndefined();
    expect(e!.file.valueStatsCols).toBeUndefined();
  });

  it('reads the newest DataFileMeta shape', async () => {
    await write('m-new', entrySchema(newFile), [
      entry(
        0,
        file('data-b.parquet', {
          _DELETE_ROW_COUNT: 1n,
          _EMBEDDED_FILE_INDEX: null,
          _FILE_SOURCE: 1,
          _VALUE_STATS_COLS: ['v'],
          _EXTERNAL_PATH: 's3://elsewhere/data-b.parquet',
          _FIRST_ROW_ID: 7n,
          _WRITE_COLS: ['k', 'v'],
          _WRITE_COLS_SEQUENCES: [3n, 4n],
        }),
      ),
    ]);
    const [e] = await readManifest(localIO, dir, 'm-new');
    expect(e!.file).toMatchObject({
      deleteRowCount: 1n,
      fileSource: 1,
      valueStatsCols: ['v'],
      externalPath: 's3://elsewhere/data-b.parquet',
      firstRowId: 7n,
      writeCols: ['k', 'v'],
      writeColsSequences: [3n, 4n],
    });
  });

  it('refuses an unknown _VERSION, naming the file', async () => {
    await write('m-v1', entrySchema(oldFile), [entry(0, file('data-c.parquet'), 1)]);
    const err = await readManifest(localIO, dir, 'm-v1').catch((e: unknown) => e);
    expect(isFloeError(err, 'Unsupported')).toBe(true);
    expect((err as Error).message).toContain('m-v1');
  });

  it('replays ADD then DELETE; a level change is DELETE(old level) + ADD(new level)', async () => {
    const mk = (kind: number, name: string, level: number): ManifestEntry => ({
      kind,
      partition: emptyRow,
      bucket: 0,
      totalBuckets: 1,
      manifest: 'm',
      file: {
        fileName: name,
        level,
        fileSize: 1n,
        rowCount: 1n,
        minSequenceNumber: 0n,
        maxSequenceNumber: 0n,
        schemaId: 0,
        keyStats: null,
        valueStats: null,
        extraFiles: [],
        minKey: emptyRow,
        maxKey: emptyRow,
      },
    });
    const live = mergeEntries([mk(0, 'a', 0), mk(0, 'b', 0), mk(1, 'a', 0), mk(0, 'a', 5), mk(1, 'zz', 0)]);
    expect(live.map((e) => [e.file.fileName, e.file.level])).toEqual([
      ['b', 0],
      ['a', 5],
    ]);
    expect(() => mergeEntries([mk(0, 'a', 0), mk(0, 'a', 0)])).toThrow(/already live/);
  });
});
