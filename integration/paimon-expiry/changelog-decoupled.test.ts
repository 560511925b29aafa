/**
 * Issue 15.6: a Paimon table whose changelog outlives its snapshots (`changelog.num-retained.*` above the
 * snapshot retention). Java Paimon 1.3, expiring such a table on commit, keeps the expired snapshots'
 * changelog as long-lived `changelog/changelog-N` files; floe does not write those, so `floe expire` must
 * refuse such a table — also before Java ever expired it (no changelog/ yet) — and change nothing.
 */
import { readdirSync, rmSync, mkdtempSync, statSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { javaPaimon, type PaimonChange } from '../oracles/index.js';
import { expireAction } from '../../src/cli/commands/expire.js';

const javaOk = await javaPaimon.available();
if (!javaOk.ok) throw new Error(`java oracle unavailable (${javaOk.reason}); run bash scripts/setup-oracles.sh`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-cl-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function files(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(path.relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

const commits = (n: number): PaimonChange[][] =>
  Array.from({ length: n }, (_, i) => [{ kind: '+I', row: { id: String(i), v: `v${i}` } } as PaimonChange]);

const DECOUPLED = {
  bucket: '1',
  'changelog-producer': 'input',
  'snapshot.num-retained.min': '2',
  'snapshot.num-retained.max': '3',
  'snapshot.time-retained': '1 ms',
  'changelog.num-retained.max': '50',
};

async function build(name: string, options: Record<string, string>): Promise<string> {
  const w = await javaPaimon.write(work, {
    database: 'default',
    table: name,
    fields: [
      { name: 'id', type: 'long' },
      { name: 'v', type: 'string' },
    ],
    primaryKeys: ['id'],
    options,
    commits: commits(8),
  });
  return w.tablePath.replace(/^file:/, '');
}

describe('decoupled changelog retention', () => {
  it('Java keeps long-lived changelog files when it expires such a table', async () => {
    const t = await build('java_expires', DECOUPLED);
    expect(existsSync(path.join(t, 'changelog'))).toBe(true);
    expect(readdirSync(path.join(t, 'changelog')).some((n) => /^changelog-\d+$/.test(n))).toBe(true);
  }, 240_000);

  it('floe expire refuses it before Java expired anything (no changelog/ yet) and changes nothing', async () => {
    const t = await build('never_expired', { ...DECOUPLED, 'write-only': 'true' });
    expect(existsSync(path.join(t, 'changelog'))).toBe(false);
    const before = files(t);
    await expect(
      expireAction(t, { retainLast: '2', olderThan: String(Date.now() + 60_000), lease: false }),
    ).rejects.toThrow(/changelog.num-retained.max=50 exceeds the snapshot retention \(3\).*will not expire anything/);
    expect(files(t)).toEqual(before);
  }, 240_000);
});
