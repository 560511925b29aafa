/**
 * Plans a synthetic 1,000,000-data-file table with the tiered planner and measures time and memory,
 * next to two peers on the same table in the same process: the bin-pack planner, and a plain sort of
 * the files by (partition, size) — the floor any planner that groups files by partition pays.
 *
 * Flags: --files N (default 1,000,000), --partitions N (2,000), --repeat N (1; the median is reported).
 */
import { planBinpack } from '../src/core/planning/binpack/index.js';
import { binpackOptionsFrom, tieredPolicyFromProperties } from '../src/core/planning/policy.js';
import { planTiered } from '../src/core/planning/tiered/index.js';
import type { Plan } from '../src/core/planning/plan.js';
import type { DataFile } from '../model/index.js';
import { measure, RssSampler, type Measurement } from './measure.js';
import { buildSyntheticTable, DEFAULT_SYNTHETIC } from './synthetic-table.js';
import { numberFlag, type Benchmark, type BenchResult } from './types.js';

const MiB = 1024 * 1024;
const NOW_MS = Date.UTC(2025, 0, 2);

function mib(n: number): number {
  return Math.round((n / MiB) * 10) / 10;
}

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

interface CaseResult {
  name: string;
  runs: Measurement[];
  tasks?: number;
  inputFiles?: number;
}

const benchmark: Benchmark = {
  name: 'plan-tiered',
  description: 'tiered planner on a synthetic 1M-data-file table, against bin-pack and a plain sort',
  async run(ctx): Promise<BenchResult> {
    const files = numberFlag(ctx.flags, 'files', DEFAULT_SYNTHETIC.dataFiles);
    const partitions = numberFlag(ctx.flags, 'partitions', DEFAULT_SYNTHETIC.partitions);
    const repeat = numberFlag(ctx.flags, 'repeat', 1);
    const sampler = new RssSampler();
    try {
      ctx.log(`building a ${files}-file table over ${partitions} partitions …`);
      let built: ReturnType<typeof buildSyntheticTable> | undefined;
      const build = await measure(
        sampler,
        () => buildSyntheticTable({ ...DEFAULT_SYNTHETIC, dataFiles: files, partitions }),
        (r) => (built = r),
      );
      const { table, facts } = built!;

      const tieredPolicy = tieredPolicyFromProperties({});
      const binpackOptions = binpackOptionsFrom({ 'target-file-size-bytes': String(128 * MiB) });
      const cases: {
        name: string;
        step: () => unknown;
        describe?: (r: unknown) => Pick<CaseResult, 'tasks' | 'inputFiles'>;
      }[] = [
        {
          name: 'sort by partition, size (floor)',
          step: () =>
            table.dataFiles
              .slice()
              .sort(
                (a: DataFile, b: DataFile) =>
                  (a.partition[0] as number) - (b.partition[0] as number) || a.sizeBytes - b.sizeBytes,
              ),
        },
        { name: 'tiered (floe defaults)', step: () => planTiered(table, tieredPolicy, NOW_MS), describe: planFacts },
        {
          name: 'bin-pack (Spark defaults, 128 MiB)',
          step: () => planBinpack(table, binpackOptions, NOW_MS),
          describe: planFacts,
        },
      ];
      const results: CaseResult[] = [];
      for (const c of cases) {
        const runs: Measurement[] = [];
        let last: unknown;
        for (let i = 0; i < repeat; i++) {
          ctx.log(`${c.name}: run ${i + 1}/${repeat} …`);
          last = undefined; // the previous run's result must not count as "before"
          runs.push(await measure(sampler, c.step, (r) => (last = r)));
        }
        results.push({ name: c.name, runs, ...(c.describe ? c.describe(last) : {}) });
        last = undefined;
      }

      const floorMs = median(results[0]!.runs.map((r) => r.ms));
      const binpackMs = median(results[2]!.runs.map((r) => r.ms));
      const rows = results.map((r) => {
        const ms = median(r.runs.map((x) => x.ms));
        const worst = r.runs.reduce((a, b) => (b.peakRssBytes > a.peakRssBytes ? b : a));
        const retained = median(r.runs.map((x) => x.heapRetainedBytes - x.heapBeforeBytes));
        return {
          case: r.name,
          'time ms': Math.round(ms),
          '× sort': Math.round((ms / floorMs) * 10) / 10,
          '× bin-pack': Math.round((ms / binpackMs) * 100) / 100,
          'peak RSS MiB': mib(worst.peakRssBytes),
          'RSS growth MiB': mib(worst.peakRssBytes - worst.rssBeforeBytes),
          'heap before MiB': mib(worst.heapBeforeBytes),
          'heap after MiB': mib(worst.heapAfterBytes),
          'retained MiB': mib(retained),
          tasks: r.tasks ?? '',
          'input files': r.inputFiles ?? '',
        };
      });
      return {
        rows,
        notes: [
          `table: ${facts.dataFiles} data files (${facts.fragments} fragments, ${facts.undersized} undersized, ${facts.targetSized} target-sized; ${mib(facts.totalBytes)} MiB), ` +
            `${facts.deleteFiles} delete files, ${facts.partitions} partitions; built in ${Math.round(build.ms)} ms, table heap ${mib(build.heapRetainedBytes - build.heapBeforeBytes)} MiB`,
          `tiered caps one plan at self-optimizing.max-file-count (${tieredPolicy.maxFileCount}) input files but evaluates every file; bin-pack plans every candidate`,
          `time and retained: median of ${repeat} run(s); peak RSS and heap: the run with the highest peak RSS`,
          'retained = heap after a full GC with the result still referenced, minus heap before; RSS sampled every ~2 ms by a worker thread',
        ],
        data: { facts, buildMs: build.ms, cases: results },
      };
    } finally {
      await sampler.stop();
    }
  },
};

function planFacts(r: unknown): { tasks: number; inputFiles: number } {
  const plan = r as Plan;
  let inputFiles = 0;
  for (const t of plan.tasks) inputFiles += t.inputs.length;
  return { tasks: plan.tasks.length, inputFiles };
}

export default benchmark;
