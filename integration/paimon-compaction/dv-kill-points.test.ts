/**
 * Kill points on a deletion-vector table with `changelog-producer=lookup`: `floe compact` (the lookup
 * compaction writing data, changelog and DV index files) is SIGKILLed at each Paimon kill point
 * (util/fault-points.ts). After the kill Java Paimon reads what it read before (a DV table's batch
 * read skips level 0, so the new writes show only once a compaction lands; nothing the table referenced
 * was deleted, nothing half-committed is visible) — or the compacted model when the kill came after publishing; an operator's re-run and `remove-orphans`
 * leave the table correct, and a fresh streaming consumer reads a consistent changelog.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { javaPaimon, repoRoot } from '../oracles/index.js';
import { runFloe } from '../faults/campaign-support.js';
import { Model, commits, lines, spec } from './model.js';
import { apply } from './changelog-support.js';

const java = await javaPaimon.available();
if (!java.ok) console.warn(`SKIPPED: Java Paimon oracle unavailable: ${java.reason}`);
const main = path.join(repoRoot, 'src/shells/cli/main.ts');
const POINTS = [
  'paimon.data.after-first-file',
  'paimon.commit.after-manifests',
  'paimon.commit.before-publish',
  'paimon.commit.after-publish',
];

describe.skipIf(!java.ok)('kill points: DV + lookup changelog compaction', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-dv-kill-'));
  const pristine = path.join(work, 'pristine');
  const model = new Model('deduplicate');
  let before: string[] = [];
  beforeAll(async () => {
    const options = { 'deletion-vectors.enabled': 'true', 'changelog-producer': 'lookup' };
    await javaPaimon.write(
      pristine,
      spec(
        'deduplicate',
        't',
        commits('deduplicate', 0, model, { batches: 3, perBatch: 300, keys: 400 }),
        true,
        options,
      ),
    );
    await javaPaimon.compact(pristine, { database: 'db', table: 't', full: true });
    await javaPaimon.write(
      pristine,
      spec('deduplicate', 't', commits('deduplicate', 1, model, { batches: 2, perBatch: 12, keys: 400 }), false),
    );
    before = lines(await javaPaimon.read(pristine, { database: 'db', table: 't' }));
    expect(before).not.toEqual(model.lines()); // the level-0 writes are not visible yet
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  for (const point of POINTS) {
    it(`killed at ${point}`, async () => {
      const wh = path.join(work, point);
      cpSync(pristine, wh, { recursive: true });
      const dir = path.join(wh, 'db.db', 't');
      const killed = spawnSync(process.execPath, ['--import', 'tsx', main, 'compact', dir, '--progress', 'none'], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, FLOE_FAULT_KILL_AT: point },
        timeout: 240_000,
      });
      expect(killed.signal, killed.stderr.slice(-400)).toBe('SIGKILL');
      const expected = model.lines();
      // a DV table's batch read skips level 0: before a compaction lands Java shows the pristine table's view
      const visible = point === 'paimon.commit.after-publish' ? expected : before;
      expect(lines(await javaPaimon.read(wh, { database: 'db', table: 't' }))).toEqual(visible);
      const again = await runFloe(['compact', dir, '--progress', 'none', '--no-lease'], {});
      expect(again.exitCode, again.stderr.slice(0, 400)).toBe(0);
      const orphans = await runFloe(
        ['remove-orphans', dir, '--older-than', '0s', '--force', '--progress', 'none', '--no-lease'],
        {},
      );
      expect(orphans.exitCode, orphans.stderr.slice(0, 400)).toBe(0);
      expect(lines(await javaPaimon.read(wh, { database: 'db', table: 't' }))).toEqual(expected);
      const state = new Map<string, string>();
      const r = await javaPaimon.stream(wh, {
        database: 'db',
        table: 't',
        options: { 'scan.mode': 'from-snapshot', 'scan.snapshot-id': '1' },
      });
      apply(state, r.rows);
      expect([...state.values()].sort()).toEqual(expected);
      // Java keeps compacting on top
      await javaPaimon.compact(wh, { database: 'db', table: 't', full: true });
      expect(lines(await javaPaimon.read(wh, { database: 'db', table: 't' }))).toEqual(expected);
    });
  }
});
