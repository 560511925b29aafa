import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  LocationMap,
  isUnder,
  joinLocation,
  normalizeLocation,
  parseLocation,
  parseLocationMapSpec,
  relativeLocation,
  sameLocation,
} from '../../../connectors/storage/location.js';

describe('parseLocation / normalizeLocation', () => {
  it('treats s3, s3a and s3n as one scheme', () => {
    expect(parseLocation('s3a://bucket/warehouse/t')).toEqual({
      scheme: 's3',
      authority: 'bucket',
      path: '/warehouse/t',
    });
    expect(normalizeLocation('s3n://bucket/a/b')).toBe('s3://bucket/a/b');
    expect(normalizeLocation('S3://bucket/a')).toBe('s3://bucket/a');
    expect(sameLocation('s3a://b/p/', 's3://b/p')).toBe(true);
  });

  it('keeps S3 keys byte for byte apart from trailing slashes', () => {
    expect(normalizeLocation('s3://b/a//b/')).toBe('s3://b/a//b');
    expect(sameLocation('s3://b/a//b', 's3://b/a/b')).toBe(false);
    expect(normalizeLocation('s3://bucket')).toBe('s3://bucket');
    expect(normalizeLocation('s3://bucket/')).toBe('s3://bucket');
    expect(() => parseLocation('s3:///key')).toThrow(/no bucket/);
  });

  it('file:/x, file:///x, file://localhost/x and /x are the same', () => {
    for (const s of [
      'file:/data/t',
      'file:///data/t',
      'file://localhost/data/t',
      '/data/t',
      '/data//t/',
      'file:///data/./x/../t',
    ]) {
      expect(normalizeLocation(s)).toBe('file:///data/t');
    }
    expect(normalizeLocation('/')).toBe('file:///');
    expect(normalizeLocation('file:///')).toBe('file:///');
    expect(() => parseLocation('file://otherhost/x')).toThrow(/only local files/);
  });

  it('resolves relative paths against the working directory', () => {
    expect(normalizeLocation('warehouse/t', '/home/u')).toBe('file:///home/u/warehouse/t');
    expect(normalizeLocation('./t/', '/home/u')).toBe('file:///home/u/t');
    expect(normalizeLocation('../t', '/home/u')).toBe('file:///home/t');
    expect(normalizeLocation('rel')).toBe(`file://${path.resolve('rel')}`);
  });

  it('keeps foreign schemes (hdfs, gs) with a lower-cased authority', () => {
    expect(normalizeLocation('hdfs://LocalHost:20500/test-warehouse//x/')).toBe(
      'hdfs://localhost:20500/test-warehouse/x',
    );
    expect(normalizeLocation('gs://bkt/a/')).toBe('gs://bkt/a');
    expect(() => parseLocation('')).toThrow(/empty/);
  });
});

describe('join / relative', () => {
  it('joins with single slashes', () => {
    expect(joinLocation('s3://b/t/', 'metadata', '/v1.json')).toBe('s3://b/t/metadata/v1.json');
    expect(joinLocation('s3://b', 'k')).toBe('s3://b/k');
    expect(joinLocation('/data/t', 'data/f.parquet')).toBe('file:///data/t/data/f.parquet');
    expect(joinLocation('file:///', 'x')).toBe('file:///x');
  });

  it('relative works across equivalent spellings and rejects siblings', () => {
    expect(relativeLocation('s3a://b/t', 's3://b/t/data/f.parquet')).toBe('data/f.parquet');
    expect(relativeLocation('file:/data/t/', '/data/t')).toBe('');
    expect(relativeLocation('/data/t', '/data/t2/f')).toBeUndefined();
    expect(relativeLocation('s3://b/t', 's3://other/t/f')).toBeUndefined();
    expect(relativeLocation('file:///', '/x/y')).toBe('x/y');
    expect(isUnder('s3://b/t', 's3n://b/t/x')).toBe(true);
  });
});

describe('LocationMap', () => {
  it('maps a relocated table: hdfs and s3a metadata paths to a local directory', () => {
    const map = LocationMap.parse(
      ['hdfs://localhost:20500/test-warehouse/x=/fixtures/x', 's3a://bucket/p=file:/copies/p'],
      '/',
    );
    expect(map.apply('hdfs://localhost:20500/test-warehouse/x/metadata/v2.metadata.json')).toBe(
      'file:///fixtures/x/metadata/v2.metadata.json',
    );
    expect(map.apply('hdfs://localhost:20500/test-warehouse/x')).toBe('file:///fixtures/x');
    // normalisation happens before matching: s3:// and s3n:// hit an s3a:// rule
    expect(map.apply('s3://bucket/p/data/00000-0.parquet')).toBe('file:///copies/p/data/00000-0.parquet');
    expect(map.apply('s3n://bucket/p/')).toBe('file:///copies/p');
    // not under any rule: returned normalised, unchanged
    expect(map.apply('s3a://bucket/px/f')).toBe('s3://bucket/px/f');
    expect(map.apply('hdfs://localhost:20500/test-warehouse/xy')).toBe('hdfs://localhost:20500/test-warehouse/xy');
  });

  it('longest FROM wins, whatever the order given', () => {
    const map = LocationMap.parse(['s3://b/w=/all', 's3://b/w/special=/special'], '/');
    expect(map.apply('s3://b/w/special/f')).toBe('file:///special/f');
    expect(map.apply('s3://b/w/other/f')).toBe('file:///all/other/f');
    const reversed = LocationMap.parse(['s3://b/w/special=/special', 's3://b/w=/all'], '/');
    expect(reversed.apply('s3://b/w/special/f')).toBe('file:///special/f');
  });

  it('maps local to S3 too', () => {
    const map = new LocationMap([{ from: '/old/warehouse', to: 's3a://new-bucket/wh' }]);
    expect(map.apply('file:/old/warehouse/db/t/f')).toBe('s3://new-bucket/wh/db/t/f');
  });

  it('parses FROM=TO when paths contain "=" (Hive partitions)', () => {
    expect(parseLocationMapSpec('s3a://b/t/dt=2024-01-01=/local/t')).toEqual({
      from: 's3a://b/t/dt=2024-01-01',
      to: '/local/t',
    });
    expect(parseLocationMapSpec('s3://b/t=s3://c/t')).toEqual({ from: 's3://b/t', to: 's3://c/t' });
    expect(parseLocationMapSpec('/a=rel/dir')).toEqual({ from: '/a', to: 'rel/dir' });
    expect(() => parseLocationMapSpec('no-separator')).toThrow(/FROM=TO/);
    expect(() => parseLocationMapSpec('=/x')).toThrow(/FROM=TO/);
    expect(() => parseLocationMapSpec('/x=')).toThrow(/FROM=TO/);
  });
});
