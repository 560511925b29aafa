/**
 * The service's HTTP face (node:http, no framework). It binds 127.0.0.1 unless `http.host` says otherwise.
 * Every request first passes the Host/Origin check (403), then the token check (401; see http-auth.ts).
 *
 *   GET  /                                   dashboard: tables, sortable by health
 *   GET  /tables/<name>                      dashboard: one table
 *   POST /login, /logout                     dashboard session (the token, exchanged for a cookie)
 *   GET  /health                             200 {ok, tables: …last results} (503 while shutting down)
 *   GET  /metrics                            Prometheus text
 *   GET  /api/tables                         tables with health
 *   GET  /api/tables/<name>[?plan=false]     snapshots, file-size histogram per partition, delete files, pending plan
 *   GET  /api/tables/<name>/runs[?limit=N]   run history, newest first
 *   GET  /api/tables/<name>/value[?limit=N]  cost and benefit of its runs over time, totals per day
 *   GET  /api/budget                         the budget's window: limits, spent, remaining, per table
 *   POST /api/tables/<name>/run/<job>[?dryRun=true|false]   and the older POST /run/<table>/<job>[?dryRun=…]
 *   POST /api/tables/<name>/pause | /resume
 *
 * Table names are matched against the tables under management, never used as paths: an encoded slash, a
 * `..` segment or any unknown name is a 404. Unknown query parameters are a 400.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MaintenanceService, TriggerOutcome } from './service.js';
import { HTTP_LIMIT_DEFAULTS, type HttpConfig } from './config.js';
import { HttpGuard, SESSION_COOKIE } from './http-auth.js';
import { ServiceApi } from './api.js';
import { renderLoginPage, renderTableListPage, renderTablePage } from './dashboard.js';

export interface HttpEndpoint {
  host: string;
  port: number;
  close(): Promise<void>;
}

export interface HttpOptions {
  /** Overrides `service.config.http` (tests). */
  http?: Partial<HttpConfig>;
  api?: ServiceApi;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startHttpEndpoint(
  service: MaintenanceService,
  port: number,
  options: HttpOptions = {},
): Promise<HttpEndpoint> {
  const defaults: HttpConfig = { host: '127.0.0.1', publicReads: false, allowedHosts: [] };
  const cfg: HttpConfig = { ...defaults, ...(service.config.http as HttpConfig | undefined), ...options.http };
  const api = options.api ?? new ServiceApi(service);
  if (!options.api) api.warm();
  // assigned once the port is known, after the request handler closing over it is created
  // eslint-disable-next-line prefer-const
  let guard: HttpGuard | undefined;
  // slow or idle clients cannot hold sockets: headers and the whole request have deadlines (checked every
  // second, not Node's default 30 s), and the number of open sockets is capped
  const headersTimeout = cfg.headersTimeoutMs ?? HTTP_LIMIT_DEFAULTS.headersTimeoutMs;
  const requestTimeout = Math.max(headersTimeout, cfg.requestTimeoutMs ?? HTTP_LIMIT_DEFAULTS.requestTimeoutMs);
  const limits = {
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
  };
  const server: Server = createServer(limits, (req, res) => {
    handle(service, api, guard!, req, res).catch((e: unknown) => {
      const status = e instanceof HttpError ? e.status : 500;
      if (!res.headersSent) json(res, status, { error: e instanceof Error ? e.message : String(e) });
      else res.end();
    });
  });
  server.maxConnections = cfg.maxConnections ?? HTTP_LIMIT_DEFAULTS.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, cfg.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  guard = new HttpGuard(cfg, address.port);
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

interface Route {
  method: 'GET' | 'POST';
  /** Segments; `:name` captures one. */
  pattern: string[];
  mutating: boolean;
  query: string[];
  run(ctx: Ctx): Promise<void> | void;
}

interface Ctx {
  service: MaintenanceService;
  api: ServiceApi;
  guard: HttpGuard;
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
}

const TRIGGER_STATUS: Record<TriggerOutcome['status'], number> = {
  accepted: 202,
  'unknown-table': 404,
  'unknown-job': 404,
  running: 409,
  queued: 409,
  paused: 409,
  stopping: 503,
};

function boolParam(q: URLSearchParams, key: string): boolean | undefined {
  const v = q.get(key);
  if (v === null) return undefined;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new HttpError(400, `${key} must be true or false, got "${v}"`);
}

function intParam(q: URLSearchParams, key: string, min: number, max: number): number | undefined {
  const v = q.get(key);
  if (v === null) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max)
    throw new HttpError(400, `${key} must be an integer from ${min} to ${max}, got "${v}"`);
  return n;
}

