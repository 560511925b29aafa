/**
 * The one HTTP client of floe's Iceberg REST catalog code (load, list, commit, credentials all go through
 * it). Per request: the auth header (rest-auth.ts), SigV4 when configured (rest-sigv4.ts), the configured
 * `header.*` properties, a timeout, and the project's one retry policy (connectors/storage/retry.ts) for
 * 429, 5xx and broken connections — for reads always, for mutations only when the retry is safe: a 429
 * (refused before any work), or any failure when the catalog advertises idempotency keys
 * (`idempotency-key-lifetime` in /v1/config) and the request carries one. A 401 gets one fresh token and
 * one more try.
 *
 * `GET /v1/config` is read once: its `defaults` sit under the user's properties and its `overrides` above
 * them (as in Java's RESTSessionCatalog); `prefix` is the path prefix of every other route.
 *
 * Every message names the catalog and is scrubbed of the secrets among its properties.
 */
import { randomUUID } from 'node:crypto';
import { FloeError, type FloeErrorKind } from '../../util/errors.js';
import { parseJsonLossless, stringifyJsonLossless } from '../../util/json.js';
import { DEFAULT_RETRY_POLICY, isTransientNetworkError, withRetry, type RetryPolicy } from '../storage/retry.js';
import { redact, secretValues } from './catalog-spec.js';
import { causeText, RestAuth } from './rest-auth.js';
import { signRequest, sigv4Settings, type SigV4Settings } from './rest-sigv4.js';

export interface RestResponse {
  status: number;
  json: unknown;
  text: string;
}

export interface RestRequest {
  method: 'GET' | 'POST' | 'DELETE' | 'HEAD';
  /** Below `/v1/{prefix}` (e.g. `/namespaces`), or absolute from the base when `raw`. */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The path is below the base URI (`/v1/config`), not below the prefix. */
  raw?: boolean;
}

export interface RestClientOptions {
  fetch?: typeof fetch;
  /** Overrides of the retry policy (tests shorten the delays). */
  retry?: Partial<RetryPolicy>;
}

const DELEGATION = 'X-Iceberg-Access-Delegation';

export class RestClient {
  readonly description: string;
  readonly base: string;
  private readonly doFetch: typeof fetch;
  private readonly auth: RestAuth;
  private readonly sigv4: SigV4Settings | undefined;
  private readonly policy: RetryPolicy;
  private readonly secrets: string[];
  private configured: Promise<Record<string, string>> | undefined;
  private effective: Record<string, string>;
  private idempotency = false;
  private endpoints: Set<string> | undefined;

  constructor(
    uri: string,
    private readonly props: Record<string, string>,
    o: RestClientOptions = {},
  ) {
    this.base = uri.replace(/\/+$/, '');
    this.description = `rest:${this.base}`;
    this.doFetch = o.fetch ?? fetch;
    this.secrets = secretValues(props);
    this.effective = { ...props };
    const timeoutMs = positive(props['rest.client.socket-timeout-ms']) ?? 60_000;
    this.policy = {
      ...DEFAULT_RETRY_POLICY,
      maxAttempts: (nonNegative(props['rest.client.max-retries']) ?? 4) + 1,
      timeoutMs,
      ...o.retry,
    };
    this.auth = new RestAuth({
      catalog: this.description,
      baseUri: this.base,
      props,
      fetch: this.doFetch,
      timeoutMs,
    });
    this.sigv4 = sigv4Settings(props, this.description);
  }

  /** The catalog's properties after /v1/config (defaults < user < overrides). */
  config(): Promise<Record<string, string>> {
    this.configured ??= this.loadConfig().catch((e: unknown) => {
      this.configured = undefined;
      throw e;
    });
    return this.configured;
  }

  private async loadConfig(): Promise<Record<string, string>> {
    const wh = this.props.warehouse;
    const r = await this.send({
      method: 'GET',
      path: `/v1/config${wh ? `?warehouse=${encodeURIComponent(wh)}` : ''}`,
      raw: true,
    });
    if (r.status !== 200) throw this.errorFor('GET /v1/config', r);
    const body = (r.json ?? {}) as {
      defaults?: Record<string, unknown>;
      overrides?: Record<string, unknown>;
      endpoints?: unknown;
      'idempotency-key-lifetime'?: unknown;
    };
    this.effective = { ...strings(body.defaults), ...this.props, ...strings(body.overrides) };
    this.idempotency = typeof body['idempotency-key-lifetime'] === 'string';
    if (Array.isArray(body.endpoints)) this.endpoints = new Set(body.endpoints.map(String));
    return this.effective;
  }

  /** `/v1/{prefix}` after /v1/config. */
  async root(): Promise<string> {
    const p = (await this.config()).prefix ?? '';
    const clean = p.replace(/^\/+|\/+$/g, '');
    return `/v1${clean ? `/${clean.split('/').map(encodeURIComponent).join('/')}` : ''}`;
  }

  /** Whether the catalog lists `endpoint` (`GET /v1/{prefix}/…/credentials`); true when it lists none. */
  async supports(endpoint: string): Promise<boolean> {
    await this.config();
    return this.endpoints === undefined || this.endpoints.has(endpoint);
  }

  /** The access delegation header sent with loadTable (vended credentials unless configured otherwise). */
  delegationHeader(): Record<string, string> {
    const configured = this.effective[`header.${DELEGATION}`];
    if (configured === '') return {};
    return { [DELEGATION]: configured ?? 'vended-credentials' };
  }

