/**
 * Issue 14.4, CLI: `floe compact --strategy sort|zorder` with `--sort-order`, `--columns`, `--sort-memory`,
 * `--spill-dir`; the flags are refused on Paimon (exit 2, naming the format) and without a sort strategy;
 * an unsorted table without `--sort-order` is refused before anything is written.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture, floe } from '../cli/support.js';

const iceberg = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
const paimon = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
afterAll(() => {
  iceberg.cleanup();
  paimon.cleanup();
});

describe('floe compact --strategy sort|zorder', () => {
  it.each([
    [['--strategy', 'sort', '--sort-order', 'a'], '--strategy'],
    [['--strategy', 'zorder', '--columns', 'a,b'], '--strategy'],
    [['--sort-order', 'a'], '--sort-order'],
    [['--columns', 'a'], '--columns'],
    [['--sort-memory', '1MB'], '--sort-memory'],
  ])('Paimon %j is refused naming the format', async (flags, named) => {
    const r = await floe('compact', paimon.dir, ...flags, '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(named);
    expect(r.stderr).toMatch(/(does|do) not apply to Paimon tables/);
  });

  it.each([
    [['--sort-order', 'i'], /--sort-order needs --strategy sort or --strategy zorder/],
    [['--strategy', 'binpack', '--columns', 'i'], /--columns needs --strategy sort or --strategy zorder/],
    [['--strategy', 'sort', '--columns', 'i'], /--columns is for --strategy zorder/],
    [['--strategy', 'zorder', '--sort-order', 'i'], /--strategy zorder takes --columns/],
    [['--strategy', 'sort', '--full'], /-o rewrite-all=true/],
    [['--strategy', 'sort'], /the table has no sort order; give one with --sort-order/],
    [['--strategy', 'sort', '--sort-order', 'nope DESC'], /sort column nope is not in the current schema/],
    [['--strategy', 'zorder'], /--strategy zorder needs --columns a,b/],
    [['--strategy', 'sort', '--sort-order', 'bucket(i, 4)'], /sort transform bucket on i is not supported/],
    [['--strategy', 'sort', '--sort-order', 'i', '--sort-memory', '0'], /--sort-memory must be a positive size/],
  ])('Iceberg %j exits 2', async (flags, message) => {
    const r = await floe('compact', iceberg.dir, ...flags, '--dry-run', '--progress', 'none');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('plans a sort and a z-order rewrite (dry run)', async () => {
    const s = await floe(
      'compact',
      iceberg.dir,
      '--strategy',
      'sort',
      '--sort-order',
      'i DESC',
      '-o',
      'rewrite-all=true',
      '--dry-run',
      '--explain',
      '--progress',
      'none',
    );
    expect(s.stderr).toBe('');
    expect(s.code).toBe(0);
    expect(s.stdout).toContain('i DESC NULLS LAST');
    const z = await floe(
      'compact',
      iceberg.dir,
      '--strategy',
      'zorder',
      '--columns',
      'i',
      '-o',
      'rewrite-all=true',
      '-o',
      'var-length-contribution=4',
      '--dry-run',
      '--explain',
      '--progress',
      'none',
    );
    expect(z.code).toBe(0);
    expect(z.stdout).toContain('zorder(i)');
  });
});
