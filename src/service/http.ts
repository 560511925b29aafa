/**
 * The service's small HTTP face, on 127.0.0.1 only (no authentication: anything that can reach it can
 * start jobs, so it never listens beyond the machine). node:http, no framework.
 *   GET  /health               200 {ok, tables: …last results} (503 while shutting down)
 *   GET  /metrics              Prometheus text
 *   POST /run/<table>/<job>    202 accepted | 404 unknown table/job | 409 running or queued | 503 stopping
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MaintenanceService } from './service.js';

export interface HttpEndpoint {
  host: string;
  port: number;
  close(): Promise<void>;
}

export async function startHttpEndpoint(service: MaintenanceService, port: number, host = '127.0.0.1'): Promise<HttpEndpoint> {
  const server: Server = createServer((req, res) => handle(service, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    host: address.address,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function handle(service: MaintenanceService, req: IncomingMessage, res: ServerResponse): void {
  // the body, if any, is not used; drain it so keep-alive connections stay usable
  req.resume();
  const url = new URL(req.url ?? '/', 'http://localhost');
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  try {
    if (req.method === 'GET' && url.pathname === '/health') {
      const body = service.health();
      return json(res, body.ok ? 200 : 503, body);
    }
    if (req.method === 'GET' && url.pathname === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(service.metricsText());
      return;
    }
    if (parts[0] === 'run' && parts.length === 3) {
      if (req.method !== 'POST') return json(res, 405, { error: 'use POST to start a job' }, { allow: 'POST' });
      const out = service.trigger(parts[1]!, parts[2]!);
      const status = { accepted: 202, 'unknown-table': 404, 'unknown-job': 404, running: 409, queued: 409, stopping: 503 }[out.status];
      return json(res, status, out);
    }
    json(res, 404, { error: `no route ${req.method} ${url.pathname} (GET /health, GET /metrics, POST /run/<table>/<job>)` });
  } catch (e) {
    json(res, 500, { error: e instanceof Error ? e.message : String(e) });
  }
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(`${JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}\n`);
}
