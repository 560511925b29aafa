/**
 * Issue 9.2: a create-if-absent PUT whose response is lost is retried, and the retry meets the object the
 * first attempt stored — 412. S3ObjectStore then compares the stored object with what it sent (size, the
 * MD5 ETag, or the bytes when the ETag is not an MD5) and succeeds when it is ours; someone else's object
 * stays a PreconditionFailed. A fake S3 client that really stores objects stands in for the server.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { FloeError } from '../../../util/errors.js';
import { S3ObjectStore, type S3Sender } from '../../../connectors/storage/s3-store.js';

function sdkError(name: string, status: number): Error {
  return Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
}

interface FakeOptions {
  /** Keys whose first PUT is applied and then answered with this failure. */
  loseFirstPut: Map<string, () => Error>;
  /** ETags the fake reports: MD5 of the body (plain S3) or an opaque value (SSE-KMS). */
  etag: 'md5' | 'opaque';
}

function fakeS3(o: FakeOptions) {
  const objects = new Map<string, Uint8Array>();
  const sent: string[] = [];
  const etagOf = (b: Uint8Array) =>
    o.etag === 'md5'
      ? `"${createHash('md5').update(b).digest('hex')}"`
      : `"${createHash('sha1').update(b).digest('hex').slice(0, 32)}"`;
  const client: S3Sender = {
    async send(cmd) {
      if (cmd instanceof PutObjectCommand) {
        const { Key, Body, IfNoneMatch } = cmd.input;
        sent.push(`PUT ${Key}`);
        if (IfNoneMatch === '*' && objects.has(Key!)) throw sdkError('PreconditionFailed', 412);
        const bytes = Body as Uint8Array;
        objects.set(Key!, bytes.slice());
        const lose = o.loseFirstPut.get(Key!);
        if (lose) {
          o.loseFirstPut.delete(Key!);
          throw lose();
        }
        return { ETag: etagOf(bytes) };
      }
      if (cmd instanceof HeadObjectCommand) {
        sent.push(`HEAD ${cmd.input.Key}`);
        const b = objects.get(cmd.input.Key!);
        if (!b) throw sdkError('NotFound', 404);
        return { ContentLength: b.byteLength, ETag: etagOf(b), LastModified: new Date() };
      }
      if (cmd instanceof GetObjectCommand) {
        sent.push(`GET ${cmd.input.Key}`);
        const b = objects.get(cmd.input.Key!);
        if (!b) throw sdkError('NoSuchKey', 404);
        return { Body: { transformToByteArray: async () => b.slice() } };
      }
      throw new Error(`unexpected command ${String(cmd)}`);
    },
  };
  return { client, objects, sent };
}

const store = (client: S3Sender) =>
  new S3ObjectStore({
    bucket: 'bkt',
    connection: { endpoint: 'http://fake:9000' },
    client,
    retry: { baseDelayMs: 1, maxDelayMs: 2, timeoutMs: 0 },
    retryHooks: { sleep: async () => undefined },
  });

const reset = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
const internal = () => sdkError('InternalError', 500);
const bytes = new TextEncoder().encode('PAR1 … a data file … PAR1');

describe('S3ObjectStore: retried create-if-absent after a lost response', () => {
  it.each([
    ['reset', reset, 'md5'],
    ['500', internal, 'md5'],
    ['reset, opaque (KMS) ETag', reset, 'opaque'],
  ] as const)('%s: the retry gets 412, the stored object is ours → success', async (_what, lose, etag) => {
    const s3 = fakeS3({ loseFirstPut: new Map([['t/data/a.parquet', lose]]), etag });
    const put = await store(s3.client).put('t/data/a.parquet', bytes, { ifNoneMatch: '*' });
    expect(put.etag).not.toBe('');
    expect(s3.sent.filter((x) => x.startsWith('PUT'))).toHaveLength(2);
    // an MD5 ETag settles it by HEAD; an opaque one needs the bytes
    expect(s3.sent.some((x) => x.startsWith('GET'))).toBe(etag === 'opaque');
    expect(s3.objects.get('t/data/a.parquet')).toEqual(bytes);
  });

  it("the object stored meanwhile is someone else's (same size even): still PreconditionFailed", async () => {
    const s3 = fakeS3({ loseFirstPut: new Map(), etag: 'md5' });
    const other = new Uint8Array(bytes.byteLength).fill(7);
    // the first attempt fails before reaching the server; a competitor then creates the key
    let first = true;
    const client: S3Sender = {
      send: async (cmd, opts) => {
        if (first && cmd instanceof PutObjectCommand) {
          first = false;
          s3.objects.set('t/metadata/v2.metadata.json', other);
          throw reset();
        }
        return s3.client.send(cmd, opts);
      },
    };
    const e = await store(client)
      .put('t/metadata/v2.metadata.json', bytes, { ifNoneMatch: '*' })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FloeError);
    expect((e as FloeError).kind).toBe('PreconditionFailed');
    expect(s3.objects.get('t/metadata/v2.metadata.json')).toEqual(other);
  });

  it('a 412 on the first attempt is a plain PreconditionFailed (no read-back)', async () => {
    const s3 = fakeS3({ loseFirstPut: new Map(), etag: 'md5' });
    s3.objects.set('k', bytes);
    const e = await store(s3.client)
      .put('k', bytes, { ifNoneMatch: '*' })
      .catch((x: unknown) => x);
    expect((e as FloeError).kind).toBe('PreconditionFailed');
    expect(s3.sent).toEqual(['PUT k']);
  });
});
