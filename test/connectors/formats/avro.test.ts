import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { readAvroContainer, writeAvroContainer } from '../../../connectors/formats/avro.js';
import { isFloeError } from '../../../util/errors.js';

const fixtures = path.resolve(import.meta.dirname, '../../../../shared/fixtures');

const schema = {
  type: 'record',
  name: 'r',
  fields: [
    { name: 'snapshot_id', type: 'long', 'field-id': 1 },
    { name: 'name', type: ['null', 'string'], default: null, 'field-id': 2 },
    { name: 'blob', type: 'bytes', 'field-id': 3 },
  ],
};
const records = [
  { snapshot_id: 9_007_199_254_740_993n, name: 'beyond 2^53', blob: Buffer.from([1, 2, 3]) },
  { snapshot_id: -5n, name: null, blob: Buffer.alloc(0) },
];

describe('Avro container', () => {
  for (const codec of ['null', 'deflate', 'zstandard', 'snappy'] as const) {
    it(`round-trips 64-bit longs exactly with codec ${codec}`, async () => {
      const bytes = await writeAvroContainer(schema, records, { codec, metadata: { 'format-version': '2' } });
      const back = readAvroContainer(bytes, 'x.avro');
      expect(back.codec).toBe(codec);
      expect(back.metadata['format-version']).toBe('2');
      expect(back.records).toEqual(records);
      // the schema is stored verbatim, Iceberg field ids included
      expect(JSON.parse(back.schemaText).fields[0]['field-id']).toBe(1);
    });
  }

  it('reads the >2^53 snapshot ids of a Spark-written manifest list exactly', () => {
    const dir = path.join(fixtures, 'icebird/spark_bunnies/metadata');
    const lists = readdirSync(dir).filter((n) => n.startsWith('snap-'));
    const ids = lists.flatMap((n) =>
      readAvroContainer(readFileSync(path.join(dir, n)), n).records.map((r) => r.added_snapshot_id as bigint),
    );
    // every manifest list is named after its snapshot id: snap-<id>-…
    for (const n of lists) expect(ids).toContain(BigInt(n.split('-')[1]!));
    expect(ids.some((id) => id > BigInt(Number.MAX_SAFE_INTEGER))).toBe(true);
  });

  it('reads zstandard Paimon manifests', () => {
    const dir = path.join(fixtures, 'paimon-cpp/pk_09/manifest');
    const name = readdirSync(dir).find((n) => n.startsWith('manifest-') && !n.startsWith('manifest-list'))!;
    const c = readAvroContainer(readFileSync(path.join(dir, name)), name);
    expect(c.codec).toBe('zstandard');
    expect(c.records.length).toBeGreaterThan(0);
    expect(c.records[0]).toHaveProperty('_FILE');
  });

  it('names the file when the container is truncated', async () => {
    const bytes = await writeAvroContainer(schema, records, { codec: 'deflate' });
    const cut = bytes.subarray(0, bytes.length - 20);
    try {
      readAvroContainer(cut, 'metadata/m0.avro');
      expect.unreachable();
    } catch (e) {
      expect(isFloeError(e, 'Corrupt')).toBe(true);
      expect((e as Error).message).toContain('metadata/m0.avro');
    }
  });

  it('rejects a file that is not Avro', () => {
    expect(() => readAvroContainer(new TextEncoder().encode('{"not":"avro"}'), 'a.avro')).toThrow(/a\.avro.*bad magic/);
  });

  it('rejects unknown codecs as Unsupported', async () => {
    const bytes = Buffer.from(await writeAvroContainer(schema, records, { codec: 'null' }));
    // patch the codec value "null" in the header to "xxxx"
    const at = bytes.indexOf('avro.codec') + 'avro.codec'.length + 1;
    bytes.write('xxxx', at, 'latin1');
    try {
      readAvroContainer(bytes, 'b.avro');
      expect.unreachable();
    } catch (e) {
      expect(isFloeError(e, 'Unsupported')).toBe(true);
      expect((e as Error).message).toMatch(/b\.avro.*xxxx/);
    }
  });
});
