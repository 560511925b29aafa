/**
 * Issue 29.7: the service's HTTP server does not let slow clients hold sockets. Real TCP sockets against
 * the real server: 200 that never finish their headers are closed by the headers timeout; one that sends
 * its headers but never its body is closed by the request timeout; past `http.maxConnections` a new
 * connection is closed at once while the held ones stay; a normal request still gets its answer after.
 * The limits come from floe.yaml (`http.headersTimeout` etc.), and bad values are refused naming the key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServiceConfig } from '../../../src/shells/service/config.js';
import { MaintenanceService } from '../../../src/shells/service/service.js';
import { startHttpEndpoint, type HttpEndpoint } from '../../../src/shells/service/http.js';
import { FakeClock, FakeRunner } from './fakes.js';

const TOKEN = 'test-token-0123456789abcdef';
let dir: string;
let svc: MaintenanceService;
let http: HttpEndpoint;
const sockets: Socket[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'floe-http-limits-'));
  const config = await parseServiceConfig(
    {
      stateDir: 'state',
      http: { headersTimeout: '400ms', requestTimeout: '900ms', maxConnections: 250 },
      tables: [{ name: 'orders', location: '/w/orders', jobs: { compact: 'hourly' } }],
    },
    'floe.yaml',
    dir,
    { FLOE_API_TOKEN: TOKEN },
  );
  svc = new MaintenanceService(config, { clock: new FakeClock(Date.UTC(2025, 0, 1)), runJob: new FakeRunner().run });
  await svc.init();
  http = await startHttpEndpoint(svc, 0);
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await http.close();
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A socket that has connected; `closed` resolves with the ms from connect to the server closing it. */
function open(port = http.port): Promise<{ socket: Socket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.resume(); // read what the server sends (its 408), so its closing is seen
    socket.once('connect', () => {
      const t0 = Date.now();
      const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now() - t0)));
      resolve({ socket, closed });
    });
    socket.once('error', reject);
  });
}

async function get(pathname: string, port = http.port): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${port}${pathname}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  await r.arrayBuffer();
  return r.status;
}

describe('slow clients', () => {
  it('200 sockets that never finish their headers are closed by the headers timeout', async () => {
    const held = await Promise.all(Array.from({ length: 200 }, () => open()));
    for (const h of held) h.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const times = await Promise.race([
      Promise.all(held.map((h) => h.closed)),
      new Promise<never>((_, rej) => setTimeout(() => rej(new Error('sockets still open after 5 s')), 5_000)),
    ]);
    expect(Math.max(...times)).toBeLessThan(3_000);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(300);
    expect(await get('/health')).toBe(200);
  });

  it('a request whose body never comes is closed by the request timeout', async () => {
    const h = await open();
    h.socket.write(
      `POST /api/tables/orders/pause HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 100\r\n\r\n{`,
    );
    const ms = await Promise.race([h.closed, new Promise<number>((r) => setTimeout(() => r(Infinity), 5_000))]);
    expect(ms).toBeGreaterThanOrEqual(800);
    expect(ms).toBeLessThan(3_000);
  });

  it('past maxConnections a new connection is closed at once; the held ones are not', async () => {
    // its own endpoint, with a headers timeout long enough that the held sockets stay
    const capped = await startHttpEndpoint(svc, 0, { http: { maxConnections: 20, headersTimeoutMs: 60_000 } });
    try {
      const held = await Promise.all(Array.from({ length: 20 }, () => open(capped.port)));
      await new Promise((r) => setTimeout(r, 200)); // the server has accepted them all
      const extra = await open(capped.port);
      const extraMs = await Promise.race([
        extra.closed,
        new Promise<number>((r) => setTimeout(() => r(Infinity), 1_000)),
      ]);
      expect(extraMs).toBeLessThan(1_000);
      expect(held.filter((h) => h.socket.readyState !== 'open')).toEqual([]);
      for (const h of held) h.socket.destroy();
      await Promise.all(held.map((h) => h.closed));
      await new Promise((r) => setTimeout(r, 100));
      expect(await get('/health', capped.port)).toBe(200);
    } finally {
      await capped.close();
    }
  });
});

describe('the limits in floe.yaml', () => {
  it.each([
    [{ headersTimeout: 'soon' }, /http\.headersTimeout/],
    [{ headersTimeout: '10s', requestTimeout: '5s' }, /http\.requestTimeout: must be at least http\.headersTimeout/],
    [{ maxConnections: 0 }, /http\.maxConnections/],
  ])('%j is refused naming the key', async (httpCfg, message) => {
    await expect(
      parseServiceConfig(
        { stateDir: 's', http: httpCfg, tables: [{ name: 'o', location: '/w/o', jobs: { compact: 'hourly' } }] },
        'floe.yaml',
        dir,
        { FLOE_API_TOKEN: TOKEN },
      ),
    ).rejects.toThrow(message);
  });
});
