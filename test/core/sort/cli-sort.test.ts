/**
 * Issue 14.4, CLI: `floe compact --strategy sort|zorder` with `--sort-order`, `--columns`, `--sort-memory`,
 * `--spill-dir`; without a sort strategy the flags are refused (Iceberg and Paimon); on Paimon the strategies are
 * Paimon's sort compaction (append tables only; a primary-key table is refused) and `hilbert` is Paimon-only;
 * an unsorted table without `--sort-order` is refused before anything is written.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture, floe } from '../../shells/cli/support.js';

const iceberg = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
const paimon = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
afterAll(() => {
  iceberg.cleanup();
  paimon.cleanup();
});

describe('floe compact --strategy sort|zorder', () => {
  it.each([
    [['--strategy', 'binpack'], /--strategy .*(does|do) not apply to Paimon tables/],
    [['--sort-order', 'a'], /--sort-order needs --strategy sort, zorder or hilbert/],
    [['--columns', 'a'], /--columns needs --strategy sort, zorder or hilbert/],
    [['--sort-memory', '1MB'], /--sort-memory needs --strategy sort, zorder or hilbert/],
  ])('Paimon %j is refused (exit 2)', async (flags, message) => {
    const r = await floe('compact', paimon.dir, ...flags, '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('Paimon sort compaction refuses a primary-key table (exit 1, naming the key); hilbert is Paimon-only', async () => {
    const pk = await floe('compact', paimon.dir, '--strategy', 'zorder', '--columns', 'f1,f2', '--dry-run');
    expect(pk.code).toBe(1);
    expect(pk.stderr).toMatch(/cannot sort-compact Paimon table .*primary key/);
    const h = await floe('compact', iceberg.dir, '--strategy', 'hilbert', '--columns', 'i,j', '--dry-run');
    expect(h.code).toBe(2);
    expect(h.stderr).toMatch(/--strategy hilbert is Paimon's sort compaction/);
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