function known(ctx: Ctx): string {
  const name = ctx.params.name!;
  if (!ctx.service.tableConfig(name)) throw new HttpError(404, `no table named "${name}" is under management`);
  return name;
}

const trigger = (ctx: Ctx) => {
  const dryRun = boolParam(ctx.query, 'dryRun');
  const out = ctx.service.trigger(ctx.params.name!, ctx.params.job!, dryRun === undefined ? {} : { dryRun });
  json(ctx.res, TRIGGER_STATUS[out.status], out);
};

const pause = (paused: boolean) => async (ctx: Ctx) => {
  const name = known(ctx);
  await ctx.service.setPaused(name, paused);
  if (ctx.guard && isFormPost(ctx.req)) return redirect(ctx.res, `/tables/${encodeURIComponent(name)}`);
  json(ctx.res, 200, { table: name, paused });
};

const ROUTES: Route[] = [
  {
    method: 'GET',
    pattern: [],
    mutating: false,
    query: [],
    run: async (ctx) => html(ctx.res, 200, renderTableListPage(await ctx.api.listTables(), ctx.service.health())),
  },
  {
    method: 'GET',
    pattern: ['tables', ':name'],
    mutating: false,
    query: [],
    run: async (ctx) => {
      const name = known(ctx);
      const [detail, runs, values] = await Promise.all([
        ctx.api.tableDetail(name).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e)))),
        ctx.api.runs(name, 200),
        ctx.api.values(name),
      ]);
      const entry = (await ctx.api.listTables()).find((t) => t.name === name)!;
      html(
        ctx.res,
        200,
        renderTablePage(
          entry,
          detail instanceof Error ? { error: detail.message } : detail!,
          runs ?? [],
          values,
          ctx.service.budgetStatus(),
        ),
      );
    },
  },
  {
    method: 'GET',
    pattern: ['health'],
    mutating: false,
    query: [],
    run: (ctx) => {
      const body = ctx.service.health();
      json(ctx.res, body.ok ? 200 : 503, body);
    },
  },
  {
    method: 'GET',
    pattern: ['metrics'],
    mutating: false,
    query: [],
    run: (ctx) => {
      ctx.res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      ctx.res.end(ctx.service.metricsText());
    },
  },
  {
    method: 'GET',
    pattern: ['api', 'tables'],
    mutating: false,
    query: [],
    run: async (ctx) => json(ctx.res, 200, { tables: await ctx.api.listTables() }),
  },
  {
    method: 'GET',
    pattern: ['api', 'tables', ':name'],
    mutating: false,
    query: ['plan'],
    run: async (ctx) => {
      const plan = boolParam(ctx.query, 'plan');
      const d = await ctx.api.tableDetail(known(ctx), plan === undefined ? {} : { plan });
      json(ctx.res, 200, d);
    },
  },
  {
    method: 'GET',
    pattern: ['api', 'budget'],
    mutating: false,
    query: [],
    run: (ctx) => json(ctx.res, 200, { budget: ctx.service.budgetStatus() ?? null }),
  },
  {
    method: 'GET',
    pattern: ['api', 'tables', ':name', 'value'],
    mutating: false,
    query: ['limit'],
    run: async (ctx) => {
      const name = known(ctx);
      const v = await ctx.api.values(name, intParam(ctx.query, 'limit', 1, 10_000) ?? 500);
      if (!v) throw new HttpError(503, 'no run history: this service runs without a state database');
      json(ctx.res, 200, { table: name, ...v });
    },
  },
  {
    method: 'GET',
    pattern: ['api', 'tables', ':name', 'runs'],
    mutating: false,
    query: ['limit'],
    run: async (ctx) => {
      const name = known(ctx);
      const runs = await ctx.api.runs(name, intParam(ctx.query, 'limit', 1, 10_000) ?? 100);
      if (!runs) throw new HttpError(503, 'no run history: this service runs without a state database');
      json(ctx.res, 200, { table: name, runs });
    },
  },
  {
    method: 'POST',
    pattern: ['api', 'tables', ':name', 'run', ':job'],
    mutating: true,
    query: ['dryRun'],
    run: trigger,
  },
  { method: 'POST', pattern: ['run', ':name', ':job'], mutating: true, query: ['dryRun'], run: trigger },
  { method: 'POST', pattern: ['api', 'tables', ':name', 'pause'], mutating: true, query: [], run: pause(true) },
  { method: 'POST', pattern: ['api', 'tables', ':name', 'resume'], mutating: true, query: [], run: pause(false) },
];

