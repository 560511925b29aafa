import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileIO, storeFor } from '../../../connectors/storage/file-io.js';
import { LocalObjectStore } from '../../../connectors/storage/local-store.js';
import { LocationMap } from '../../../connectors/storage/location.js';
import { MemoryObjectStore } from '../../../connectors/storage/memory-store.js';
import { S3ObjectStore } from '../../../connectors/storage/s3-store.js';
import { FloeError } from '../../../util/errors.js';
import { uncountedStore } from '../../../connectors/storage/request-counter.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const fixtures = path.resolve(repoRoot, '../shared/fixtures');

describe('FileIO', () => {
  it('resolves file locations in every spelling to one local store', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'floe-fileio-'));
    try {
      const io = new FileIO();
      const a = io.resolve(`file:${dir}/m/v1.json`);
      const b = io.resolve(`${dir}/m/v1.json`);
      expect(a.store).toBeInstanceOf(LocalObjectStore);
      expect(a.store).toBe(b.store);
      expect(a.key).toBe(`${dir.slice(1)}/m/v1.json`);
      await a.store.put(a.key, '{"a":1}', { ifNoneMatch: '*' });
      expect(await fs.readFile(path.join(dir, 'm/v1.json'), 'utf8')).toBe('{"a":1}');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('caches one S3 store per bucket and shares the client per endpoint', () => {
    const io = new FileIO({
      s3: {
        endpoint: 'http://127.0.0.1:1',
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      },
    });
    const a = io.resolve('s3a://bkt/t/f.parquet');
    const b = io.resolve('s3://bkt/t/g.parquet');
    const c = io.resolve('s3n://other/t/g.parquet');
    expect(a.store).toBeInstanceOf(S3ObjectStore);
    expect(a.store).toBe(b.store);
    expect(c.store).not.toBe(a.store);
    expect((a.store as unknown as { client: unknown }).client).toBe((c.store as unknown as { client: unknown }).client);
    expect([a.key, b.key, c.key]).toEqual(['t/f.parquet', 't/g.parquet', 't/g.parquet']);
    expect(a.location).toBe('s3://bkt/t/f.parquet');
    io.destroy();
  });

  it('applies the location map before choosing a store, and says how to fix unsupported schemes', () => {
    const io = new FileIO({ locationMap: LocationMap.parse(['hdfs://nn:8020/wh=/tmp/wh']) });
    const r = io.resolve('hdfs://nn:8020/wh/db/t/metadata/v1.metadata.json');
    expect(r.store).toBeInstanceOf(LocalObjectStore);
    expect(r.key).toBe('tmp/wh/db/t/metadata/v1.metadata.json');
    const err = (() => {
      try {
        io.resolve('hdfs://other:8020/x/y');
      } catch (e) {
        return e as FloeError;
      }
    })()!;
    expect(err.kind).toBe('Unsupported');
    expect(err.message).toContain('hdfs://other:8020/x/y');
    expect(err.message).toContain('--location-map');
  });

  it('mounts serve a prefix from a given store (memory in tests)', async () => {
    const io = new FileIO();
    const mem = new MemoryObjectStore();
    io.mount('s3://test-bucket/wh', mem);
    const r = io.resolve('s3a://test-bucket/wh/t/f');
    expect(uncountedStore(r.store)).toBe(mem); // wrapped by the request counter
    expect(r.key).toBe('t/f');
  });

  it('storeFor caches per config object', () => {
    const config = {};
    expect(storeFor('/x/y', config).store).toBe(storeFor('file:///x/z', config).store);
  });

  it('reads a real relocated table (Impala fixture written under /test-warehouse, with hdfs:// delete paths)', async () => {
    const table = path.join(fixtures, 'impala/iceberg_v2_delete_equality');
    const metadataText = await fs.readFile(path.join(table, 'metadata/v4.metadata.json'), 'utf8');
    const metadata = JSON.parse(metadataText);
    // Per MANIFEST.md the metadata says /test-warehouse/…; files inside say hdfs://localhost:20500/test-warehouse/…
    const original = '/test-warehouse/iceberg_test/hadoop_catalog/ice';
    expect(metadata.location).toBe(`${original}/iceberg_v2_delete_equality`);
    const io = new FileIO({
      locationMap: LocationMap.parse([
        `${original}=${path.join(fixtures, 'impala')}`,
        `hdfs://localhost:20500${original}=${path.join(fixtures, 'impala')}`,
      ]),
    });
    const current = metadata.snapshots.find(
      (s: Record<string, unknown>) => s['snapshot-id'] === metadata['current-snapshot-id'],
    );
    const manifestList: string = current['manifest-list'];
    expect(manifestList.startsWith(original)).toBe(true);
    for (const spelling of [manifestList, `hdfs://localhost:20500${manifestList}`, `file:${manifestList}`]) {
      const r = io.resolve(spelling);
      expect(r.location).toBe(`file://${path.join(table, manifestList.slice(metadata.location.length))}`);
      const head = await r.store.get(r.key, { range: { offset: 0, length: 4 } });
      expect([...head]).toEqual([0x4f, 0x62, 0x6a, 0x01]); // Avro container magic "Obj\x01"
    }
  });
});

