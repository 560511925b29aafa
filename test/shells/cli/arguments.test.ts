/**
 * Issue 13.1 (CLI side), 13.2, 13.10, 13.11, 13.17: every bad argument exits 2 with a message that helps;
 * options that do not apply to the table's format are refused naming the format; unknown `-o` keys are
 * refused with a suggestion; missing paths and non-table directories say what is (not) there.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { knownOptionKeys, suggestKey } from '../../../src/shells/cli/known-options.js';
import { BINPACK_KEYS, TIERED_KEYS } from '../../../src/core/planning/policy.js';
import { UNIVERSAL_OPTION_KEYS } from '../../../src/core/planning/universal/options.js';
import { copyFixture, floe, resultOf } from './support.js';

const iceberg = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
const paimon = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
/** Unpartitioned, four small data files and two position-delete files: a minor task once the trigger is 2. */
const smallFiles = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
const scratch = mkdtempSync(path.join(tmpdir(), 'floe-cli-args-'));
afterAll(() => {
  iceberg.cleanup();
  paimon.cleanup();
  smallFiles.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

describe('commander errors are usage errors (exit 2, was 1)', () => {
  it.each([
    [['compact', iceberg.dir, '--no-such-flag']],
    [['compact']],
    [['no-such-command']],
    [['expire', iceberg.dir, '--retain-last']],
    [['inspect', iceberg.dir, 'extra-argument']],
  ])('floe %j', async (args) => {
    const r = await floe(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error:/);
  });
  it('--help and --version exit 0', async () => {
    expect((await floe('--version')).code).toBe(0);
    expect((await floe('--help')).code).toBe(0);
    expect((await floe('compact', '--help')).code).toBe(0);
  });
  it('with --json a usage error still prints one result document', async () => {
    const r = await floe('compact', iceberg.dir, '--no-such-flag', '--json');
    expect(r.code).toBe(2);
    const doc = resultOf(r.stdout);
    expect(doc).toMatchObject({
      command: 'compact',
      exitCode: 2,
      status: 'usage-error',
      error: { kind: 'InvalidArgument' },
    });
  });
});

describe('-o keys: the known set comes from the planners; unknown keys are refused (13.2)', () => {
  it('the known set holds every key the planners read', () => {
    const ice = knownOptionKeys('iceberg');
    for (const k of [...Object.values(TIERED_KEYS), ...Object.values(BINPACK_KEYS)]) expect(ice.has(k), k).toBe(true);
    for (const k of [
      'partial-progress.enabled',
      'max-concurrent-file-group-rewrites',
      'remove-dangling-deletes',
      'floe.rewrite.stitch.enabled',
    ])
      expect(ice.has(k), k).toBe(true);
    const pai = knownOptionKeys('paimon');
    for (const k of UNIVERSAL_OPTION_KEYS) expect(pai.has(k), k).toBe(true);
    expect(pai.has('target-file-size')).toBe(true);
    expect(suggestKey('self-optimizing.target-sise', ice)).toBe('self-optimizing.target-size');
  });
  it('-o no-such-property=5 exits 2', async () => {
    const r = await floe('compact', iceberg.dir, '-o', 'no-such-property=5', '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/-o no-such-property: unknown option for Iceberg compaction/);
  });
  it('a typo gets "did you mean"', async () => {
    const r = await floe('compact', iceberg.dir, '-o', 'self-optimizing.fragment-ration=4', '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/did you mean self-optimizing\.fragment-ratio\?/);
    const p = await floe('compact', paimon.dir, '-o', 'num-sorted-run.compaction-triger=3', '--dry-run');
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(
      /unknown option for Paimon compaction — did you mean num-sorted-run\.compaction-trigger\?/,
    );
  });
  it('a key of the other format names it', async () => {
    const r = await floe('compact', paimon.dir, '-o', 'self-optimizing.target-size=134217728', '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/applies to Iceberg tables; the table is Paimon/);
  });
  it('known keys are accepted (Iceberg and Paimon)', async () => {
    expect(
      (
        await floe(
          'compact',
          iceberg.dir,
          '-o',
          'self-optimizing.minor.trigger.file-count=2',
          '--dry-run',
          '--progress',
          'none',
        )
      ).code,
    ).toBe(0);
    expect(
      (
        await floe(
          'compact',
          paimon.dir,
          '-o',
          'num-sorted-run.compaction-trigger=3',
          '--dry-run',
          '--progress',
          'none',
        )
      ).code,
    ).toBe(0);
  });
});

describe('options that do not apply to the table format are refused, naming it (13.1)', () => {
  it.each([
    [['--strategy', 'binpack'], '--strategy'],
    [['--partial-progress'], '--partial-progress'],
    [['--only-dangling-deletes'], '--only-dangling-deletes'],
    [['--remove-dangling-deletes'], '--remove-dangling-deletes'],
    [['--no-dangling-deletes'], '--no-dangling-deletes'],
    [['--max-concurrent-groups', '4'], '--max-concurrent-groups'],
    [['-o', 'partial-progress.enabled=true'], '--partial-progress'],
  ])('Paimon compact %j', async (flags, named) => {
    const r = await floe('compact', paimon.dir, ...flags, '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(named);
    expect(r.stderr).toMatch(/does not apply to Paimon tables/);
  });
  it('expire --no-clean-files on Paimon is refused', async () => {
    const r = await floe('expire', paimon.dir, '--no-clean-files', '--dry-run', '--older-than', '1d');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--no-clean-files does not apply to Paimon tables/);
  });
  it('remove-orphans --location on Paimon is refused', async () => {
    const r = await floe('remove-orphans', paimon.dir, '--location', `${paimon.dir}/bucket-0`, '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--location does not apply to Paimon tables/);
  });
  it('--full with --strategy tiered contradicts itself', async () => {
    const r = await floe('compact', iceberg.dir, '--full', '--strategy', 'tiered', '--dry-run');
    expect(r.code).toBe(2);
  });
});

describe('--where and --full reach the job on both formats (13.1)', () => {
  it('Paimon --full --where "f1 = 20" compacts only that partition', async () => {
    const r = await floe(
      'compact',
      paimon.dir,
      '--full',
      '--where',
      'f1 = 20',
      '--dry-run',
      '--json',
      '--progress',
      'none',
    );
    expect(r.code, r.stderr).toBe(0);
    const doc = resultOf(r.stdout) as { paimon: { buckets: { partition: unknown[]; compact: boolean }[] } };
    const chosen = doc.paimon.buckets.filter((b) => b.compact).map((b) => JSON.stringify(b.partition));
    expect(chosen.every((p) => p === '[20]')).toBe(true);
    expect(doc.paimon.buckets.filter((b) => JSON.stringify(b.partition) === '[10]').every((b) => !b.compact)).toBe(
      true,
    );
  });
  it('Paimon --where on a non-partition column is refused (exit 2)', async () => {
    const r = await floe('compact', paimon.dir, '--where', 'f3 > 1', '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a partition column/);
  });
  it('Iceberg --full plans a rewrite of every file', async () => {
    const r = await floe('compact', smallFiles.dir, '--full', '--dry-run', '--json', '--progress', 'none');
    expect(r.code, r.stderr).toBe(0);
    const doc = resultOf(r.stdout) as { tasks: { inputFiles: number }[]; before: { dataFiles: number } };
    expect(doc.tasks.reduce((n, t) => n + t.inputFiles, 0)).toBe(doc.before.dataFiles);
  });
});

describe('flag names (13.17)', () => {
  it("--only-dangling-deletes is floe's \"only drop dangling deletes\"; Spark's --remove-dangling-deletes keeps Spark's meaning", async () => {
    const eager = ['-o', 'self-optimizing.minor.trigger.file-count=2'];
    const only = await floe(
      'compact',
      smallFiles.dir,
      '--only-dangling-deletes',
      ...eager,
      '--dry-run',
      '--json',
      '--progress',
      'none',
    );
    expect(only.code).toBe(0);
    expect(resultOf(only.stdout).tasks).toEqual([]); // rewrites nothing
    const spark = await floe(
      'compact',
      smallFiles.dir,
      '--remove-dangling-deletes',
      ...eager,
      '--dry-run',
      '--json',
      '--progress',
      'none',
    );
    expect(spark.code).toBe(0);
    expect((resultOf(spark.stdout).tasks as unknown[]).length).toBeGreaterThan(0); // rewrites, then drops
    const clash = await floe('compact', iceberg.dir, '--remove-dangling-deletes', '--no-dangling-deletes', '--dry-run');
    expect(clash.code).toBe(2);
  });
  it("Spark's max-concurrent-file-group-rewrites is accepted as flag and as -o; both together are refused", async () => {
    expect(
      (
        await floe(
          'compact',
          iceberg.dir,
          '--max-concurrent-file-group-rewrites',
          '3',
          '--dry-run',
          '--progress',
          'none',
        )
      ).code,
    ).toBe(0);
    expect(
      (
        await floe(
          'compact',
          iceberg.dir,
          '-o',
          'max-concurrent-file-group-rewrites=3',
          '--dry-run',
          '--progress',
          'none',
        )
      ).code,
    ).toBe(0);
    const both = await floe(
      'compact',
      iceberg.dir,
      '--max-concurrent-groups',
      '2',
      '-o',
      'max-concurrent-file-group-rewrites=3',
      '--dry-run',
    );
    expect(both.code).toBe(2);
    const zero = await floe('compact', iceberg.dir, '--max-concurrent-groups', '0', '--dry-run');
    expect(zero.code).toBe(2);
  });
});

describe('what is at the path (13.10)', () => {
  it('a missing path says it does not exist (exit 1)', async () => {
    const missing = path.join(scratch, 'no-such-table');
    for (const cmd of ['inspect', 'compact', 'expire', 'remove-orphans', 'rewrite-manifests', 'scan']) {
      const r = await floe(cmd, missing, ...(cmd === 'scan' || cmd === 'inspect' ? [] : ['--dry-run']));
      expect(r.code, cmd).toBe(1);
      expect(r.stderr, cmd).toContain(`${missing} does not exist`);
      expect(r.stderr, cmd).not.toMatch(/no Iceberg table/);
    }
  });
  it('a directory that is no table says what floe looked for', async () => {
    const dir = path.join(scratch, 'not-a-table');
    mkdirSync(path.join(dir, 'data'), { recursive: true });
    writeFileSync(path.join(dir, 'notes.txt'), 'hello');
    const r = await floe('inspect', dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/looked for an Iceberg table \(metadata\/.*\) and a Paimon table \(schema\/schema-<N>\)/);
    expect(r.stderr).not.toMatch(/does not exist/);
  });
  it('rewrite-manifests on a Paimon table says the command is Iceberg-only (exit 2)', async () => {
    const r = await floe('rewrite-manifests', paimon.dir, '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/rewrite-manifests is Iceberg-only; .* is a Paimon table/);
  });
});
