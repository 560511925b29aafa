/**
 * SigV4 signing of REST catalog requests is the AWS SDK's own SignatureV4 (with node:crypto behind its hash
 * interface): checked against AWS's published SigV4 test suite (get-vanilla, get-vanilla-query-order-key-case,
 * post-vanilla; credentials AKIDEXAMPLE, region us-east-1, service "service", 2015-08-30T12:36:00Z), and the
 * property wiring (rest.sigv4-enabled, signing name/region, a bearer token moved to Original-Authorization).
 */
import { describe, expect, it } from 'vitest';
import { signRequest, sigv4Settings, type SigV4Settings } from '../../../connectors/catalog/rest-sigv4.js';

const SUITE: SigV4Settings = {
  service: 'service',
  region: 'us-east-1',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  applyChecksum: false,
};
const WHEN = new Date(Date.UTC(2015, 7, 30, 12, 36, 0));
const PREFIX =
  'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=';

describe('SigV4 (AWS SDK signer) against the AWS SigV4 test suite', () => {
  it.each([
    [
      'get-vanilla',
      'GET',
      'https://example.amazonaws.com/',
      '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    ],
    [
      'get-vanilla-query-order-key-case',
      'GET',
      'https://example.amazonaws.com/?Param2=value2&Param1=value1',
      'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500',
    ],
    [
      'post-vanilla',
      'POST',
      'https://example.amazonaws.com/',
      '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b',
    ],
  ])('%s', async (_name, method, url, signature) => {
    const headers = await signRequest({ method, url, headers: {} }, SUITE, WHEN);
    expect(headers['x-amz-date']).toBe('20150830T123600Z');
    expect(headers.authorization).toBe(`${PREFIX}${signature}`);
  });

  it('a changed request no longer matches the published signature', async () => {
    const headers = await signRequest(
      { method: 'GET', url: 'https://example.amazonaws.com/x', headers: {} },
      SUITE,
      WHEN,
    );
    expect(headers.authorization).not.toContain('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
  });
});

describe('sigv4Settings (catalog properties)', () => {
  it('is off unless rest.sigv4-enabled=true', () => {
    expect(sigv4Settings({}, 'rest:x')).toBeUndefined();
  });

  it('takes the signing name, region and static keys', () => {
    const s = sigv4Settings(
      {
        'rest.sigv4-enabled': 'true',
        'rest.signing-name': 'glue',
        'rest.signing-region': 'eu-west-1',
        'rest.access-key-id': 'AK',
        'rest.secret-access-key': 'SK',
      },
      'rest:x',
    );
    expect(s).toMatchObject({ service: 'glue', region: 'eu-west-1', credentials: { accessKeyId: 'AK' } });
  });

  it('refuses a missing region, naming the catalog', () => {
    const saved = { r: process.env.AWS_REGION, d: process.env.AWS_DEFAULT_REGION };
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    try {
      expect(() => sigv4Settings({ 'rest.sigv4-enabled': 'true' }, 'rest:https://glue.example')).toThrow(
        /rest:https:\/\/glue\.example.*rest\.signing-region/,
      );
    } finally {
      if (saved.r !== undefined) process.env.AWS_REGION = saved.r;
      if (saved.d !== undefined) process.env.AWS_DEFAULT_REGION = saved.d;
    }
  });

  it('moves a bearer token to Original-Authorization and signs the content hash', async () => {
    const headers = await signRequest(
      {
        method: 'POST',
        url: 'https://glue.example/iceberg/v1/config',
        headers: { Authorization: 'Bearer t' },
        body: '{}',
      },
      { ...SUITE, applyChecksum: true },
      WHEN,
    );
    expect(headers['Original-Authorization']).toBe('Bearer t');
    expect(headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
    expect(headers.authorization).toContain('original-authorization');
    expect(headers['x-amz-content-sha256']).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });
});
