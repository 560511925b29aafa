/**
 * S3 misconfiguration as a user meets it (issue 28 item 2): `floe inspect s3://…` run as a process with a
 * region, an endpoint or its scheme missing exits 2 (a configuration error) naming what to set — never an
 * `Internal` error or a retry loop. No server is needed: each case fails before a request reaches one (the
 * no-endpoint case asks DNS for an AWS host name, which does not resolve on a machine without internet; where
 * it does resolve the test says so and checks nothing it cannot see). The missing bucket needs a server:
 * integration/s3/config-errors.test.ts.
 */
import { lookup } from 'node:dns/promises';
import { describe, expect, it } from 'vitest';
import { spawnFloe } from '../../shells/cli/support.js';
import { storageConfigFromEnv } from '../../../connectors/storage/env.js';

/** Everything the environment could carry for S3, unset; then the case's own settings. */
function env(vars: Record<string, string>): Record<string, string> {
  return {
    FLOE_S3_ENDPOINT: '',
    AWS_ENDPOINT_URL_S3: '',
    AWS_ENDPOINT_URL: '',
    AWS_REGION: '',
    AWS_DEFAULT_REGION: '',
    AWS_PROFILE: '',
    AWS_CONFIG_FILE: '/nonexistent/floe-test-aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/floe-test-aws-credentials',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ACCESS_KEY_ID: 'floe-test',
    AWS_SECRET_ACCESS_KEY: 'floe-test-secret',
    S3_TEST_ENDPOINT: '',
    ...vars,
  };
}

const inspect = (vars: Record<string, string>) => spawnFloe(['inspect', 's3://lake/db/events'], { env: env(vars) });

describe('S3 configuration errors exit 2 naming what to set', () => {
  it('no region and no endpoint: names AWS_REGION and the endpoint variables', async () => {
    const r = await inspect({});
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/no AWS region is configured; set AWS_REGION/);
    expect(r.stderr).toContain('FLOE_S3_ENDPOINT (or AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL)');
    expect(r.stderr).not.toMatch(/Internal/);
  });

  it('a region but no endpoint, and the AWS host does not resolve: names the endpoint variables', async (ctx) => {
    const resolves = await lookup('lake.s3.us-east-1.amazonaws.com').then(
      () => true,
      () => false,
    );
    if (resolves) {
      console.warn('!! SKIPPED: lake.s3.us-east-1.amazonaws.com resolves on this machine (internet access)');
      ctx.skip();
    }
    const r = await inspect({ AWS_REGION: 'us-east-1' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('host lake.s3.us-east-1.amazonaws.com does not resolve: no S3 endpoint is set');
    expect(r.stderr).toContain('FLOE_S3_ENDPOINT (or AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL)');
  });

  for (const variable of ['FLOE_S3_ENDPOINT', 'AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL']) {
    it(`an endpoint without its scheme in ${variable}: names the variable and the fix`, async () => {
      const r = await inspect({ [variable]: 'localhost:9000', AWS_REGION: 'us-east-1' });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `S3 endpoint ${variable}=localhost:9000 is not an http:// or https:// URL: write it with its scheme, e.g. http://localhost:9000`,
      );
    });
  }

  it('AWS_ENDPOINT_URL is honoured, after FLOE_S3_ENDPOINT and AWS_ENDPOINT_URL_S3', () => {
    expect(storageConfigFromEnv([], { AWS_ENDPOINT_URL: 'http://a:1' }).s3).toMatchObject({
      endpoint: 'http://a:1',
      endpointFrom: 'AWS_ENDPOINT_URL',
      forcePathStyle: true,
    });
    expect(
      storageConfigFromEnv([], { AWS_ENDPOINT_URL: 'http://a:1', AWS_ENDPOINT_URL_S3: 'http://b:2' }).s3?.endpoint,
    ).toBe('http://b:2');
    expect(
      storageConfigFromEnv([], { AWS_ENDPOINT_URL: 'http://a:1', FLOE_S3_ENDPOINT: 'http://c:3' }).s3?.endpoint,
    ).toBe('http://c:3');
  });

  it('FLOE_S3_CONDITIONAL_WRITES and FLOE_S3_UNSAFE_COMMITS: values read, a wrong one refused naming it', async () => {
    expect(storageConfigFromEnv([], { FLOE_S3_CONDITIONAL_WRITES: 'ignored' }).s3?.conditionalWrites).toBe('ignored');
    expect(storageConfigFromEnv([], { FLOE_S3_UNSAFE_COMMITS: '1' }).s3?.unsafeCommits).toBe(true);
    expect(storageConfigFromEnv([], {}).s3?.unsafeCommits).toBeUndefined();
    const r = await spawnFloe(['inspect', 's3://lake/db/events'], {
      env: env({ FLOE_S3_CONDITIONAL_WRITES: 'maybe', AWS_REGION: 'us-east-1' }),
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('FLOE_S3_CONDITIONAL_WRITES=maybe: expected one of probe, honoured, ignored');
  });
});
