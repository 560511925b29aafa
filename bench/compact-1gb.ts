/**
 * `npm run bench -- compact-1gb`: issue 11's comparison on its ~1 GB small-files table (bench/table-1gb.ts):
 * floe compact (bin-pack and tiered) on the table without deletes, with 40 equality-delete files and with
 * 480 position-delete files, against Spark 3.5 `rewrite_data_files` local[2] on the same variant and
 * DuckDB's Parquet→Parquet COPY (threads=1 and 2: the raw bound, no deletes to apply).
 *
 * One run, interleaved: each repetition (--reps, default 3) runs every case once, in an order rotated per
 * repetition; each case works on a fresh copy of the table in its own process tree. Measured by
 * bench/rusage.py around the whole process: wall, CPU (user + sys of every process of the tree, pyspark's
 * JVM included) and peak RSS (the largest process's). Medians, with ratios to Spark on the same variant
 * and to DuckDB threads=2. After every floe and Spark run the table's live rows (DuckDB iceberg_scan:
 * count + checksum of all columns) must equal the input minus its deletes.
 *
 * Flags: --scale X (or FLOE_BENCH_SCALE; files = 480 × X), --reps N, --variants base,eq,pos,
 * --cases floe-binpack,floe-tiered,spark,duckdb-1,duckdb-2, --parallelism N (passed to `floe compact` when
 * its CLI has the flag; default: the core count).
 * Needs: `npm run build`, the .venv (bash scripts/setup-oracles.sh: PyIceberg, DuckDB, the Java oracle),
 * and for Spark and the pos variant `bash bench/setup-spark.sh`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BenchTable,
  benchSrc,
  lastJson,
  repoRoot,
  run,
  scaleFiles,
  sparkSetup,
  venvPython,
  VARIANTS,
  type Checksum,
  type Variant,
} from './table-1gb.js';
import { numberFlag, type Benchmark, type BenchContext, type BenchResult } from './types.js';

const MiB = 1024 * 1024;
/** The build this module belongs to (dist/ or a snapshot of it): its CLI is the floe that is measured. */
const buildRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const floeCli = path.join(buildRoot, 'src/cli/main.js');
/** Iceberg's default write.target-file-size-bytes (the table sets none); the RSS target is 3× this. */
const TARGET_FILE_BYTES = 512 * MiB;

export interface Cost {
  wall_s: number;
  cpu_s: number;
  peak_rss_bytes: number;
}

