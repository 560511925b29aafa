/**
 * S3ObjectStore's retry and error mapping, with a fake client standing in for the network. Errors are
 * shaped like @aws-sdk/client-s3's (name + $metadata.httpStatusCode) or Node's (code: 'ECONNRESET').
 */
import { describe, expect, it } from 'vitest';
import { GetObjectCommand, DeleteObjectsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { FloeError } from '../../../util/errors.js';
import { S3ObjectStore, type S3Sender } from '../../../connectors/storage/s3-store.js';
import { backoffDelay, DEFAULT_RETRY_POLICY } from '../../../connectors/storage/retry.js';

function sdkError(name: string, status: number, message = name): Error {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });
}

const body = (bytes: number[]) => ({ Body: { transformToByteArray: async () => new Uint8Array(bytes) } });

/** A client that answers each send() with the next scripted outcome and records what it was sent. */
function scripted(outcomes: Array<(cmd: unknown, signal?: AbortSignal) => Promise<unknown>>) {
  const sent: unknown[] = [];
  const client: S3Sender = {
    send: (cmd, opts) => {
      sent.push(cmd);
      const next = outcomes[Math.min(sent.length - 1, outcomes.length - 1)]!;
      return next(cmd, opts?.abortSignal);
    },
  };
  return { client, sent };
}

function storeWith(client: S3Sender, retry: Partial<typeof DEFAULT_RETRY_POLICY> = {}) {
  const delays: number[] = [];
  const store = new S3ObjectStore({
    bucket: 'bkt',
    connection: { endpoint: 'http://fake:9000' },
    client,
    retry: { baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 0, ...retry },
    retryHooks: { sleep: async (ms) => void delays.push(ms) },
  });
  return { store, delays };
}

describe('S3ObjectStore retries', () => {
  it('throttled twice (503 SlowDown) then OK → succeeds on the third attempt', async () => {
    const { client, sent } = scripted([
      async () => Promise.reject(sdkError('SlowDown', 503, 'Please reduce your request rate.')),
      async () => Promise.reject(sdkError('SlowDown', 503)),
      async () => body([1, 2, 3]),
    ]);
    const { store, delays } = storeWith(client);
    expect(await store.get('t/data.parquet')).toEqual(new Uint8Array([1, 2, 3]));
    expect(sent).toHaveLength(3);
    expect(delays).toHaveLength(2);
    expect(sent.every((c) => c instanceof GetObjectCommand)).toBe(true);
  });

  it.each([
    ['500 InternalError', () => sdkError('InternalError', 500)],
    ['ECONNRESET', () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    [
      'ECONNRESET as a cause',
      () => new Error('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }),
    ],
    ['409 ConditionalRequestConflict', () => sdkError('ConditionalRequestConflict', 409)],
  ])('retries %s', async (_what, make) => {
    const { client, sent } = scripted([async () => Promise.reject(make()), async () => ({ ETag: '"e"' })]);
    const { store } = storeWith(client);
    expect(await store.put('k', 'x', { ifNoneMatch: '*' })).toEqual({ etag: '"e"' });
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBeInstanceOf(PutObjectCommand);
  });

  it('403 is not retried and becomes AccessDenied naming endpoint, object and credentials', async () => {
    const { client, sent } = scripted([async () => Promise.reject(sdkError('AccessDenied', 403, 'Access Denied'))]);
    const store = new S3ObjectStore({
      bucket: 'bkt',
      connection: {
        endpoint: 'http://fake:9000',
        credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 's3cr3t' },
      },
      client,
    });
    const err = (await store.get('warehouse/t/v1.metadata.json').catch((e: unknown) => e)) as FloeError;
    expect(err).toBeInstanceOf(FloeError);
    expect(err.kind).toBe('AccessDenied');
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('http://fake:9000');
    expect(err.message).toContain('s3://bkt/warehouse/t/v1.metadata.json');
    expect(err.message).toContain('AKIAEXAMPLE');
    expect(err.message).not.toContain('s3cr3t');
    expect(err.context.file).toBe('s3://bkt/warehouse/t/v1.metadata.json');
    expect(sent).toHaveLength(1);
  });

  it.each([
    ['404 NoSuchKey', sdkError('NoSuchKey', 404), 'NotFound'],
    ['412 PreconditionFailed', sdkError('PreconditionFailed', 412), 'PreconditionFailed'],
    ['400 InvalidRequest', sdkError('InvalidRequest', 400), 'Internal'],
    ['ECONNREFUSED', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'Internal'],
  ] as const)('%s is not retried (→ %s)', async (_what, error, kind) => {
    const { client, sent } = scripted([async () => Promise.reject(error)]);
    const { store } = storeWith(client);
    const err = (await store.put('a/b', 'x').catch((e: unknown) => e)) as FloeError;
    expect(err.kind).toBe(kind);
    expect(err.message).toContain('s3://bkt/a/b');
    expect(sent).toHaveLength(1);
  });

  it('gives up after maxAttempts with a retryable Transient error that says so', async () => {
    const { client, sent } = scripted([async () => Promise.reject(sdkError('ServiceUnavailable', 503))]);
    const { store } = storeWith(client, { maxAttempts: 4 });
    const err = (await store.head('x').catch((e: unknown) => e)) as FloeError;
    expect(err.kind).toBe('Transient');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('gave up after 4 attempts');
    expect(err.message).toContain('s3://bkt/x');
    expect(sent).toHaveLength(4);
  });

  it('a request that hangs is aborted by the per-request timeout and retried', async () => {
    let aborted = 0;
    const { client, sent } = scripted([
      (_cmd, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => {
            aborted++;
            reject(Object.assign(new Error('The operation was aborted'), { name: 'AbortError' }));
          });
        }),
      async () => body([9]),
    ]);
    const { store } = storeWith(client, { timeoutMs: 30 });
    expect(await store.get('slow')).toEqual(new Uint8Array([9]));
    expect(sent).toHaveLength(2);
    expect(aborted).toBe(1);
  });

  it('backoff is exponential with full jitter, capped', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(0, policy, () => 0.999)).toBe(99);
    expect(backoffDelay(2, policy, () => 0.999)).toBe(399);
    expect(backoffDelay(10, policy, () => 0.999)).toBe(999);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
  });
});

