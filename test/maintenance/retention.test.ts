/** Retention math, orphan classification and option parsing — expectations worked out by hand from the spec / Java rules. */
import { describe, expect, it } from 'vitest';
import {
  decideRetention,
  retentionDefaults,
  trimSnapshotLog,
  type RetentionRef,
  type RetentionSnapshot,
} from '../../model/snapshot-retention.js';
import {
  ValidIndex,
  classifyListing,
  collapseRoots,
  isHiddenBelow,
  type OrphanCandidate,
} from '../../connectors/storage/orphan-scan.js';
import { parseCutoff } from '../../util/cutoff.js';
import { tryParseDurationMs as parseDurationMs } from '../../util/units.js';
import { normalizeLocation } from '../../connectors/storage/index.js';
import { isFloeError } from '../../util/errors.js';

// main: 1 → 2 → 3 → 4 (head), timestamps 0, 10, 20, 30; now = 40
const chain: RetentionSnapshot[] = [
  { id: 1n, timestampMs: 0 },
  { id: 2n, parentId: 1n, timestampMs: 10 },
  { id: 3n, parentId: 2n, timestampMs: 20 },
  { id: 4n, parentId: 3n, timestampMs: 30 },
];
const main: RetentionRef = { name: 'main', type: 'branch', snapshotId: 4n };
const policy = (over: Partial<Parameters<typeof decideRetention>[2]> = {}) => ({
  nowMs: 40,
  expireOlderThanMs: 25,
  minSnapshotsToKeep: 1,
  ...over,
});
const ids = (s: Iterable<bigint>) => [...s].sort((a, b) => Number(a - b));

describe('snapshot retention (Java RemoveSnapshots rules)', () => {
  it('keeps the branch head and ancestors newer than the cutoff', () => {
    const d = decideRetention(chain, [main], policy());
    expect(ids(d.retained)).toEqual([4n]); // 3 is older than 25 and min-keep 1 is met by 4
    expect(ids(d.expired)).toEqual([1n, 2n, 3n]);
  });
  it('min-snapshots-to-keep keeps that many ancestors whatever their age', () => {
    expect(ids(decideRetention(chain, [main], policy({ minSnapshotsToKeep: 3 })).retained)).toEqual([2n, 3n, 4n]);
  });
  it('snapshots at exactly the cutoff are kept (timestamp >= cutoff)', () => {
    expect(ids(decideRetention(chain, [main], policy({ expireOlderThanMs: 20 })).retained)).toEqual([3n, 4n]);
  });
  it('tags keep their snapshot until max-ref-age, then the tag goes too', () => {
    const tag: RetentionRef = { name: 't', type: 'tag', snapshotId: 1n };
    expect(ids(decideRetention(chain, [main, tag], policy()).retained)).toEqual([1n, 4n]);
    const old = decideRetention(chain, [main, { ...tag, maxRefAgeMs: 35 }], policy()); // s1 is 40 old
    expect(old.removedRefs).toEqual(['t']);
    expect(ids(old.retained)).toEqual([4n]);
    const young = decideRetention(chain, [main, { ...tag, maxRefAgeMs: 40 }], policy()); // age 40 <= 40
    expect(young.removedRefs).toEqual([]);
  });
  it('per-branch max-snapshot-age overrides the default cutoff', () => {
    const b: RetentionRef = { name: 'b', type: 'branch', snapshotId: 2n, maxSnapshotAgeMs: 100 };
    expect(ids(decideRetention(chain, [main, b], policy()).retained)).toEqual([1n, 2n, 4n]);
  });
  it('main never expires, even with a max-ref-age', () => {
    const d = decideRetention(chain, [{ ...main, maxRefAgeMs: 1 }], policy({ maxRefAgeMs: 1 }));
    expect(d.removedRefs).toEqual([]);
    expect(d.retained.has(4n)).toBe(true);
  });
  it('a ref to a missing snapshot is dropped', () => {
    expect(decideRetention(chain, [main, { name: 'x', type: 'tag', snapshotId: 99n }], policy()).removedRefs).toEqual([
      'x',
    ]);
  });
  it('unreferenced snapshots survive while younger than the default cutoff (Java)', () => {
    const orphanYoung = [...chain, { id: 5n, parentId: 3n, timestampMs: 35 }];
    expect(decideRetention(orphanYoung, [main], policy()).retained.has(5n)).toBe(true);
    const orphanOld = [...chain, { id: 5n, parentId: 3n, timestampMs: 22 }];
    expect(decideRetention(orphanOld, [main], policy()).retained.has(5n)).toBe(false);
  });
  it('explicit ids expire even inside the retention window, but never a ref head', () => {
    const d = decideRetention(chain, [main], policy({ minSnapshotsToKeep: 3, expireIds: [3n] }));
    expect(ids(d.retained)).toEqual([2n, 4n]);
    let err: unknown;
    try {
      decideRetention(chain, [main], policy({ expireIds: [4n] }));
    } catch (e) {
      err = e;
    }
    expect(isFloeError(err, 'InvalidArgument')).toBe(true);
    expect((err as Error).message).toContain('main');
  });
  it('table properties give the defaults', () => {
    expect(retentionDefaults({})).toEqual({ maxSnapshotAgeMs: 432_000_000, minSnapshotsToKeep: 1 });
    expect(
      retentionDefaults({ 'history.expire.max-ref-age-ms': '7', 'history.expire.min-snapshots-to-keep': '4' }),
    ).toMatchObject({ maxRefAgeMs: 7, minSnapshotsToKeep: 4 });
  });
  it('snapshot-log drops everything up to the last removed entry', () => {
    const log = [1n, 2n, 3n, 4n].map((snapshotId) => ({ snapshotId }));
    expect(trimSnapshotLog(log, (id) => id === 2n || id === 4n).map((e) => e.snapshotId)).toEqual([4n]);
    expect(trimSnapshotLog(log, (id) => id !== 1n).map((e) => e.snapshotId)).toEqual([2n, 3n, 4n]);
  });
});

