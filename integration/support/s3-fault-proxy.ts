/**
 * A fault-injecting HTTP proxy in front of the S3 test server, for fault campaigns (integration/faults).
 *
 * floe's S3 client points at the proxy (path-style addressing). Requests are forwarded byte for byte —
 * method, path, query, headers including Host, body — so the server verifies the client's SigV4 signature
 * exactly as if it had been sent to it directly (the signature covers the Host the client used, i.e. the
 * proxy's address, which the server does not compare with its own).
 *
 * Faults (per request, first matching rule wins):
 * - `lost-500` / `lost-reset`: forward, let the server APPLY the request, then answer 500 InternalError /
 *   reset the connection — the client cannot tell whether its write happened (the ambiguous commit);
 * - `error-500` / `slowdown-503`: answer 500 InternalError / 503 SlowDown without forwarding;
 * - `reset`: reset the connection without forwarding;
 * - `truncate`: forward, send the headers (full Content-Length) and half the body, then reset; an empty
 *   response body is dropped whole (as `lost-reset`);
 * - `delay`: wait `delayMs`, then forward.
 *
 * A proxy can also play a store that IGNORES conditional writes (`stripHeaders: ['if-none-match', 'if-match']`):
 * those headers are removed before forwarding and the request is signed again (SigV4, with `secretAccessKey`,
 * the test server's) for the headers that remain — so the real server behind it sees, and applies, a plain
 * unconditional PUT, as a store that does not implement the headers would.
 *
 * Deterministic: a rule matches by method, object key (RegExp), query (RegExp) and request headers, and
 * fires on chosen occurrences (`nth`, 0-based among the requests its filters matched), at most `times`
 * times, and with `probability` decided by a PRNG seeded from (seed, rule index, occurrence) — so the
 * same seed fires on the same occurrences whatever other requests interleave.
 */
