/**
 * Catalog specs and properties (connectors/catalog/catalog-spec.ts) and the REST client's request policy
 * (rest-client.ts) against a small local HTTP server: secrets refused in a spec, property files and
 * precedence, 429/5xx retried for reads, a POST without advertised idempotency never replayed, one with
 * `idempotency-key-lifetime` replayed under the same key, a request timeout named.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  parseCatalogSpec,
  readCatalogPropertiesFile,
  redact,
  resolveCatalogProperties,
  secretValues,
} from '../../../connectors/catalog/catalog-spec.js';
import { RestClient } from '../../../connectors/catalog/rest-client.js';

describe('catalog specs', () => {
  it('splits kind, target and query properties', () => {
    expect(parseCatalogSpec('rest:https://h/api/catalog?warehouse=prod&scope=PRINCIPAL_ROLE:ALL')).toEqual({
      kind: 'rest',
      target: 'https://h/api/catalog',
      properties: { warehouse: 'prod', scope: 'PRINCIPAL_ROLE:ALL' },
    });
    // SQL targets keep their own query strings (a PostgreSQL URL's sslmode …)
    expect(parseCatalogSpec('sql:postgresql://u@h/db?sslmode=require').target).toBe(
      'postgresql://u@h/db?sslmode=require',
    );
  });

  it('refuses secrets in the spec and unknown kinds', () => {
    expect(() => parseCatalogSpec('rest:https://h?credential=a:b')).toThrow(/"credential" is a secret/);
    expect(() => parseCatalogSpec('rest:https://h?token=t')).toThrow(/secret/);
    expect(() => parseCatalogSpec('hive:thrift://h')).toThrow(/sql:.*rest:.*glue:.*unknown catalog kind "hive"/);
  });

  it('merges query < file < inline < explicit, environment only where nothing set them', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-props-'));
    const file = path.join(dir, 'polaris.properties');
    writeFileSync(file, '# Polaris\ncredential=id:from-file\nscope = PRINCIPAL_ROLE:ALL\nwarehouse=file\n');
    const spec = parseCatalogSpec('rest:https://h?warehouse=query&prefix=x');
    expect(resolveCatalogProperties(spec, { catalogPropertiesFile: file, warehouse: 'explicit' }, {})).toEqual({
      warehouse: 'explicit',
      prefix: 'x',
      credential: 'id:from-file',
      scope: 'PRINCIPAL_ROLE:ALL',
    });
    expect(resolveCatalogProperties(spec, {}, { FLOE_REST_CREDENTIAL: 'id:env' }).credential).toBe('id:env');
    const yaml = path.join(dir, 'p.yaml');
    writeFileSync(yaml, 'rest.sigv4-enabled: true\nrest.signing-name: glue\n');
    expect(readCatalogPropertiesFile(yaml)).toEqual({ 'rest.sigv4-enabled': 'true', 'rest.signing-name': 'glue' });
    expect(() => readCatalogPropertiesFile(path.join(dir, 'missing.yaml'))).toThrow(/missing\.yaml/);
  });

  it('redacts secret values, the client secret alone too', () => {
    const s = secretValues({ credential: 'client:s3cr3t-value', scope: 'catalog' });
    expect(redact('sent client:s3cr3t-value and s3cr3t-value', s)).toBe('sent *** and ***');
  });
});

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => handler(req, res, body));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const fast = { retry: { baseDelayMs: 1, maxDelayMs: 2 } };

describe('RestClient request policy', () => {
  it('retries 429 and 503 on reads with the one retry policy', async () => {
    let n = 0;
    const uri = await serve((req, res) => {
      if (req.url?.startsWith('/v1/config')) return void res.end('{"defaults":{},"overrides":{}}');
      n++;
      res.writeHead(n === 1 ? 429 : n === 2 ? 503 : 200, { 'content-type': 'application/json' });
      res.end('{"namespaces":[]}');
    });
    const c = new RestClient(uri, {}, fast);
    expect(await c.json({ method: 'GET', path: '/namespaces' })).toEqual({ namespaces: [] });
    expect(n).toBe(3);
  });

  it('never replays a POST the catalog may have applied, unless it honours idempotency keys', async () => {
    for (const advertised of [false, true]) {
      const keys: string[] = [];
      const uri = await serve((req, res) => {
        if (req.url?.startsWith('/v1/config'))
          return void res.end(
            JSON.stringify({
              defaults: {},
              overrides: {},
              ...(advertised ? { 'idempotency-key-lifetime': 'PT30M' } : {}),
            }),
          );
        keys.push(String(req.headers['idempotency-key']));
        res.writeHead(keys.length === 1 ? 502 : 200, { 'content-type': 'application/json' });
        res.end('{}');
      });
      const c = new RestClient(uri, {}, fast);
      const r = await c.request({ method: 'POST', path: '/namespaces/ns/tables/t', body: {} });
      if (advertised) {
        expect(r.status).toBe(200);
        expect(keys.length).toBe(2);
        expect(keys[1]).toBe(keys[0]); // the same key: the server deduplicates
      } else {
        expect(r.status).toBe(502); // the caller settles it (reload and look for the snapshot)
        expect(keys.length).toBe(1);
      }
    }
  });

  it('names a request timeout and the catalog', async () => {
    const uri = await serve((req, res) => {
      if (req.url?.startsWith('/v1/config')) return void res.end('{}');
      setTimeout(() => res.end('{}'), 2_000);
    });
    const c = new RestClient(uri, { 'rest.client.socket-timeout-ms': '100', 'rest.client.max-retries': '0' }, fast);
    await expect(c.json({ method: 'GET', path: '/namespaces' })).rejects.toThrow(
      new RegExp(`REST catalog rest:${uri.replace(/[.]/g, '\\.')}: GET .*timed out after 100 ms`),
    );
  });

  it('keeps the static token and gives no second chance after a 401 without client credentials', async () => {
    const seen: string[] = [];
    const uri = await serve((req, res) => {
      seen.push(String(req.headers.authorization));
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"bad token","type":"NotAuthorizedException","code":401}}');
    });
    const c = new RestClient(uri, { token: 'static-tok-123' }, fast);
    const e = await c.root().then(
      () => undefined,
      (x: unknown) => x as Error,
    );
    expect(e?.message).toMatch(/HTTP 401: NotAuthorizedException: bad token/);
    expect(e?.message).not.toContain('static-tok-123');
    expect(seen).toEqual(['Bearer static-tok-123']);
  });
});
