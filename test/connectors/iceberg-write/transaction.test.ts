/**
 * The one Iceberg commit path (issue 10.1): typed updates applied to a base the way a catalog applies them,
 * requirements checked as a catalog checks them, and commitTransaction's loop — a failed requirement is a
 * lost race that is retried on a fresh base, a persistent conflict gives up after commit.retry.num-retries
 * with backoff, a commit whose state is unknown keeps every file, and a REST catalog is sent the action's
 * own updates and requirements.
 */
import { describe, expect, it } from 'vitest';
import { FloeError, isFloeError } from '../../../util/errors.js';
import { parseJsonLossless, stringifyJsonLossless } from '../../../util/json.js';
import type { RawMetadata } from '../../../connectors/iceberg/commit-metadata.js';
import { commitStateUnknown } from '../../../connectors/commit-state.js';
import { RestTableOperations } from '../../../connectors/iceberg/commit-catalog.js';
import { applyUpdates, type TableUpdate } from '../../../connectors/iceberg/table-update.js';
import { checkRequirements, type TableRequirement } from '../../../connectors/iceberg/table-requirement.js';
import {
  commitTransaction,
  type CommitBase,
  type TableChange,
  type TableOperations,
  type TransactionAction,
} from '../../../connectors/iceberg/transaction.js';

const UUID = '5b0c3a52-3f7e-4d8e-9a55-1f2e3d4c5b6a';
// ids above 2^53 must travel exactly
const S1 = 9_007_199_254_740_993n;
const S2 = 9_007_199_254_740_995n;
const S3 = 9_007_199_254_740_997n;

function snap(id: bigint, seq: bigint, ts: number, parent?: bigint): RawMetadata {
  return {
    'sequence-number': seq,
    'snapshot-id': id,
    ...(parent !== undefined ? { 'parent-snapshot-id': parent } : {}),
    'timestamp-ms': ts,
    summary: { operation: 'append' },
    'manifest-list': `s3://b/t/metadata/snap-${id}.avro`,
    'schema-id': 0,
  };
}

/** A valid v2 table with snapshots S1 ← S2, main at S2 and a tag `t1` at S1. */
function v2Base(props: Record<string, string> = {}): RawMetadata {
  return {
    'format-version': 2,
    'table-uuid': UUID,
    location: 's3://b/t',
    'last-sequence-number': 2n,
    'last-updated-ms': 2000,
    'last-column-id': 1,
    'current-schema-id': 0,
    schemas: [{ type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] }],
    'default-spec-id': 0,
    'partition-specs': [{ 'spec-id': 0, fields: [] }],
    'last-partition-id': 999,
    'default-sort-order-id': 0,
    'sort-orders': [{ 'order-id': 0, fields: [] }],
    properties: props,
    'current-snapshot-id': S2,
    refs: { main: { 'snapshot-id': S2, type: 'branch', 'max-ref-age-ms': 99 }, t1: { 'snapshot-id': S1, type: 'tag' } },
    snapshots: [snap(S1, 1n, 1000), snap(S2, 2n, 2000, S1)],
    statistics: [
      {
        'snapshot-id': S1,
        'statistics-path': 's3://b/t/metadata/s1.stats',
        'file-size-in-bytes': 10,
        'file-footer-size-in-bytes': 4,
        'blob-metadata': [],
      },
    ],
    'snapshot-log': [
      { 'timestamp-ms': 1000, 'snapshot-id': S1 },
      { 'timestamp-ms': 2000, 'snapshot-id': S2 },
    ],
    'metadata-log': [
      { 'timestamp-ms': 500, 'metadata-file': 's3://b/t/metadata/v1.metadata.json' },
      { 'timestamp-ms': 1000, 'metadata-file': 's3://b/t/metadata/v2.metadata.json' },
    ],
  };
}

const V3 = 's3://b/t/metadata/v3.metadata.json';

