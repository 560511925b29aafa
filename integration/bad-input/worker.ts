/**
 * Child process of corpus.test.ts: runs the corpus's (case, command) pairs from a start index on, each on a
 * fresh copy of its fixture, and reports every outcome over IPC. Running in a child lets the parent kill a
 * run that hangs (even in a synchronous loop) and carry on with the next one.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { argsFor, buildCorpus, fixturesRoot, type BadCase, type Command } from './corpus.js';
import { runFloeInProcess } from './run-floe.js';

export interface PairResult {
  index: number;
  caseId: string;
  command: Command;
  code: number;
  stderr: string;
  stdoutBytes: number;
  crash?: string;
  /** Files created, changed or removed by the command (relative to the table). */
  wrote: string[];
  /** The mutation itself failed (a corpus bug, not a floe bug). */
  setupError?: string;
}

export function pairsOf(seed: number): { caseIndex: number; command: Command }[] {
  const out: { caseIndex: number; command: Command }[] = [];
  buildCorpus(seed).forEach((c, i) => {
    for (const command of c.commands) out.push({ caseIndex: i, command });
  });
  return out;
}

/**
 * Not table content: floe's table lease (src/lease/lease.ts) is coordination state a write command takes
 * before it opens the table, and a released lease record stays behind by design (it is never deleted).
 */
const NOT_TABLE_CONTENT = new Set(['.floe/lease.json']);

/** relative path → size and mtime, for every file under `dir` (the lease record excepted). */
export function treeState(dir: string, rel = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) for (const [k, v] of treeState(dir, r)) out.set(k, v);
    else if (!NOT_TABLE_CONTENT.has(r)) {
      const s = statSync(path.join(dir, r));
      out.set(r, `${s.size}@${s.mtimeMs}`);
    }
  }
  return out;
}

export function diffTrees(a: Map<string, string>, b: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of b) if (a.get(k) !== v) out.push(a.has(k) ? `changed ${k}` : `created ${k}`);
  for (const k of a.keys()) if (!b.has(k)) out.push(`removed ${k}`);
  return out;
}

/** Prepares the broken copy of a case's table; returns its directory. */
export async function brokenCopy(c: BadCase): Promise<{ dir: string; cleanup: () => void }> {
  const root = mkdtempSync(path.join(tmpdir(), 'floe-bad-'));
  const dir = path.join(root, path.basename(c.table));
  cpSync(path.join(fixturesRoot, c.table), dir, { recursive: true });
  await c.mutate(path.join(dir, c.file));
  return { dir, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

async function main(): Promise<void> {
  const seed = Number(process.argv[2]);
  const from = Number(process.argv[3] ?? 0);
  const corpus = buildCorpus(seed);
  const pairs = pairsOf(seed);
  for (let index = from; index < pairs.length; index++) {
    const { caseIndex, command } = pairs[index]!;
    const c = corpus[caseIndex]!;
    let copy: { dir: string; cleanup: () => void } | undefined;
    let result: PairResult;
    try {
      copy = await brokenCopy(c);
      const before = treeState(copy.dir);
      process.send!({ started: index });
      const run = await runFloeInProcess(argsFor(command, copy.dir));
      const after = treeState(copy.dir);
      result = {
        index,
        caseId: c.id,
        command,
        code: run.code,
        stderr: run.stderr.slice(0, 4000),
        stdoutBytes: run.stdout.length,
        ...(run.crash ? { crash: run.crash.slice(0, 2000) } : {}),
        wrote: diffTrees(before, after),
      };
    } catch (e) {
      result = {
        index,
        caseId: c.id,
        command,
        code: -1,
        stderr: '',
        stdoutBytes: 0,
        wrote: [],
        setupError: String((e as Error).stack ?? e),
      };
    } finally {
      copy?.cleanup();
    }
    await new Promise<void>((resolve) => process.send!({ result }, () => resolve()));
  }
  process.disconnect();
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main().catch((e) => {
    process.stderr.write(`bad-input worker failed: ${(e as Error).stack ?? e}\n`);
    process.exit(70);
  });
}
