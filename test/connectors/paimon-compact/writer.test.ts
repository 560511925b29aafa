/**
 * Data-file writer and manifest writer, round-tripped through the reader: the DataFileMeta facts are
 * derived by hand from the records written (first/last key, sequence range, retract count, stats).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPaimonTable } from '../../../connectors/paimon/index.js';
import { decodeSerializedRow, encodeSerializedRow } from '../../../connectors/paimon/binary-row.js';
import { readFileRecords } from '../../../connectors/paimon/compact-merge.js';
import {
  readManifest,
  readManifestList,
  FILE_KIND_ADD,
  FILE_KIND_DELETE,
} from '../../../connectors/paimon/manifest.js';
import { readParquetFooter } from '../../../connectors/formats/parquet/index.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import {
  FILE_SOURCE_COMPACT,
  FileNamer,
  KeyValueFileWriter,
  dataWriteSettings,
} from '../../../connectors/paimon/write-data-file.js';
import { ManifestNamer, writeManifest, writeManifestList } from '../../../connectors/paimon/write-manifest.js';
import { truncateMax, truncateMin } from '../../../connectors/paimon/write-stats.js';
import type { KeyValue } from '../../../connectors/paimon/merge-engines.js';
import type { PaimonType } from '../../../connectors/paimon/types.js';
import { cleanup, copyFixture } from './helpers.js';

afterEach(cleanup);

const STR: PaimonType = { root: 'VARCHAR', nullable: true, length: 2147483647 };
const INT: PaimonType = { root: 'INT', nullable: true };
const DBL: PaimonType = { root: 'DOUBLE', nullable: true };

describe('stats truncation', () => {
  it('truncates the min and bumps the last code point of the max', () => {
    expect(truncateMin('abcdefghijklmnopqrstuvwxyz', 16)).toBe('abcdefghijklmnop');
    expect(truncateMax('abcdefghijklmnopqrstuvwxyz', 16)).toBe('abcdefghijklmnoq');
    expect(truncateMax('short', 16)).toBe('short');
  });
});

describe('KeyValueFileWriter + manifests', () => {
  it('writes Paimon PK files whose meta and manifests read back exactly', async () => {
    // Table: f0 STRING NOT NULL, f1 INT NOT NULL (partition), f2 INT NOT NULL, f3 DOUBLE; pk (f0, f1, f2).
    const t = copyFixture('pk_table_scan_and_read_mor');
    const table = await openPaimonTable(t);
    const storage = new FileIO();
    const settings = dataWriteSettings(table.schema, t);
    const long = 'Two roads diverged in a wood';
    const records: KeyValue[] = [
      { key: ['Amy', 1], sequenceNumber: 7n, kind: 0, value: ['Amy', 10, 1, 1.5], level: 0 },
      { key: ['Bob', 2], sequenceNumber: 3n, kind: 3, value: ['Bob', 10, 2, null], level: 0 },
      { key: [long, 3], sequenceNumber: 11n, kind: 2, value: [long, 10, 3, -2.25], level: 0 },
    ];
    const w = new KeyValueFileWriter({
      table: t,
      partitionDir: 'f1=10',
      bucket: 1,
      schema: table.schema,
      settings,
      storage,
      targetFileSize: 1 << 30,
      bytesPerRow: 100,
      level: 4,
      fileSource: FILE_SOURCE_COMPACT,
      names: new FileNamer(settings),
    });
    for (const r of records) await w.write(r);
    const [out] = await w.close();
    expect(out).toBeDefined();
    const m = out!.meta;
    expect(out!.path).toBe(path.join(t, 'f1=10', 'bucket-1', m.fileName));
    expect(m.fileName).toMatch(/^data-[0-9a-f-]{36}-0\.parquet$/);
    expect(m.rowCount).toBe(3n);
    expect(m.fileSize).toBe(BigInt(readFileSync(out!.path).byteLength));
    const keyTypes = [STR, INT];
    expect(decodeSerializedRow(m.minKey, keyTypes, 'min')).toEqual(['Amy', 1]);
    expect(decodeSerializedRow(m.maxKey, keyTypes, 'max')).toEqual([long, 3]);
    expect([m.minSequenceNumber, m.maxSequenceNumber]).toEqual([3n, 11n]);
    expect(m.deleteRowCount).toBe(1n); // the -D record
    expect(m.level).toBe(4);
    expect(m.fileSource).toBe(1);
    expect(m.schemaId).toBe(table.schema.id);
    // key stats: all mode, truncate(128) leaves the 28-char key whole
    expect(decodeSerializedRow(m.keyStats!.minValues, keyTypes, 'k')).toEqual(['Amy', 1]);
    expect(decodeSerializedRow(m.keyStats!.maxValues, keyTypes, 'k')).toEqual([long, 3]);
    // value stats: truncate(16) shortens the long string; the null f3 counts once
    const valueTypes = [STR, INT, INT, DBL];
    expect(decodeSerializedRow(m.valueStats!.minValues, valueTypes, 'v')).toEqual(['Amy', 10, 1, -2.25]);
    expect(decodeSerializedRow(m.valueStats!.maxValues, valueTypes, 'v')).toEqual(['Two roads diverh', 10, 3, 1.5]);
    expect(m.valueStats!.nullCounts).toEqual([0n, 0n, 0n, 1n]);
    expect(m.valueStatsCols).toBeUndefined();

    // Physical layout: _KEY_f0, _KEY_f2, _SEQUENCE_NUMBER, _VALUE_KIND, then the columns, with Paimon's ids.
    const footer = readParquetFooter(new Uint8Array(readFileSync(out!.path)), out!.path);
    expect(footer.schema.map((n) => [n.name, n.fieldId])).toEqual([
      ['_KEY_f0', 1073741823],
      ['_KEY_f2', 1073741825],
      ['_SEQUENCE_NUMBER', 2147483646],
      ['_VALUE_KIND', 2147483645],
      ['f0', 0],
      ['f1', 1],
      ['f2', 2],
      ['f3', 3],
    ]);
    expect(footer.schema.find((n) => n.name === '_VALUE_KIND')!.repetition).toBe('REQUIRED');

    // The records read back as written.
    const back = await readFileRecords(table, {
      meta: m,
      path: out!.path,
      partition: [10],
      partitionBytes: encodeSerializedRow([INT], [10]),
      bucket: 1,
      totalBuckets: 2,
    });
    expect(back.map((r) => [r.key, r.sequenceNumber, r.kind, r.value])).toEqual(
      records.map((r) => [r.key, r.sequenceNumber, r.kind, r.value]),
    );

    // Manifest + manifest list round trip.
    const names = new ManifestNamer();
    const ctx = { table: t, storage, codec: 'zstandard' as const, partitionTypes: [INT], schemaId: 0, names };
    const partition = encodeSerializedRow([{ ...INT, nullable: false }], [10]);
    const entries = [
      { kind: FILE_KIND_DELETE, partition, bucket: 1, totalBuckets: 2, file: { ...m, level: 0 } },
      { kind: FILE_KIND_ADD, partition, bucket: 1, totalBuckets: 2, file: m },
    ];
    const meta = await writeManifest(ctx, entries, (b) => decodeSerializedRow(b, [INT], 'p'));
    expect([
      meta.numAddedFiles,
      meta.numDeletedFiles,
      meta.minLevel,
      meta.maxLevel,
      meta.minBucket,
      meta.maxBucket,
    ]).toEqual([1n, 1n, 0, 4, 1, 1]);
    const list = await writeManifestList(ctx, [meta]);
    const metas = await readManifestList(table.io, t, list.name);
    expect(metas).toHaveLength(1);
    expect(metas[0]!.fileName).toBe(meta.fileName);
    expect(decodeSerializedRow(metas[0]!.partitionStats!.minValues, [INT], 'ps')).toEqual([10]);
    const read = await readManifest(table.io, t, meta.fileName);
    expect(read.map((e) => e.kind)).toEqual([FILE_KIND_DELETE, FILE_KIND_ADD]);
    const norm = (x: unknown) =>
      JSON.parse(
        JSON.stringify(x, (_k, v) =>
          typeof v === 'bigint'
            ? `${v}n`
            : v instanceof Uint8Array
              ? Buffer.from(v).toString('hex')
              : v && v.type === 'Buffer'
                ? Buffer.from(v.data).toString('hex')
                : v,
        ),
      );
    const { manifest: _m, ...rest } = read[1]!;
    expect(norm(rest)).toEqual(norm(entries[1]));
    expect(norm(read[0]!.file)).toEqual(norm({ ...m, level: 0 }));
    expect(read[1]!.file.creationTime).toBe(m.creationTime);
    // The Avro header carries Java 1.3's schema: record name and nested names.
    const raw = readFileSync(path.join(t, 'manifest', meta.fileName)).toString('latin1');
    expect(raw).toContain('"name":"record","namespace":"org.apache.paimon.avro.generated"');
    expect(raw).toContain('"name":"record__FILE__KEY_STATS"');
    expect(raw).toContain('zstandard');
  });

  it('rolls files at the target size', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    const table = await openPaimonTable(t);
    const settings = dataWriteSettings(table.schema, t);
    const w = new KeyValueFileWriter({
      table: t,
      partitionDir: 'f1=10',
      bucket: 0,
      schema: table.schema,
      settings,
      storage: new FileIO(),
      targetFileSize: 1000,
      bytesPerRow: 100,
      level: 5,
      fileSource: FILE_SOURCE_COMPACT,
      names: new FileNamer(settings),
    });
    for (let i = 0; i < 25; i++)
      await w.write({
        key: [`k${String(i).padStart(2, '0')}`, i],
        sequenceNumber: BigInt(i),
        kind: 0,
        value: [`k${i}`, 10, i, i],
        level: 0,
      });
    const out = await w.close();
    // 1000 B target / 100 B per row → 10 rows per file
    expect(out.map((o) => o.meta.rowCount)).toEqual([10n, 10n, 5n]);
    expect(out.map((o) => [o.meta.minSequenceNumber, o.meta.maxSequenceNumber])).toEqual([
      [0n, 9n],
      [10n, 19n],
      [20n, 24n],
    ]);
  });
});
