/**
 * The behaviour every ObjectStore must have, run against memory and local FS in test/storage and against a
 * real S3-compatible server in integration/s3. Expected values come from the bytes the test itself wrote
 * (or from S3's documented rules), never from the store under test.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FloeError } from '../../../util/errors.js';
import { type ObjectStore, openUploadWriter } from '../../../connectors/storage/object-store.js';

export interface ContractTarget {
  store: ObjectStore;
  cleanup?: () => Promise<void>;
  /**
   * Known deviations of a test server from AWS, each skipping one assertion. gofakes3 reports a multipart
   * object's HEAD etag as the MD5 of its bytes, where AWS repeats CompleteMultipartUpload's md5-of-parts-N.
   */
  quirks?: { multipartEtagDiffersOnHead?: boolean };
}

const MiB = 1024 * 1024;

/** Deterministic, position-dependent bytes so any misplaced range shows up. */
export function pattern(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

async function* chunked(data: Uint8Array, sizes: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (let i = 0; at < data.byteLength; i++) {
    const n = sizes[i % sizes.length]!;
    yield data.subarray(at, at + n);
    at += n;
  }
}

async function listKeys(store: ObjectStore, prefix: string, pageSize?: number): Promise<string[]> {
  const keys: string[] = [];
  for await (const e of store.list(prefix, pageSize ? { pageSize } : undefined)) keys.push(e.key);
  return keys;
}

async function expectFloeError(p: Promise<unknown>, kind: FloeError['kind'], mentions: string): Promise<FloeError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e, `expected ${kind} error`).toBeInstanceOf(FloeError);
  const fe = e as FloeError;
  expect(fe.kind, fe.message).toBe(kind);
  expect(fe.message).toContain(mentions);
  expect(String(fe.context.file)).toContain(mentions);
  return fe;
}

/** Starts N conditional creates of one key at once; returns winners' indices and losers' errors. */
async function raceCreate(store: ObjectStore, key: string, bodies: Uint8Array[]) {
  const results = await Promise.allSettled(bodies.map((b) => store.put(key, b, { ifNoneMatch: '*' })));
  const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
  const losers = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  return { winners, losers };
}