describe('applyUpdates', () => {
  it('add-snapshot + set-snapshot-ref main: snapshot appended, main and current id moved, logs extended', () => {
    const base = v2Base();
    const updates: TableUpdate[] = [
      { action: 'add-snapshot', snapshot: snap(S3, 3n, 3000, S2) },
      { action: 'set-snapshot-ref', 'ref-name': 'main', 'snapshot-id': S3, type: 'branch' },
    ];
    const next = applyUpdates(base, V3, updates, 3000);
    expect((next.snapshots as RawMetadata[]).map((s) => s['snapshot-id'])).toEqual([S1, S2, S3]);
    expect(next['current-snapshot-id']).toBe(S3);
    expect(next['last-sequence-number']).toBe(3n);
    // the ref keeps its retention field
    expect(next.refs).toEqual({
      main: { 'snapshot-id': S3, type: 'branch', 'max-ref-age-ms': 99 },
      t1: { 'snapshot-id': S1, type: 'tag' },
    });
    expect(next['last-updated-ms']).toBe(3000);
    expect((next['snapshot-log'] as unknown[]).at(-1)).toEqual({ 'timestamp-ms': 3000, 'snapshot-id': S3 });
    expect((next['metadata-log'] as unknown[]).at(-1)).toEqual({ 'timestamp-ms': 2000, 'metadata-file': V3 });
    expect(next.statistics).toEqual(base.statistics);
    // the base is not modified
    expect((base.snapshots as unknown[]).length).toBe(2);
  });

  it('v3: next-row-id advances by the added rows; previous-versions-max trims metadata-log (at least 1)', () => {
    const base: RawMetadata = {
      ...v2Base({ 'write.metadata.previous-versions-max': '0' }),
      'format-version': 3,
      'next-row-id': 40n,
    };
    const next = applyUpdates(
      base,
      V3,
      [{ action: 'add-snapshot', snapshot: { ...snap(S3, 3n, 3000, S2), 'first-row-id': 40n, 'added-rows': 5n } }],
      3000,
    );
    expect(next['next-row-id']).toBe(45n);
    expect(next['metadata-log']).toEqual([{ 'timestamp-ms': 2000, 'metadata-file': V3 }]);
    // no ref moved: main and the snapshot log stay
    expect(next['current-snapshot-id']).toBe(S2);
    expect(next['snapshot-log']).toEqual(base['snapshot-log']);
  });

  it('remove-snapshots drops their statistics and the snapshot-log history up to the last removed entry', () => {
    const next = applyUpdates(v2Base(), V3, [{ action: 'remove-snapshots', 'snapshot-ids': [S1] }], 3000);
    expect((next.snapshots as RawMetadata[]).map((s) => s['snapshot-id'])).toEqual([S2]);
    expect(next.statistics).toEqual([]);
    expect(next['snapshot-log']).toEqual([{ 'timestamp-ms': 2000, 'snapshot-id': S2 }]);
  });

  it('remove-snapshot-ref drops the ref only', () => {
    const next = applyUpdates(v2Base(), V3, [{ action: 'remove-snapshot-ref', 'ref-name': 't1' }], 3000);
    expect(Object.keys(next.refs as object)).toEqual(['main']);
    expect((next.snapshots as unknown[]).length).toBe(2);
  });
});