import { createHash, createHmac } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export const FAULT_KINDS = [
  'lost-500',
  'lost-reset',
  'error-500',
  'slowdown-503',
  'reset',
  'truncate',
  'delay',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRule {
  kind: FaultKind;
  /** HTTP method(s) to match (upper case); all when absent. */
  method?: string | readonly string[];
  /** Matched against the object key (decoded, without the bucket); all when absent. */
  key?: RegExp;
  /** Matched against the raw query string (without '?'), e.g. /uploadId=/ or /^$/ for none. */
  query?: RegExp;
  /** Request headers (lower-case names) that must be present and match, e.g. { 'if-none-match': /\*\/ }. */
  headers?: Record<string, RegExp>;
  /** Fire only on these occurrences (0-based count of requests this rule matched). */
  nth?: readonly number[];
  /** Fire at most this many times. */
  times?: number;
  /** Fire with this probability (seeded, see the module comment); always when absent. */
  probability?: number;
  /** For `delay`. */
  delayMs?: number;
}

export interface FaultEvent {
  index: number;
  method: string;
  bucket: string;
  key: string;
  query: string;
  /** The fault applied, if any. */
  fault?: FaultKind;
  /** Status the server answered (for forwarded requests). */
  upstreamStatus?: number;
  /** Headers were stripped (`stripHeaders`) before forwarding. */
  stripped?: boolean;
}

export interface FaultProxy {
  /** http://127.0.0.1:<port> — give this to the S3 client as its endpoint. */
  endpoint: string;
  /** Every request seen, in arrival order. */
  readonly events: FaultEvent[];
  /** The requests a fault was applied to. */
  faults(): FaultEvent[];
  /** Replaces the rules (and restarts occurrence counting); `seed` too if given. */
  setRules(rules: readonly FaultRule[], seed?: number): void;
  close(): Promise<void>;
}

export interface FaultProxyOptions {
  /** The real server, e.g. http://127.0.0.1:7070. */
  upstream: string;
  rules?: readonly FaultRule[];
  seed?: number;
  /** Request headers (lower case) removed before forwarding; the request is then signed again. */
  stripHeaders?: readonly string[];
  /** The server's secret for the client's access key: needed to sign a request again after stripping. */
  secretAccessKey?: string;
}

/** RFC 3986 encoding as SigV4's canonical query wants it. */
const sigv4Encode = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function decodeOrRaw(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * `headers` without `strip`, signed again with SigV4 over the headers that remain (same access key, date,
 * scope and payload hash as the client's). S3 does not double-encode the path, so the raw path is canonical.
 */
export function resignWithout(
  method: string,
  url: string,
  headers: http.IncomingHttpHeaders,
  strip: ReadonlySet<string>,
  secretAccessKey: string,
): http.IncomingHttpHeaders {
  const auth = String(headers.authorization ?? '');
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=[0-9a-f]+$/.exec(
      auth,
    );
  if (!m) throw new Error(`cannot sign again: not a header-signed SigV4 request (${auth.slice(0, 40)}…)`);
  const [, accessKey, date, region, service, signed] = m as unknown as [string, string, string, string, string, string];
  const payloadHash = String(headers['x-amz-content-sha256'] ?? '');
  if (!payloadHash || payloadHash.startsWith('STREAMING-'))
    throw new Error(`cannot sign again a request whose payload hash is ${payloadHash || 'missing'}`);
  const out: http.IncomingHttpHeaders = { ...headers };
  for (const h of strip) delete out[h];
  const names = signed.split(';').filter((n) => !strip.has(n));
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const query = (q < 0 ? '' : url.slice(q + 1))
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf('=');
      const k = sigv4Encode(decodeOrRaw(i < 0 ? pair : pair.slice(0, i)));
      const v = sigv4Encode(decodeOrRaw(i < 0 ? '' : pair.slice(i + 1)));
      return [k, v] as const;
    })
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalHeaders = names
    .map(
      (n) =>
        `${n}:${String(out[n] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const canonical = [method, rawPath, query, canonicalHeaders, names.join(';'), payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = [
    'AWS4-HMAC-SHA256',
    String(out['x-amz-date']),
    scope,
    createHash('sha256').update(canonical).digest('hex'),
  ].join('\n');
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(toSign).digest('hex');
  out.authorization = `AWS4-HMAC-SHA256 Credential=${accessKey}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  return out;
}

/** 32-bit mix (murmur3 finaliser) of a few integers: the per-(seed, rule, occurrence) PRNG draw. */
function draw(...xs: number[]): number {
  let h = 0x9e3779b9;
  for (const x of xs) {
    h = Math.imul(h ^ (x | 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return (h >>> 0) / 0x1_0000_0000;
}

function parseTarget(url: string): { bucket: string; key: string; query: string } {
  const q = url.indexOf('?');
  const pathPart = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  const [, bucket = '', ...rest] = pathPart.split('/');
  let key = rest.join('/');
  try {
    key = decodeURIComponent(key);
  } catch {
    // leave undecodable keys as sent
  }
  return { bucket, key, query };
}

function s3Error(
  status: number,
  code: string,
  message: string,
): { status: number; headers: http.OutgoingHttpHeaders; body: Buffer } {
  const body = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>floe-fault-proxy</RequestId></Error>`,
  );
  return { status, headers: { 'content-type': 'application/xml', 'content-length': body.byteLength }, body };
}

function reset(socket: Socket): void {
  // RST rather than FIN, so the client sees ECONNRESET as from a dying server or middlebox.
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

interface Upstream {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function forward(
  upstream: URL,
  req: http.IncomingMessage,
  body: Buffer,
  headers: http.IncomingHttpHeaders = req.headers,
): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        // unchanged (Host included: the SigV4 signature covers them), unless headers were stripped and re-signed
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

function replyHeaders(u: Upstream, method: string): http.OutgoingHttpHeaders {
  const h: http.OutgoingHttpHeaders = { ...u.headers };
  delete h['transfer-encoding'];
  delete h.connection;
  delete h['keep-alive'];
  // HEAD (and 304) keep the server's Content-Length: it describes the object, not this (empty) body
  if (method !== 'HEAD' && u.status !== 304) h['content-length'] = u.body.byteLength;
  return h;
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const upstream = new URL(options.upstream);
  const strip = new Set((options.stripHeaders ?? []).map((h) => h.toLowerCase()));
  if (strip.size && !options.secretAccessKey)
    throw new Error('startFaultProxy: stripHeaders needs secretAccessKey to sign the requests again');
  let rules: readonly FaultRule[] = options.rules ?? [];
  let seed = options.seed ?? 0;
  let matched: number[] = [];
  let fired: number[] = [];
  const events: FaultEvent[] = [];
  const sockets = new Set<Socket>();

  // Every rule whose filters match counts the request (so `nth` means "the nth request this rule's filters
  // match", whichever rule fired on earlier ones); the first rule that then fires wins.
  const choose = (
    method: string,
    key: string,
    query: string,
    headers: http.IncomingHttpHeaders,
  ): FaultRule | undefined => {
    let chosen: FaultRule | undefined;
    for (let i = 0; i < rules.length; i++) {
      const r = rules[i]!;
      if (r.method !== undefined && !(typeof r.method === 'string' ? [r.method] : r.method).includes(method)) continue;
      if (r.key && !r.key.test(key)) continue;
      if (r.query && !r.query.test(query)) continue;
      if (
        r.headers &&
        !Object.entries(r.headers).every(([name, re]) => headers[name] !== undefined && re.test(String(headers[name])))
      )
        continue;
      const occurrence = matched[i] ?? 0;
      matched[i] = occurrence + 1;
      if (chosen) continue;
      if (r.nth && !r.nth.includes(occurrence)) continue;
      if (r.times !== undefined && (fired[i] ?? 0) >= r.times) continue;
      if (r.probability !== undefined && draw(seed, i, occurrence) >= r.probability) continue;
      fired[i] = (fired[i] ?? 0) + 1;
      chosen = r;
    }
    return chosen;
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const method = req.method ?? 'GET';
      const target = parseTarget(req.url ?? '/');
      const event: FaultEvent = { index: events.length, method, ...target };
      events.push(event);
      const body = await readBody(req);
      const rule = choose(method, target.key, target.query, req.headers);
      if (rule) event.fault = rule.kind;
      const send = (status: number, headers: http.OutgoingHttpHeaders, payload: Buffer) => {
        res.writeHead(status, headers);
        res.end(method === 'HEAD' ? undefined : payload);
      };
      switch (rule?.kind) {
        case 'reset':
          reset(req.socket);
          return;
        case 'error-500': {
          const e = s3Error(500, 'InternalError', 'We encountered an internal error. Please try again. (injected)');
          send(e.status, e.headers, e.body);
          return;
        }
        case 'slowdown-503': {
          const e = s3Error(503, 'SlowDown', 'Please reduce your request rate. (injected)');
          send(e.status, e.headers, e.body);
          return;
        }
        case 'delay':
          await new Promise((r) => setTimeout(r, rule.delayMs ?? 200));
          break;
        default:
          break;
      }
      let u: Upstream;
      try {
        const stripped = [...strip].some((h) => req.headers[h] !== undefined);
        const headers = stripped
          ? resignWithout(method, req.url ?? '/', req.headers, strip, options.secretAccessKey!)
          : req.headers;
        if (stripped) event.stripped = true;
        u = await forward(upstream, req, body, headers);
      } catch (e) {
        const err = s3Error(502, 'InternalError', `fault proxy could not reach the server: ${String(e)}`);
        send(err.status, err.headers, err.body);
        return;
      }
      event.upstreamStatus = u.status;
      switch (rule?.kind) {
        case 'lost-500': {
          const e = s3Error(
            500,
            'InternalError',
            'We encountered an internal error. Please try again. (injected after the server applied the request)',
          );
          send(e.status, e.headers, e.body);
          return;
        }
        case 'lost-reset':
          reset(req.socket);
          return;
        case 'truncate':
          if (method === 'HEAD' || u.body.byteLength === 0) {
            reset(req.socket);
            return;
          }
          res.writeHead(u.status, replyHeaders(u, method));
          res.write(u.body.subarray(0, Math.floor(u.body.byteLength / 2)), () => reset(req.socket));
          return;
        default:
          send(u.status, replyHeaders(u, method), u.body);
      }
    })().catch(() => reset(req.socket));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    events,
    faults: () => events.filter((e) => e.fault !== undefined),
    setRules(next, nextSeed) {
      rules = next;
      if (nextSeed !== undefined) seed = nextSeed;
      matched = [];
      fired = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