/** Runs argv under bench/rusage.py (whole process tree) and returns its cost and output. */
export async function measured(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<Cost & { stdout: string; stderr: string }> {
  // not in /tmp: other sessions' test clean-ups remove /tmp/floe-* while a case runs
  const base = path.join(os.homedir(), '.cache/floe/bench/rusage');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(path.join(base, 'case-'));
  const out = path.join(dir, 'ru.json');
  try {
    const r = await run('python3', [path.join(benchSrc, 'rusage.py'), out, '--', ...argv], env);
    const cost = JSON.parse(readFileSync(out, 'utf8')) as Cost;
    return { ...cost, ...r };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** `--parallelism N` when this build's `floe compact` accepts it (helpers were adding it), else nothing. */
export function parallelismArgs(flags: BenchContext['flags']): string[] {
  const help = execFileSync(process.execPath, [floeCli, 'compact', '--help'], {
    encoding: 'utf8',
  });
  if (!help.includes('--parallelism')) return [];
  return ['--parallelism', String(numberFlag(flags, 'parallelism', os.availableParallelism()))];
}

/** The commit and whether src/connectors had uncommitted changes, for RESULTS.md. */
export function treeState(): string {
  const git = (...a: string[]): string => execFileSync('git', ['-C', repoRoot, ...a], { encoding: 'utf8' }).trim();
  try {
    const head = git('rev-parse', '--short', 'HEAD');
    const dirty = git('status', '--porcelain', '--', 'src', 'connectors')
      .split('\n')
      .filter((l) => l.trim()).length;
    return dirty ? `${head} + ${dirty} uncommitted file(s) in src/, connectors/` : `${head} (clean src/, connectors/)`;
  } catch {
    return 'unknown (no git)';
  }
}

function load(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

type CaseName = 'floe-binpack' | 'floe-tiered' | 'spark' | 'duckdb-1' | 'duckdb-2';
const ALL_CASES: CaseName[] = ['floe-binpack', 'floe-tiered', 'spark', 'duckdb-1', 'duckdb-2'];

interface Sample extends Cost {
  rowsOk?: boolean;
  rows?: Checksum;
  outFiles?: number;
  note?: string;
}

const DUCKDB_COPY = `
import json, sys, duckdb
spec = json.loads(sys.argv[1])
con = duckdb.connect()
con.execute(f"SET threads={int(spec['threads'])}")
con.execute("SET enable_progress_bar=false")
con.execute("COPY (SELECT * FROM read_parquet($g, hive_partitioning=false)) TO '" + spec["out"] + "' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (region))", {"g": spec["glob"]})
print(json.dumps({"rows": con.execute("SELECT count(*) FROM read_parquet($g)", {"g": spec["out"] + "/**/*.parquet"}).fetchone()[0]}))
`;

const bench: Benchmark = {
  name: 'compact-1gb',
  description:
    'floe compact (bin-pack, tiered; no/eq/pos deletes) vs Spark rewrite_data_files local[2] vs DuckDB COPY, ~1 GB table',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const scale = numberFlag(ctx.flags, 'scale', Number(process.env.FLOE_BENCH_SCALE ?? 1));
    const reps = numberFlag(ctx.flags, 'reps', 3);
    const variants = (typeof ctx.flags.variants === 'string' ? ctx.flags.variants.split(',') : VARIANTS) as Variant[];
    const cases = (typeof ctx.flags.cases === 'string' ? ctx.flags.cases.split(',') : ALL_CASES) as CaseName[];
    const table = new BenchTable(scaleFiles(scale));
    const loadBefore = load();
    const facts = await table.ensure(ctx.log);
    const spark = sparkSetup();
    const par = parallelismArgs(ctx.flags);
    const cli = floeCli;
    const samples = new Map<string, Sample[]>();
    const add = (k: string, s: Sample): void => void samples.set(k, [...(samples.get(k) ?? []), s]);
    const skipped: Record<string, string> = {};
    const failures: string[] = [];

    type Job = { key: string; variant: Variant | 'raw'; name: CaseName };
    const jobs: Job[] = [];
    for (const v of variants) {
      if (!facts.expected[v]) {
        skipped[v] = facts.skipped[v] ?? 'not generated';
        continue;
      }
      for (const c of cases)
        if (c.startsWith('floe') || c === 'spark') jobs.push({ key: `${c}|${v}`, variant: v, name: c });
    }
    for (const c of cases) if (c.startsWith('duckdb')) jobs.push({ key: `${c}|raw`, variant: 'raw', name: c });

    const checkRows = async (v: Variant): Promise<Pick<Sample, 'rowsOk' | 'rows'>> => {
      let rows: Checksum;
      try {
        // equality deletes left in the table make DuckDB's scan crawl: give up after 10 minutes, loudly
        rows = await table.checksum(table.currentMetadata(), 600_000);
      } catch (e) {
        ctx.log(`compact-1gb: rows NOT CHECKED on ${v}: ${(e as Error).message.slice(-600)}`);
        return {};
      }
      const want = facts.expected[v]!;
      const rowsOk = rows.rows === want.rows && rows.checksum === want.checksum;
      if (!rowsOk)
        ctx.log(`compact-1gb: ROWS DIFFER on ${v}: got ${JSON.stringify(rows)}, want ${JSON.stringify(want)}`);
      return { rowsOk, rows };
    };

    const runJob = async (j: Job): Promise<Sample> => {
      if (j.name === 'spark') {
        if ('missing' in spark) throw new Error(spark.missing);
        await table.restore(j.variant as Variant);
        const c = await measured([spark.python, path.join(benchSrc, 'spark_job.py'), 'rewrite', table.warehouse], {
          ICEBERG_SPARK_JAR: spark.jar,
          SPARK_REWRITE_OPTIONS: 'min-input-files=2,remove-dangling-deletes=true',
        });
        const res = JSON.parse(c.stdout.trim().split('\n').pop()!) as { result: Record<string, number> };
        return { ...c, ...(await checkRows(j.variant as Variant)), note: JSON.stringify(res.result) };
      }
      if (j.name.startsWith('duckdb')) {
        const out = path.join(table.root, 'duckdb-out');
        rmSync(out, { recursive: true, force: true });
        const spec = {
          threads: j.name === 'duckdb-1' ? 1 : 2,
          glob: path.join(table.pristine('base'), 'data/**/*.parquet'),
          out,
        };
        const c = await measured([venvPython, '-c', DUCKDB_COPY, JSON.stringify(spec)]);
        rmSync(out, { recursive: true, force: true });
        const rows = lastJson<{ rows: number }>(c.stdout);
        return { ...c, rowsOk: rows.rows === facts.rows };
      }
      await table.restore(j.variant as Variant);
      const before = table.currentMetadata();
      const strategy =
        j.name === 'floe-binpack' ? ['--strategy', 'binpack', '-o', 'min-input-files=2'] : ['--strategy', 'tiered'];
      const c = await measured([
        process.execPath,
        cli,
        'compact',
        table.work,
        ...strategy,
        ...par,
        '--json',
        '--progress',
        'none',
      ]);
      if (table.currentMetadata() === before)
        throw new Error(`floe ${j.name} on ${j.variant} committed nothing: ${c.stdout.slice(0, 800)}`);
      let note = '';
      try {
        const r = JSON.parse(c.stdout) as Record<string, unknown>;
        const pick = (o: unknown, ks: string[]): string =>
          ks
            .map((k) => [k, (o as Record<string, unknown>)[k]] as const)
            .filter(([, x]) => x !== undefined && typeof x !== 'object')
            .map(([k, x]) => `${k}=${String(x)}`)
            .join(' ');
        note = pick((r.result ?? r) as unknown, [
          'filesRewritten',
          'filesWritten',
          'deleteFilesRemoved',
          'tasks',
          'rowsIn',
        ]);
      } catch {
        note = 'unparsed --json output';
      }
      return { ...c, ...(await checkRows(j.variant as Variant)), note };
    };

    ctx.log(
      `compact-1gb: ${facts.files} files, ${facts.rows} rows, ${(facts.dataBytes / 1e9).toFixed(3)} GB; ${jobs.length} cases × ${reps} reps; floe ${par.join(' ') || '(no --parallelism flag)'}`,
    );
    const t0 = Date.now();
    for (let r = 0; r < reps; r++) {
      const order = jobs.map((_, i) => jobs[(i + r) % jobs.length]!);
      for (const j of order) {
        let s: Sample;
        try {
          s = await runJob(j);
        } catch (e) {
          // one failed case must not cost the whole run: it is reported, loudly, and left out of the medians
          ctx.log(`compact-1gb rep ${r + 1}/${reps} ${j.key}: FAILED ${(e as Error).message.slice(-800)}`);
          failures.push(`${j.key} rep ${r + 1}: ${(e as Error).message.slice(-300)}`);
          continue;
        }
        add(j.key, s);
        ctx.log(
          `compact-1gb rep ${r + 1}/${reps} ${j.key}: ${s.wall_s.toFixed(1)} s wall, ${s.cpu_s.toFixed(1)} CPU-s, ${(s.peak_rss_bytes / MiB).toFixed(0)} MiB${s.rowsOk === false ? ' ROWS DIFFER' : ''} (load ${load()})`,
        );
      }
    }
    const loadAfter = load();
    const med = (k: string): Cost | undefined => {
      const xs = samples.get(k);
      if (!xs?.length) return undefined;
      return {
        wall_s: median(xs.map((x) => x.wall_s)),
        cpu_s: median(xs.map((x) => x.cpu_s)),
        peak_rss_bytes: median(xs.map((x) => x.peak_rss_bytes)),
      };
    };
    const duck2 = med('duckdb-2|raw');
    const rows: Record<string, string | number>[] = [];
    const verdicts: string[] = [];
    const ratio = (a: number, b: number | undefined): string => (b ? (a / b).toFixed(2) : '');
    for (const j of jobs.filter((x, i) => jobs.findIndex((y) => y.key === x.key) === i)) {
      const m = med(j.key);
      if (!m) continue;
      const sp = j.variant === 'raw' ? undefined : med(`spark|${j.variant}`);
      const xs = samples.get(j.key)!;
      rows.push({
        case: j.name,
        variant: j.variant === 'raw' ? 'raw files (no deletes)' : j.variant,
        'wall s': m.wall_s.toFixed(1),
        'CPU s': m.cpu_s.toFixed(1),
        'peak RSS MiB': (m.peak_rss_bytes / MiB).toFixed(0),
        'wall × Spark': ratio(m.wall_s, sp?.wall_s),
        'CPU × Spark': ratio(m.cpu_s, sp?.cpu_s),
        'wall × DuckDB t2': ratio(m.wall_s, duck2?.wall_s),
        'RSS × 512 MiB': (m.peak_rss_bytes / TARGET_FILE_BYTES).toFixed(2),
        rows: xs.some((x) => x.rowsOk === false)
          ? 'DIFFER'
          : xs.every((x) => x.rowsOk)
            ? 'identical'
            : `${xs.filter((x) => x.rowsOk).length}/${xs.length} checked, identical`,
        'reps (wall s)': xs.map((x) => x.wall_s.toFixed(1)).join(' '),
      });
      if (j.name.startsWith('floe')) {
        const t = [
          sp
            ? `wall ${ratio(m.wall_s, sp.wall_s)}× Spark ${m.wall_s <= 0.5 * sp.wall_s ? 'MET' : 'NOT met'}`
            : 'no Spark',
          sp ? `CPU ${ratio(m.cpu_s, sp.cpu_s)}× Spark ${m.cpu_s <= 0.5 * sp.cpu_s ? 'MET' : 'NOT met'}` : '',
          duck2
            ? `wall ${ratio(m.wall_s, duck2.wall_s)}× DuckDB t2 ${m.wall_s <= 2 * duck2.wall_s ? 'MET' : 'NOT met'}`
            : '',
          `RSS ${(m.peak_rss_bytes / TARGET_FILE_BYTES).toFixed(2)}× target ${m.peak_rss_bytes <= 3 * TARGET_FILE_BYTES ? 'MET' : 'NOT met'}`,
        ];
        verdicts.push(`${j.name} ${j.variant}: ${t.filter(Boolean).join('; ')}`);
      }
    }
    const notes = [
      `table: ${facts.files} PyIceberg zstd files, ${facts.rows} rows, ${(facts.dataBytes / 1e9).toFixed(3)} GB, 8 identity partitions; eq: ${facts.deleteFiles.eq ?? '-'} equality-delete files (Java Iceberg), pos: ${facts.deleteFiles.pos ?? '-'} position-delete files (Spark MoR DELETE); 5 % of rows deleted; cached in ${table.root}`,
      `floe tree: ${treeState()}, build ${buildRoot}; floe flags: ${par.join(' ') || 'none (no --parallelism in this build)'}; bin-pack and Spark with min-input-files=2; Spark also with remove-dangling-deletes=true (floe's default)`,
      `${reps} interleaved reps; medians; whole process tree (bench/rusage.py): wall incl. process/JVM start, CPU = user+sys of all processes, peak RSS = the largest process's`,
      `load average before: ${loadBefore}; after: ${loadAfter}; ${os.availableParallelism()} cores; total ${((Date.now() - t0) / 60_000).toFixed(1)} min`,
      ...Object.entries(skipped).map(([v, why]) => `variant ${v} SKIPPED: ${why}`),
      ...failures.map((f) => `FAILED: ${f}`),
      ...verdicts,
    ];
    return { rows, notes, data: { facts, samples: Object.fromEntries(samples), skipped, loadBefore, loadAfter } };
  },
};

export default bench;
