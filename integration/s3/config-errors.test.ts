/**
 * A missing bucket on a real S3 server (issue 28 item 2): `floe inspect` / `floe compact` as a process exit 2
 * saying the bucket does not exist at that endpoint — not "no table at s3://…". The cases that need no
 * server (region, endpoint, scheme) are in test/connectors/storage/s3-config-errors.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { acquireS3, type S3TestServer } from '../support/s3-server.js';
import { spawnFloe } from '../../test/shells/cli/support.js';

const s3 = await acquireS3();
afterAll(() => s3.release());
const server = (s3.available ? s3.server : undefined) as S3TestServer;

describe.skipIf(!s3.available)(`S3 configuration errors on ${s3.available ? server.kind : 'skipped'}`, () => {
  for (const command of [['inspect'], ['compact', '--dry-run']]) {
    it(`floe ${command.join(' ')} s3://<missing bucket>/… exits 2 saying the bucket does not exist`, async () => {
      const r = await spawnFloe([command[0]!, 's3://no-such-bucket-floe/db/events', ...command.slice(1)], {
        env: {
          FLOE_S3_ENDPOINT: server.endpoint,
          AWS_ACCESS_KEY_ID: server.accessKeyId,
          AWS_SECRET_ACCESS_KEY: server.secretAccessKey,
          AWS_REGION: server.region,
        },
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`bucket no-such-bucket-floe does not exist at endpoint ${server.endpoint}`);
      expect(r.stderr).not.toMatch(/no table at/);
    });
  }
});
