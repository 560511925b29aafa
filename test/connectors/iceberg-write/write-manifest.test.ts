import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { readAvroContainer } from '../../../connectors/formats/avro.js';
import {
  normalizeManifestFile,
  writeManifest,
  writeManifestList,
  type RawManifestEntry,
  type RawManifestFile,
} from '../../../connectors/iceberg/write-manifest.js';
import {
  manifestEntrySchema,
  manifestListSchema,
  type PartitionTypeField,
} from '../../../connectors/iceberg/write-schemas.js';
import type { FieldType } from '../../../model/index.js';

const fixtures = path.resolve(import.meta.dirname, '../../../../shared/fixtures');

function partitionFromHeader(meta: Record<string, string>): PartitionTypeField[] {
  const spec = JSON.parse(meta['partition-spec']!) as {
    'field-id': number;
    name: string;
    transform: string;
    'source-id': number;
  }[];
  const schema = JSON.parse(meta.schema!) as { fields: { id: number; type: string }[] };
  return spec.map((p) => {
    const src = schema.fields.find((f) => f.id === p['source-id'])!.type;
    const type: FieldType =
      p.transform === 'identity' ? { kind: 'primitive', name: src as 'string' } : { kind: 'primitive', name: 'int' };
    return { id: p['field-id'], name: p.name, type };
  });
}

/** Written by a Java release recent enough to carry every current field (older ones lack some). */
function currentJava(schemaText: string): boolean {
  return (
    !schemaText.includes('added_data_files_count') &&
    (schemaText.includes('referenced_data_file') || schemaText.includes('manifest_file'))
  );
}

/** Java-written tables whose manifests carry full headers. */
const tables = [
  'icebird/java_bunnies',
  'icebird/spark_bunnies',
  'impala/iceberg_v3_deletion_vectors',
  'duckdb-iceberg/equality_deletes_mytable',
];

describe('manifest writer matches Java Iceberg', () => {
  for (const t of tables) {
    const dir = path.join(fixtures, t, 'metadata');
    const manifests = readdirSync(dir).filter((n) => n.endsWith('.avro') && !n.startsWith('snap-'));
    const lists = readdirSync(dir).filter((n) => n.startsWith('snap-'));

    it(`${t}: rewritten manifests have Java's schema and the same entries`, async () => {
      for (const n of manifests) {
        const orig = readAvroContainer<RawManifestEntry>(readFileSync(path.join(dir, n)), n);
        const v = Number(orig.metadata['format-version']);
        const partition = partitionFromHeader(orig.metadata);
        const out = await writeManifest(
          {
            formatVersion: v,
            specId: Number(orig.metadata['partition-spec-id']),
            specFieldsJson: JSON.parse(orig.metadata['partition-spec']!),
            partition,
            tableSchemaJson: JSON.parse(orig.metadata.schema!),
            content: orig.metadata.content as 'data' | 'deletes',
            entries: orig.records,
            codec: { codec: 'deflate' },
          },
          1n,
          1n,
        );
        const back = readAvroContainer<RawManifestEntry>(out.bytes, 'rewritten');
        if (currentJava(orig.schemaText)) {
          expect(back.schemaText).toBe(orig.schemaText);
          expect(back.metadata['iceberg.schema']).toBe(orig.metadata['iceberg.schema']);
          expect(manifestEntrySchema(v, partition).avroSchemaText).toBe(orig.schemaText);
          expect(back.records).toEqual(orig.records);
        } else {
          // an older writer lacked fields the current schema has: they come back null, the rest unchanged
          back.records.forEach((r, i) => expect(r).toMatchObject(orig.records[i]!));
        }
      }
    });

    it(`${t}: manifest summaries recomputed from entries equal Java's manifest-list records`, async () => {
      for (const l of lists) {
        let list;
        try {
          list = readAvroContainer<RawManifestFile>(readFileSync(path.join(dir, l)), l);
        } catch {
          continue;
        }
        for (const mf of list.records.map((r) => normalizeManifestFile(r as unknown as Record<string, unknown>))) {
          const name = path.basename(mf.manifest_path);
          if (!manifests.includes(name)) continue;
          const orig = readAvroContainer<RawManifestEntry>(readFileSync(path.join(dir, name)), name);
          const out = await writeManifest(
            {
              formatVersion: Number(orig.metadata['format-version']),
              specId: mf.partition_spec_id,
              specFieldsJson: JSON.parse(orig.metadata['partition-spec']!),
              partition: partitionFromHeader(orig.metadata),
              tableSchemaJson: JSON.parse(orig.metadata.schema!),
              content: orig.metadata.content as 'data' | 'deletes',
              entries: orig.records,
              codec: { codec: 'deflate' },
            },
            mf.added_snapshot_id,
            mf.sequence_number,
          );
          const s = out.summary;
          expect([s.added_files_count, s.existing_files_count, s.deleted_files_count]).toEqual([
            mf.added_files_count,
            mf.existing_files_count,
            mf.deleted_files_count,
          ]);
          expect([s.added_rows_count, s.existing_rows_count, s.deleted_rows_count]).toEqual([
            mf.added_rows_count,
            mf.existing_rows_count,
            mf.deleted_rows_count,
          ]);
          expect(s.min_sequence_number).toBe(mf.min_sequence_number);
          expect(s.partitions).toEqual(mf.partitions);
        }
      }
    });

    it(`${t}: manifest lists round-trip with Java's schema and header`, async () => {
      for (const l of lists) {
        let list;
        try {
          list = readAvroContainer<RawManifestFile>(readFileSync(path.join(dir, l)), l);
        } catch {
          continue;
        }
        const v = Number(list.metadata['format-version']);
        const parent = list.metadata['parent-snapshot-id'];
        const bytes = await writeManifestList({
          formatVersion: v,
          snapshotId: BigInt(list.metadata['snapshot-id']!),
          parentSnapshotId: parent === 'null' || parent === undefined ? undefined : BigInt(parent),
          sequenceNumber: BigInt(list.metadata['sequence-number'] ?? 0),
          firstRowId: list.metadata['first-row-id'] === undefined ? undefined : BigInt(list.metadata['first-row-id']),
          manifests: list.records.map((r) => normalizeManifestFile(r as unknown as Record<string, unknown>)),
          codec: { codec: 'deflate' },
        });
        const back = readAvroContainer(bytes, 'list');
        if (currentJava(list.schemaText)) {
          expect(back.schemaText).toBe(list.schemaText);
          expect(back.metadata).toEqual(list.metadata);
          expect(back.records).toEqual(list.records);
          expect(manifestListSchema(v).avroSchemaText).toBe(list.schemaText);
        } else {
          expect(back.records).toEqual(
            list.records.map((r) => normalizeManifestFile(r as unknown as Record<string, unknown>)),
          );
        }
      }
    });
  }
});
