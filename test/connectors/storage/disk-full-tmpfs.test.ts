/**
 * Issue 29.6 on a real full filesystem: a small tmpfs (mounted by this test; root only) holds a copy of a
 * table with a few KB to spare, so compaction runs out of space at a different write for each size — a
 * data file, a manifest, the manifest list, or the final `vN.metadata.json`. For every size the run
 * either commits (and the table holds its rows) or fails definitely: exit 1, an ENOSPC message naming the
 * file, never "commit state unknown" (a local create that failed before its file was in place stored
 * nothing), and the table left exactly as it was — no file of the failed run stays behind.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtures, floe } from '../../shells/cli/support.js';

const FIXTURE = path.join(fixtures, 'impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
const mnt = mkdtempSync(path.join(tmpdir(), 'floe-enospc-'));
const probe = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { encoding: 'utf8' });
const canMount = probe.status === 0;
if (canMount) spawnSync('umount', [mnt]);
else
  console.warn(
    `SKIPPED disk-full-tmpfs: cannot mount a tmpfs here (${(probe.stderr || probe.error?.message || '').trim()}); run as root to test a real full filesystem`,
  );
afterAll(() => {
  spawnSync('umount', [mnt]);
  rmSync(mnt, { recursive: true, force: true });
});

function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(`${path.relative(dir, p)} ${statSync(p).size}`);
    }
  };
  walk(dir);
  return out.sort();
}

const tableKb = Math.ceil(
  readdirSync(FIXTURE, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((n, e) => n + Math.ceil(statSync(path.join(e.parentPath, e.name)).size / 4096) * 4, 0),
);

describe.skipIf(!canMount)('compaction on a full tmpfs', () => {
  it('at every size it commits or fails definitely, leaving the table as it was', async () => {
    const before = await floe('scan', FIXTURE, '--count', '--progress', 'none');
    const seen = { committed: 0, failed: 0, metadataJsonFull: 0 };
    for (const spare of [0, 8, 16, 24, 32, 40, 48, 56, 64, 96]) {
      const m = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${tableKb + 8 + spare}k`, 'tmpfs', mnt]);
      expect(m.status).toBe(0);
      try {
        const t = path.join(mnt, 't');
        mkdirSync(t);
        cpSync(FIXTURE, t, { recursive: true });
        for (const e of readdirSync(t, { recursive: true, withFileTypes: true }))
          chmodSync(path.join(e.parentPath, e.name), e.isDirectory() ? 0o755 : 0o644);
        const start = tree(t);
        const r = await floe('compact', t, '-o', 'rewrite-all=true', '--no-lease', '--progress', 'none');
        expect([0, 1], `spare ${spare}k: ${r.stderr}`).toContain(r.code);
        expect(r.stderr).not.toMatch(/unknown/i);
        if (r.code === 0) {
          seen.committed++;
          expect((await floe('scan', t, '--count', '--progress', 'none')).stdout).toBe(before.stdout);
        } else {
          seen.failed++;
          expect(r.stderr).toMatch(
            /cannot write file:\/\/\S+: ENOSPC: no space left on device.*\(the disk or quota is full\)/,
          );
          if (/v\d+\.metadata\.json: ENOSPC/.test(r.stderr)) seen.metadataJsonFull++;
          expect(tree(t), `spare ${spare}k: files left behind`).toEqual(start);
        }
      } finally {
        expect(spawnSync('umount', [mnt]).status).toBe(0);
      }
    }
    // the sizes reach each outcome: failures before the commit, at vN.metadata.json, and success
    expect(seen.failed).toBeGreaterThan(0);
    expect(seen.metadataJsonFull).toBeGreaterThan(0);
    expect(seen.committed).toBeGreaterThan(0);
  }, 180_000);
});
