/**
 * Issue 29.3: metadata with 200,000 snapshots (≈93 MiB, generated here by a streaming writer). Under a
 * 1 GB Node heap `scan --count` succeeds — it is parsed by the engine's JSON parser with 64-bit ids kept
 * exact — or, past the configured limit, exits 1 with an error naming the file and its size; never V8's
 * "JavaScript heap out of memory".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnFloe } from '../cli/support.js';
import { tableWithLongHistory } from '../support/huge-metadata.js';

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
