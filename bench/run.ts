/**
 * `npm run bench [-- <name>...] [--json] [--<flag> value]`: runs the registered benchmarks (all when no
 * name is given) and prints one table each, or everything as JSON with --json.
 * To add a benchmark: write bench/<name>.ts exporting a default `Benchmark`, and add one line below.
 */
import { renderTable } from '../src/core/simulate/report.js';
import planTiered from './plan-tiered.js';
import planRealMetadata from './plan-real-metadata.js';
import rewrite from './rewrite.js';
import orphans from './orphans.js';
import stitch from './stitch.js';
import sort from './sort.js';
import startup from './startup.js';
import compact1gb from './compact-1gb.js';
import bullmqWorkers from './bullmq-workers.js';
import live from './live.js';
import deletes from './deletes.js';
import hugeMetadata from './huge-metadata.js';
import estimate from './estimate.js';
import type { Benchmark, BenchContext } from './types.js';

const BENCHMARKS: Benchmark[] = [
  planTiered,
  planRealMetadata,
  orphans,
  rewrite,
  stitch,
  sort,
  startup,
  compact1gb,
  bullmqWorkers,
  live,
  deletes,
  hugeMetadata,
  estimate,
  // (next benchmark here)
];

function parseArgs(argv: string[]): { names: string[]; flags: BenchContext['flags'] } {
  const names: string[] = [];
  const flags: BenchContext['flags'] = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const [k, inline] = a.slice(2).split('=', 2) as [string, string | undefined];
      const next = argv[i + 1];
      if (inline !== undefined) flags[k] = inline;
      else if (next !== undefined && !next.startsWith('--')) {
        flags[k] = next;
        i++;
      } else flags[k] = true;
    } else names.push(a);
  }
  return { names, flags };
}

async function main(): Promise<void> {
  const { names, flags } = parseArgs(process.argv.slice(2));
  if (flags.list) {
    for (const b of BENCHMARKS) process.stdout.write(`${b.name}\t${b.description}\n`);
    return;
  }
  const unknown = names.filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (unknown.length > 0)
    throw new Error(`unknown benchmark(s) ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}`);
  const chosen = names.length > 0 ? BENCHMARKS.filter((b) => names.includes(b.name)) : BENCHMARKS;
  const ctx: BenchContext = { flags, log: (m) => process.stderr.write(`${m}\n`) };
  const all: Record<string, unknown> = {};
  for (const b of chosen) {
    const r = await b.run(ctx);
    if (flags.json) {
      all[b.name] = { rows: r.rows, notes: r.notes ?? [], data: r.data };
      continue;
    }
    const header = Object.keys(r.rows[0] ?? {});
    process.stdout.write(`\n${b.name}: ${b.description}\n\n`);
    process.stdout.write(
      `${renderTable(
        header,
        r.rows.map((row) => header.map((h) => String(row[h] ?? ''))),
      )}\n`,
    );
    for (const n of r.notes ?? []) process.stdout.write(`  ${n}\n`);
  }
  if (flags.json) {
    const node = { node: process.version, platform: `${process.platform}-${process.arch}` };
    process.stdout.write(
      `${JSON.stringify({ ...node, benchmarks: all }, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`,
    );
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
