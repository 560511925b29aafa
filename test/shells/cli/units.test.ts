/**
 * Issue 13.3: one duration grammar and one size parser for the project; bare numbers are refused on the
 * command line (`--older-than 5` was epoch 5 ms, `--target-size 1` planned 1-byte files).
 */
import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  parseDurationMs,
  parseSizeBytes,
  parseTargetSize,
  parseMemorySize,
  tryParseDurationMs,
} from '../../../util/units.js';
import { parseCutoff } from '../../../util/cutoff.js';
import { parsePaimonDuration } from '../../../connectors/paimon/expire.js';
import { floe } from './support.js';
import { copyFixture } from './support.js';

// what the former copies were called with: `--older-than` (no bare numbers) and Paimon table options (bare = ms)
const maintenanceDuration = (text: string) => tryParseDurationMs(text);
const paimonDuration = (text: string) => parseDurationMs(text, { bare: 'ms' });

const H = 3_600_000;
const D = 24 * H;

describe('one duration grammar (Paimon names, compound parts)', () => {
  it.each([
    ['1d12h', 36 * H],
    ['2w', 14 * D],
    ['1.5h', 1.5 * H],
    ['30 min', 30 * 60_000],
    ['1 h', H],
    ['90m', 90 * 60_000],
    ['500ms', 500],
    ['2 days', 2 * D],
    ['45s', 45_000],
    ['1h 30min', 1.5 * H],
  ])('%s', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
    // every former copy now answers the same
    expect(maintenanceDuration(text)).toBe(ms);
    expect(paimonDuration(text)).toBe(ms);
    expect(parsePaimonDuration(text, 'snapshot.time-retained')).toBe(ms);
  });

  it('a bare number is refused unless the caller says it is milliseconds (Paimon table options)', () => {
    expect(() => parseDurationMs('5', { what: '--older-than' })).toThrow(
      /--older-than: "5" has no unit; write e\.g\. 5d, 5h/,
    );
    expect(tryParseDurationMs('5')).toBeUndefined();
    expect(paimonDuration('5000')).toBe(5000);
    expect(parsePaimonDuration('5000', 'snapshot.time-retained')).toBe(5000);
    expect(() => parseDurationMs('5 parsecs')).toThrow(/not a duration/);
  });

  it('--older-than: a bare short number is refused; epoch milliseconds and ISO times still work', () => {
    const now = Date.UTC(2026, 0, 10);
    expect(() => parseCutoff('5', now)).toThrow(/--older-than: "5" has no unit/);
    expect(() => parseCutoff('1700000000', now)).toThrow(/has no unit/); // epoch seconds are not taken for ms
    expect(parseCutoff('1700000000000', now)).toBe(1_700_000_000_000);
    expect(parseCutoff('1d12h', now)).toBe(now - 36 * H);
    expect(parseCutoff('2026-01-01T00:00:00Z', now)).toBe(Date.UTC(2026, 0, 1));
  });
});

describe('one size parser and one formatBytes', () => {
  it('parses 1024-based units and refuses bare numbers on flags', () => {
    expect(parseSizeBytes('128MB')).toBe(128 * 2 ** 20);
    expect(parseSizeBytes('512m')).toBe(512 * 2 ** 20);
    expect(parseSizeBytes('1GiB')).toBe(2 ** 30);
    expect(parseSizeBytes('1.5 g')).toBe(1.5 * 2 ** 30);
    expect(parseSizeBytes('64 KB')).toBe(65_536);
    expect(() => parseSizeBytes('1', { what: '--target-size' })).toThrow(
      /--target-size: "1" has no unit; write e\.g\. 1MB/,
    );
    expect(parseMemorySize('512')).toBe(512); // Paimon options: bare = bytes, as MemorySize.parse
    expect(parseMemorySize('10', 'mb')).toBe(10 * 2 ** 20);
  });
  it('target sizes below 1 MiB need --force', () => {
    expect(() => parseTargetSize('512KB', '--target-size', false)).toThrow(/below 1\.0 MiB.*--force/);
    expect(parseTargetSize('512KB', '--target-size', true)).toBe(512 * 1024);
    expect(parseTargetSize('1MB', '--target-size', false)).toBe(2 ** 20);
  });
  it('formats sizes; unknown sizes are "?"', () => {
    expect(formatBytes(5)).toBe('5 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(128 * 2 ** 20)).toBe('128.0 MiB');
    expect(formatBytes(undefined)).toBe('?');
    expect(formatBytes(30 * 2 ** 20, { units: 'paimon', precision: 'trim' })).toBe('30 MB');
    expect(formatBytes(1536, { precision: 'sig3' })).toBe('1.50 KiB');
  });
});

describe('on the command line (exit 2, nothing read)', () => {
  it('expire --older-than 5 is refused', async () => {
    const t = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
    try {
      const r = await floe('expire', t.dir, '--older-than', '5', '--dry-run');
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--older-than: "5" has no unit/);
    } finally {
      t.cleanup();
    }
  });
  it('remove-orphans --older-than 36 is refused', async () => {
    const t = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
    try {
      const r = await floe('remove-orphans', t.dir, '--older-than', '36', '--dry-run');
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/has no unit/);
    } finally {
      t.cleanup();
    }
  });
  it('compact --target-size 1 is refused; 512KB needs --force', async () => {
    const t = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
    try {
      const bare = await floe('compact', t.dir, '--target-size', '1', '--dry-run');
      expect(bare.code).toBe(2);
      expect(bare.stderr).toMatch(/--target-size: "1" has no unit/);
      const small = await floe('compact', t.dir, '--target-size', '512KB', '--dry-run');
      expect(small.code).toBe(2);
      expect(small.stderr).toMatch(/--force/);
      const forced = await floe(
        'compact',
        t.dir,
        '--target-size',
        '512KB',
        '--force',
        '--dry-run',
        '--progress',
        'none',
      );
      expect(forced.code).toBe(0);
      expect(forced.stdout).toMatch(/target 512\.0 KiB|dry run/);
    } finally {
      t.cleanup();
    }
  });
  it('-o target sizes below 1 MiB need --force too', async () => {
    const t = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
    try {
      const r = await floe('compact', t.dir, '-o', 'self-optimizing.target-size=1', '--dry-run');
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/-o self-optimizing\.target-size=1: 1 B is below 1\.0 MiB/);
      expect(
        (await floe('compact', t.dir, '-o', 'self-optimizing.target-size=1048576', '--dry-run', '--progress', 'none'))
          .code,
      ).toBe(0);
    } finally {
      t.cleanup();
    }
  });
  it('rewrite-manifests --target-size wants a unit', async () => {
    const t = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
    try {
      const r = await floe('rewrite-manifests', t.dir, '--target-size', '8388608', '--dry-run');
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/has no unit/);
    } finally {
      t.cleanup();
    }
  });
});
