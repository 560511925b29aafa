/**
 * Bad-input corpus (issue 9): every corrupted copy of a real table makes every floe command that reads the
 * broken file refuse — exit 1 or 2, never a crash with a stack trace, never exit 0, never a hang — with a
 * message naming the file, and without writing anything to the table. (Compacting a table with one corrupt
 * data or delete file fails the task that reads it; other tasks may still commit, exit 3, by design.)
 *
 * The pairs run in a child process (worker.ts) that the test can kill when one hangs; a sample also runs
 * through the real CLI entry point (src/shells/cli/main.ts) to check that its exit codes and output match.
 */
import { spawnSync, fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { argsFor, buildCorpus, fixturesRoot, repoRoot, type BadCase } from './corpus.js';
import { brokenCopy, diffTrees, pairsOf, treeState, type PairResult } from './worker.js';

const SEED = Number(process.env.FLOE_BAD_INPUT_SEED ?? 20261201);
/** One pair taking longer than this is a hang (each takes well under a second). */
const HANG_MS = 60_000;

function runAll(): Promise<PairResult[]> {
  const pairs = pairsOf(SEED);
  const corpus = buildCorpus(SEED);
  const results: PairResult[] = [];
  const worker = path.join(repoRoot, 'integration/bad-input/worker.ts');
  return new Promise((resolve) => {
    const start = (from: number): void => {
      if (from >= pairs.length) return resolve(results);
      const child: ChildProcess = fork(worker, [String(SEED), String(from)], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      let current = from;
      let stderr = '';
      child.stderr!.on('data', (d) => void (stderr += String(d)));
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
      };
      arm();
      child.on('message', (m: { started?: number; result?: PairResult }) => {
        if (m.started !== undefined) {
          current = m.started;
          arm();
        }
        if (m.result) {
          results.push(m.result);
          current = m.result.index + 1;
          arm();
        }
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (current >= pairs.length) return resolve(results);
        // the pair in flight hung (killed) or took the worker down: record it, continue after it
        const p = pairs[current]!;
        results.push({
          index: current,
          caseId: corpus[p.caseIndex]!.id,
          command: p.command,
          code: -1,
          stderr: stderr.slice(-2000),
          stdoutBytes: 0,
          wrote: [],
          crash:
            signal === 'SIGKILL'
              ? `hang: no result within ${HANG_MS / 1000} s`
              : `worker exited (code ${code}, signal ${signal})`,
        });
        start(current + 1);
      });
    };
    start(0);
  });
}

function verdict(c: BadCase, r: PairResult): string | undefined {
  if (r.setupError) return `corpus setup failed: ${r.setupError.split('\n')[0]}`;
  if (r.crash) return `crash: ${r.crash.split('\n').slice(0, 3).join(' | ')}`;
  const partial = c.expect === 'task-fails' && r.code === 3;
  if (r.code !== 1 && r.code !== 2 && !partial)
    return `exit ${r.code} (expected 1 or 2${c.expect === 'task-fails' ? ' or 3' : ''})${r.stderr ? `: ${r.stderr.trim().split('\n').pop()}` : ''}`;
  if (/^\s+at /m.test(r.stderr)) return 'stack trace printed';
  const names = c.names ?? [path.basename(c.file)];
  const missing = names.filter((n) => !r.stderr.includes(n));
  if (missing.length) return `message does not name ${missing.join(', ')}: ${r.stderr.trim().split('\n').pop()}`;
  // a partial compaction commits its healthy tasks; the broken file itself is never touched
  const touched = partial ? r.wrote.filter((w) => w.endsWith(` ${c.file}`)) : r.wrote;
  if (touched.length) return `wrote to the table: ${touched.slice(0, 5).join(', ')}`;
  return undefined;
}

describe('bad-input corpus', () => {
  it('fixtures are present (the corpus is built from them)', () => {
    expect(existsSync(fixturesRoot), `fixtures missing at ${fixturesRoot}: the bad-input corpus cannot run`).toBe(true);
  });

  it('is deterministic and has at least 200 corrupted inputs', () => {
    const a = buildCorpus(SEED).map((c) => c.id);
    expect(a.length).toBeGreaterThanOrEqual(200);
    expect(new Set(a).size).toBe(a.length);
    expect(buildCorpus(SEED).map((c) => c.id)).toEqual(a);
  });

  it('every command that reads a corrupted file refuses cleanly: exit 1/2, the file named, nothing written', async () => {
    const corpus = buildCorpus(SEED);
    const pairs = pairsOf(SEED);
    const results = await runAll();
    expect(results).toHaveLength(pairs.length);
    const failures: string[] = [];
    const badCases = new Set<number>();
    for (const r of results) {
      const caseIndex = pairs[r.index]!.caseIndex;
      const why = verdict(corpus[caseIndex]!, r);
      if (why) {
        failures.push(`${r.caseId} [${r.command}]: ${why}`);
        badCases.add(caseIndex);
      }
    }
    const line = `bad-input corpus: ${corpus.length - badCases.size}/${corpus.length} inputs refused cleanly (${results.length - failures.length}/${results.length} command runs)`;
    process.stdout.write(`${line}\n`);
    if (failures.length) process.stdout.write(`${failures.join('\n')}\n`);
    expect(failures).toEqual([]);
  }, 1_800_000);

  it('the real CLI entry point gives the same exit codes and prints no stack trace (sample)', async () => {
    const corpus = buildCorpus(SEED);
    const pairs = pairsOf(SEED);
    const main = path.join(repoRoot, 'src/shells/cli/main.ts');
    const sample = pairs.filter((_, i) => i % Math.ceil(pairs.length / 12) === 0);
    const problems: string[] = [];
    for (const p of sample) {
      const c = corpus[p.caseIndex]!;
      const { dir, cleanup } = await brokenCopy(c);
      try {
        const before = treeState(dir);
        const r = spawnSync(process.execPath, ['--import', 'tsx', main, ...argsFor(p.command, dir)], {
          cwd: repoRoot,
          encoding: 'utf8',
          timeout: HANG_MS,
        });
        const wrote = diffTrees(before, treeState(dir));
        // the same verdict as in-process; main.ts prints a stack trace for anything that is not a FloeError
        const why = verdict(c, {
          index: -1,
          caseId: c.id,
          command: p.command,
          code: r.status ?? -1,
          stderr: r.stderr,
          stdoutBytes: r.stdout.length,
          wrote,
        });
        if (why) problems.push(`${c.id} [${p.command}]: ${why}${r.signal ? ` (signal ${r.signal})` : ''}`);
      } finally {
        cleanup();
      }
    }
    process.stdout.write(
      `bad-input corpus via the CLI binary: ${sample.length - new Set(problems.map((x) => x.split(' [')[0])).size}/${sample.length} sampled runs refused cleanly\n`,
    );
    expect(problems).toEqual([]);
  }, 600_000);
});
