/**
 * The fault proxy in front of the real S3 test server: SigV4 still verifies through it (and still rejects a
 * wrong secret), and a "lost" response really is a write the server applied — the premise of the campaign.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FloeError } from '../../util/errors.js';
import { S3ObjectStore, createS3Client } from '../../connectors/storage/s3-store.js';
import { acquireS3, type S3TestServer } from '../support/s3-server.js';
import { startFaultProxy, type FaultProxy } from '../support/s3-fault-proxy.js';

const s3 = await acquireS3();
const server = (s3.available ? s3.server : undefined) as S3TestServer;

const clients: { destroy(): void }[] = [];
function storeAt(endpoint: string, secret = server.secretAccessKey): S3ObjectStore {
  const connection = {
    endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: secret },
  };
  const client = createS3Client(connection);
  clients.push(client);
  // one attempt: the test looks at single requests, not at floe's retries
  return new S3ObjectStore({ bucket: server.bucket, connection, client, retry: { maxAttempts: 1 } });
}

describe.skipIf(!s3.available)('fault proxy in front of the S3 test server', () => {
  let proxy: FaultProxy;
  const run = `proxy-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    proxy = await startFaultProxy({ upstream: server.endpoint });
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await proxy?.close();
    await s3.release();
  });

  it('signed requests verify through the proxy; a wrong secret is still refused', async () => {
    const store = storeAt(proxy.endpoint);
    await store.put(`${run}/a`, 'hello', { ifNoneMatch: '*' });
    expect(new TextDecoder().decode(await store.get(`${run}/a`))).toBe('hello');
    const bad = await storeAt(proxy.endpoint, 'wrong-secret')
      .get(`${run}/a`)
      .catch((e: unknown) => e);
    expect((bad as FloeError).kind).toBe('AccessDenied');
  });

  it('lost-500 on a create-if-absent PUT: the client sees a failure, the object exists, the retry gets 412', async () => {
    proxy.setRules([{ kind: 'lost-500', method: 'PUT', key: /\/lost$/, nth: [0] }]);
    const store = storeAt(proxy.endpoint);
    const key = `${run}/lost`;
    const first = await store.put(key, 'mine', { ifNoneMatch: '*' }).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(FloeError);
    expect(new TextDecoder().decode(await storeAt(server.endpoint).get(key))).toBe('mine');
    const retry = await store.put(key, 'mine', { ifNoneMatch: '*' }).catch((e: unknown) => e);
    expect((retry as FloeError).kind).toBe('PreconditionFailed');
    expect(proxy.faults().map((e) => [e.fault, e.upstreamStatus])).toEqual([['lost-500', 200]]);
    proxy.setRules([]);
  });
});
