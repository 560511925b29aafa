/**
 * The direct manifest decoder (connectors/iceberg/manifest-decoder.ts, issue 11.6) against avsc, on every
 * manifest of every real Iceberg fixture table (Java Iceberg, Spark, Flink, Hive, Impala, PyIceberg writers):
 * the same entries, the same files, the same stats. The avsc path is the reference — it decodes every
 * field of every record with avsc's own schema machinery.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAvroContainer } from '../../../connectors/formats/avro.js';
import { compileEntryDecoder } from '../../../connectors/iceberg/manifest-decoder.js';
import {
  allFieldsById,
  readManifest,
  readManifestList,
  type ManifestEntry,
  type ManifestFile,
} from '../../../connectors/iceberg/manifests.js';
import { PackedColumnStats, StatsPacker } from '../../../connectors/iceberg/packed-stats.js';
import { encodeSingleValue } from '../../../connectors/iceberg/write-bounds.js';
import { openIcebergTable } from '../../../connectors/iceberg/table.js';
import { fixtures } from './helpers.js';

interface FixtureTable {
  path: string;
  format: string;
}

function icebergFixtures(): string[] {
  const manifest = path.join(fixtures, 'MANIFEST.json');
  // The fixtures are part of the test environment: without them this test must fail, not pass empty.
  if (!existsSync(manifest)) throw new Error(`real-table fixtures missing: ${manifest} not found`);
  const tables = (JSON.parse(readFileSync(manifest, 'utf8')) as { tables: FixtureTable[] }).tables;
  return tables.filter((t) => t.format === 'iceberg').map((t) => t.path);
}

/** An entry with its stats as plain maps (the packed form is an implementation detail of either path). */
function plain(e: ManifestEntry): unknown {
  const f = e.file as unknown as Record<string, unknown>;
  const stats = f.stats instanceof PackedColumnStats ? f.stats.toPlain() : f.stats;
  return { ...e, file: { ...f, ...(stats !== undefined ? { stats } : {}) } };
}

describe('direct manifest decoding vs avsc on the real fixture manifests', () => {
  it('gives the same entries, files and stats for every manifest of every fixture table', async () => {
    let manifests = 0;
    let direct = 0;
    let entries = 0;
    let withStats = 0;
    let withBounds = 0;
    const tables = icebergFixtures();
    expect(tables.length).toBeGreaterThanOrEqual(10);
    for (const rel of tables) {
      const table = await openIcebergTable(path.join(fixtures, rel));
      const md = table.metadata;
      const ctx = { md, fieldsById: allFieldsById(md) };
      const seen = new Set<string>();
      for (const snap of md.snapshots) {
        let list: ManifestFile[];
        try {
          list = await readManifestList(table.io, md, snap);
        } catch (e) {
          // duckdb's equality_deletes fixture lacks one manifest list (MANIFEST.md): the others still count.
          if ((e as { kind?: string }).kind === 'NotFound') continue;
          throw e;
        }
        for (const mf of list) {
          if (seen.has(mf.path)) continue;
          seen.add(mf.path);
          const bytes = await table.io.read(mf.path);
          const c = openAvroContainer(bytes, mf.path);
          if (compileEntryDecoder(c.schema, c.schemaText)) direct++;
          const viaAvsc = await readManifest(table.io, mf, { ...ctx, avroDecoder: 'avsc' });
          const viaDirect = await readManifest(table.io, mf, { ...ctx, avroDecoder: 'direct' });
          expect(viaDirect.map(plain), `${rel}: ${mf.path}`).toEqual(viaAvsc.map(plain));
          manifests++;
          entries += viaAvsc.length;
          for (const e of viaAvsc) {
            const s = (e.file as { stats?: PackedColumnStats }).stats;
            if (s) withStats++;
            if (s?.lowerBounds?.size) withBounds++;
          }
        }
      }
    }
    // Not vacuous: many manifests, all through the direct decoder, most entries with stats and bounds.
    expect(manifests).toBeGreaterThanOrEqual(40);
    expect(direct).toBe(manifests);
    expect(entries).toBeGreaterThanOrEqual(60);
    expect(withStats).toBeGreaterThanOrEqual(entries / 2);
    expect(withBounds).toBeGreaterThanOrEqual(entries / 2);
  });

  it('leaves a schema it does not handle to avsc (stats as an Avro map, not Iceberg arrays)', () => {
    const schema = {
      type: 'record',
      name: 'manifest_entry',
      fields: [
        { name: 'status', type: 'int', 'field-id': 0 },
        {
          name: 'data_file',
          'field-id': 2,
          type: {
            type: 'record',
            name: 'r2',
            fields: [
              { name: 'file_path', type: 'string', 'field-id': 100 },
              { name: 'column_sizes', type: ['null', { type: 'map', values: 'long' }], 'field-id': 108 },
            ],
          },
        },
      ],
    };
    expect(compileEntryDecoder(schema, JSON.stringify(schema))).toBeUndefined();
    const iceberg = {
      ...schema,
      fields: [
        schema.fields[0],
        {
          ...schema.fields[1],
          type: {
            type: 'record',
            name: 'r2',
            fields: [
              { name: 'file_path', type: 'string', 'field-id': 100 },
              {
                name: 'column_sizes',
                'field-id': 108,
                type: [
                  'null',
                  {
                    type: 'array',
                    items: {
                      type: 'record',
                      name: 'k117_v118',
                      fields: [
                        { name: 'key', type: 'int', 'field-id': 117 },
                        { name: 'value', type: 'long', 'field-id': 118 },
                      ],
                    },
                  },
                ],
              },
            ],
          },
        },
      ],
    };
    expect(compileEntryDecoder(iceberg, JSON.stringify(iceberg))).toBeTypeOf('function');
  });
});

describe('StatsPacker', () => {
  it('packs maps that arrive out of slot order (bounds before counts) as if in order', () => {
    const fields = new Map([[1, { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } }]]);
    const packer = new StatsPacker(fields as never);
    const files = [5n, 2n ** 60n].map((v) => {
      packer.begin();
      packer.present(4);
      packer.bound(4, 1, encodeSingleValue({ kind: 'primitive', name: 'long' }, v));
      packer.present(0);
      packer.count(0, 1, v * 3n);
      packer.count(0, 2, -1n);
      packer.present(2);
      return packer.finish()!;
    });
    packer.seal();
    expect(files.map((s) => s.toPlain())).toEqual([
      {
        columnSizes: new Map([
          [1, 15n],
          [2, -1n],
        ]),
        nullValueCounts: new Map(),
        lowerBounds: new Map([[1, 5n]]),
      },
      {
        columnSizes: new Map([
          [1, 3n * 2n ** 60n],
          [2, -1n],
        ]),
        nullValueCounts: new Map(),
        lowerBounds: new Map([[1, 2n ** 60n]]),
      },
    ]);
  });
});
