/**
 * RestTableOperations against a small in-process REST catalog that records every request: the commit body
 * (identifier, requirements, updates) per the REST spec's CommitTableRequest, 409 → retryable conflict,
 * 5xx → commit state unknown with every written file left in place.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IcebergRewriteCommitter } from '../../../connectors/iceberg/commit-rewrite.js';
import { RestTableOperations, restChanges } from '../../../connectors/iceberg/commit-catalog.js';
import { isCommitStateUnknown } from '../../../connectors/commit-state.js';
import { readAvroContainer } from '../../../connectors/formats/avro.js';
import { normalizeManifestFile } from '../../../connectors/iceberg/write-manifest.js';
import { isFloeError } from '../../../util/errors.js';
import { parseJsonLossless } from '../../../util/json.js';
import { localCommitIO } from '../iceberg-write/synthetic-table.js';
import { FIRST_SNAPSHOT, TABLE_UUID, catalogTable, regionRewrite, tmp } from './support.js';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface FakeCatalog {
  uri: string;
  requests: Recorded[];
  posts: () => Recorded[];
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/**
 * GET /v1/config → prefix "wh/main"; GET table → the metadata file's content; POST table → the next status
 * from `postStatuses` (200 answers with a made-up new metadata location).
 */
async function fakeCatalog(metadataFile: string, postStatuses: number[]): Promise<FakeCatalog> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(typeof json === 'string' ? json : JSON.stringify(json));
      };
      if (req.url!.startsWith('/v1/config')) return send(200, { defaults: {}, overrides: { prefix: 'wh/main' } });
      if (req.method === 'GET') {
        // raw text splice keeps snapshot ids > 2^53 exact
        return send(
          200,
          `{"metadata-location":${JSON.stringify(metadataFile)},"metadata":${readFileSync(metadataFile, 'utf8')}}`,
        );
      }
      const status = postStatuses.shift() ?? 500;
      if (status === 200)
        return send(200, {
          'metadata-location': `${path.dirname(metadataFile)}/00008-from-server.metadata.json`,
          metadata: {},
        });
      return send(status, {
        error: {
          message: `simulated ${status}`,
          type: status === 409 ? 'CommitFailedException' : 'ServerError',
          code: status,
        },
      });
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { uri: `http://127.0.0.1:${port}`, requests, posts: () => requests.filter((r) => r.method === 'POST') };
}

async function setup(postStatuses: number[], token?: string) {
  const root = tmp('floe-rest-commit-');
  const t = await catalogTable(root);
  const fake = await fakeCatalog(t.metadataFile, postStatuses);
  const io = localCommitIO(root);
  const ops = new RestTableOperations(
    io,
    { namespace: ['db', 'sales'], name: 't' },
    { uri: fake.uri, ...(token ? { token } : {}) },
  );
  return { ...t, fake, io, ops };
}

type Body = { identifier: unknown; requirements: Record<string, unknown>[]; updates: Record<string, unknown>[] };
const bodyOf = (r: Recorded) => parseJsonLossless(r.body) as Body;

