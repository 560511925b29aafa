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
 * and to DuckDB threads=2, and peak RSS over the case's target file size. After every floe and Spark case
 * the table's live rows (DuckDB iceberg_scan: count + checksum of all columns) must equal the input minus
 * its deletes.
 *
 * floe-tiered is a full compaction: the tiered planner is incremental (Amoro's: one plan spends one input
 * budget, max-input-file-size-per-thread × threads, and defers the rest), so the case runs `floe compact
 * --strategy tiered` until a run plans nothing (its --json: status ok, no tasks) or --max-rounds runs
 * (default 12; then the case says NOT CONVERGED), summing wall and CPU over the rounds (the last, empty one
 * included) and taking the largest peak RSS; rows are checked after the last round.
 *
 * Every floe case runs with an explicit Parquet codec (FLOE_PARQUET_CODEC in its environment): --codec
 * native (default) | wasm | both (then each floe case also runs as `<case>-wasm`, so one run shows both).
 * Native cases refuse to start when the addon (native/parquet-codec/floe-parquet-codec.node of the build
 * measured, or FLOE_NATIVE_CODEC_PATH) does not load.
 *
 * Flags: --scale X (or FLOE_BENCH_SCALE; files = 480 × X), --reps N, --variants base,eq,pos,
 * --cases floe-binpack,floe-tiered,spark,duckdb-1,duckdb-2 (a floe case may be named `<case>-wasm`),
 * --codec native|wasm|both, --max-rounds N, --parallelism N (passed to `floe compact`; default: the core
 * count), --tiered-options k=v,k=v (extra `-o` for floe-tiered, e.g. a smaller budget for a smoke run),
 * --before DIR (another build's root, e.g. the `dist` of the base commit with its addon in
 * DIR/../native/parquet-codec: each native floe case also runs from it as `<case>-before`, interleaved in the
 * same reps, and the notes give after / before ratios).
 * Needs: `npm run build` (and `npm run build:native` for native cases), the .venv (bash
 * scripts/setup-oracles.sh: PyIceberg, DuckDB, the Java oracle), and for Spark and the pos variant
 * `bash bench/setup-spark.sh`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nativeCodecStatus } from '../connectors/formats/parquet/codec.js';
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
import {
  compactDoc,
  describeRun,
  reportedCodec,
  selectCases,
  untilNothingPlanned,
  type CaseSpec,
  type CodecName,
  type CompactDoc,
  type Cost,
} from './compact-rounds.js';
import { numberFlag, type Benchmark, type BenchContext, type BenchResult } from './types.js';

export type { Cost } from './compact-rounds.js';

const MiB = 1024 * 1024;
/** The build this module belongs to (dist/ or a snapshot of it): its CLI is the floe that is measured. */
const buildRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const floeCli = path.join(buildRoot, 'src/shells/cli/main.js');
/** Iceberg's default write.target-file-size-bytes (the table sets none): bin-pack's and Spark's target. */
const TARGET_FILE_BYTES = 512 * MiB;
/** Amoro's (and floe tiered's) default self-optimizing.target-size. */
const TIERED_TARGET_BYTES = 128 * MiB;

/** Runs argv under bench/rusage.py (whole process tree) and returns its cost and output. */
/**
 * Runs `argv` under bench/rusage.py and reports what its process tree cost. `killAfterS`: the command is
 * killed (SIGKILL) after that many seconds and `finished` is false; what it spent until then is reported.
 */