/** The error a promise rejects with; fails the test when it resolves. */
async function failure(p: Promise<unknown>): Promise<FloeError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e, 'expected a rejection').toBeInstanceOf(FloeError);
  return e as FloeError;
}

describe('FileIO: the one location-addressed IO (issue 10.2)', () => {
  const OLD = 'hdfs://nn:8020/wh/t';
  function relocated(): { io: FileIO; mem: MemoryObjectStore } {
    const io = new FileIO({ locationMap: new LocationMap([{ from: OLD, to: 's3://b/copy/t' }]) });
    const mem = new MemoryObjectStore('memory://b');
    io.mount('s3://b', mem);
    return { io, mem };
  }

  it('maps every spelling to one normalised location, and describes relocated files by both names', () => {
    const { io } = relocated();
    expect(io.map(`${OLD}/data/a.parquet`)).toBe('s3://b/copy/t/data/a.parquet');
    expect(io.map('s3a://b/x//y/')).toBe('s3://b/x//y');
    expect(io.map('file:/tmp/a/../b')).toBe('file:///tmp/b');
    expect(io.describe(`${OLD}/data/a.parquet`)).toBe(
      `s3://b/copy/t/data/a.parquet (metadata names ${OLD}/data/a.parquet)`,
    );
    expect(io.describe('s3a://b/k')).toBe('s3a://b/k');
    expect(io.realLocation(' ')).toBe(' '); // unparsable: named as given
  });

  it('reads whole files and ranges; a missing file is NotFound naming it, with the metadata spelling beside the real one', async () => {
    const { io, mem } = relocated();
    await mem.put('copy/t/data/a.parquet', new Uint8Array([1, 2, 3, 4, 5]));
    expect([...(await io.read(`${OLD}/data/a.parquet`))]).toEqual([1, 2, 3, 4, 5]);
    expect([...(await io.readRange(`${OLD}/data/a.parquet`, 1, 3))]).toEqual([2, 3, 4]);
    const short = await failure(io.readRange(`${OLD}/data/a.parquet`, 3, 10));
    expect(short).toMatchObject({ kind: 'Corrupt', context: { file: `${OLD}/data/a.parquet` } });
    expect(short.message).toContain('wanted 10 bytes at 3, got 2');
    const missing = await failure(io.read(`${OLD}/data/gone.parquet`));
    expect(missing).toMatchObject({ kind: 'NotFound', context: { file: `${OLD}/data/gone.parquet` } });
    expect(missing.message).toBe(
      `file not found: s3://b/copy/t/data/gone.parquet (metadata names ${OLD}/data/gone.parquet)`,
    );
    const plain = await failure(new FileIO().read('/nonexistent-floe-dir/x'));
    expect(plain).toMatchObject({ kind: 'NotFound', message: 'file not found: /nonexistent-floe-dir/x' });
    expect(await io.exists(`${OLD}/data/a.parquet`)).toBe(true);
    expect(await io.exists(`${OLD}/data/gone.parquet`)).toBe(false);
    expect((await io.head(`${OLD}/data/a.parquet`)).size).toBe(5);
  });

  it('lists a directory (files, or files and sub-directories) and a tree (real locations, sizes)', async () => {
    const { io, mem } = relocated();
    for (const k of ['t/a', 't/b', 't/sub/c', 't/sub/deeper/d', 't2/x']) await mem.put(`copy/${k}`, 'xy');
    expect((await io.listNames(`${OLD}`)).sort()).toEqual(['a', 'b']);
    expect((await io.listNames(`${OLD}/`, { directories: true })).sort()).toEqual(['a', 'b', 'sub']);
    expect(await io.listNames(`${OLD}/nothing-here`)).toEqual([]);
    const tree: string[] = [];
    for await (const f of io.list(OLD)) {
      expect(f.size).toBe(2);
      tree.push(f.location);
    }
    expect(tree).toEqual(['s3://b/copy/t/a', 's3://b/copy/t/b', 's3://b/copy/t/sub/c', 's3://b/copy/t/sub/deeper/d']);
    const none: string[] = [];
    for await (const f of io.list('s3://b/absent')) none.push(f.location);
    expect(none).toEqual([]);
  });

  it('creates only if absent, overwrites, and deletes idempotently — on local files through the local store too', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'floe-fileio-'));
    try {
      const io = new FileIO();
      const loc = `${dir}/m/v1.json`;
      expect(io.resolve(loc).store).toBeInstanceOf(LocalObjectStore);
      await io.createNew(loc, new TextEncoder().encode('one'));
      const again = await failure(io.createNew(loc, new TextEncoder().encode('two')));
      expect(again).toMatchObject({ kind: 'PreconditionFailed' });
      expect(await fs.readFile(loc, 'utf8')).toBe('one');
      await io.overwrite(`file://${loc}`, new TextEncoder().encode('three'));
      expect(new TextDecoder().decode(await io.read(`file:${loc}`))).toBe('three');
      expect(await io.listNames(dir, { directories: true })).toEqual(['m']);
      expect(await io.listNames(dir)).toEqual([]);
      await io.remove(loc);
      await io.remove(loc);
      expect(await io.exists(loc)).toBe(false);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
