/**
 * The delete-confinement rule (connectors/storage/confine.ts) on its own: which spellings of a location
 * count as inside a table's roots.
 */
import { describe, expect, it } from 'vitest';
import { DeleteScope, removeWithin } from '../../../connectors/storage/confine.js';
import { LocationMap, normalizeLocation } from '../../../connectors/storage/index.js';

const plain = (l: string) => normalizeLocation(l);

describe('DeleteScope', () => {
  it('S3: s3, s3a and s3n are one scheme; other buckets and sibling prefixes are outside', () => {
    const scope = new DeleteScope('s3a://bucket/wh/t', [], plain);
    expect(scope.allows('s3://bucket/wh/t/data/a.parquet')).toBe(true);
    expect(scope.allows('s3n://bucket/wh/t/metadata/m.avro')).toBe(true);
    expect(scope.allows('s3://other/wh/t/data/a.parquet')).toBe(false);
    expect(scope.allows('s3://bucket/wh/t-copy/data/a.parquet')).toBe(false);
    expect(scope.allows('s3://bucket/wh/t')).toBe(false); // the root itself is no file of the table
    expect(scope.allows('s3://bucket/wh/other')).toBe(false);
  });

  it('S3 keys with dot segments must be inside both as written and collapsed', () => {
    const scope = new DeleteScope('s3://bucket/wh/t', [], plain);
    expect(scope.allows('s3://bucket/wh/t/data/../../x')).toBe(false);
    expect(scope.allows('s3://bucket/wh/t/data/../../t/data/x')).toBe(true); // collapses back inside; literal key inside too
    expect(scope.allows('s3://bucket/wh/x/../t/data/f')).toBe(false); // collapsed inside, literal key outside
    expect(scope.allows('s3://bucket/wh/t//data/f')).toBe(true);
    expect(scope.refusal('s3://bucket/wh/t/data/../../x')).toMatch(
      /outside the table's locations \(s3:\/\/bucket\/wh\/t\)/,
    );
  });

  it('local files: file:/, file:///, bare paths alike; .. collapsed; relative paths resolved as floe reads them', () => {
    const scope = new DeleteScope('file:/tmp/wh/t', [], plain);
    expect(scope.allows('/tmp/wh/t/data/a')).toBe(true);
    expect(scope.allows('file:///tmp/wh/t/data/a')).toBe(true);
    expect(scope.allows('file:/tmp/wh/t/data/../../x')).toBe(false);
    expect(scope.allows('/etc/passwd')).toBe(false);
    expect(scope.allows('file://localhost/tmp/wh/t/data/a')).toBe(true);
    expect(scope.refusal('data/a.parquet')).toMatch(/^a relative path \(read as file:\/\/.*\) outside/);
    expect(scope.refusal('file://otherhost/tmp/wh/t/a')).toMatch(/not a usable location/);
  });

  it('configured locations are roots; relative ones and whole buckets or filesystem roots are not', () => {
    const scope = new DeleteScope(
      's3://b/wh/t',
      ['s3://b/elsewhere/data', 'data', 's3://b', '/', undefined, ''],
      plain,
    );
    expect(scope.roots).toEqual(['s3://b/wh/t', 's3://b/elsewhere/data']);
    expect(scope.ignoredRoots.map((r) => r.location)).toEqual(['data', 's3://b', '/']);
    expect(scope.allows('s3://b/elsewhere/data/x.parquet')).toBe(true);
    expect(scope.allows('s3://b/unrelated/x.parquet')).toBe(false);
  });

  it('compares where the bytes live: after the location map (a mapped path that climbs out is outside)', () => {
    const map = new LocationMap([{ from: 's3://old/wh/t', to: '/data/copy/t' }]);
    const scope = new DeleteScope('s3://old/wh/t', [], (l) => map.apply(l));
    expect(scope.roots).toEqual(['file:///data/copy/t']);
    expect(scope.allows('s3://old/wh/t/data/a')).toBe(true);
    expect(scope.allows('s3://old/wh/t/data/../../../../etc/passwd')).toBe(false); // maps to file:///etc/passwd
    expect(scope.allows('file:///data/copy/t/data/a', { mapped: true })).toBe(true);
    expect(scope.allows('s3://old/wh/t/data/a', { mapped: true })).toBe(false); // a listing's location is not mapped again
  });

  it('allowOutside lets absolute locations through, never relative ones outside the roots', () => {
    const scope = new DeleteScope('/tmp/wh/t', [], plain, { allowOutside: true });
    expect(scope.allows('/etc/hostname')).toBe(true);
    expect(scope.allows('s3://any/where')).toBe(true);
    expect(scope.allows('../../etc/hostname')).toBe(false);
  });
});

describe("removeWithin (cleanup of a run's own files)", () => {
  it('removes what the scope allows, ignores failures, returns what it refused', async () => {
    const scope = new DeleteScope('s3://b/wh/t', [], plain);
    const removed: string[] = [];
    const refused = await removeWithin(
      scope,
      ['s3://b/wh/t/data/a', 's3://b/other/x', 's3://b/wh/t/data/fails'],
      async (l) => {
        if (l.endsWith('fails')) throw new Error('boom');
        removed.push(l);
      },
    );
    expect(removed).toEqual(['s3://b/wh/t/data/a']);
    expect(refused).toEqual(['s3://b/other/x']);
  });
});

describe('DeleteScope and symbolic links', () => {
  it('a lexically inside local path through a symlinked directory that leads out is refused', async () => {
    const { mkdtempSync, mkdirSync, symlinkSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const root = mkdtempSync(path.join(tmpdir(), 'floe-confine-link-'));
    try {
      mkdirSync(path.join(root, 't', 'data'), { recursive: true });
      mkdirSync(path.join(root, 'outside'));
      mkdirSync(path.join(root, 't', 'real-sub'));
      symlinkSync(path.join(root, 'outside'), path.join(root, 't', 'data', 'link'));
      symlinkSync(path.join(root, 't', 'real-sub'), path.join(root, 't', 'data', 'inner-link'));
      const scope = new DeleteScope(path.join(root, 't'), [], plain);
      expect(scope.refusal(`${root}/t/data/link/victim`)).toMatch(/symbolic link to .*outside/);
      expect(scope.allows(`${root}/t/data/inner-link/x`)).toBe(true); // a link that stays inside is fine
      expect(scope.allows(`${root}/t/data/x`)).toBe(true);
      expect(scope.allows(`${root}/t/data/missing-dir/x`)).toBe(true); // nothing there to delete
      expect(
        new DeleteScope(path.join(root, 't'), [], plain, { allowOutside: true }).allows(`${root}/t/data/link/victim`),
      ).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
