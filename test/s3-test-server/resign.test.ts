/**
 * The fault proxy's re-signing (integration/support/s3-fault-proxy.ts `resignWithout`), which lets it play a
 * store that ignores conditional headers: with nothing stripped it must reproduce exactly the signature the
 * AWS SDK sent (same canonical path, query and headers), for a plain PUT, a PUT with If-None-Match on a key
 * that needs escaping, and a multipart part (query parameters); with If-None-Match stripped the header is
 * gone from the request and from SignedHeaders, and the signature differs.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resignWithout } from '../../integration/support/s3-fault-proxy.js';

const SECRET = 'floe-test-secret';
let server: http.Server;
let client: S3Client;
const seen: { method: string; url: string; headers: http.IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { etag: '"0123456789abcdef0123456789abcdef"', 'content-length': 0 });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  client = new S3Client({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId: 'floe-test', secretAccessKey: SECRET },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
});
afterAll(async () => {
  client.destroy();
  await new Promise((r) => server.close(r));
});

describe('resignWithout', () => {
  it('with nothing stripped reproduces the SDK signature for PUT, conditional PUT and UploadPart', async () => {
    await client.send(new PutObjectCommand({ Bucket: 'b', Key: 'db/t/data/a.parquet', Body: 'x' }));
    await client.send(
      new PutObjectCommand({ Bucket: 'b', Key: 'db/t/métadata/v 1+2.json', Body: '{}', IfNoneMatch: '*' }),
    );
    await client.send(
      new UploadPartCommand({ Bucket: 'b', Key: 'db/t/big', UploadId: 'u/p+l=d', PartNumber: 2, Body: 'y' }),
    );
    expect(seen).toHaveLength(3);
    for (const r of seen) {
      expect(resignWithout(r.method, r.url, r.headers, new Set(), SECRET).authorization).toBe(r.headers.authorization);
    }
    expect(seen[2]!.url).toContain('partNumber=2');
  });

  it('stripping If-None-Match removes it from the request and from the signed headers', () => {
    const r = seen[1]!;
    expect(r.headers['if-none-match']).toBe('*');
    expect(String(r.headers.authorization)).toMatch(/SignedHeaders=[^,]*if-none-match/);
    const out = resignWithout(r.method, r.url, r.headers, new Set(['if-none-match']), SECRET);
    expect(out['if-none-match']).toBeUndefined();
    expect(String(out.authorization)).not.toMatch(/if-none-match/);
    expect(out.authorization).not.toBe(r.headers.authorization);
  });
});
