/**
 * The tiered planner's input budget is per rewrite thread, as Amoro's is per optimizer thread
 * (max-input-file-size-per-thread × threads): `floe compact --parallelism N` (default: the core count) plans
 * an N-thread budget, unless -o or the table sets self-optimizing.available-cores (floe serve sets it to 1).
 */
import * as os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { plannerThreads, withPlannerThreads } from '../../src/app/planner-threads.js';
import { compactTable } from '../../src/app/compact.js';
import { smallTable, type SmallTable } from '../distributed/small-table.js';
import { floe, resultOf } from '../shells/cli/support.js';

const MiB = 1024 * 1024;
const KEY = 'self-optimizing.available-cores';
const PER_THREAD = 'self-optimizing.max-input-file-size-per-thread';

const tables: SmallTable[] = [];
afterEach(() => {
  for (const t of tables.splice(0)) t.cleanup();
});

type Step = { gate: string; detail: string; values?: Record<string, unknown> };
function budgetStep(doc: Record<string, unknown>): Step {
  const trail = (doc.plan as { trail: Step[] }).trail;
  const step = trail.find((s) => s.gate === 'budget');
  if (!step) throw new Error(`no budget step in ${JSON.stringify(trail).slice(0, 1000)}`);
  return step;
}

/** 14 appends: 14 small files in each of 2 partitions, so both need a minor optimize (trigger: 12 files). */
async function table(): Promise<SmallTable> {
  const t = await smallTable(14, 4);
  tables.push(t);
  return t;
}

describe('withPlannerThreads', () => {
  it('sets the run thread count; -o and a table property win; the input is not changed', () => {
    const opts = { 'min-input-files': '2' };
    expect(withPlannerThreads(opts, {}, 3)).toEqual({ 'min-input-files': '2', [KEY]: '3' });
    expect(opts).toEqual({ 'min-input-files': '2' });
    expect(withPlannerThreads({ [KEY]: '1' }, {}, 3)).toEqual({ [KEY]: '1' });
    expect(withPlannerThreads({}, { [KEY]: '5' }, 3)).toEqual({});
    expect(withPlannerThreads({}, {}, 'auto')).toEqual({ [KEY]: String(os.availableParallelism()) });
  });

  it('auto and unset are the core count; a number is floored and at least 1', () => {
    expect(plannerThreads(undefined)).toBe(os.availableParallelism());
    expect(plannerThreads('auto')).toBe(os.availableParallelism());
    expect(plannerThreads(2.7)).toBe(2);
    expect(plannerThreads(0)).toBe(1);
  });
});

describe('floe compact --strategy tiered: the input budget is per --parallelism thread', () => {
  it('the decision trail shows the budget with --parallelism and, by default, the core count', async () => {
    const t = await table();
    const three = await floe('compact', t.dir, '--dry-run', '--json', '--parallelism', '3');
    expect(three.code).toBe(0);
    const s3 = budgetStep(resultOf(three.stdout));
    expect(s3.values).toMatchObject({ budget: 3 * 512 * MiB });
    expect(s3.detail).toContain(`(max-input-file-size-per-thread ${512 * MiB} × 3 cores)`);

    const dflt = await floe('compact', t.dir, '--dry-run', '--json');
    const cores = os.availableParallelism();
    const sd = budgetStep(resultOf(dflt.stdout));
    expect(sd.values).toMatchObject({ budget: cores * 512 * MiB });
    expect(sd.detail).toContain(`× ${cores} cores`);

    // an explicit -o self-optimizing.available-cores is kept
    const one = await floe('compact', t.dir, '--dry-run', '--json', '--parallelism', '3', '-o', `${KEY}=1`);
    expect(budgetStep(resultOf(one.stdout)).values).toMatchObject({ budget: 512 * MiB });
  });

  it('a second thread takes the partition one thread defers', async () => {
    const t = await table();
    // each partition costs 14 × 4 MiB (read.split.open-file-cost) + its bytes ≈ 56 MiB
    const args = (p: string) => [
      'compact',
      t.dir,
      '--dry-run',
      '--json',
      '--parallelism',
      p,
      '-o',
      `${PER_THREAD}=${40 * MiB}`,
    ];
    const one = resultOf((await floe(...args('1'))).stdout);
    expect(budgetStep(one).values).toMatchObject({ budget: 40 * MiB, deferredPartitions: 1 });
    expect((one.tasks as unknown[]).length).toBe(1);
    const two = resultOf((await floe(...args('2'))).stdout);
    expect(budgetStep(two).values).toMatchObject({ budget: 80 * MiB, deferredPartitions: 0 });
    expect((two.tasks as unknown[]).length).toBe(2);
  });

  it('runs on 2 worker threads with the 2-thread plan (the workers plan the same tasks) and keeps the rows', async () => {
    const t = await table();
    const rows = await t.rows();
    const r = await floe('compact', t.dir, '--json', '--parallelism', '2', '-o', `${PER_THREAD}=${40 * MiB}`);
    expect(r.code).toBe(0);
    const doc = resultOf(r.stdout);
    expect(budgetStep(doc).values).toMatchObject({ budget: 80 * MiB, deferredPartitions: 0 });
    expect(doc.failedTasks).toEqual([]);
    expect((doc.committedTasks as string[]).length).toBe(2);
    expect((await t.shape()).dataFiles).toBe(2);
    expect(await t.rows()).toEqual(rows);
  });

  it("floe serve's layering (available-cores 1 in the job properties) keeps maxBytesPerRun the whole budget", async () => {
    const t = await table();
    const run = await compactTable(t.dir, {
      dryRun: true,
      parallelism: 2,
      options: { [PER_THREAD]: String(40 * MiB), [KEY]: '1' },
    });
    expect(run.format).toBe('iceberg');
    const trail = run.format === 'iceberg' ? run.report.plan.trail : [];
    expect(trail.find((s) => s.gate === 'budget')!.values).toMatchObject({ budget: 40 * MiB, deferredPartitions: 1 });
  });
});
