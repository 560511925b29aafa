/** Finding the current metadata of filesystem tables (Java HadoopTableOperations rules) and metadata parsing. */
import { gzipSync } from 'node:zlib';
import { readFileSync, renameSync, unlinkSync, writeFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openIcebergTable } from '../../../connectors/iceberg/table.js';
import { parseMetadata } from '../../../connectors/iceberg/metadata.js';
import { countLiveRows } from '../../../connectors/iceberg/scan.js';
import { copyFixture } from './helpers.js';

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});
function copy(rel = 'impala/iceberg_v2_delete_equality'): string {
  const { dir, cleanup } = copyFixture(rel);
  cleanups.push(cleanup);
  return dir;
}
const meta = (dir: string, f: string) => path.join(dir, 'metadata', f);

describe('locating the current metadata file', () => {
  it('uses version-hint.text', async () => {
    const dir = copy('impala/iceberg_v2_delete_equality_nulls'); // hint says 4
    const t = await openIcebergTable(dir);
    expect(t.via).toBe('version-hint');
    expect(path.basename(t.metadataLocation)).toBe('v4.metadata.json');
  });

  it('probes forward past a stale hint', async () => {
    const dir = copy('impala/iceberg_v2_delete_equality_nulls');
    writeFileSync(meta(dir, 'version-hint.text'), '2');
    const t = await openIcebergTable(dir);
    expect(path.basename(t.metadataLocation)).toBe('v4.metadata.json');
  });

  it('falls back to the highest vN when the hint is missing (this table has version-hint.txt, which Java ignores)', async () => {
    const dir = copy();
    const t = await openIcebergTable(dir);
    expect(t.via).toBe('listing');
    expect(path.basename(t.metadataLocation)).toBe('v4.metadata.json');
  });

  it('finds gzip metadata under both names', async () => {
    const dir = copy();
    const v4 = readFileSync(meta(dir, 'v4.metadata.json'));
    writeFileSync(meta(dir, 'v5.gz.metadata.json'), gzipSync(v4));
    let t = await openIcebergTable(dir);
    expect(path.basename(t.metadataLocation)).toBe('v5.gz.metadata.json');
    expect(t.metadata.currentSnapshotId).toBe(5763349507283783091n);
    writeFileSync(meta(dir, 'v6.metadata.json.gz'), gzipSync(v4));
    t = await openIcebergTable(dir);
    expect(path.basename(t.metadataLocation)).toBe('v6.metadata.json.gz');
    expect(await countLiveRows(t)).toBe(2);
  });

  it('falls back to metastore-style NNNNN-uuid names when there are no vN files', async () => {
    const dir = copy();
    for (const f of readdirSync(path.join(dir, 'metadata')))
      if (/^v\d\.metadata\.json$/.test(f) && f !== 'v4.metadata.json') unlinkSync(meta(dir, f));
    renameSync(meta(dir, 'v4.metadata.json'), meta(dir, '00004-0a0b0c0d-aaaa-bbbb-cccc-000000000000.metadata.json'));
    unlinkSync(meta(dir, 'version-hint.txt'));
    const t = await openIcebergTable(dir);
    expect(t.via).toBe('metastore-name');
    expect(await countLiveRows(t)).toBe(2);
  });
});

describe('metadata parsing', () => {
  const base = {
    'format-version': 2,
    'table-uuid': 'u',
    location: 's3://b/t/',
    'last-sequence-number': 0,
    'last-updated-ms': 1,
    'last-column-id': 1,
    'current-schema-id': 0,
    schemas: [
      { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'a', required: false, type: 'decimal(10, 2)' }] },
    ],
    'default-spec-id': 0,
    'partition-specs': [{ 'spec-id': 0, fields: [] }],
    'last-partition-id': 999,
  };
  it('-1 and null current-snapshot-id mean no snapshot; location loses its trailing slash', () => {
    const a = parseMetadata({ ...base, 'current-snapshot-id': -1 }, 'x.json');
    expect(a.currentSnapshotId).toBeUndefined();
    expect(a.refs).toEqual([]);
    expect(a.location).toBe('s3://b/t');
    const b = parseMetadata({ ...base, 'format-version': 3, 'current-snapshot-id': null, 'next-row-id': 7 }, 'x.json');
    expect(b.currentSnapshotId).toBeUndefined();
    expect(b.nextRowId).toBe(7n);
    expect(a.schemas[0]!.fields[0]!.type).toEqual({ kind: 'primitive', name: 'decimal', precision: 10, scale: 2 });
  });
  it('an implicit main branch when refs are absent; ids beyond 2^53 stay exact', () => {
    const id = 9007199254740993n; // 2^53 + 1
    const md = parseMetadata(
      {
        ...base,
        'last-sequence-number': 1,
        'current-snapshot-id': id,
        snapshots: [
          {
            'snapshot-id': id,
            'timestamp-ms': 5,
            'sequence-number': 1,
            summary: { operation: 'append' },
            'manifest-list': 'm.avro',
          },
        ],
      },
      'x.json',
    );
    expect(md.refs).toEqual([{ name: 'main', type: 'branch', snapshotId: id }]);
    expect(md.snapshots[0]!.snapshotId).toBe(id);
  });
  it('v1 without schemas/partition-specs uses schema/partition-spec', () => {
    const md = parseMetadata(
      {
        'format-version': 1,
        location: '/t',
        'last-updated-ms': 1,
        'last-column-id': 2,
        schema: { type: 'struct', fields: [{ id: 1, name: 'ts', required: true, type: 'timestamp' }] },
        'partition-spec': [{ name: 'ts_day', transform: 'day', 'source-id': 1 }],
      },
      'v1.json',
    );
    expect(md.currentSchemaId).toBe(0);
    expect(md.specs).toEqual([
      { specId: 0, fields: [{ sourceId: 1, fieldId: 1000, name: 'ts_day', transform: 'day' }] },
    ]);
    expect(md.lastSequenceNumber).toBe(0n);
  });
});
