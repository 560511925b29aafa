/**
 * Issue 23's must-show, end to end on a real S3 server: a table on S3 behind the reference REST catalog
 * (iceberg-core's RESTCatalogAdapter over a JdbcCatalog, started by the Java oracle with the catalog's own
 * S3 keys), reached through AuthProxy (./auth-proxy.ts), which enforces OAuth2 client credentials and vends
 * per-table S3 credentials in loadTable answers: the keys of a versitygw user that owns the table's bucket
 * and nothing else.
 *
 * - `floe compact ns.t --catalog rest:<proxy>` with $FLOE_REST_CREDENTIAL and no AWS credentials of its
 *   own commits, reading and writing the table's files with the vended keys only;
 * - Java's RESTCatalog reads the same rows through the same catalog: `credential=client_id:secret`,
 *   `header.X-Iceberg-Access-Delegation=vended-credentials` and S3FileIO without keys (iceberg-aws), so
 *   its S3 access too is the vended credentials — without the delegation header the same read is refused;
 * - no secret (client secret, vended key, catalog key) in floe's result or stderr.
 *
 * Needs versitygw (its admin API makes the restricted user); on another S3 server the file is skipped,
 * loudly. scripts/test-all.sh runs the S3 files again on versitygw.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalRows, type InputRow } from '../oracles/index.js';
import { RowModel } from '../iceberg-compaction/helpers.js';
import { acquireS3, type S3TestServer } from '../support/s3-server.js';
import { versitygwAdmin } from '../support/s3-binaries.js';
import { AuthProxy } from './auth-proxy.js';
import {
  JavaCatalog,
  floeCli,
  javaCatalogAvailable,
  javaSession,
  startRestServer,
  type OracleSession,
  type RestServer,
} from './support.js';

const s3 = await acquireS3();
const server: S3TestServer | undefined = s3.available ? s3.server : undefined;
const versity = server?.kind === 'versitygw';
const javaAvail = await javaCatalogAvailable();
const ready = versity && javaAvail.ok;
if (!versity)
  console.warn(
    `\n!!! SKIPPED: REST + vended credentials + Java need versitygw's admin API for a restricted user (S3 server: ${server?.kind ?? (s3.available ? '' : s3.reason)})\n`,
  );
else if (!javaAvail.ok)
  throw new Error(`the vended-credentials must-show needs the Java catalog oracle: ${javaAvail.reason}`);

const S3_IO = 'org.apache.iceberg.aws.s3.S3FileIO';
const CLIENT_ID = 'floe-maintenance';
const SECRET = `oauth-${randomUUID()}`;
const USER = `vended-${randomUUID().slice(0, 8)}`;
const USER_SECRET = `vs-${randomUUID()}`;
const BUCKET = `vended-${randomUUID().slice(0, 8)}`;
const TABLE = 'ns.t';
const AWS_ENV = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE'];
/** No credentials from anywhere but the catalog; no instance-metadata lookups off this machine. */
const NO_AMBIENT_AWS = {
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/floe-test-credentials',
  AWS_CONFIG_FILE: '/nonexistent/floe-test-config',
  AWS_EC2_METADATA_DISABLED: 'true',
};

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-rest-vended-'));
const saved: Record<string, string | undefined> = {};
let rest: RestServer | undefined;
let proxy: AuthProxy | undefined;
let jvm: OracleSession | undefined;
let CATALOG = '';

const model = new RowModel({ id: 'long', region: 'string', qty: 'int' });
const batch = (b: number): InputRow[] =>
  Array.from({ length: 5 }, (_, i) => ({ id: b * 100 + i, region: i % 2 ? 'us' : 'eu', qty: b * 10 + i }));

/** S3FileIO on the test server; keys only when given (otherwise the catalog's vended ones). */
const s3Props = (keys?: { id: string; secret: string }): Record<string, string> => ({
  'io-impl': S3_IO,
  's3.endpoint': server!.endpoint,
  's3.path-style-access': 'true',
  'client.region': server!.region,
  ...(keys ? { 's3.access-key-id': keys.id, 's3.secret-access-key': keys.secret } : {}),
});

const admin = (args: string[]) => versitygwAdmin(server!, args);

