/**
 * Packed manifest column statistics (issue 11.6): what the getters return equals the maps the manifest
 * holds, entries without stats stay without, and a manifest written by floe's writer reads back through
 * the real loader with every stat intact. Expected values are the ones written, not read from the code.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Field } from '../../../model/index.js';
import { PackedColumnStats } from '../../../connectors/iceberg/packed-stats.js';
import { encodeSingleValue } from '../../../connectors/iceberg/write-bounds.js';
import {
  STATUS_ADDED,
  writeManifest,
  writeManifestList,
  type RawManifestEntry,
} from '../../../connectors/iceberg/write-manifest.js';
import { loadTableModel, openIcebergTable } from '../../../connectors/iceberg/table.js';
import { stringifyJsonLossless } from '../../../util/json.js';

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'name', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 3, name: 'score', required: false, type: { kind: 'primitive', name: 'double' } },
];
const byId = new Map(FIELDS.map((f) => [f.id, f] as const));
const kv = <T>(pairs: [number, T][]) => pairs.map(([key, value]) => ({ key, value }));
const enc = (id: number, v: unknown) => encodeSingleValue(byId.get(id)!.type, v);

describe('PackedColumnStats', () => {
  it('gives back every count and decoded bound, including counts beyond 2^53 and negative values', () => {
    const big = 2n ** 60n + 7n;
    const s = PackedColumnStats.fromAvro(
      {
        columnSizes: kv([
          [1, 100n],
          [2, big],
          [3, 0n],
        ]),
        valueCounts: kv([
          [1, 5n],
          [2, 5n],
          [3, 5n],
        ]),
        nullValueCounts: kv([[2, 1n]]),
        nanValueCounts: null,
        lowerBounds: kv([
          [1, enc(1, -9_007_199_254_740_993n)],
          [2, enc(2, 'ab€')],
          [3, enc(3, -0.5)],
          [99, Buffer.from([1, 2])],
        ]),
        upperBounds: kv([
          [1, enc(1, 42n)],
          [2, enc(2, 'zz')],
        ]),
      },
      byId,
    )!;
    expect(s.columnSizes).toEqual(
      new Map([
        [1, 100n],
        [2, big],
        [3, 0n],
      ]),
    );
    expect(s.valueCounts).toEqual(
      new Map([
        [1, 5n],
        [2, 5n],
        [3, 5n],
      ]),
    );
    expect(s.nullValueCounts).toEqual(new Map([[2, 1n]]));
    expect(s.nanValueCounts).toBeUndefined();
    // a column in no schema (99) keeps its raw bytes
    expect(s.lowerBounds).toEqual(
      new Map<number, unknown>([
        [1, -9_007_199_254_740_993n],
        [2, 'ab€'],
        [3, -0.5],
        [99, new Uint8Array([1, 2])],
      ]),
    );
    expect(s.upperBounds).toEqual(
      new Map<number, unknown>([
        [1, 42n],
        [2, 'zz'],
      ]),
    );
    expect(s.toPlain().upperBounds?.get(2)).toBe('zz');
  });

  it('is undefined for an entry without any stats, and keeps an empty map empty', () => {
    const none = {
      columnSizes: null,
      valueCounts: null,
      nullValueCounts: null,
      nanValueCounts: null,
      lowerBounds: null,
      upperBounds: null,
    };
    expect(PackedColumnStats.fromAvro(none, byId)).toBeUndefined();
    const empty = PackedColumnStats.fromAvro({ ...none, valueCounts: [] }, byId)!;
    expect(empty.valueCounts).toEqual(new Map());
    expect(empty.columnSizes).toBeUndefined();
  });

  it('files with different layouts in one manifest keep their own ids', () => {
    const layouts = new Map();
    const a = PackedColumnStats.fromAvro(
      {
        columnSizes: kv([[1, 1n]]),
        valueCounts: null,
        nullValueCounts: null,
        nanValueCounts: null,
        lowerBounds: null,
        upperBounds: null,
      },
      byId,
      layouts,
    )!;
    const b = PackedColumnStats.fromAvro(
      {
        columnSizes: kv([
          [2, 2n],
          [3, 3n],
        ]),
        valueCounts: null,
        nullValueCounts: null,
        nanValueCounts: null,
        lowerBounds: null,
        upperBounds: null,
      },
      byId,
      layouts,
    )!;
    const c = PackedColumnStats.fromAvro(
      {
        columnSizes: kv([[1, 9n]]),
        valueCounts: null,
        nullValueCounts: null,
        nanValueCounts: null,
        lowerBounds: null,
        upperBounds: null,
      },
      byId,
      layouts,
    )!;
    expect(new Set(layouts.values()).size).toBe(2);
    expect([a.columnSizes, b.columnSizes, c.columnSizes]).toEqual([
      new Map([[1, 1n]]),
      new Map([
        [2, 2n],
        [3, 3n],
      ]),
      new Map([[1, 9n]]),
    ]);
  });
});

describe('loading a floe-written manifest', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-packed-stats-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads every stat of every entry back, shares partition tuples, keeps entries without stats bare', async () => {
    const schemaJson = {
      type: 'struct',
      'schema-id': 0,
      fields: FIELDS.map((f) => ({
        id: f.id,
        name: f.name,
        required: f.required,
        type: (f.type as { name: string }).name,
      })),
    };
    const entries: RawManifestEntry[] = [0, 1, 2].map((i) => ({
      status: STATUS_ADDED,
      snapshot_id: 1n,
      sequence_number: null,
      file_sequence_number: null,
      data_file: {
        content: 0,
        file_path: `${dir}/data/f${i}.parquet`,
        file_format: 'PARQUET',
        partition: {},
        record_count: BigInt(10 + i),
        file_size_in_bytes: BigInt(1000 + i),
        ...(i === 2
          ? {}
          : {
              column_sizes: kv([
                [1, BigInt(100 + i)],
                [2, 200n],
              ]),
              value_counts: kv([[1, BigInt(10 + i)]]),
              null_value_counts: kv([[2, BigInt(i)]]),
              lower_bounds: kv([
                [1, enc(1, BigInt(i))],
                [2, enc(2, `n${i}`)],
              ]),
              upper_bounds: kv([[1, enc(1, BigInt(100 + i))]]),
            }),
      },
    }));
    const m = await writeManifest(
      {
        formatVersion: 2,
        specId: 0,
        specFieldsJson: [],
        partition: [],
        tableSchemaJson: schemaJson,
        content: 'data',
        entries,
        codec: { codec: 'deflate' },
      },
      1n,
      1n,
    );
    const meta = path.join(dir, 'metadata');
    mkdirSync(meta, { recursive: true });
    writeFileSync(path.join(meta, 'm.avro'), m.bytes);
    const list = await writeManifestList({
      formatVersion: 2,
      snapshotId: 1n,
      parentSnapshotId: undefined,
      sequenceNumber: 1n,
      manifests: [{ ...m.summary, manifest_path: path.join(meta, 'm.avro'), manifest_length: BigInt(m.bytes.length) }],
      codec: { codec: 'deflate' },
    });
    writeFileSync(path.join(meta, 'snap.avro'), list);
    const md = {
      'format-version': 2,
      'table-uuid': '5f0c1a57-0000-4000-8000-0000000000aa',
      location: dir,
      'last-sequence-number': 1,
      'last-updated-ms': 1,
      'last-column-id': 3,
      'current-schema-id': 0,
      schemas: [schemaJson],
      'default-spec-id': 0,
      'partition-specs': [{ 'spec-id': 0, fields: [] }],
      'last-partition-id': 999,
      'default-sort-order-id': 0,
      'sort-orders': [{ 'order-id': 0, fields: [] }],
      properties: {},
      'current-snapshot-id': 1,
      refs: { main: { 'snapshot-id': 1, type: 'branch' } },
      snapshots: [
        {
          'sequence-number': 1,
          'snapshot-id': 1,
          'timestamp-ms': 1,
          summary: { operation: 'append' },
          'manifest-list': path.join(meta, 'snap.avro'),
          'schema-id': 0,
        },
      ],
      'snapshot-log': [],
      'metadata-log': [],
    };
    writeFileSync(path.join(meta, 'v1.metadata.json'), stringifyJsonLossless(md, 2));
    const model = await loadTableModel(await openIcebergTable(path.join(meta, 'v1.metadata.json')));
    const files = [...model.dataFiles].sort((a, b) => a.path.localeCompare(b.path));
    expect(files.map((f) => f.recordCount)).toEqual([10, 11, 12]);
    for (const i of [0, 1]) {
      const s = files[i]!.stats!;
      expect(s.columnSizes).toEqual(
        new Map([
          [1, BigInt(100 + i)],
          [2, 200n],
        ]),
      );
      expect(s.valueCounts).toEqual(new Map([[1, BigInt(10 + i)]]));
      expect(s.nullValueCounts).toEqual(new Map([[2, BigInt(i)]]));
      expect(s.nanValueCounts).toBeUndefined();
      expect(s.lowerBounds).toEqual(
        new Map<number, unknown>([
          [1, BigInt(i)],
          [2, `n${i}`],
        ]),
      );
      expect(s.upperBounds).toEqual(new Map<number, unknown>([[1, BigInt(100 + i)]]));
    }
    expect(files[2]!.stats).toBeUndefined();
    // one partition tuple object and one sequence-number value shared by the manifest's files
    expect(files[0]!.partition).toBe(files[1]!.partition);
    expect(files.every((f) => f.dataSequenceNumber === 1n)).toBe(true);
  });
});