describe('RestTableOperations (in-process fake catalog)', () => {
  it('POSTs identifier, requirements and updates describing the replace snapshot', async () => {
    const s = await setup([200], 'tok-123');
    const res = await new IcebergRewriteCommitter(s.io, s.ops).commit(regionRewrite(s.loc, s.files, 'eu'));
    expect(res.metadataLocation).toBe(`${path.dirname(s.metadataFile)}/00008-from-server.metadata.json`);
    const [post] = s.fake.posts();
    expect(s.fake.posts()).toHaveLength(1);
    // prefix from /v1/config; the two namespace levels joined by the unit separator 0x1F, URL-encoded
    expect(post!.url).toBe('/v1/wh/main/namespaces/db%1Fsales/tables/t');
    expect(post!.headers['content-type']).toContain('application/json');
    expect(post!.headers.authorization).toBe('Bearer tok-123');
    expect(post!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    // the base snapshot id (2^53 + 1) travels exactly
    expect(post!.body).toContain(`"snapshot-id":${FIRST_SNAPSHOT}`);
    const body = bodyOf(post!);
    expect(body.identifier).toEqual({ namespace: ['db', 'sales'], name: 't' });
    expect(body.requirements).toEqual([
      { type: 'assert-table-uuid', uuid: TABLE_UUID },
      { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': FIRST_SNAPSHOT },
    ]);
    expect(body.updates.map((u) => u.action)).toEqual(['add-snapshot', 'set-snapshot-ref']);
    const snap = body.updates[0]!.snapshot as Record<string, unknown>;
    expect(snap['snapshot-id']).toBe(res.snapshotId);
    expect(snap['parent-snapshot-id']).toBe(FIRST_SNAPSHOT);
    expect(BigInt(snap['sequence-number'] as number)).toBe(2n);
    expect((snap.summary as Record<string, string>).operation).toBe('replace');
    expect(existsSync(String(snap['manifest-list']))).toBe(true);
    expect(body.updates[1]).toEqual({
      action: 'set-snapshot-ref',
      'ref-name': 'main',
      type: 'branch',
      'snapshot-id': res.snapshotId,
    });
  });

  it("409 is a conflict: the attempt's files are removed, the table reloaded and the commit retried", async () => {
    const s = await setup([409, 200]);
    const res = await new IcebergRewriteCommitter(s.io, s.ops).commit(regionRewrite(s.loc, s.files, 'eu'));
    expect(res.attempts).toBe(2);
    const [first, second] = s.fake.posts().map(bodyOf);
    expect(s.fake.posts()).toHaveLength(2);
    const firstList = String((first!.updates[0]!.snapshot as Record<string, unknown>)['manifest-list']);
    const secondList = String((second!.updates[0]!.snapshot as Record<string, unknown>)['manifest-list']);
    expect(existsSync(firstList)).toBe(false); // never referenced by a committed table
    expect(existsSync(secondList)).toBe(true);
    // reloaded between the attempts (GETs of the table: initial refresh + one after the conflict)
    expect(s.fake.requests.filter((r) => r.method === 'GET' && r.url.includes('/tables/'))).toHaveLength(2);
  });

  for (const status of [500, 502, 503, 504]) {
    it(`${status} leaves the commit state unknown, does not retry, and keeps every written file`, async () => {
      const s = await setup([status]);
      const e = await new IcebergRewriteCommitter(s.io, s.ops)
        .commit(regionRewrite(s.loc, s.files, 'eu'))
        .catch((x: unknown) => x);
      expect(isCommitStateUnknown(e)).toBe(true);
      expect(s.fake.posts()).toHaveLength(1);
      const snap = bodyOf(s.fake.posts()[0]!).updates[0]!.snapshot as Record<string, unknown>;
      const list = String(snap['manifest-list']);
      expect(existsSync(list)).toBe(true);
      // and so are the manifests it names (the rewrite's new one among them)
      const manifests = readAvroContainer(readFileSync(list), list).records.map(
        (r) => normalizeManifestFile(r).manifest_path,
      );
      expect(manifests.length).toBeGreaterThan(0);
      for (const m of manifests) expect(existsSync(m)).toBe(true);
      expect(manifests.filter((m) => !m.endsWith(`m-${FIRST_SNAPSHOT}.avro`)).length).toBeGreaterThan(0);
    });
  }

  it('other 4xx are not conflicts (no retry): 400 InvalidArgument, 403 AccessDenied', async () => {
    for (const [status, kind] of [
      [400, 'InvalidArgument'],
      [403, 'AccessDenied'],
    ] as const) {
      const s = await setup([status]);
      const e = await new IcebergRewriteCommitter(s.io, s.ops)
        .commit(regionRewrite(s.loc, s.files, 'eu'))
        .catch((x: unknown) => x);
      expect(isFloeError(e, kind)).toBe(true);
      expect(s.fake.posts()).toHaveLength(1);
    }
  });
});

describe('restChanges', () => {
  const snap = (id: bigint, parent?: bigint) => ({
    'snapshot-id': id,
    ...(parent ? { 'parent-snapshot-id': parent } : {}),
    'sequence-number': 1n,
    'timestamp-ms': 1,
    'manifest-list': `s${id}.avro`,
    summary: { operation: 'append' },
  });
  const A = 9_007_199_254_740_993n;
  const B = 9_007_199_254_740_995n;
  const C = 9_007_199_254_740_997n;

  it('expiry: removed snapshots become remove-snapshots; unchanged refs need no requirement', () => {
    const base = {
      'table-uuid': 'u-1',
      snapshots: [snap(A), snap(B, A), snap(C, B)],
      refs: { main: { 'snapshot-id': C, type: 'branch' } },
    };
    const next = { ...base, snapshots: [snap(C, B)] };
    expect(restChanges(base, next)).toEqual({
      requirements: [{ type: 'assert-table-uuid', uuid: 'u-1' }],
      updates: [{ action: 'remove-snapshots', 'snapshot-ids': [A, B] }],
    });
  });

  it('a new ref asserts that it did not exist (snapshot-id null); a dropped ref is removed', () => {
    const base = {
      'table-uuid': 'u-1',
      snapshots: [snap(A)],
      refs: { main: { 'snapshot-id': A, type: 'branch' }, old: { 'snapshot-id': A, type: 'tag' } },
    };
    const next = {
      ...base,
      refs: { main: { 'snapshot-id': A, type: 'branch' }, v1: { 'snapshot-id': A, type: 'tag' } },
    };
    expect(restChanges(base, next)).toEqual({
      requirements: [
        { type: 'assert-table-uuid', uuid: 'u-1' },
        { type: 'assert-ref-snapshot-id', ref: 'v1', 'snapshot-id': null },
      ],
      updates: [
        { action: 'set-snapshot-ref', 'ref-name': 'v1', type: 'tag', 'snapshot-id': A },
        { action: 'remove-snapshot-ref', 'ref-name': 'old' },
      ],
    });
  });
});
