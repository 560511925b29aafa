/**
 * The ObjectStore contract against a real S3-compatible server (see integration/support/s3-server.ts),
 * plus what only a real server can show: SigV4 rejection of wrong credentials, bucket errors, real paging.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { FloeError } from '../../util/errors.js';
import { S3ObjectStore, createS3Client } from '../../connectors/storage/s3-store.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { runObjectStoreContract } from '../../test/connectors/storage/contract.js';
import { acquireS3, type S3TestServer } from '../support/s3-server.js';

const s3 = await acquireS3();
afterAll(() => s3.release());
const server = (s3.available ? s3.server : undefined) as S3TestServer;

function connection(overrides: Partial<{ accessKeyId: string; secretAccessKey: string }> = {}) {
  return {
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: {
      accessKeyId: overrides.accessKeyId ?? server.accessKeyId,
      secretAccessKey: overrides.secretAccessKey ?? server.secretAccessKey,
    },
  };
}

describe.skipIf(!s3.available)(`S3 (${s3.available ? `${server.kind} at ${server.endpoint}` : 'skipped'})`, () => {
  runObjectStoreContract('s3', async () => {
    const client = createS3Client(connection());
    return {
      store: new S3ObjectStore({ bucket: server.bucket, connection: connection(), client }),
      cleanup: async () => client.destroy(),
      quirks: { multipartEtagDiffersOnHead: server.kind === 'floe-s3-server' },
    };
  });

  it('pages ListObjectsV2 for real: 7 keys at MaxKeys=2 take 4 requests', async () => {
    const client = createS3Client(connection());
    let lists = 0;
    (await client.sdkClient()).middlewareStack.add(
      (next, ctx) => async (args) => {
        if (ctx.commandName === 'ListObjectsV2Command') lists++;
        return next(args);
      },
      { step: 'initialize', name: 'countLists' },
    );
    const store = new S3ObjectStore({ bucket: server.bucket, connection: connection(), client });
    const prefix = `paging-${randomBytes(4).toString('hex')}/`;
    for (let i = 0; i < 7; i++) await store.put(`${prefix}${i}`, String(i));
    const keys = [];
    for await (const e of store.list(prefix, { pageSize: 2 })) keys.push(e.key);
    expect(keys).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `${prefix}${i}`));
    expect(lists).toBe(4);
    client.destroy();
  });

  for (const [what, creds] of [
    ['an unknown access key', { accessKeyId: 'NOT-A-REAL-KEY' }],
    ['a wrong secret', { secretAccessKey: 'wrong-secret' }],
  ] as const) {
    it(`${what} → AccessDenied naming endpoint, bucket and key, not retried`, async () => {
      const client = createS3Client(connection(creds));
      let sent = 0;
      (await client.sdkClient()).middlewareStack.add(
        (next) => async (args) => {
          sent++;
          return next(args);
        },
        { step: 'finalizeRequest', name: 'countSends' },
      );
      const store = new S3ObjectStore({ bucket: server.bucket, connection: connection(creds), client });
      const err = await store.get('some/key.parquet').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FloeError);
      const fe = err as FloeError;
      expect(fe.kind).toBe('AccessDenied');
      expect(fe.message).toContain(server.endpoint);
      expect(fe.message).toContain(`s3://${server.bucket}/some/key.parquet`);
      expect(fe.context.file).toBe(`s3://${server.bucket}/some/key.parquet`);
      expect(sent).toBe(1);
      client.destroy();
    });
  }

  // floe's commits rest on this: under a real 32-way race exactly one conditional PUT wins, every loser
  // gets 412, and the stored bytes are the winner's (not an interleaving, not a later loser's).
  for (const cond of ['If-None-Match', 'If-Match'] as const) {
    it(
      `race: 32 concurrent ${cond} PUTs to one key, 6 rounds → exactly one winner each round`,
      { timeout: 120_000 },
      async () => {
        const client = createS3Client(connection());
        const store = new S3ObjectStore({ bucket: server.bucket, connection: connection(), client });
        const run = `race32-${randomBytes(4).toString('hex')}`;
        try {
          for (let round = 0; round < 6; round++) {
            const key = `${run}/${cond}/r${round}`;
            const base = cond === 'If-Match' ? await store.put(key, 'base') : undefined;
            const bodies = Array.from({ length: 32 }, (_, i) => randomBytes(64 * 1024 + i));
            const results = await Promise.allSettled(
              bodies.map((b) => store.put(key, b, base ? { ifMatch: base.etag } : { ifNoneMatch: '*' })),
            );
            const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
            const kinds = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as FloeError).kind] : []));
            expect(winners, `round ${round}`).toHaveLength(1);
            expect(kinds).toEqual(Array(31).fill('PreconditionFailed'));
            expect(Buffer.compare(Buffer.from(await store.get(key)), bodies[winners[0]!]!)).toBe(0);
          }
        } finally {
          client.destroy();
        }
      },
    );
  }

  it('a missing bucket is a configuration error (exit 2) saying the bucket does not exist', async () => {
    const store = new S3ObjectStore({ bucket: 'no-such-bucket-floe', connection: connection() });
    // (a HEAD's 404 has no body, so only GET and LIST can tell a missing bucket from a missing key)
    for (const op of [() => store.get('k'), async () => store.list('p/')[Symbol.asyncIterator]().next()]) {
      const err = (await op().catch((e: unknown) => e)) as FloeError;
      expect(err.kind).toBe('InvalidArgument');
      expect(err.message).toContain('bucket no-such-bucket-floe does not exist');
    }
  });

  it('FileIO resolves s3a:// locations (and location-mapped ones) to the bucket store', async () => {
    const io = new FileIO({ s3: connection() });
    const key = `fileio-${randomBytes(4).toString('hex')}/metadata/v1.metadata.json`;
    const { store, key: resolvedKey } = io.resolve(`s3a://${server.bucket}/${key}`);
    expect(resolvedKey).toBe(key);
    await store.put(resolvedKey, '{}', { ifNoneMatch: '*' });
    const again = io.resolve(`s3://${server.bucket}/${key}`);
    expect(again.store).toBe(store); // one cached store per bucket
    expect(new TextDecoder().decode(await again.store.get(again.key))).toBe('{}');
    io.destroy();
  });
});
