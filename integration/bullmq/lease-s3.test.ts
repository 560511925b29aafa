/** Issue 12.2: the table lease on a real S3 server (conditional PUTs): racing acquirers and a stale takeover. */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { S3ObjectStore, createS3Client } from '../../connectors/storage/s3-store.js';
import { acquireTableLease, readTableLease } from '../../src/lease/lease.js';
import { FloeError } from '../../util/errors.js';
import { acquireS3, type S3TestServer } from '../support/s3-server.js';

const s3 = await acquireS3();
afterAll(() => s3.release());
// FLOE_SKIP_S3=1 is the only way to be here without a server (s3-server.ts says so loudly)
const server = (
  s3.available
    ? s3.server
    : {
        endpoint: 'http://127.0.0.1:1',
        region: 'us-east-1',
        accessKeyId: 'x',
        secretAccessKey: 'x',
        bucket: 'x',
        kind: 'none',
      }
) as S3TestServer;
const client = createS3Client({
  endpoint: server.endpoint,
  region: server.region,
  forcePathStyle: true,
  credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
});
afterAll(() => client.destroy());
const store = new S3ObjectStore({
  bucket: server.bucket,
  connection: { endpoint: server.endpoint, region: server.region, forcePathStyle: true },
  client,
});

describe.skipIf(!s3.available)(`table lease on S3 (${server.kind})`, () => {
  it('of 8 racing acquirers exactly one wins; a stale lease is taken over by exactly one of 6', async () => {
    const key = `lease-${randomUUID()}/t/.floe/lease.json`;
    let t = Date.now();
    const now = () => t;
    const first = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        acquireTableLease(store, key, {
          table: 't',
          job: 'compact',
          holder: `w${i}`,
          ttlMs: 5000,
          heartbeatMs: 0,
          now,
        }),
      ),
    );
    expect(first.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of first) if (r.status === 'rejected') expect((r.reason as FloeError).context.busy).toBe(true);
    t += 10_000;
    const second = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        acquireTableLease(store, key, {
          table: 't',
          job: 'compact',
          holder: `n${i}`,
          ttlMs: 5000,
          heartbeatMs: 0,
          now,
        }),
      ),
    );
    const won = second.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect((await readTableLease(store, key))?.holder).toMatch(/^n\d$/);
    const old = (
      first.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<
        Awaited<ReturnType<typeof acquireTableLease>>
      >
    ).value;
    await expect(old.renew()).rejects.toMatchObject({ context: { leaseLost: true } });
    await (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireTableLease>>>).value.release();
    expect((await readTableLease(store, key))?.releasedAtMs).toBeDefined();
  });
});