  /** One request below `/v1/{prefix}`, retried as the module comment says; any status is returned. */
  async request(req: RestRequest): Promise<RestResponse> {
    const path = req.raw ? req.path : `${await this.root()}${req.path}`;
    return this.send({ ...req, path });
  }

  /** A 2xx answer's JSON, or the FloeError for anything else. */
  async json(req: RestRequest): Promise<unknown> {
    const r = await this.request(req);
    if (r.status < 200 || r.status > 299) throw this.errorFor(`${req.method} ${req.path}`, r);
    return r.json;
  }

  private async send(req: RestRequest): Promise<RestResponse> {
    const mutation = req.method === 'POST' || req.method === 'DELETE';
    // every mutation carries a key; it makes retries safe only where the catalog says it honours keys
    const key = mutation ? randomUUID() : undefined;
    const replayable = key !== undefined && this.idempotency;
    const bodyText = req.body === undefined ? undefined : stringifyJsonLossless(req.body);
    let last: RestResponse | undefined;
    let reauthorized = false;
    const what = `${req.method} ${req.path}`;
    const attempt = async (signal: AbortSignal): Promise<RestResponse> => {
      for (;;) {
        const r = await this.once(req, bodyText, key, signal);
        if (r.status === 401 && !reauthorized) {
          reauthorized = true;
          if (await this.auth.afterUnauthorized()) continue;
        }
        last = r;
        const retrySafe = !mutation || r.status === 429 || replayable;
        if (retrySafe && (r.status === 429 || r.status >= 500))
          throw new FloeError('Transient', this.scrub(`REST catalog ${this.description}: ${what} → HTTP ${r.status}`), {
            context: { status: r.status, httpStatusRetry: true },
          });
        return r;
      }
    };
    try {
      return await withRetry(
        attempt,
        (e, timedOut) => this.classify(e, timedOut, what, mutation && !replayable),
        this.policy,
      );
    } catch (e) {
      // a retryable status that kept coming back: the caller decides what that answer means
      if (e instanceof FloeError && e.context.httpStatusRetry && last) return last;
      throw e;
    }
  }

  private async once(
    req: RestRequest,
    body: string | undefined,
    key: string | undefined,
    signal: AbortSignal,
  ): Promise<RestResponse> {
    const url = `${this.base}${req.path}`;
    let headers: Record<string, string> = {
      Accept: 'application/json',
      ...configuredHeaders(this.effective),
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...(key ? { 'Idempotency-Key': key } : {}),
      ...(req.headers ?? {}),
      ...(await this.auth.header()),
    };
    if (this.sigv4)
      headers = await signRequest(
        { method: req.method, url, headers, ...(body !== undefined ? { body } : {}) },
        this.sigv4,
      );
    const res = await this.doFetch(url, {
      method: req.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      signal,
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? parseJsonLossless(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text };
  }

  private classify(e: unknown, timedOut: boolean, what: string, unsafeMutation: boolean): FloeError {
    if (e instanceof FloeError) return e;
    const msg = timedOut ? `timed out after ${this.policy.timeoutMs} ms` : `failed: ${causeText(e)}`;
    // a mutation without an idempotency key may have been applied: the caller settles it, no blind retry
    return new FloeError('Transient', this.scrub(`REST catalog ${this.description}: ${what} ${msg}`), {
      retryable: !unsafeMutation && (timedOut || isTransientNetworkError(e) || e instanceof TypeError),
      cause: e,
    });
  }

  /** The FloeError for a non-2xx answer, its kind by status, the server's error message quoted. */
  errorFor(what: string, r: RestResponse): FloeError {
    const err = (r.json as { error?: { message?: unknown; type?: unknown } } | undefined)?.error;
    const detail =
      err && typeof err.message === 'string'
        ? `${typeof err.type === 'string' ? err.type : 'error'}: ${err.message}`
        : r.text.slice(0, 300);
    return new FloeError(
      errorKindOfStatus(r.status),
      this.scrub(`REST catalog ${this.description}: ${what} → HTTP ${r.status}: ${detail.slice(0, 500)}`),
      {
        context: { status: r.status, catalog: this.description },
      },
    );
  }

  /** `text` without any secret of this catalog. */
  scrub(text: string): string {
    return redact(text, this.secrets);
  }
}

/** The error kind of a REST catalog's non-2xx status (Iceberg's and Paimon's REST protocols agree). */
export function errorKindOfStatus(status: number): FloeErrorKind {
  if (status === 404) return 'NotFound';
  if (status === 401 || status === 403) return 'AccessDenied';
  if (status === 409) return 'CommitConflict';
  if (status === 429 || status >= 500) return 'Transient';
  return 'InvalidArgument';
}

function configuredHeaders(props: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(props))
    if (k.startsWith('header.') && v !== '' && k !== `header.${DELEGATION}`) out[k.slice(7)] = v;
  return out;
}

function strings(o: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o ?? {})) if (v !== null && v !== undefined) out[k] = String(v);
  return out;
}

function positive(v: string | undefined): number | undefined {
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

function nonNegative(v: string | undefined): number | undefined {
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** `ns` as a path segment: levels joined with 0x1F and URL-encoded, as the REST spec says. */
export function namespacePath(namespace: readonly string[]): string {
  return encodeURIComponent(namespace.join('\u001f'));
}
