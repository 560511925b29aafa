/**
 * A filter in front of the reference REST catalog server (iceberg-core's RESTCatalogAdapter, which answers
 * its OAuth2 token route but checks nothing): it enforces what a production catalog (Polaris, Lakekeeper …)
 * enforces, so floe's auth is tested against the real protocol server with real checks.
 * - POST /v1/oauth/tokens: the client secret must match, then the request goes to the server's own token
 *   route; the token it issues is handed out with a short lifetime (`expires_in`) and a serial number, so
 *   every issued token is distinct and dies on time. RFC 8693 token exchange is honoured for a live token.
 * - every other route needs a live bearer token (else 401 NotAuthorizedException) and is forwarded.
 * - knobs for the bad-input tests: the token route down (connection destroyed), a 403 on the next commit,
 *   and vended credentials added to loadTable answers (config / storage-credentials).
 * Listens on 127.0.0.1:0; `close()` stops it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJsonLossless, stringifyJsonLossless } from '../../util/json.js';

export interface AuthProxyOptions {
  upstream: string;
  clientId: string;
  clientSecret: string;
  /** Lifetime of issued tokens, seconds. */
  ttlSeconds: number;
}

export interface ProxyRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  status: number;
  body: string;
}

export class AuthProxy {
  uri = '';
  readonly requests: ProxyRequest[] = [];
  /** Tokens issued: grant type, when, lifetime. */
  readonly issued: { grant: string; at: number }[] = [];
  tokenRouteDown = false;
  /** HTTP status for the next commit (POST to a table), then cleared. */
  failNextCommit: number | undefined;
  /** Added to every loadTable answer (`storage-credentials`, `config`). */
  vend: (() => { config?: Record<string, string>; 'storage-credentials'?: unknown[] }) | undefined;
  private readonly live = new Map<string, number>();
  private serial = 0;
  private server: Server | undefined;

  constructor(private readonly o: AuthProxyOptions) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req, res).catch((e: unknown) => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(e), type: 'ProxyError', code: 502 } }));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.uri = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  /** Invalidates every token issued so far (a revocation, or the clock jumping past them). */
  expireAll(): void {
    this.live.clear();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    const record = (status: number) =>
      this.requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, status, body });
    const json = (status: number, doc: unknown) => {
      record(status);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(doc));
    };
    if (path.startsWith('/v1/oauth/tokens')) {
      if (this.tokenRouteDown) {
        record(0);
        req.socket.destroy();
        return;
      }
      const form = new URLSearchParams(body);
      const grant = form.get('grant_type') ?? '';
      if (grant === 'client_credentials') {
        if (form.get('client_id') !== this.o.clientId || form.get('client_secret') !== this.o.clientSecret)
          return json(401, { error: 'invalid_client', error_description: 'unknown client or wrong secret' });
      } else if (grant === 'urn:ietf:params:oauth:grant-type:token-exchange') {
        if (!this.isLive(form.get('subject_token') ?? ''))
          return json(401, { error: 'invalid_grant', error_description: 'subject token expired or unknown' });
        // the server's token route answers exchanges of its own tokens only: ask it as the client
        form.set('subject_token', form.get('subject_token')!.replace(/~\d+$/, ''));
      } else return json(400, { error: 'unsupported_grant_type' });
      const up = await fetch(`${this.o.upstream}/v1/oauth/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      });
      const answer = (await up.json()) as Record<string, unknown>;
      if (!up.ok || typeof answer.access_token !== 'string') return json(up.status, answer);
      const token = `${answer.access_token}~${++this.serial}`;
      this.live.set(token, Date.now() + this.o.ttlSeconds * 1000);
      this.issued.push({ grant, at: Date.now() });
      return json(200, {
        access_token: token,
        token_type: 'bearer',
        expires_in: this.o.ttlSeconds,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      });
    }
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ') || !this.isLive(auth.slice(7)))
      return json(401, {
        error: {
          message: 'Not authorized: missing, unknown or expired token',
          type: 'NotAuthorizedException',
          code: 401,
        },
      });
    const isCommit = req.method === 'POST' && /\/namespaces\/[^/]+\/tables\/[^/]+$/.test(path.split('?')[0]!);
    if (isCommit && this.failNextCommit !== undefined) {
      const status = this.failNextCommit;
      this.failNextCommit = undefined;
      return json(status, {
        error: { message: 'principal lacks TABLE_WRITE_DATA', type: 'ForbiddenException', code: status },
      });
    }
    const up = await fetch(`${this.o.upstream}${path}`, {
      method: req.method ?? 'GET',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      ...(body && req.method !== 'GET' && req.method !== 'HEAD' ? { body } : {}),
    });
    let text = await up.text();
    const isLoad = req.method === 'GET' && /\/namespaces\/[^/]+\/tables\/[^/?]+$/.test(path.split('?')[0]!);
    if (isLoad && up.ok && this.vend && req.headers['x-iceberg-access-delegation'] === 'vended-credentials') {
      // lossless: snapshot ids above 2^53 must pass through unchanged
      const doc = parseJsonLossless(text) as Record<string, unknown>;
      const v = this.vend();
      if (v.config) doc.config = { ...(doc.config as object), ...v.config };
      if (v['storage-credentials']) doc['storage-credentials'] = v['storage-credentials'];
      text = stringifyJsonLossless(doc);
    }
    record(up.status);
    res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  }

  private isLive(token: string): boolean {
    const until = this.live.get(token);
    return until !== undefined && Date.now() < until;
  }
}
