/**
 * `floe compact <paimon append table> --strategy sort|zorder|hilbert`: the flags reach Paimon's sort
 * compaction (plan text and committed snapshot), and bad combinations exit 2 before anything is written.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture, floe, resultOf, schemaErrors } from '../../shells/cli/support.js';

const append = copyFixture('paimon-cpp/append_table_with_alter_table');
afterAll(() => append.cleanup());
const snapshots = () => readdirSync(path.join(append.dir, 'snapshot')).filter((n) => n.startsWith('snapshot-')).length;

describe('floe compact --strategy on a Paimon append table', () => {
  it('a dry run shows the order; a run commits one OVERWRITE snapshot', async () => {
    const before = snapshots();
    const dry = await floe(
      'compact',
      append.dir,
      '--strategy',
      'hilbert',
      '--columns',
      'k,c',
      '--dry-run',
      '--explain',
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/sort compaction \(order_strategy hilbert, hilbert\(k, c\)\)/);
    expect(dry.stdout).toMatch(/the partition is overwritten/);
    expect(snapshots()).toBe(before);
    const run = await floe('compact', append.dir, '--strategy', 'sort', '--sort-order', 'k DESC', '--progress', 'none');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/order_strategy order, k DESC NULLS LAST/);
    expect(run.stdout).toMatch(/committed snapshot \d+ \(OVERWRITE\)/);
    expect(snapshots()).toBe(before + 1);
    const latest = JSON.parse(readFileSync(path.join(append.dir, 'snapshot', `snapshot-${before + 1}`), 'utf8'));
    expect(latest.commitKind).toBe('OVERWRITE');
  });

  it('--json: the result document validates and names the sort', async () => {
    const r = await floe('compact', append.dir, '--strategy', 'zorder', '--columns', 'c,k', '--dry-run', '--json');
    expect(r.code, r.stderr).toBe(0);
    const doc = resultOf(r.stdout);
    expect(schemaErrors(doc)).toBeUndefined();
    expect(JSON.stringify(doc)).toContain(
      '"sort":{"strategy":"zorder","orderStrategy":"zorder","order":"zorder(c, k)"}',
    );
    expect(JSON.stringify(doc)).toContain('"kind":"sort"');
  });

  it("-o zorder.var-length-contribution (Paimon's option) is read; a bad value exits 2", async () => {
    const ok = await floe(
      'compact',
      append.dir,
      '--strategy',
      'zorder',
      '--columns',
      'k,c',
      '-o',
      'zorder.var-length-contribution=4',
      '--dry-run',
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/order_strategy zorder, zorder\(k, c\)/);
  });

  it.each([
    [
      ['--strategy', 'zorder', '--columns', 'k,c', '-o', 'zorder.var-length-contribution=0'],
      /var-length-contribution must be an integer in 1..1024/,
    ],
    [['--strategy', 'hilbert', '--columns', 'k'], /at least two columns/],
    [['--strategy', 'hilbert', '--sort-order', 'k'], /--strategy hilbert takes --columns/],
    [['--strategy', 'zorder', '--columns', 'k,nope'], /sort column nope is not in the current schema/],
    [['--strategy', 'zorder', '--columns', 'k', '--full'], /Paimon sort compaction rewrites whole partitions/],
    [['--strategy', 'tiered'], /--strategy .*not apply to Paimon tables/],
  ])('%j exits 2', async (flags, message) => {
    const before = snapshots();
    const r = await floe('compact', append.dir, ...flags, '--progress', 'none');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(snapshots()).toBe(before);
  });
});
