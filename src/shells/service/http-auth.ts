/**
 * Who may talk to `floe serve`'s HTTP endpoint.
 *
 * - Host and Origin: a request whose `Host` is not this server's own name (127.0.0.1 / localhost / [::1]
 *   on the bound port, or one of `http.allowedHosts`) is refused with 403 — that stops DNS rebinding —
 *   and so is one whose `Origin` (sent by browsers on cross-site requests) names any other site, and
 *   one marked `Sec-Fetch-Site: cross-site`.
 * - The token: `Authorization: Bearer <token>` (from $FLOE_API_TOKEN or `http.token`), compared in
 *   constant time. The dashboard's login form exchanges it for an HttpOnly, SameSite=Strict session cookie
 *   that holds a digest of the token, never the token; a cookie-authenticated POST must also carry a
 *   matching Origin, which browsers always send on POST.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { HttpConfig } from './config.js';

export const SESSION_COOKIE = 'floe_session';

export type AuthResult =
  { ok: true; via: 'bearer' | 'cookie' | 'public' } | { ok: false; status: 401 | 403; error: string };

const digest = (s: string) => createHash('sha256').update(s).digest();

export class HttpGuard {
  private readonly hosts: Set<string>;
  private readonly tokenDigest: Buffer | undefined;
  private readonly sessionValue: string | undefined;

  constructor(
    readonly cfg: HttpConfig,
    port: number,
  ) {
    const names = ['127.0.0.1', 'localhost', '[::1]'];
    const bound = cfg.host.includes(':') && !cfg.host.startsWith('[') ? `[${cfg.host}]` : cfg.host;
    if (!['0.0.0.0', '[::]', '::'].includes(cfg.host)) names.push(bound.toLowerCase());
    this.hosts = new Set(names.flatMap((n) => [`${n}:${port}`, ...(port === 80 ? [n] : [])]));
    for (const h of cfg.allowedHosts) this.hosts.add(h.toLowerCase());
    this.tokenDigest = cfg.token === undefined ? undefined : digest(cfg.token);
    this.sessionValue =
      cfg.token === undefined ? undefined : digest(`floe-dashboard-session:${cfg.token}`).toString('hex');
  }

  get tokenConfigured(): boolean {
    return this.tokenDigest !== undefined;
  }

  /** Host / Origin / Sec-Fetch-Site: null when the request may proceed, else why not (answered 403). */
  checkOrigin(req: IncomingMessage): string | null {
    const host = req.headers.host?.toLowerCase();
    if (!host) return 'the request has no Host header';
    if (!this.hosts.has(host))
      return `Host "${host}" is not this server (accepted: ${[...this.hosts].join(', ')}; add others with http.allowedHosts)`;
    const origin = req.headers.origin;
    if (origin !== undefined) {
      let originHost: string | undefined;
      try {
        const u = new URL(origin);
        originHost = u.protocol === 'http:' || u.protocol === 'https:' ? u.host.toLowerCase() : undefined;
      } catch {
        originHost = undefined;
      }
      if (!originHost || !this.hosts.has(originHost)) return `cross-origin request from "${origin}" refused`;
    }
    if (req.headers['sec-fetch-site'] === 'cross-site') return 'cross-site request refused';
    return null;
  }

  /** Token check for a request that passed `checkOrigin`. `mutating`: POST endpoints. */
  authenticate(req: IncomingMessage, mutating: boolean): AuthResult {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m) return { ok: false, status: 401, error: 'Authorization must be "Bearer <token>"' };
      if (!this.tokenDigest)
        return {
          ok: false,
          status: 401,
          error: 'no API token is configured on the server (set FLOE_API_TOKEN or http.token)',
        };
      if (!timingSafeEqual(digest(m[1]!), this.tokenDigest))
        return { ok: false, status: 401, error: 'wrong API token' };
      return { ok: true, via: 'bearer' };
    }
    const cookie = this.sessionCookie(req);
    if (cookie !== undefined && this.sessionValue !== undefined) {
      const a = Buffer.from(cookie);
      const b = Buffer.from(this.sessionValue);
      if (a.length === b.length && timingSafeEqual(a, b)) {
        // a browser always sends Origin on POST; a missing one means the cookie is being replayed from elsewhere
        if (mutating && req.headers.origin === undefined)
          return { ok: false, status: 403, error: 'a cookie-authenticated POST needs an Origin header' };
        return { ok: true, via: 'cookie' };
      }
    }
    if (!mutating && this.cfg.publicReads) return { ok: true, via: 'public' };
    if (!this.tokenDigest)
      return {
        ok: false,
        status: 401,
        error: 'no API token is configured on the server: set FLOE_API_TOKEN or http.token',
      };
    return { ok: false, status: 401, error: 'missing credentials: send Authorization: Bearer <token>' };
  }

  /** The login form's check; on success the value to put in the session cookie. */
  login(token: string): string | undefined {
    if (!this.tokenDigest || !timingSafeEqual(digest(token), this.tokenDigest)) return undefined;
    return this.sessionValue;
  }

  private sessionCookie(req: IncomingMessage): string | undefined {
    const raw = req.headers.cookie;
    if (!raw) return undefined;
    for (const part of raw.split(';')) {
      const [k, ...v] = part.trim().split('=');
      if (k === SESSION_COOKIE) return v.join('=');
    }
    return undefined;
  }
}