describe('checkRequirements', () => {
  const base = v2Base();
  it('passes when the table is the same and refs are where they were asserted', () => {
    expect(() =>
      checkRequirements(
        base,
        [
          { type: 'assert-table-uuid', uuid: UUID },
          { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': S2 },
          { type: 'assert-ref-snapshot-id', ref: 'b-new', 'snapshot-id': null },
        ],
        'v2',
      ),
    ).not.toThrow();
  });

  it.each<[string, TableRequirement]>([
    ['a replaced table', { type: 'assert-table-uuid', uuid: 'other' }],
    ['a moved ref', { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': S1 }],
    ['a ref that appeared', { type: 'assert-ref-snapshot-id', ref: 't1', 'snapshot-id': null }],
    ['a ref that is gone', { type: 'assert-ref-snapshot-id', ref: 'gone', 'snapshot-id': S1 }],
  ])('%s is a retryable CommitConflict naming the requirement', (_what, r) => {
    let error: unknown;
    try {
      checkRequirements(base, [r], 's3://b/t/metadata/v2.metadata.json');
    } catch (e) {
      error = e;
    }
    expect(isFloeError(error, 'CommitConflict')).toBe(true);
    expect((error as FloeError).retryable).toBe(true);
    expect((error as Error).message).toContain(r.type);
  });
});

/**
 * A catalog in memory that behaves like a REST catalog: it checks the requirements it is sent against its
 * own current metadata and applies the updates; `race` runs once before the first commit (another writer).
 */
class MemoryCatalog implements TableOperations {
  current: CommitBase;
  version = 2;
  readonly changes: TableChange[] = [];
  refreshes = 0;
  constructor(
    metadata: RawMetadata,
    private race?: (c: MemoryCatalog) => void,
  ) {
    this.current = { metadata, location: `s3://b/t/metadata/v2.metadata.json` };
  }
  async refresh(): Promise<CommitBase> {
    this.refreshes++;
    return structuredClone(this.current);
  }
  async commit(_base: CommitBase, _next: RawMetadata, change?: TableChange): Promise<string> {
    if (!change) throw new Error('the transaction must name its change');
    this.changes.push(change);
    const race = this.race;
    this.race = undefined;
    race?.(this);
    checkRequirements(this.current.metadata, change.requirements, this.current.location);
    return this.apply(change.updates, Number(this.current.metadata['last-updated-ms']) + 1);
  }
  apply(updates: TableUpdate[], ts: number): string {
    const location = `s3://b/t/metadata/v${++this.version}.metadata.json`;
    this.current = { metadata: applyUpdates(this.current.metadata, this.current.location, updates, ts), location };
    return location;
  }
}

/** Appends one snapshot on main, as compaction's action does: add-snapshot + set-ref, main asserted. */
function appendAction(
  written: string[][] = [],
  extra: Partial<TransactionAction<string>> = {},
): TransactionAction<string> {
  return {
    ...extra,
    async prepare(base, _v, ctx) {
      const meta = base.metadata;
      const parent = BigInt(meta['current-snapshot-id'] as bigint);
      const id = 1000n + BigInt(ctx.attempt);
      const seq = BigInt(meta['last-sequence-number'] as bigint) + 1n;
      ctx.written.push(`s3://b/t/metadata/snap-${id}.avro`);
      written.push([...ctx.written]);
      const ts = Number(meta['last-updated-ms']) + 1;
      return {
        updates: [
          { action: 'add-snapshot', snapshot: snap(id, seq, ts, parent) },
          { action: 'set-snapshot-ref', 'ref-name': 'main', 'snapshot-id': id, type: 'branch' },
        ],
        requirements: [
          { type: 'assert-table-uuid', uuid: String(meta['table-uuid']) },
          { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': parent },
        ],
        timestampMs: ts,
        result: (location) => `${id}@${location}`,
      };
    },
  };
}

function recordingIO() {
  const removed: string[] = [];
  return { removed, io: { remove: async (l: string) => void removed.push(l) } };
}

describe('commitTransaction', () => {
  const fast = { 'commit.retry.min-wait-ms': '10', 'commit.retry.max-wait-ms': '40' };

  it('a requirement that fails at the catalog is a lost race: the attempt is cleaned, re-run on a fresh base, and commits', async () => {
    // another writer moves main to S3 between floe's refresh and its commit
    const catalog = new MemoryCatalog(v2Base(fast), (c) =>
      c.apply(
        [
          { action: 'add-snapshot', snapshot: snap(S3, 3n, 2500, S2) },
          { action: 'set-snapshot-ref', 'ref-name': 'main', 'snapshot-id': S3, type: 'branch' },
        ],
        2500,
      ),
    );
    const { io, removed } = recordingIO();
    const waits: number[] = [];
    const retried: string[] = [];
    const result = await commitTransaction(catalog, io, appendAction(), {
      sleep: async (ms) => void waits.push(ms),
      random: () => 0,
      onRetry: (_n, e) => retried.push(e.message),
    });
    expect(result).toBe('1002@s3://b/t/metadata/v4.metadata.json');
    expect(retried).toHaveLength(1);
    expect(retried[0]).toContain('assert-ref-snapshot-id');
    expect(waits).toEqual([5]); // min-wait 10, jitter factor 0.5
    expect(removed).toEqual(['s3://b/t/metadata/snap-1001.avro']); // the lost attempt's file only
    expect(catalog.refreshes).toBe(2);
    // the second attempt built on the winner's snapshot
    const snaps = catalog.current.metadata.snapshots as RawMetadata[];
    expect(snaps.map((s) => s['snapshot-id'])).toEqual([S1, S2, S3, 1002n]);
    expect(snaps.at(-1)!['parent-snapshot-id']).toBe(S3);
    expect(catalog.changes[1]!.requirements).toContainEqual({
      type: 'assert-ref-snapshot-id',
      ref: 'main',
      'snapshot-id': S3,
    });
  });

  it('a standing requirement is checked on every refreshed base before the action runs', async () => {
    const catalog = new MemoryCatalog(v2Base(fast));
    const { io } = recordingIO();
    let prepared = 0;
    const action = appendAction([], { requirements: [{ type: 'assert-table-uuid', uuid: 'another-table' }] });
    const wrapped: TransactionAction<string> = { ...action, prepare: (...a) => (prepared++, action.prepare(...a)) };
    const e = await commitTransaction(catalog, io, wrapped, { sleep: async () => {}, maxAttempts: 2 }).catch((x) => x);
    expect(isFloeError(e, 'CommitConflict')).toBe(true);
    expect(prepared).toBe(0);
    expect(catalog.changes).toHaveLength(0);
  });

  it('a persistent conflict gives up after commit.retry.num-retries, waiting with exponential backoff', async () => {
    const base = v2Base({ ...fast, 'commit.retry.num-retries': '3' });
    const ops: TableOperations = {
      refresh: async () => ({ metadata: structuredClone(base), location: 's3://b/t/metadata/v2.metadata.json' }),
      commit: async () => {
        throw new FloeError('CommitConflict', 'another writer committed first');
      },
    };
    const { io, removed } = recordingIO();
    const written: string[][] = [];
    const waits: number[] = [];
    const e = await commitTransaction(ops, io, appendAction(written), {
      sleep: async (ms) => void waits.push(ms),
      random: () => 0,
    }).catch((x) => x);
    expect(isFloeError(e, 'CommitConflict')).toBe(true);
    expect(written).toHaveLength(4); // 1 + num-retries attempts
    expect(waits).toEqual([5, 10, 20]); // min 10 doubling, capped at max 40, jitter factor 0.5
    expect(removed).toHaveLength(4);
  });

  it('a commit whose state is unknown is not retried and keeps every file it wrote', async () => {
    const ops: TableOperations = {
      refresh: async () => ({ metadata: v2Base(), location: 's3://b/t/metadata/v2.metadata.json' }),
      commit: async () => {
        throw commitStateUnknown('lost response');
      },
    };
    const { io, removed } = recordingIO();
    const written: string[][] = [];
    const e = await commitTransaction(ops, io, appendAction(written), { sleep: async () => {} }).catch((x) => x);
    expect((e as Error).message).toContain('commit state unknown');
    expect(written).toHaveLength(1);
    expect(removed).toEqual([]);
  });

  it('an action that prepares no updates publishes nothing', async () => {
    const catalog = new MemoryCatalog(v2Base());
    const result = await commitTransaction(catalog, recordingIO().io, {
      prepare: async () => ({ updates: [], requirements: [], timestampMs: 0, result: (l) => l ?? 'nothing' }),
    });
    expect(result).toBe('nothing');
    expect(catalog.changes).toHaveLength(0);
  });

  it('a non-numeric commit.retry.num-retries is refused before the action runs', async () => {
    const catalog = new MemoryCatalog(v2Base({ 'commit.retry.num-retries': 'many' }));
    const e = await commitTransaction(catalog, recordingIO().io, appendAction()).catch((x) => x);
    expect(isFloeError(e, 'InvalidArgument')).toBe(true);
    expect(catalog.changes).toHaveLength(0);
  });

  it("REST: the catalog is sent the action's own updates and requirements, not a diff of the documents", async () => {
    const metadataLocation = 's3://b/t/metadata/00002-a.metadata.json';
    const posts: { updates: unknown[]; requirements: unknown[] }[] = [];
    const fakeFetch = (async (url: string | URL, init?: RequestInit) => {
      const u = String(url);
      const json = (status: number, body: string) =>
        new Response(body, { status, headers: { 'Content-Type': 'application/json' } });
      if (u.includes('/v1/config')) return json(200, '{"defaults":{},"overrides":{}}');
      if (init?.method === 'POST') {
        posts.push(parseJsonLossless(String(init.body)) as (typeof posts)[number]);
        return json(200, '{"metadata-location":"s3://b/t/metadata/00003-b.metadata.json","metadata":{}}');
      }
      // JSON text with exact > 2^53 ids
      return json(200, stringifyJsonLossless({ 'metadata-location': metadataLocation, metadata: v2Base() }));
    }) as typeof fetch;
    const ops = new RestTableOperations(
      {
        read: async () => new Uint8Array(),
        createNew: async () => {},
        overwrite: async () => {},
        remove: async () => {},
      },
      { namespace: ['db'], name: 't' },
      { uri: 'http://127.0.0.1:1', fetch: fakeFetch },
    );
    // re-pointing the tag at the snapshot it already names changes nothing in the document: a diff would drop it
    const updates: TableUpdate[] = [
      { action: 'remove-snapshots', 'snapshot-ids': [S1] },
      { action: 'set-snapshot-ref', 'ref-name': 't1', 'snapshot-id': S2, type: 'tag' },
      { action: 'set-snapshot-ref', 'ref-name': 'main', 'snapshot-id': S2, type: 'branch', 'max-ref-age-ms': 99 },
    ];
    const requirements: TableRequirement[] = [
      { type: 'assert-table-uuid', uuid: UUID },
      { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': S2 },
    ];
    const location = await commitTransaction(ops, recordingIO().io, {
      prepare: async () => ({ updates, requirements, timestampMs: 3000, result: (l) => l }),
    });
    expect(location).toBe('s3://b/t/metadata/00003-b.metadata.json');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.updates).toEqual(updates);
    expect(posts[0]!.requirements).toEqual(requirements);
  });
});