export async function measured(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
  opts: { killAfterS?: number } = {},
): Promise<Cost & { stdout: string; stderr: string; finished: boolean }> {
  // not in /tmp: other sessions' test clean-ups remove /tmp/floe-* while a case runs
  const base = path.join(os.homedir(), '.cache/floe/bench/rusage');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(path.join(base, 'case-'));
  const out = path.join(dir, 'ru.json');
  const bounded = opts.killAfterS === undefined ? argv : ['timeout', '-s', 'KILL', String(opts.killAfterS), ...argv];
  try {
    let r = { stdout: '', stderr: '' };
    let finished = true;
    try {
      r = await run('python3', [path.join(benchSrc, 'rusage.py'), out, '--', ...bounded], env);
    } catch (e) {
      // the killed command's status as rusage.py saw it: timeout(1)'s 124 / 137, or -9 when it went down too
      const exit = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as { exit: number }).exit : undefined;
      if (opts.killAfterS === undefined || exit === undefined || ![124, 137, -9].includes(exit)) throw e;
      finished = false;
    }
    const cost = JSON.parse(readFileSync(out, 'utf8')) as Cost;
    return { ...cost, ...r, finished };
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
  const git = (...a: string[]): string =>
    execFileSync('git', ['-C', repoRoot, ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const head = git('rev-parse', '--short', 'HEAD');
    const dirty = git('status', '--porcelain', '--', 'src', 'connectors', 'model', 'util', 'native')
      .split('\n')
      .filter((l) => l.trim()).length;
    return dirty
      ? `${head} + ${dirty} uncommitted file(s) in src/, connectors/, native/`
      : `${head} (clean src/, connectors/, native/)`;
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

/** `--tiered-options a=b,c=d` as `-o` arguments (and as a map, to read the target size from). */
function tieredOptions(flags: BenchContext['flags']): { args: string[]; map: Record<string, string> } {
  const v = flags['tiered-options'];
  if (v === undefined) return { args: [], map: {} };
  if (typeof v !== 'string') throw new Error('--tiered-options needs key=value[,key=value…]');
  const map: Record<string, string> = {};
  for (const kv of v.split(',')) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new Error(`--tiered-options: ${kv} is not key=value`);
    map[kv.slice(0, i).trim()] = kv.slice(i + 1).trim();
  }
  return { args: Object.entries(map).flatMap(([k, x]) => ['-o', `${k}=${x}`]), map };
}

interface Sample extends Cost {
  rowsOk?: boolean;
  rows?: Checksum;
  codec?: CodecName;
  /** floe-tiered: rounds run, and whether the last planned nothing. */
  rounds?: number;
  converged?: boolean;
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
    'floe compact (bin-pack, tiered to convergence; no/eq/pos deletes; native/wasm codec) vs Spark rewrite_data_files local[2] vs DuckDB COPY, ~1 GB table',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const scale = numberFlag(ctx.flags, 'scale', Number(process.env.FLOE_BENCH_SCALE ?? 1));
    const reps = numberFlag(ctx.flags, 'reps', 3);
    const maxRounds = numberFlag(ctx.flags, 'max-rounds', 12);
    const variants = (typeof ctx.flags.variants === 'string' ? ctx.flags.variants.split(',') : VARIANTS) as Variant[];
    for (const v of variants)
      if (!VARIANTS.includes(v)) throw new Error(`unknown variant ${v}; known: ${VARIANTS.join(', ')}`);
    const cases = selectCases(
      typeof ctx.flags.cases === 'string' ? ctx.flags.cases : undefined,
      typeof ctx.flags.codec === 'string' ? ctx.flags.codec : undefined,
    );
    if (typeof ctx.flags.before === 'string') {
      const build = path.resolve(ctx.flags.before);
      for (const c of cases.filter((x) => x.codec === 'native' && !x.build))
        cases.push({ ...c, name: `${c.name}-before`, build });
    }
    const tiered = tieredOptions(ctx.flags);
    const tieredTarget = Number(tiered.map['self-optimizing.target-size'] ?? TIERED_TARGET_BYTES);
    // checked before anything runs: a native case must not quietly fall back to parquet-wasm
    const native = nativeCodecStatus();
    if (cases.some((c) => c.codec === 'native') && !native.available)
      throw new Error(
        `compact-1gb: the native Parquet codec does not load (${native.path}: ${native.error ?? 'unknown error'}); ` +
          'build it (`npm run build:native`, or copy floe-parquet-codec.node there), or run only wasm cases (--codec wasm)',
      );
    const codecUsed = [...new Set(cases.map((c) => c.codec).filter(Boolean))].join(', ') || 'none';
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
    const warnings: string[] = [];

    type Job = { key: string; variant: Variant | 'raw'; c: CaseSpec };
    const jobs: Job[] = [];
    for (const v of variants) {
      if (!facts.expected[v]) {
        skipped[v] = facts.skipped[v] ?? 'not generated';
        continue;
      }
      for (const c of cases) if (!c.kind.startsWith('duckdb')) jobs.push({ key: `${c.name}|${v}`, variant: v, c });
    }
    for (const c of cases) if (c.kind.startsWith('duckdb')) jobs.push({ key: `${c.name}|raw`, variant: 'raw', c });

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

    /** One `floe compact` process with the case's codec; its cost and --json document. */
    const floeRun = async (j: Job, strategy: string[]): Promise<Cost & { doc: CompactDoc }> => {
      const codec = j.c.codec!;
      const main = j.c.build ? path.join(j.c.build, 'src/shells/cli/main.js') : cli;
      const c = await measured(
        [process.execPath, main, 'compact', table.work, ...strategy, ...par, '--json', '--progress', 'none'],
        { FLOE_PARQUET_CODEC: codec },
      );
      const doc = compactDoc(c.stdout);
      const said = reportedCodec(doc);
      if (said !== undefined && said !== codec)
        throw new Error(`floe ${j.c.name} ran with FLOE_PARQUET_CODEC=${codec} but reports codec ${said}`);
      return { wall_s: c.wall_s, cpu_s: c.cpu_s, peak_rss_bytes: c.peak_rss_bytes, doc };
    };

    const runJob = async (j: Job, rep: number): Promise<Sample> => {
      if (j.c.kind === 'spark') {
        if ('missing' in spark) throw new Error(spark.missing);
        await table.restore(j.variant as Variant);
        const c = await measured([spark.python, path.join(benchSrc, 'spark_job.py'), 'rewrite', table.warehouse], {
          ICEBERG_SPARK_JAR: spark.jar,
          SPARK_REWRITE_OPTIONS: 'min-input-files=2,remove-dangling-deletes=true',
        });
        const res = JSON.parse(c.stdout.trim().split('\n').pop()!) as { result: Record<string, number> };
        return { ...c, ...(await checkRows(j.variant as Variant)), note: JSON.stringify(res.result) };
      }
      if (j.c.kind === 'duckdb-1' || j.c.kind === 'duckdb-2') {
        const out = path.join(table.root, 'duckdb-out');
        rmSync(out, { recursive: true, force: true });
        const spec = {
          threads: j.c.kind === 'duckdb-1' ? 1 : 2,
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
      const codec = j.c.codec!;
      if (j.c.kind === 'floe-binpack') {
        const r = await floeRun(j, ['--strategy', 'binpack', '-o', 'min-input-files=2']);
        if (r.doc.status !== 'ok') throw new Error(`floe ${j.c.name} ended ${r.doc.status}: ${describeRun(r.doc)}`);
        if (table.currentMetadata() === before)
          throw new Error(`floe ${j.c.name} on ${j.variant} committed nothing: ${describeRun(r.doc)}`);
        return {
          wall_s: r.wall_s,
          cpu_s: r.cpu_s,
          peak_rss_bytes: r.peak_rss_bytes,
          codec,
          ...(await checkRows(j.variant as Variant)),
          note: describeRun(r.doc),
        };
      }
      const res = await untilNothingPlanned(async (i) => {
        const r = await floeRun(j, ['--strategy', 'tiered', ...tiered.args]);
        ctx.log(
          `compact-1gb rep ${rep} ${j.key} round ${i + 1}: ${r.wall_s.toFixed(1)} s wall, ${r.cpu_s.toFixed(1)} CPU-s, ${(r.peak_rss_bytes / MiB).toFixed(0)} MiB; ${describeRun(r.doc)}`,
        );
        return r;
      }, maxRounds);
      if (table.currentMetadata() === before) throw new Error(`floe ${j.c.name} on ${j.variant} committed nothing`);
      if (!res.converged) {
        const last = res.rounds.at(-1)!.doc;
        const w = `${j.key} rep ${rep}: NOT CONVERGED — round ${maxRounds} (--max-rounds) still planned ${last.tasks.length} tasks; its numbers are ${maxRounds} rounds, not a full compaction`;
        ctx.log(`compact-1gb: !!! ${w}`);
        warnings.push(w);
      }
      const note = res.rounds.map((r, i) => `r${i + 1}: ${describeRun(r.doc)}`).join('; ');
      return {
        ...res.total,
        codec,
        rounds: res.rounds.length,
        converged: res.converged,
        ...(await checkRows(j.variant as Variant)),
        note,
      };
    };

    ctx.log(
      `compact-1gb: ${facts.files} files, ${facts.rows} rows, ${(facts.dataBytes / 1e9).toFixed(3)} GB; ${jobs.length} cases × ${reps} reps; floe ${par.join(' ') || '(no --parallelism flag)'}; codec ${codecUsed}${native.available ? ` (addon ${native.path})` : ''}`,
    );
    const t0 = Date.now();
    for (let r = 0; r < reps; r++) {
      const order = jobs.map((_, i) => jobs[(i + r) % jobs.length]!);
      for (const j of order) {
        let s: Sample;
        try {
          s = await runJob(j, r + 1);
        } catch (e) {
          // one failed case must not cost the whole run: it is reported, loudly, and left out of the medians
          ctx.log(`compact-1gb rep ${r + 1}/${reps} ${j.key}: FAILED ${(e as Error).message.slice(-800)}`);
          failures.push(`${j.key} rep ${r + 1}: ${(e as Error).message.slice(-300)}`);
          continue;
        }
        add(j.key, s);
        ctx.log(
          `compact-1gb rep ${r + 1}/${reps} ${j.key}${s.codec ? ` [${s.codec}]` : ''}: ${s.wall_s.toFixed(1)} s wall, ${s.cpu_s.toFixed(1)} CPU-s, ${(s.peak_rss_bytes / MiB).toFixed(0)} MiB${s.rounds ? `, ${s.rounds} rounds${s.converged ? '' : ' NOT CONVERGED'}` : ''}${s.rowsOk === false ? ' ROWS DIFFER' : ''} (load ${load()})`,
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
    const targetOf = (c: CaseSpec): number => (c.kind === 'floe-tiered' ? tieredTarget : TARGET_FILE_BYTES);
    for (const j of jobs.filter((x, i) => jobs.findIndex((y) => y.key === x.key) === i)) {
      const m = med(j.key);
      if (!m) continue;
      const sp = j.variant === 'raw' ? undefined : med(`spark|${j.variant}`);
      const xs = samples.get(j.key)!;
      const target = targetOf(j.c);
      const rounds = xs.some((x) => x.rounds !== undefined)
        ? `${[...new Set(xs.map((x) => x.rounds))].join('/')}${xs.every((x) => x.converged) ? '' : ' NOT CONVERGED'}`
        : '';
      rows.push({
        case: j.c.name,
        codec: j.c.codec ?? '',
        variant: j.variant === 'raw' ? 'raw files (no deletes)' : j.variant,
        rounds,
        'wall s': m.wall_s.toFixed(1),
        'CPU s': m.cpu_s.toFixed(1),
        'peak RSS MiB': (m.peak_rss_bytes / MiB).toFixed(0),
        'wall × Spark': ratio(m.wall_s, sp?.wall_s),
        'CPU × Spark': ratio(m.cpu_s, sp?.cpu_s),
        'wall × DuckDB t2': ratio(m.wall_s, duck2?.wall_s),
        'CPU × DuckDB t2': ratio(m.cpu_s, duck2?.cpu_s),
        'target MiB': (target / MiB).toFixed(0),
        'RSS × target': (m.peak_rss_bytes / target).toFixed(2),
        rows: xs.some((x) => x.rowsOk === false)
          ? 'DIFFER'
          : xs.every((x) => x.rowsOk)
            ? 'identical'
            : `${xs.filter((x) => x.rowsOk).length}/${xs.length} checked, identical`,
        'reps (wall s)': xs.map((x) => x.wall_s.toFixed(1)).join(' '),
      });
      if (j.c.codec) {
        const t = [
          sp
            ? `wall ${ratio(m.wall_s, sp.wall_s)}× Spark ${m.wall_s <= 0.5 * sp.wall_s ? 'MET' : 'NOT met'}`
            : 'no Spark',
          sp ? `CPU ${ratio(m.cpu_s, sp.cpu_s)}× Spark ${m.cpu_s <= 0.5 * sp.cpu_s ? 'MET' : 'NOT met'}` : '',
          duck2
            ? `wall ${ratio(m.wall_s, duck2.wall_s)}× DuckDB t2 ${m.wall_s <= 2 * duck2.wall_s ? 'MET' : 'NOT met'}`
            : '',
          duck2
            ? `CPU ${ratio(m.cpu_s, duck2.cpu_s)}× DuckDB t2 ${m.cpu_s <= duck2.cpu_s ? 'MET' : 'NOT met'} (issue 27: ≤ 1.0×)`
            : '',
          `RSS ${(m.peak_rss_bytes / target).toFixed(2)}× its ${(target / MiB).toFixed(0)} MiB target ${m.peak_rss_bytes <= 2 * target ? 'MET' : 'NOT met'} (issue 27: ≤ 2×)`,
          rounds ? `rounds: ${rounds}` : '',
        ];
        verdicts.push(`${j.c.name} [${j.c.codec}] ${j.variant}: ${t.filter(Boolean).join('; ')}`);
      }
    }
    // before/after of the codec: the same floe case and variant with native and with wasm
    const codecRatios: string[] = [];
    for (const j of jobs)
      if (j.c.codec === 'native') {
        const n = med(j.key);
        const w = med(`${j.c.kind}-wasm|${j.variant}`);
        if (n && w)
          codecRatios.push(
            `${j.c.kind} ${j.variant}: native / wasm wall ${ratio(n.wall_s, w.wall_s)}×, CPU ${ratio(n.cpu_s, w.cpu_s)}×, peak RSS ${ratio(n.peak_rss_bytes, w.peak_rss_bytes)}×`,
          );
      }
    // [--before] this build against the other one, case by case
    for (const j of jobs)
      if (j.c.build) {
        const b = med(j.key);
        const a = med(j.key.replace(`${j.c.name}|`, `${j.c.name.replace(/-before$/, '')}|`));
        if (a && b)
          codecRatios.push(
            `${j.c.kind} ${j.variant}: this build / --before build (${j.c.build}) wall ${ratio(a.wall_s, b.wall_s)}×, CPU ${ratio(a.cpu_s, b.cpu_s)}×, peak RSS ${ratio(a.peak_rss_bytes, b.peak_rss_bytes)}×`,
          );
      }
    const notes = [
      `table: ${facts.files} PyIceberg zstd files, ${facts.rows} rows, ${(facts.dataBytes / 1e9).toFixed(3)} GB, 8 identity partitions; eq: ${facts.deleteFiles.eq ?? '-'} equality-delete files (Java Iceberg), pos: ${facts.deleteFiles.pos ?? '-'} position-delete files (Spark MoR DELETE); 5 % of rows deleted; cached in ${table.root}`,
      `floe tree: ${treeState()}, build ${buildRoot}; floe flags: ${par.join(' ') || 'none (no --parallelism in this build)'}; bin-pack and Spark with min-input-files=2; Spark also with remove-dangling-deletes=true (floe's default); tiered with ${tiered.args.length ? tiered.args.join(' ') : 'its defaults'}, repeated until a run plans nothing (at most ${maxRounds} rounds; wall and CPU summed over the rounds, the last empty one included; peak RSS the largest round's)`,
      `Parquet codec: ${codecUsed} (FLOE_PARQUET_CODEC passed to every floe process; native addon: ${native.available ? native.path : `not loaded — ${native.error ?? ''}`})`,
      `${reps} interleaved reps; medians; whole process tree (bench/rusage.py): wall incl. process/JVM start, CPU = user+sys of all processes, peak RSS = the largest process's; RSS target: ${(TARGET_FILE_BYTES / MiB).toFixed(0)} MiB (write.target-file-size-bytes default) for bin-pack, Spark and DuckDB, ${(tieredTarget / MiB).toFixed(0)} MiB (self-optimizing.target-size) for tiered`,
      `load average before: ${loadBefore}; after: ${loadAfter}; ${os.availableParallelism()} cores; total ${((Date.now() - t0) / 60_000).toFixed(1)} min`,
      ...Object.entries(skipped).map(([v, why]) => `variant ${v} SKIPPED: ${why}`),
      ...failures.map((f) => `FAILED: ${f}`),
      ...warnings.map((w) => `!!! ${w}`),
      ...codecRatios,
      ...verdicts,
    ];
    return {
      rows,
      notes,
      data: {
        facts,
        samples: Object.fromEntries(samples),
        skipped,
        failures,
        warnings,
        codec: { cases: codecUsed, native },
        loadBefore,
        loadAfter,
      },
    };
  },
};

export default bench;
