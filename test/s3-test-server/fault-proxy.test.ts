/**
 * The fault-injecting proxy (integration/support/s3-fault-proxy.ts) against a plain local HTTP server that
 * records what reached it: each fault kind does what it says on the wire (applied or not applied by the
 * server, what the client sees), headers reach the server unchanged, and seeded rules are deterministic.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy, type FaultRule } from '../../integration/support/s3-fault-proxy.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let upstream: http.Server;
let upstreamUrl = '';
const seen: Seen[] = [];
const OBJECT = 'x'.repeat(1000);

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (req.method === 'GET') {
        res.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-length': OBJECT.length,
          etag: '"e1"',
        });
        res.end(OBJECT);
      } else {
        res.writeHead(200, { etag: '"e2"', 'content-length': 0 });
        res.end();
      }
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => upstream.close(() => r())));
beforeEach(() => {
  seen.length = 0;
});

/** One request on a fresh connection; resolves with what the client saw (or the socket error code). */
function send(proxy: FaultProxy, method: string, path: string, body = '', headers: Record<string, string> = {}) {
  return new Promise<{ status?: number; body?: string; error?: string; headers?: http.IncomingHttpHeaders }>(
    (resolve) => {
      const req = http.request(
        `${proxy.endpoint}${path}`,
        { method, headers: { ...headers, 'content-length': Buffer.byteLength(body) }, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString(), headers: res.headers }),
          );
          res.on('error', (e: NodeJS.ErrnoException) =>
            resolve({ status: res.statusCode, error: e.code ?? e.message }),
          );
          res.on('aborted', () => resolve({ status: res.statusCode, error: 'aborted' }));
        },
      );
      req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
      req.end(body);
    },
  );
}

async function withProxy<T>(rules: FaultRule[], fn: (p: FaultProxy) => Promise<T>, seed?: number): Promise<T> {
  const p = await startFaultProxy({ upstream: upstreamUrl, rules, ...(seed === undefined ? {} : { seed }) });
  try {
    return await fn(p);
  } finally {
    await p.close();
  }
}

describe('S3 fault proxy', () => {
  it('forwards method, path, query, body and every header (Host included) unchanged', async () => {
    await withProxy([], async (p) => {
      const r = await send(p, 'PUT', '/bkt/a/b%20c.json?x-id=PutObject', 'hello', {
        authorization: 'AWS4-HMAC-SHA256 sig',
        'if-none-match': '*',
      });
      expect(r.status).toBe(200);
      expect(r.headers?.etag).toBe('"e2"');
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ method: 'PUT', url: '/bkt/a/b%20c.json?x-id=PutObject', body: 'hello' });
      expect(seen[0]!.headers.host).toBe(new URL(p.endpoint).host);
      expect(seen[0]!.headers.authorization).toBe('AWS4-HMAC-SHA256 sig');
      expect(seen[0]!.headers['if-none-match']).toBe('*');
      expect(p.events).toEqual([
        { index: 0, method: 'PUT', bucket: 'bkt', key: 'a/b c.json', query: 'x-id=PutObject', upstreamStatus: 200 },
      ]);
    });
  });

  it('lost-500 / lost-reset: the server applied the PUT, the client got 500 / a reset', async () => {
    await withProxy(
      [
        { kind: 'lost-500', method: 'PUT', nth: [0] },
        { kind: 'lost-reset', method: 'PUT', nth: [1] },
      ],
      async (p) => {
        const a = await send(p, 'PUT', '/bkt/k', 'one');
        expect(a.status).toBe(500);
        expect(a.body).toContain('<Code>InternalError</Code>');
        const b = await send(p, 'PUT', '/bkt/k', 'two');
        expect(b.error).toBe('ECONNRESET');
        expect(seen.map((s) => s.body)).toEqual(['one', 'two']);
        expect(p.faults().map((e) => e.fault)).toEqual(['lost-500', 'lost-reset']);
      },
    );
  });

  it('error-500, slowdown-503 and reset happen before forwarding: the server never sees the request', async () => {
    await withProxy(
      [
        { kind: 'error-500', key: /^e$/ },
        { kind: 'slowdown-503', key: /^s$/ },
        { kind: 'reset', key: /^r$/ },
      ],
      async (p) => {
        const e = await send(p, 'PUT', '/bkt/e', 'x');
        const s = await send(p, 'PUT', '/bkt/s', 'x');
        const r = await send(p, 'PUT', '/bkt/r', 'x');
        expect([e.status, s.status, r.error]).toEqual([500, 503, 'ECONNRESET']);
        expect(s.body).toContain('<Code>SlowDown</Code>');
        expect(seen).toEqual([]);
      },
    );
  });

  it('truncate: the headers promise the whole object, half of it arrives, then the connection resets', async () => {
    await withProxy([{ kind: 'truncate', method: 'GET' }], async (p) => {
      const r = await send(p, 'GET', '/bkt/obj');
      expect(r.status).toBe(200);
      expect(r.error).toBeDefined();
      expect(r.body).toBeUndefined();
      expect(seen).toHaveLength(1);
    });
  });

  it('delay forwards after the delay; rules match by method, key, query and header; times caps them', async () => {
    await withProxy(
      [
        { kind: 'delay', method: 'GET', key: /^slow\//, delayMs: 50 },
        { kind: 'error-500', method: 'PUT', headers: { 'if-none-match': /^\*$/ }, query: /^$/, times: 1 },
      ],
      async (p) => {
        expect((await send(p, 'GET', '/bkt/slow/a')).status).toBe(200);
        expect((await send(p, 'PUT', '/bkt/m', 'x')).status).toBe(200); // no If-None-Match
        expect((await send(p, 'PUT', '/bkt/m?uploadId=1', 'x', { 'if-none-match': '*' })).status).toBe(200); // query
        expect((await send(p, 'PUT', '/bkt/m', 'x', { 'if-none-match': '*' })).status).toBe(500);
        expect((await send(p, 'PUT', '/bkt/m', 'x', { 'if-none-match': '*' })).status).toBe(200); // times: 1
        expect(p.faults().map((e) => `${e.fault} ${e.method} ${e.key}`)).toEqual([
          'delay GET slow/a',
          'error-500 PUT m',
        ]);
        expect(seen).toHaveLength(4);
      },
    );
  });

  it('seeded probability: the same seed fires on the same requests, another seed on others', async () => {
    const pattern = async (seed: number) =>
      withProxy(
        [{ kind: 'error-500', method: 'PUT', probability: 0.3 }],
        async (p) => {
          const out: number[] = [];
          for (let i = 0; i < 40; i++) out.push((await send(p, 'PUT', `/bkt/k${i}`, 'x')).status!);
          return out.map((s) => (s === 500 ? 1 : 0)).join('');
        },
        seed,
      );
    const a1 = await pattern(7);
    const a2 = await pattern(7);
    const b = await pattern(8);
    expect(a1).toBe(a2);
    expect(a1).not.toBe(b);
    const hits = [...a1].filter((c) => c === '1').length;
    expect(hits).toBeGreaterThan(3);
    expect(hits).toBeLessThan(25);
  });
});