export function runObjectStoreContract(name: string, factory: () => Promise<ContractTarget>): void {
  describe(`ObjectStore contract: ${name}`, () => {
    let target: ContractTarget;
    let store: ObjectStore;
    const run = `contract-${randomBytes(4).toString('hex')}`;
    const k = (s: string) => `${run}/${s}`;

    beforeAll(async () => {
      target = await factory();
      store = target.store;
    });
    afterAll(async () => {
      await target?.cleanup?.();
    });

    it('round-trips bytes and strings; head reports size, etag and a current lastModified', async () => {
      const data = pattern(1234, 7);
      const before = Date.now();
      const put = await store.put(k('rt/a.bin'), data);
      expect(await store.get(k('rt/a.bin'))).toEqual(data);
      const meta = await store.head(k('rt/a.bin'));
      expect(meta.size).toBe(1234);
      expect(meta.etag).toBe(put.etag);
      expect(meta.etag).not.toBe('');
      // S3 stores whole seconds; allow clock skew between test and server.
      expect(Math.abs(meta.lastModified.getTime() - before)).toBeLessThan(5 * 60_000);
      await store.put(k('rt/s.txt'), 'héllo');
      expect(new TextDecoder().decode(await store.get(k('rt/s.txt')))).toBe('héllo');
      expect((await store.head(k('rt/s.txt'))).size).toBe(6); // é is 2 bytes in UTF-8
      await store.put(k('rt/empty'), new Uint8Array(0));
      expect((await store.get(k('rt/empty'))).byteLength).toBe(0);
    });

    it('serves byte ranges like HTTP Range (clipped at the end, error past it)', async () => {
      const data = pattern(1000, 3);
      await store.put(k('range/f'), data);
      expect(await store.get(k('range/f'), { range: { offset: 10, length: 20 } })).toEqual(data.slice(10, 30));
      expect(await store.get(k('range/f'), { range: { offset: 990 } })).toEqual(data.slice(990));
      expect(await store.get(k('range/f'), { range: { suffixLength: 8 } })).toEqual(data.slice(992));
      expect(await store.get(k('range/f'), { range: { suffixLength: 5000 } })).toEqual(data);
      expect(await store.get(k('range/f'), { range: { offset: 995, length: 100 } })).toEqual(data.slice(995));
      expect((await store.get(k('range/f'), { range: { offset: 0, length: 0 } })).byteLength).toBe(0);
      await expectFloeError(
        store.get(k('range/f'), { range: { offset: 1000, length: 1 } }),
        'InvalidArgument',
        k('range/f'),
      );
    });

    it('exists / missing keys: NotFound naming the key', async () => {
      await store.put(k('ex/yes'), 'x');
      expect(await store.exists(k('ex/yes'))).toBe(true);
      expect(await store.exists(k('ex/no'))).toBe(false);
      await expectFloeError(store.get(k('ex/no')), 'NotFound', k('ex/no'));
      await expectFloeError(store.head(k('ex/no')), 'NotFound', k('ex/no'));
      await expectFloeError(store.get(k('ex/no'), { range: { offset: 0, length: 0 } }), 'NotFound', k('ex/no'));
    });

    it('lists by string prefix in byte order, across several pages', async () => {
      const inside = ['p/a1', 'p/a2', 'p/a3/deep', 'p/b', 'p/b-c', 'p/c/d/e', 'p/z'].map(k);
      const outside = ['pq/x', 'o/p'].map(k);
      for (const key of [...inside, ...outside]) await store.put(key, key);
      const expected = [...inside].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      expect(await listKeys(store, k('p/'), 2)).toEqual(expected);
      expect(await listKeys(store, k('p/'), 3)).toEqual(expected);
      expect(await listKeys(store, k('p/'))).toEqual(expected);
      expect(await listKeys(store, k('p/a'), 2)).toEqual([k('p/a1'), k('p/a2'), k('p/a3/deep')]);
      expect(await listKeys(store, k('p'), 4)).toEqual(
        [...inside, k('pq/x')].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
      );
      expect(await listKeys(store, k('nothing-here/'))).toEqual([]);
      const entries = [];
      for await (const e of store.list(k('p/b'), { pageSize: 1 })) entries.push(e);
      expect(entries.map((e) => [e.key, e.size])).toEqual([
        [k('p/b'), k('p/b').length],
        [k('p/b-c'), k('p/b-c').length],
      ]);
      expect(entries[0]!.lastModified).toBeInstanceOf(Date);
    });

    it('deletes in batches, idempotently, reporting each key', async () => {
      const keys = Array.from({ length: 6 }, (_, i) => k(`del/f${i}`));
      for (const key of keys) await store.put(key, 'd');
      const missing = k('del/never-existed');
      const res = await store.deleteMany([...keys, missing]);
      expect(res.failed).toEqual([]);
      expect([...res.deleted].sort()).toEqual([...keys, missing].sort());
      expect(await listKeys(store, k('del/'))).toEqual([]);
      await store.put(k('del/single'), 'x');
      await store.delete(k('del/single'));
      await store.delete(k('del/single'));
      expect(await store.exists(k('del/single'))).toBe(false);
    });

    it('streams a >5 MiB body as a multipart upload and reads it back exactly', { timeout: 120_000 }, async () => {
      const size = 11 * MiB + 12345;
      const data = pattern(size, 11);
      // Odd chunk sizes so parts never align with what the producer writes.
      const res = await store.putStream(k('mp/big.bin'), chunked(data, [700_001, 1_300_007, 33]), {
        partSize: 5 * MiB,
      });
      expect(res.etag).not.toBe('');
      const meta = await store.head(k('mp/big.bin'));
      expect(meta.size).toBe(size);
      if (!target.quirks?.multipartEtagDiffersOnHead) expect(meta.etag).toBe(res.etag);
      const back = await store.get(k('mp/big.bin'));
      expect(back.byteLength).toBe(size);
      expect(Buffer.compare(Buffer.from(back), Buffer.from(data))).toBe(0);
      // A range spanning the first part boundary.
      const across = await store.get(k('mp/big.bin'), { range: { offset: 5 * MiB - 100, length: 200 } });
      expect(across).toEqual(data.slice(5 * MiB - 100, 5 * MiB + 100));
    });

    it('streams small and empty bodies, and via a push-style writer', async () => {
      const small = pattern(3000, 5);
      await store.putStream(k('ps/small'), chunked(small, [1000]));
      expect(await store.get(k('ps/small'))).toEqual(small);
      await store.putStream(k('ps/empty'), chunked(new Uint8Array(0), [1]));
      expect((await store.head(k('ps/empty'))).size).toBe(0);
      const w = openUploadWriter(store, k('ps/writer'));
      await w.write(small.subarray(0, 10));
      await w.write(small.subarray(10));
      await w.close();
      expect(await store.get(k('ps/writer'))).toEqual(small);
    });

    it(
      'a push-style writer may reuse its buffer once write resolves (what a store keeps longer, it copies)',
      { timeout: 120_000 },
      async () => {
        // the native encoder hands out every chunk in one buffer it refills after each write (ChunkSink)
        const data = pattern(13 * MiB + 777, 21);
        const key = k('ps/reused');
        const w = openUploadWriter(store, key, { partSize: 5 * MiB });
        const buf = new Uint8Array(6 * MiB);
        // first a chunk that alone fills a multipart part, then sizes that straddle part boundaries
        const sizes = [6 * MiB, 1_000_003, 4 * MiB, 3_333_333];
        for (let at = 0, i = 0; at < data.byteLength; i++) {
          const n = Math.min(sizes[i % sizes.length]!, data.byteLength - at);
          buf.set(data.subarray(at, at + n));
          await w.write(buf.subarray(0, n));
          buf.fill(0xee); // the producer's next use of its buffer
          at += n;
        }
        await w.close();
        const back = await store.get(key);
        expect(back.byteLength).toBe(data.byteLength);
        expect(Buffer.compare(Buffer.from(back), Buffer.from(data))).toBe(0);
      },
    );

    it('a stream that fails midway publishes nothing', async () => {
      async function* failing() {
        yield pattern(1000);
        throw new Error('producer broke');
      }
      await expect(store.putStream(k('fail/x'), failing())).rejects.toThrow();
      expect(await store.exists(k('fail/x'))).toBe(false);
      expect(await listKeys(store, k('fail/'))).toEqual([]);
    });

    it(
      'putStream with If-None-Match "*" creates only when absent, also when the key appears mid-upload',
      {
        timeout: 120_000,
      },
      async () => {
        const body = pattern(11 * MiB, 3);
        const key = k('cond/stream');
        await store.putStream(key, chunked(body, [1_000_003]), { partSize: 5 * MiB, ifNoneMatch: '*' });
        expect((await store.head(key)).size).toBe(body.byteLength);
        await expectFloeError(
          store.putStream(key, chunked(pattern(11 * MiB, 4), [1_000_003]), { partSize: 5 * MiB, ifNoneMatch: '*' }),
          'PreconditionFailed',
          key,
        );
        await expectFloeError(
          store.putStream(key, chunked(pattern(10), [10]), { ifNoneMatch: '*' }),
          'PreconditionFailed',
          key,
        );
        // another writer creates the key after the upload started: the conditional publish must refuse
        const raced = k('cond/raced');
        async function* racing() {
          yield body.subarray(0, 6 * MiB);
          await store.put(raced, 'theirs');
          yield body.subarray(6 * MiB);
        }
        await expectFloeError(
          store.putStream(raced, racing(), { partSize: 5 * MiB, ifNoneMatch: '*' }),
          'PreconditionFailed',
          raced,
        );
        expect(new TextDecoder().decode(await store.get(raced))).toBe('theirs');
        expect(Buffer.compare(Buffer.from(await store.get(key)), Buffer.from(body))).toBe(0);
      },
    );

    it('If-None-Match "*": creates only when absent', async () => {
      const key = k('cond/inm');
      await store.put(key, 'first', { ifNoneMatch: '*' });
      await expectFloeError(store.put(key, 'second', { ifNoneMatch: '*' }), 'PreconditionFailed', key);
      expect(new TextDecoder().decode(await store.get(key))).toBe('first');
    });

    it('If-Match: replaces only the version with that etag; missing key → NotFound (as AWS)', async () => {
      const key = k('cond/im');
      const v1 = await store.put(key, 'v1');
      const v2 = await store.put(key, 'v2', { ifMatch: v1.etag });
      expect(v2.etag).not.toBe(v1.etag);
      expect((await store.head(key)).etag).toBe(v2.etag);
      await expectFloeError(store.put(key, 'stale', { ifMatch: v1.etag }), 'PreconditionFailed', key);
      expect(new TextDecoder().decode(await store.get(key))).toBe('v2');
      await expectFloeError(store.put(k('cond/absent'), 'x', { ifMatch: v1.etag }), 'NotFound', k('cond/absent'));
      expect(await store.exists(k('cond/absent'))).toBe(false);
    });

    for (const n of [2, 8]) {
      it(
        `race: ${n} concurrent create-if-absent PUTs to one key → exactly one winner, its bytes stored`,
        { timeout: 60_000 },
        async () => {
          for (let round = 0; round < 4; round++) {
            const key = k(`race${n}/r${round}`);
            // Distinct 256 KiB bodies: big enough that requests overlap on the wire.
            const bodies = Array.from({ length: n }, (_, i) => pattern(256 * 1024, 1000 * round + i + 1));
            const { winners, losers } = await raceCreate(store, key, bodies);
            expect(winners).toHaveLength(1);
            expect(losers).toHaveLength(n - 1);
            for (const e of losers) {
              expect(e).toBeInstanceOf(FloeError);
              expect((e as FloeError).kind).toBe('PreconditionFailed');
              expect((e as FloeError).message).toContain(key);
            }
            const stored = await store.get(key);
            expect(Buffer.compare(Buffer.from(stored), Buffer.from(bodies[winners[0]!]!))).toBe(0);
          }
        },
      );
    }

    it('race: 8 concurrent If-Match PUTs against one etag → exactly one winner', async () => {
      const key = k('race-im/x');
      const base = await store.put(key, 'base');
      const bodies = Array.from({ length: 8 }, (_, i) => pattern(64 * 1024, 77 + i));
      const results = await Promise.allSettled(bodies.map((b) => store.put(key, b, { ifMatch: base.etag })));
      const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      expect(winners).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect((r.reason as FloeError).kind).toBe('PreconditionFailed');
      }
      expect(Buffer.compare(Buffer.from(await store.get(key)), Buffer.from(bodies[winners[0]!]!))).toBe(0);
    });
  });
}