async function handle(
  service: MaintenanceService,
  api: ServiceApi,
  guard: HttpGuard,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  res.setHeader('x-content-type-options', 'nosniff');
  // not no-referrer: with it, browsers send `Origin: null` on form posts, which the origin check refuses
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader('cache-control', 'no-store');
  const refused = guard.checkOrigin(req);
  if (refused) {
    req.resume();
    return json(res, 403, { error: refused });
  }
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const rawPath = q < 0 ? raw : raw.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  const segments = parseSegments(rawPath);
  if (segments === undefined) {
    req.resume();
    return json(res, 404, { error: 'not found' });
  }

  // the dashboard's session: the only routes that read a body
  if (segments.length === 1 && (segments[0] === 'login' || segments[0] === 'logout')) {
    if (req.method !== 'POST') return json(res, 405, { error: 'use POST' }, { allow: 'POST' });
    if (segments[0] === 'logout') {
      req.resume();
      return redirect(res, '/', `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
    }
    const body = new URLSearchParams(await readBody(req, 4096));
    const session = guard.login(body.get('token') ?? '');
    if (!session)
      return html(
        res,
        401,
        renderLoginPage(
          guard.tokenConfigured
            ? 'That token is not right.'
            : 'No API token is configured on the server (FLOE_API_TOKEN or http.token).',
        ),
      );
    return redirect(res, '/', `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/`);
  }
  req.resume();

  const matches = ROUTES.map((r) => ({ r, params: match(r.pattern, segments) })).filter((m) => m.params !== undefined);
  if (matches.length === 0)
    return json(res, 404, { error: `no route ${req.method} ${rawPath} (see GET /api/tables, /health, /metrics)` });
  const hit = matches.find((m) => m.r.method === req.method);
  if (!hit) {
    const allow = [...new Set(matches.map((m) => m.r.method))].join(', ');
    return json(res, 405, { error: `use ${allow} for ${rawPath}` }, { allow });
  }
  const auth = guard.authenticate(req, hit.r.mutating);
  if (!auth.ok) {
    const isPage = req.method === 'GET' && (segments.length === 0 || segments[0] === 'tables');
    if (isPage && auth.status === 401) return html(res, 401, renderLoginPage());
    return json(
      res,
      auth.status,
      { error: auth.error },
      auth.status === 401 ? { 'www-authenticate': 'Bearer realm="floe"' } : {},
    );
  }
  for (const k of query.keys()) {
    if (!hit.r.query.includes(k)) {
      return json(res, 400, {
        error: `unknown query parameter "${k}"${hit.r.query.length ? ` (accepted: ${hit.r.query.join(', ')})` : ' (none accepted here)'}`,
      });
    }
  }
  await hit.r.run({ service, api, guard, req, res, params: hit.params!, query });
}

/** Decoded path segments, or undefined when one is malformed or could address anything but a name. */
function parseSegments(rawPath: string): string[] | undefined {
  if (!rawPath.startsWith('/')) return undefined;
  const parts = rawPath.split('/').slice(1);
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  const out: string[] = [];
  for (const p of parts) {
    let d: string;
    try {
      d = decodeURIComponent(p);
    } catch {
      return undefined;
    }
    if (d === '' || d === '.' || d === '..' || /[/\\]/.test(d) || d.includes('\0')) return undefined;
    out.push(d);
  }
  return out;
}

function match(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p.startsWith(':')) params[p.slice(1)] = segments[i]!;
    else if (p !== segments[i]) return undefined;
  }
  return params;
}

function isFormPost(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
}

async function readBody(req: IncomingMessage, max: number): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > max) throw new HttpError(413, `request body over ${max} bytes`);
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(`${JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}\n`);
}

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    // inline script and style only; nothing is loaded from elsewhere
    'content-security-policy':
      "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'x-frame-options': 'DENY',
  });
  res.end(body);
}

function redirect(res: ServerResponse, to: string, cookie?: string): void {
  res.writeHead(303, { location: to, ...(cookie ? { 'set-cookie': cookie } : {}) });
  res.end();
}