describe('S3ObjectStore.deleteMany', () => {
  it('batches by 1000 keys and reports per-key failures from the response', async () => {
    const keys = Array.from({ length: 2345 }, (_, i) => `d/${i}`);
    const { client, sent } = scripted([
      async (cmd) => {
        const objs = (cmd as DeleteObjectsCommand).input.Delete!.Objects!;
        const bad = objs.find((o) => o.Key === 'd/1500');
        return { Errors: bad ? [{ Key: 'd/1500', Code: 'AccessDenied', Message: 'Access Denied' }] : [] };
      },
    ]);
    const { store } = storeWith(client);
    const res = await store.deleteMany(keys);
    expect(sent.map((c) => (c as DeleteObjectsCommand).input.Delete!.Objects!.length).sort((a, b) => a - b)).toEqual([
      345, 1000, 1000,
    ]);
    expect(res.failed.map((f) => f.key)).toEqual(['d/1500']);
    expect(res.failed[0]!.error.kind).toBe('AccessDenied');
    expect(res.failed[0]!.error.message).toContain('s3://bkt/d/1500');
    expect(res.deleted).toHaveLength(2344);
  });

  it('a batch that fails as a whole reports every key in it, each naming itself', async () => {
    const { client } = scripted([async () => Promise.reject(sdkError('AccessDenied', 403))]);
    const { store } = storeWith(client);
    const res = await store.deleteMany(['a', 'b']);
    expect(res.deleted).toEqual([]);
    expect(res.failed.map((f) => [f.key, f.error.kind, f.error.context.file])).toEqual([
      ['a', 'AccessDenied', 's3://bkt/a'],
      ['b', 'AccessDenied', 's3://bkt/b'],
    ]);
    expect(res.failed[1]!.error.message).toContain('s3://bkt/b');
  });
});
