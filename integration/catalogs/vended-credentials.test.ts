/**
 * Vended credentials against the real S3 test server (versitygw with its flat-file IAM): a user created
 * through versitygw's admin API owns one bucket and nothing else — the per-table grant a catalog vends
 * (versitygw grants per bucket, not per prefix, so the restriction enforced here is the table's bucket).
 * The table's FileIO is built from the catalog's answer (connectors/storage/vended-credentials.ts) with the
 * environment's AWS credentials removed:
 * - storage-credentials for the table's prefix reach the table's bucket; the same keys are refused on
 *   another bucket;
 * - credentials about to expire are refreshed through the catalog before use;
 * - expired credentials whose refresh fails, and a FileIO without vended credentials, fail with a clear
 *   error naming the catalog or the credential source — never a key;
 * - remote signing is refused as not built;
 * - a request signed by the REST client's SigV4 signer is accepted by the server, which checks signatures,
 *   and the same signature on a changed request is refused.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileIO } from '../../connectors/storage/file-io.js';
import { storageConfigFromEnv } from '../../connectors/storage/env.js';
import { vendedStorageConfig, type VendedStorage } from '../../connectors/storage/vended-credentials.js';
import { isFloeError } from '../../util/errors.js';
import { acquireS3, type S3TestServer } from '../support/s3-server.js';
import { versitygwAdmin } from '../support/s3-binaries.js';

const s3 = await acquireS3();
const server: S3TestServer | undefined = s3.available ? s3.server : undefined;
const versity = server?.kind === 'versitygw';
if (!versity)
  console.warn(
    `\n!!! SKIPPED: vended credentials need versitygw's admin API for a restricted user (S3 server: ${server?.kind ?? (s3.available ? '' : s3.reason)})\n`,
  );

const USER = `vended-${randomUUID().slice(0, 8)}`;
const USER_SECRET = `vs-${randomUUID()}`;
const BUCKET = `vended-${randomUUID().slice(0, 8)}`;
const CATALOG = 'rest:http://catalog.test/api';
const saved: Record<string, string | undefined> = {};
const ENV_KEYS = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE'];

const admin = (args: string[]) => versitygwAdmin(server!, args);

beforeAll(async () => {
  if (!versity) return;
  await admin(['create-user', '-a', USER, '-s', USER_SECRET, '-r', 'user']);
  await admin(['create-bucket', '--bucket', BUCKET, '--owner', USER]);
  // the job runs with no AWS credentials of its own
  for (const k of ENV_KEYS) {
    saved[k] = process.env[k];
    delete process.env[k];
  }
  saved.AWS_SHARED_CREDENTIALS_FILE = process.env.AWS_SHARED_CREDENTIALS_FILE;
  process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/floe-test-credentials';
  saved.FLOE_S3_ENDPOINT = process.env.FLOE_S3_ENDPOINT;
  process.env.FLOE_S3_ENDPOINT = server!.endpoint;
}, 60_000);

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await s3.release();
});

const vended = (expiresAtMs?: number, secret = USER_SECRET): VendedStorage => ({
  config: {},
  storageCredentials: [
    {
      prefix: `s3://${BUCKET}/warehouse/ns/t`,
      config: {
        's3.access-key-id': USER,
        's3.secret-access-key': secret,
        's3.endpoint': server?.endpoint ?? '',
        's3.path-style-access': 'true',
        'client.region': 'us-east-1',
        ...(expiresAtMs ? { 's3.session-token-expires-at-ms': String(expiresAtMs) } : {}),
      },
    },
  ],
});

function tableIO(initial: VendedStorage, refresh?: () => Promise<VendedStorage>): FileIO {
  const { locationMap: _m, ...base } = storageConfigFromEnv([]);
  return new FileIO(
    vendedStorageConfig(base, { catalog: CATALOG, table: 'ns.t', initial, ...(refresh ? { refresh } : {}) }),
  );
}

const bytes = (s: string) => new TextEncoder().encode(s);

describe('vended credentials for the table FileIO (versitygw user owning one bucket)', () => {
  it.runIf(versity)('reach the table bucket with no environment credentials; refused on another bucket', async () => {
    const io = tableIO(vended());
    try {
      const loc = `s3://${BUCKET}/warehouse/ns/t/data/a.parquet`;
      await io.createNew(loc, bytes('rows'));
      expect(new TextDecoder().decode(await io.read(loc))).toBe('rows');
      const other = await io.read(`s3://${server!.bucket}/anything`).then(
        () => undefined,
        (e: unknown) => e,
      );
      // prefix credentials stay with their bucket: another bucket gets the (empty) environment chain
      expect(isFloeError(other, 'AccessDenied'), String(other)).toBe(true);
      expect((other as Error).message).toMatch(/AWS default chain/);
      // and the server itself refuses the vended user outside its bucket (table-level config: every bucket)
      const wide = tableIO({ config: vended().storageCredentials[0]!.config, storageCredentials: [] });
      try {
        const denied = await wide.read(`s3://${server!.bucket}/anything`).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isFloeError(denied, 'AccessDenied'), String(denied)).toBe(true);
        expect((denied as Error).message).toContain(`vended credentials from ${CATALOG}`);
        expect((denied as Error).message).not.toContain(USER_SECRET);
      } finally {
        wide.destroy();
      }
    } finally {
      io.destroy();
    }
  });

  it.runIf(versity)('credentials about to expire are refreshed through the catalog before use', async () => {
    let refreshes = 0;
    const io = tableIO(vended(Date.now() + 1_000), async () => {
      refreshes++;
      return vended(Date.now() + 3_600_000);
    });
    try {
      await new Promise((r) => setTimeout(r, 900)); // inside the refresh margin
      const loc = `s3://${BUCKET}/warehouse/ns/t/data/b.parquet`;
      await io.createNew(loc, bytes('more'));
      expect(refreshes).toBe(1);
      expect(new TextDecoder().decode(await io.read(loc))).toBe('more');
      expect(refreshes).toBe(1); // fresh for an hour now
    } finally {
      io.destroy();
    }
  });

  it.runIf(versity)('expired credentials whose refresh fails: a clear error naming the catalog, no key', async () => {
    const io = tableIO(vended(Date.now() - 1), async () => {
      throw new Error('HTTP 403 from the catalog: principal lost TABLE_READ_DATA');
    });
    try {
      const e = await io.read(`s3://${BUCKET}/warehouse/ns/t/data/a.parquet`).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(isFloeError(e), String(e)).toBe(true);
      const msg = (e as Error).message;
      expect(msg).toContain(CATALOG);
      expect(msg).toMatch(/vended credentials/);
      expect(msg).not.toContain(USER_SECRET);
    } finally {
      io.destroy();
    }
  });

  it.runIf(versity)('wrong vended secret and no vended credentials at all fail cleanly', async () => {
    const wrong = tableIO(vended(undefined, 'not-the-secret'));
    const none = new FileIO(storageConfigFromEnv([]));
    try {
      for (const io of [wrong, none]) {
        const e = await io.read(`s3://${BUCKET}/warehouse/ns/t/data/a.parquet`).then(
          () => undefined,
          (x: unknown) => x,
        );
        expect(isFloeError(e, 'AccessDenied'), String(e)).toBe(true);
        expect((e as Error).message).not.toContain('not-the-secret');
        expect((e as Error).message).not.toContain(USER_SECRET);
      }
    } finally {
      wrong.destroy();
      none.destroy();
    }
  });

  it.runIf(!!server)(
    'a request signed by the REST client signer is accepted by the signature-checking S3 server',
    async () => {
      const { signRequest } = await import('../../connectors/catalog/rest-sigv4.js');
      const url = `${server!.endpoint}/${server!.bucket}?list-type=2`;
      const settings = {
        service: 's3',
        region: server!.region,
        credentials: { accessKeyId: server!.accessKeyId, secretAccessKey: server!.secretAccessKey },
      };
      const ok = await fetch(url, { headers: await signRequest({ method: 'GET', url, headers: {} }, settings) });
      expect(ok.status, await ok.text()).toBe(200);
      // the same signature on another request is refused: the server really checks it
      const signed = await signRequest({ method: 'GET', url, headers: {} }, settings);
      const forged = await fetch(`${server!.endpoint}/${server!.bucket}?list-type=2&prefix=x`, { headers: signed });
      expect(forged.status).toBe(403);
    },
  );

  it('remote signing is refused as not built, naming the catalog', () => {
    expect(() =>
      vendedStorageConfig(
        {},
        {
          catalog: CATALOG,
          table: 'ns.t',
          initial: { config: { 's3.remote-signing-enabled': 'true' }, storageCredentials: [] },
        },
      ),
    ).toThrow(/rest:http:\/\/catalog\.test\/api .*remote signing/);
  });
});
