/**
 * Sort and z-order compaction against bin-pack of the same table, in one run: the `rewrite` benchmark's
 * small-files table (bench/rewrite.ts) is built once and copied afresh for each case, and each case runs in
 * its own child process so its peak RSS (VmHWM) is its own. Cases: bin-pack, sort by `region, id`, z-order on
 * `qty, score`. Reports wall time and peak RSS, each as a ratio to bin-pack; `--reps N` (default 3) runs the
 * cases interleaved and prints medians.
 *
 * Flags: --files N, --rows N (as `rewrite`), --reps N.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInput, CHILD_STRATEGIES, runChild, type CaseResult } from './rewrite.js';
import { numberFlag, type Benchmark, type BenchContext, type BenchResult } from './types.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const bench: Benchmark = {
  name: 'sort',
  description: 'sort and z-order compaction vs bin-pack of the same small-files table (time and peak RSS ratios)',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const files = numberFlag(ctx.flags, 'files', 200);
    const rows = numberFlag(ctx.flags, 'rows', 1_500_000);
    const reps = numberFlag(ctx.flags, 'reps', 3);
    const root = mkdtempSync(path.join(os.tmpdir(), 'floe-bench-sort-'));
    const rewriteChild = path.join(
      path.dirname(fileURLToPath(import.meta.url)),
      `rewrite${path.extname(fileURLToPath(import.meta.url))}`,
    );
    const results: Record<string, CaseResult[]> = {};
    try {
      const input = await buildInput(root, files, rows, ctx.log);
      for (let rep = 0; rep < reps; rep++) {
        for (const name of Object.keys(CHILD_STRATEGIES)) {
          const copy = path.join(root, `case-${name}-${rep}`);
          cpSync(input.dir, copy, { recursive: true });
          ctx.log(`sort bench: ${name} (rep ${rep + 1}/${reps}) …`);
          (results[name] ??= []).push(
            await runChild(process.execPath, [rewriteChild, '--floe-rewrite-child', copy, name]),
          );
          rmSync(copy, { recursive: true, force: true });
        }
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    const base = results.binpack!;
    const baseMs = median(base.map((r) => r.ms));
    const baseRss = median(base.map((r) => r.maxRssBytes));
    const out = Object.entries(results).map(([name, rs]) => {
      const ms = median(rs.map((r) => r.ms));
      const rss = median(rs.map((r) => r.maxRssBytes));
      return {
        strategy: name,
        'median s': (ms / 1000).toFixed(2),
        'time vs binpack': (ms / baseMs).toFixed(2),
        'peak RSS MB': (rss / 1e6).toFixed(0),
        'RSS vs binpack': (rss / baseRss).toFixed(2),
        rows: rs[0]!.rows,
      };
    });
    return {
      rows: out,
      notes: [
        `${files} input files, ${rows} rows; ${reps} interleaved repetitions, medians; each case compacts a fresh copy in its own process`,
      ],
      data: results,
    };
  },
};

export default bench;
