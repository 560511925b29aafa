/**
 * How floe authenticates to an Iceberg REST catalog, as the REST spec and Java's RESTSessionCatalog do:
 * - `token`: a static bearer token, sent as is;
 * - `credential` = `client_id:client_secret` (or a secret alone): OAuth2 client credentials at
 *   `oauth2-server-uri` (default: the catalog's own `/v1/oauth/tokens`), with `scope` (default `catalog`).
 *   The token is fetched on first use, refreshed before it expires (a fifth of its lifetime, at most five
 *   minutes, ahead) and once more when the catalog answers 401. A refresh first tries RFC 8693 token
 *   exchange of the current token when the token endpoint speaks it (its answer named an
 *   `issued_token_type`; `token-exchange-enabled=false` turns it off), else asks for a new token with the
 *   client credentials.
 * Messages name the catalog and the token endpoint, never a secret.
 */
import { FloeError } from '../../util/errors.js';

export interface AuthDeps {
  /** `rest:<uri>` or the catalog's name, for messages. */
  catalog: string;
  /** The catalog's base URI. */
  baseUri: string;
  props: Record<string, string>;
  fetch: typeof fetch;
  timeoutMs: number;
  now?: () => number;
}

interface Token {
  value: string;
  /** Epoch ms; undefined = no known expiry. */
  expiresAt?: number;
  issuedAt: number;
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export class RestAuth {
  private token: Token | undefined;
  private pending: Promise<Token> | undefined;
  private exchangeOffered = false;
  private readonly now: () => number;
  readonly endpoint: string;

  constructor(private readonly d: AuthDeps) {
    this.now = d.now ?? Date.now;
    this.endpoint = d.props['oauth2-server-uri'] ?? `${d.baseUri}/v1/oauth/tokens`;
    const staticToken = d.props.token;
    if (staticToken) this.token = { value: staticToken, issuedAt: this.now() };
  }

  private get credential(): string | undefined {
    return this.d.props.credential || undefined;
  }

  /** The Authorization header, fetching or refreshing the token first when it is missing or about to expire. */
  async header(): Promise<Record<string, string>> {
    if (!this.token && !this.credential) return {};
    if (!this.token || (this.credential && this.expiringSoon(this.token))) await this.renew();
    return { Authorization: `Bearer ${this.token!.value}` };
  }

  /** After a 401: one fresh token when client credentials can get one; false when nothing can change. */
  async afterUnauthorized(): Promise<boolean> {
    if (!this.credential) return false;
    this.token = undefined;
    await this.renew();
    return true;
  }

  private expiringSoon(t: Token): boolean {
    if (t.expiresAt === undefined) return false;
    const lifetime = t.expiresAt - t.issuedAt;
    return this.now() >= t.expiresAt - Math.min(300_000, lifetime / 5);
  }

  private renew(): Promise<void> {
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending.then((t) => {
      this.token = t;
    });
  }

  private async fetchToken(): Promise<Token> {
    const current = this.token;
    const exchange =
      current !== undefined && this.exchangeOffered && this.d.props['token-exchange-enabled'] !== 'false';
    if (exchange) {
      try {
        return await this.tokenRequest({
          grant_type: TOKEN_EXCHANGE,
          subject_token: current.value,
          subject_token_type: ACCESS_TOKEN_TYPE,
          scope: this.scope(),
        });
      } catch {
        // an exchange the server refuses (an expired subject token …): the client credentials still work
      }
    }
    const cred = this.credential!;
    const colon = cred.indexOf(':');
    const form: Record<string, string> =
      colon >= 0
        ? { grant_type: 'client_credentials', client_id: cred.slice(0, colon), client_secret: cred.slice(colon + 1) }
        : { grant_type: 'client_credentials', client_secret: cred };
    form.scope = this.scope();
    return this.tokenRequest(form);
  }

  private scope(): string {
    return this.d.props.scope ?? 'catalog';
  }

  private async tokenRequest(form: Record<string, string>): Promise<Token> {
    const what = `REST catalog ${this.d.catalog}: OAuth2 token request to ${this.endpoint}`;
    const issuedAt = this.now();
    let res: Response;
    try {
      res = await this.d.fetch(this.endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: new URLSearchParams(form).toString(),
        signal: AbortSignal.timeout(this.d.timeoutMs),
      });
    } catch (e) {
      throw new FloeError('Transient', `${what} failed: the token endpoint is unreachable (${causeText(e)})`, {
        context: { catalog: this.d.catalog, tokenEndpoint: this.endpoint },
        cause: e,
      });
    }
    const text = await res.text().catch(() => '');
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON: reported by status below
    }
    if (!res.ok || typeof body.access_token !== 'string') {
      // RFC 6749 §5.2 error codes; the description is the server's, which never holds our secret
      const code = typeof body.error === 'string' ? body.error : `HTTP ${res.status}`;
      const desc = typeof body.error_description === 'string' ? `: ${body.error_description.slice(0, 200)}` : '';
      const denied = res.status === 400 || res.status === 401 || res.status === 403;
      throw new FloeError(
        denied ? 'AccessDenied' : res.ok ? 'Corrupt' : 'Transient',
        `${what} was refused (${code}${desc})${denied ? '; check the credential (client_id:client_secret) and scope' : ''}`,
        { context: { catalog: this.d.catalog, tokenEndpoint: this.endpoint, status: res.status }, retryable: !denied },
      );
    }
    if (typeof body.issued_token_type === 'string') this.exchangeOffered = true;
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : Number(body.expires_in);
    return {
      value: body.access_token,
      issuedAt,
      ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresAt: issuedAt + expiresIn * 1000 } : {}),
    };
  }
}

export function causeText(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const base = e instanceof Error ? e.message : String(e);
  return cause?.code ? `${base}: ${cause.code}` : cause?.message ? `${base}: ${cause.message}` : base;
}