beforeAll(async () => {
  if (!ready) return;
  await admin(['create-user', '-a', USER, '-s', USER_SECRET, '-r', 'user']);
  await admin(['create-bucket', '--bucket', BUCKET, '--owner', USER]);
  // the catalog server holds the platform's key (the root user here): it writes table metadata
  rest = await startRestServer(
    `s3://${BUCKET}/warehouse`,
    path.join(work, 'backend.db'),
    120_000,
    s3Props({ id: server!.accessKeyId, secret: server!.secretAccessKey }),
  );
  proxy = await new AuthProxy({
    upstream: rest.uri,
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    ttlSeconds: 300,
  }).start();
  proxy.vend = () => ({
    'storage-credentials': [
      {
        prefix: `s3://${BUCKET}/warehouse/ns/t`,
        config: {
          's3.access-key-id': USER,
          's3.secret-access-key': USER_SECRET,
          's3.endpoint': server!.endpoint,
          's3.path-style-access': 'true',
          'client.region': server!.region,
        },
      },
    ],
  });
  CATALOG = `rest:${proxy.uri}`;
  // floe and Java run with no AWS credentials of their own
  const bare: NodeJS.ProcessEnv = { ...process.env, ...NO_AMBIENT_AWS };
  for (const k of AWS_ENV) delete bare[k];
  jvm = javaSession(bare);
  for (const k of [...AWS_ENV, ...Object.keys(NO_AMBIENT_AWS), 'FLOE_S3_ENDPOINT']) {
    saved[k] = process.env[k];
    delete process.env[k];
  }
  Object.assign(process.env, NO_AMBIENT_AWS);
  // the producer: a Java writer straight at the catalog server, with the bucket owner's own keys
  await jvm.call(
    [
      'iceberg-write',
      TABLE,
      '--catalog',
      `rest:${rest.uri}`,
      '--catalog-properties',
      JSON.stringify(s3Props({ id: USER, secret: USER_SECRET })),
    ],
    {
      formatVersion: 2,
      schema: [
        { name: 'id', type: 'long', required: true },
        { name: 'region', type: 'string' },
        { name: 'qty', type: 'int' },
      ],
      partitionSpec: [{ source: 'region' }],
      ops: [1, 2, 3, 4].map((b) => ({ op: 'append', rows: batch(b) })),
    },
  );
  [1, 2, 3, 4].forEach((b) => model.append(batch(b)));
}, 240_000);

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  jvm?.close();
  await proxy?.close();
  await rest?.stop();
  await s3.release();
  rmSync(work, { recursive: true, force: true });
});

async function metadataLocation(): Promise<string> {
  const res = await fetch(`${rest!.uri}/v1/namespaces/ns/tables/t`);
  return ((await res.json()) as { 'metadata-location': string })['metadata-location'];
}

describe('REST catalog with OAuth2 client credentials and vended S3 credentials: floe compacts, Java reads', () => {
  it.runIf(ready)(
    'floe compact commits with only the catalog credential; Java reads the same rows through the same catalog',
    async () => {
      const before = await metadataLocation();
      expect(before.startsWith(`s3://${BUCKET}/warehouse/ns/t/metadata/`), before).toBe(true);
      const tokensBefore = proxy!.issued.length;
      const err: string[] = [];
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = ((c: string | Uint8Array) => {
        err.push(typeof c === 'string' ? c : Buffer.from(c).toString('utf8'));
        return true;
      }) as typeof process.stderr.write;
      process.env.FLOE_REST_CREDENTIAL = `${CLIENT_ID}:${SECRET}`;
      let r: { json: Record<string, unknown>; exitCode: number };
      try {
        r = await floeCli(['compact', TABLE, '--catalog', CATALOG, '--parallelism', '1', '--progress', 'none']);
      } finally {
        process.stderr.write = write;
        delete process.env.FLOE_REST_CREDENTIAL;
      }
      expect(r.exitCode, `${JSON.stringify(r.json)}\n${err.join('')}`).toBe(0);
      expect((r.json.committedTasks as unknown[]).length).toBeGreaterThan(0);
      const after = await metadataLocation();
      expect(after).not.toBe(before);
      expect(proxy!.issued.length).toBeGreaterThan(tokensBefore); // floe's client-credentials token
      const produced = JSON.stringify(r.json) + err.join('');
      for (const secret of [SECRET, USER_SECRET, server!.secretAccessKey]) expect(produced).not.toContain(secret);

      // Java through the proxy: OAuth2 client credentials, vended credentials, S3FileIO without keys
      const javaProps = {
        credential: `${CLIENT_ID}:${SECRET}`,
        'header.X-Iceberg-Access-Delegation': 'vended-credentials',
        ...s3Props(),
      };
      const tokensBeforeJava = proxy!.issued.length;
      const java = new JavaCatalog(jvm!, CATALOG, undefined, javaProps);
      expect(canonicalRows(await java.read(TABLE))).toEqual(canonicalRows(model.live()));
      expect(proxy!.issued.length).toBeGreaterThan(tokensBeforeJava); // Java's own token, from `credential`
      expect(await metadataLocation()).toBe(after); // reading committed nothing

      // control: the same read without asking for vended credentials has no S3 keys at all, and fails
      const { 'header.X-Iceberg-Access-Delegation': _h, ...noDelegation } = javaProps;
      const refused = await new JavaCatalog(jvm!, CATALOG, undefined, noDelegation).read(TABLE).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused, 'a read without vended credentials must not reach the bucket').toBeInstanceOf(Error);
    },
    240_000,
  );
});