describe('orphan classification', () => {
  const listing = (files: { location: string; ageDays: number }[], now: number) =>
    (async function* () {
      for (const f of files)
        yield {
          location: normalizeLocation(f.location),
          size: 1,
          lastModified: new Date(now - f.ageDays * 86_400_000),
        };
    })();

  it('s3a/s3n/s3 are the same store; other buckets are prefix mismatches', async () => {
    const idx = new ValidIndex((l) => normalizeLocation(l));
    idx.add('s3a://b/t/data/a.parquet');
    idx.add('s3://other/t/data/m.parquet');
    idx.add('/t/data/bare.parquet'); // no scheme: matches any store
    const now = Date.UTC(2030, 0, 1);
    const files = [
      { location: 's3://b/t/data/a.parquet', ageDays: 9 },
      { location: 's3://b/t/data/m.parquet', ageDays: 9 },
      { location: 's3://b/t/data/bare.parquet', ageDays: 9 },
      { location: 's3://b/t/data/orphan.parquet', ageDays: 9 },
      { location: 's3://b/t/data/young.parquet', ageDays: 1 },
      { location: 's3://b/t/data/_temporary/x.parquet', ageDays: 9 },
      { location: 's3://b/t/data/.hidden', ageDays: 9 },
      { location: 's3://b/t/data/_p=1/in-partition.parquet', ageDays: 9 },
    ];
    const got: OrphanCandidate[] = [];
    const r = await classifyListing(
      's3://b/t',
      listing(files, now),
      idx,
      { olderThanMs: now - 3 * 86_400_000, prefixMismatch: 'error', allowedHiddenPrefixes: ['_p='] },
      (c) => got.push(c),
    );
    expect(got.map((c) => c.location).sort()).toEqual([
      's3://b/t/data/_p=1/in-partition.parquet',
      's3://b/t/data/orphan.parquet',
    ]);
    expect(r.mismatches).toEqual(['s3://b/t/data/m.parquet']);
    expect(r.stats).toMatchObject({ listed: 8, valid: 2, tooYoung: 1, hidden: 2, mismatched: 1, orphans: 2 });

    const del: OrphanCandidate[] = [];
    await classifyListing(
      's3://b/t',
      listing(files, now),
      idx,
      { olderThanMs: now - 3 * 86_400_000, prefixMismatch: 'delete' },
      (c) => del.push(c),
    );
    expect(del.map((c) => c.location)).toContain('s3://b/t/data/m.parquet');
    const ign: OrphanCandidate[] = [];
    await classifyListing(
      's3://b/t',
      listing(files, now),
      idx,
      { olderThanMs: now - 3 * 86_400_000, prefixMismatch: 'ignore' },
      (c) => ign.push(c),
    );
    expect(ign.map((c) => c.location)).not.toContain('s3://b/t/data/m.parquet');
  });

  it('hidden-path rule and root collapsing', () => {
    expect(isHiddenBelow('data/.x/a')).toBe(true);
    expect(isHiddenBelow('data/a_b/c')).toBe(false);
    expect(isHiddenBelow('_delta/x', ['_delta='])).toBe(true);
    expect(collapseRoots(['s3://b/t', 's3://b/t/data', 's3://b/t2'])).toEqual(['s3://b/t', 's3://b/t2']);
  });

  it('--older-than accepts durations, ISO times and epoch ms', () => {
    const now = Date.UTC(2030, 0, 10);
    expect(parseDurationMs('1d12h')).toBe(129_600_000);
    expect(parseCutoff('3d', now)).toBe(now - 3 * 86_400_000);
    expect(parseCutoff('2030-01-01T00:00:00Z', now)).toBe(Date.UTC(2030, 0, 1));
    expect(parseCutoff('1893456000000', now)).toBe(1_893_456_000_000);
    expect(() => parseCutoff('soon', now)).toThrow(/older-than/);
  });
});
