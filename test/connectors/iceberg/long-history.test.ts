/**
 * Issue 29.3: metadata with 200,000 snapshots (≈93 MiB, generated here by a streaming writer). Under a
 * 1 GB Node heap `scan --count` succeeds — it is parsed by the engine's JSON parser with 64-bit ids kept
 * exact — or, past the configured limit, exits 1 with an error naming the file and its size; never V8's
 * "JavaScript heap out of memory". `expire --dry-run` plans the expiry of the whole history under the same limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnFloe } from '../../shells/cli/support.js';
import { tableWithLongHistory } from '../../support/huge-metadata.js';

let t: Awaited<ReturnType<typeof tableWithLongHistory>>;
beforeAll(async () => {
  t = await tableWithLongHistory(200_000);
}, 120_000);
afterAll(() => t?.cleanup());

describe('200,000 snapshots', () => {
  it('scan --count under --max-old-space-size=1024 succeeds', async () => {
    const t0 = Date.now();
    const r = await spawnFloe(['scan', t.dir, '--count', '--progress', 'none'], {
      nodeArgs: ['--max-old-space-size=1024'],
    });
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('6');
    console.log(`scan --count of ${(t.bytes / 1048576).toFixed(1)} MiB metadata: ${Date.now() - t0} ms`);
  }, 180_000);

  it('expire --dry-run plans the expiry of 200,005 snapshots under the same heap limit, each file listed once', async () => {
    // all synthetic ancestors share one manifest list: read once, listed once (it used to be pushed once per
    // snapshot, and the 200,000-element spread of that list overflowed the stack)
    const r = await spawnFloe(['expire', t.dir, '--dry-run', '--json', '--progress', 'none'], {
      nodeArgs: ['--max-old-space-size=1024'],
    });
    expect(r.stderr).not.toMatch(/heap out of memory|Maximum call stack/);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      candidates: { location: string; kind: string }[];
      details: { expiredSnapshots: string[]; retainedSnapshots: number };
    };
    expect(doc.details.expiredSnapshots.length).toBe(200_005);
    expect(new Set(doc.details.expiredSnapshots).size).toBe(200_005);
    expect(doc.details.retainedSnapshots).toBe(1);
    const locations = doc.candidates.map((c) => c.location);
    expect(new Set(locations).size).toBe(locations.length);
    expect(doc.candidates.filter((c) => c.kind === 'manifest-list').length).toBeGreaterThan(0);
  }, 300_000);

  it('past a configured limit it is refused, naming the file and its size (exit 1)', async () => {
    for (const [env, nodeArgs, by] of [
      [{ FLOE_MAX_METADATA_BYTES: '10000000' }, [], /set by FLOE_MAX_METADATA_BYTES/],
      [{}, ['--max-old-space-size=256'], /set by the heap limit of [\d.]+ MiB/],
    ] as const) {
      const r = await spawnFloe(['scan', t.dir, '--count', '--progress', 'none'], { env, nodeArgs: [...nodeArgs] });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^floe: Unsupported: metadata file \S+\/v8\.metadata\.json is 92\.\d MiB, more than the [\d.]+ MiB this process can parse/,
      );
      expect(r.stderr).toMatch(by);
    }
  }, 180_000);
});
