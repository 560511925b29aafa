/**
 * Issue 14.3: `floe compact --deletes-only` (Spark rewrite_position_delete_files) through the real CLI: the
 * JSON result is schema-valid with `position-deletes` tasks, a dry run writes nothing, and flags that mean a
 * data rewrite are refused before anything is read.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture, floe, resultOf } from './support.js';
import { loadTableModel, openIcebergTable } from '../../../connectors/iceberg/table.js';

const pos = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
afterAll(() => pos.cleanup());
const quiet = ['--json', '--progress', 'none'];

const deleteFiles = async (dir: string) =>
  (await loadTableModel(await openIcebergTable(dir))).deleteFiles.map((d) => d.path).sort();

describe('compact --deletes-only', () => {
  it('dry run, then a real run with -o rewrite-all=true: schema-valid, delete files only', async () => {
    const before = await deleteFiles(pos.dir);
    expect(before.length).toBeGreaterThan(0);
    const dry = await floe('compact', pos.dir, '--deletes-only', '-o', 'rewrite-all=true', '--dry-run', ...quiet);
    expect(dry.code, dry.stderr).toBe(0);
    const d = resultOf(dry.stdout);
    const tasks = d.tasks as { kind: string; outcome: string }[];
    expect(tasks.length).toBeGreaterThan(0);
    expect(tasks.every((t) => t.kind === 'position-deletes' && t.outcome === 'planned')).toBe(true);
    expect(await deleteFiles(pos.dir), 'dry run wrote nothing').toEqual(before);

    const dataBefore = (await loadTableModel(await openIcebergTable(pos.dir))).dataFiles.map((f) => f.path).sort();
    const real = await floe('compact', pos.dir, '--deletes-only', '-o', 'rewrite-all=true', ...quiet);
    expect(real.code, real.stderr).toBe(0);
    const r = resultOf(real.stdout);
    expect((r.tasks as { outcome: string }[]).every((t) => t.outcome === 'committed')).toBe(true);
    expect((r.snapshots as string[]).length).toBe(1);
    expect(await deleteFiles(pos.dir)).not.toEqual(before);
    expect(
      (await loadTableModel(await openIcebergTable(pos.dir))).dataFiles.map((f) => f.path).sort(),
      'no data rewritten',
    ).toEqual(dataBefore);
  });

  for (const flag of [['--full'], ['--strategy', 'binpack'], ['--only-dangling-deletes'], ['--partial-progress']]) {
    it(`refuses --deletes-only with ${flag[0]} (exit 2)`, async () => {
      const r = await floe('compact', pos.dir, '--deletes-only', ...flag, ...quiet);
      expect(r.code).toBe(2);
      expect(resultOf(r.stdout)).toMatchObject({ status: 'usage-error', error: { kind: 'InvalidArgument' } });
    });
  }
});
