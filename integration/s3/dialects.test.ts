/**
 * What differs between S3 implementations where floe's safety lives, checked the same way on every server
 * in the suite (MinIO by default, versitygw as the second implementation — scripts/test-all.sh runs both):
 * `SlowDown`/503 and 500 answers are backed off and retried until the request lands (injected by the fault
 * proxy between floe and the real server), a configured `FLOE_S3_CONDITIONAL_WRITES=ignored` is refused
 * without a probe, and `honoured` commits without one. Multipart ETags and list pagination are in the
 * ObjectStore contract (integration/s3/s3-store.test.ts), which runs on each server too.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFloeError, type FloeError } from '../../util/errors.js';
import { S3ObjectStore, createS3Client, type S3ConnectionConfig } from '../../connectors/storage/s3-store.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { acquireS3, type S3TestServer } from '../support/s3-server.js';
import { startFaultProxy, type FaultProxy } from '../support/s3-fault-proxy.js';

const s3 = await acquireS3();
const server = (s3.available ? s3.server : undefined) as S3TestServer;
const run = `dialect-${randomBytes(4).toString('hex')}`;

describe.skipIf(!s3.available)(`S3 dialect checks on ${s3.available ? server.kind : 'skipped'}`, () => {
  let proxy: FaultProxy;
  const clients: { destroy(): void }[] = [];
  const connection = (endpoint: string, extra: Partial<S3ConnectionConfig> = {}): S3ConnectionConfig => ({
    endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    ...extra,
  });
  const store = (endpoint: string, retries: FloeError[] = []) => {
    const c = connection(endpoint);
    const client = createS3Client(c);
    clients.push(client);
    return new S3ObjectStore({
      bucket: server.bucket,
      connection: c,
      client,
      retry: { baseDelayMs: 20, maxDelayMs: 200 },
      retryHooks: { onRetry: (e) => retries.push(e) },
    });
  };
  beforeAll(async () => {
    proxy = await startFaultProxy({ upstream: server.endpoint });
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await proxy?.close();
    await s3.release();
  });

  it('SlowDown (503) and InternalError (500) are backed off and retried: PUT, GET, LIST and the multipart parts land', async () => {
    proxy.setRules([
      { kind: 'slowdown-503', method: 'PUT', key: /\/slow$/, nth: [0, 1] },
      { kind: 'error-500', method: 'GET', key: /\/slow$/, nth: [0] },
      { kind: 'slowdown-503', method: 'GET', query: /list-type=2/, nth: [0] },
      { kind: 'slowdown-503', method: 'PUT', query: /partNumber=2/, nth: [0] },
    ]);
    const retries: FloeError[] = [];
    const s = store(proxy.endpoint, retries);
    await s.put(`${run}/slow`, 'steady', { ifNoneMatch: '*' });
    expect(new TextDecoder().decode(await s.get(`${run}/slow`))).toBe('steady');
    const keys: string[] = [];
    for await (const e of s.list(`${run}/`)) keys.push(e.key);
    expect(keys).toEqual([`${run}/slow`]);
    const big = randomBytes(6 * 1024 * 1024);
    async function* body() {
      yield big;
    }
    await s.putStream(`${run}/big`, body(), { partSize: 5 * 1024 * 1024, ifNoneMatch: '*' });
    expect(Buffer.from(await store(server.endpoint).get(`${run}/big`)).equals(big)).toBe(true);
    expect(proxy.faults().map((f) => f.fault)).toEqual([
      'slowdown-503',
      'slowdown-503',
      'error-500',
      'slowdown-503',
      'slowdown-503',
    ]);
    expect(retries.map((e) => e.kind)).toEqual(['Transient', 'Transient', 'Transient', 'Transient', 'Transient']);
    expect(retries[0]!.message).toMatch(/SlowDown.*HTTP 503/);
    proxy.setRules([]);
  });

  it('SlowDown past the attempts: a Transient FloeError naming the object, nothing half-written', async () => {
    proxy.setRules([{ kind: 'slowdown-503', method: 'PUT', key: /\/never$/ }]);
    const err = (await store(proxy.endpoint)
      .put(`${run}/never`, 'x', { ifNoneMatch: '*' })
      .catch((e: unknown) => e)) as FloeError;
    expect(isFloeError(err, 'Transient')).toBe(true);
    expect(err.message).toContain(`s3://${server.bucket}/${run}/never`);
    expect(await store(server.endpoint).exists(`${run}/never`)).toBe(false);
    proxy.setRules([]);
  });

  it('FLOE_S3_CONDITIONAL_WRITES=ignored is refused without a probe; honoured commits without one', async () => {
    const table = `s3://${server.bucket}/${run}/configured`;
    const ignored = new FileIO({ s3: connection(proxy.endpoint, { conditionalWrites: 'ignored' }) });
    const honoured = new FileIO({ s3: connection(proxy.endpoint, { conditionalWrites: 'honoured' }) });
    clients.push(ignored, honoured);
    const before = proxy.events.length;
    const err = (await ignored.requireConditionalCreate(table, 'Iceberg').catch((e: unknown) => e)) as FloeError;
    expect(isFloeError(err, 'Unsupported')).toBe(true);
    expect(err.message).toContain('configured as conditionalWrites=ignored');
    expect(err.context).toMatchObject({ bucket: server.bucket, source: 'configuration' });
    await honoured.requireConditionalCreate(table, 'Paimon');
    expect(proxy.events.length).toBe(before); // neither asked the store anything
  });
});
