/**
 * Deletes on the rewrite path: floe bin-pack on a table with no deletes, with equality deletes and with
 * position deletes, against DuckDB reading the same table with `iceberg_scan` (which applies the deletes)
 * and `COPY`ing it to Parquet — the peer a user would pick instead — in the same run, CPU and wall per case.
 *
 * Table (made with floe's own table writer, cached in ~/.cache/floe/bench/deletes-<files>x<rows>-v1):
 * `--files` (64) zstd files of `--rows` (40,000) rows, 7 columns (3 strings), identity-partitioned by
 * `region` (4 partitions), one append per file. Variants: base; eq = base + 5 partition-scoped
 * equality-delete files per partition on `id` alone (as Flink upserts write them); pos = base + one
 * position-delete file per data file (as Spark's merge-on-read DELETE writes them). Both delete every row
 * with id % 20 = 0 (5 %).
 *
 * Cases, each a child process under bench/rusage.py (CPU = user + sys of the process tree, wall includes
 * process start), `--reps` (3) interleaved rounds, medians:
 * - floe: `floe compact --strategy binpack -o min-input-files=2 --parallelism 2`, native codec;
 * - floe-before (with `--floe-before <dist/src/shells/cli/main.js of another build>`): the same with that build;
 * - duckdb: threads=2, `COPY (SELECT * FROM iceberg_scan(<metadata>)) TO … (zstd, PARTITION_BY region)`;
 * - duckdb-copy (base only): the same from `read_parquet` of the data files (the raw Parquet→Parquet bound);
 * - duckdb (eq): iceberg_scan crawls over equality deletes (it did not finish in 16 min on this table), so it
 *   runs once, killed after `--duckdb-eq-timeout` (120) s: the CPU it spent by then bounds the ratio from
 *   above (floe ≤ that fraction of it). `--duckdb-eq` runs it unbounded in every rep instead;
 * - duckdb-antijoin (eq): the same deletes applied by hand, `read_parquet(data) ANTI JOIN read_parquet(the
 *   equality-delete files) ON id` → COPY — DuckDB's best plan for them. It leaves out sequence numbers and
 *   partition scopes, which this table does not need (every delete is newer than every data file, and ids are
 *   unique across partitions), so it is a lower bound on what DuckDB needs to apply them correctly.
 * After every floe case DuckDB checks the table's live rows (count + hash checksum) against the base
 * files' rows with id % 20 ≠ 0 (eq, pos) or all of them (base). `--profile` adds one floe run per variant
 * under `--cpu-prof` and prints its top self-time entries over the main thread and the rewrite workers
 * (they inherit the process's --cpu-prof options, worker-pool.ts cpuProfileArgs), with each thread's total.
 * Needs the oracle venv (`bash scripts/setup-oracles.sh`: duckdb + its iceberg extension).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Field } from '../model/index.js';
import { FileIO } from '../connectors/storage/file-io.js';
import {
  appendRows,
  createIcebergTable,
  deleteByEquality,
  deleteByPosition,
} from '../connectors/iceberg/write-table.js';
import { measured, median } from './compact-1gb.js';
import { lastJson, repoRoot, run, venvPython } from './table-1gb.js';
import { numberFlag, type Benchmark, type BenchContext, type BenchResult } from './types.js';

const MiB = 1024 * 1024;
const GEN_VERSION = 'deletes/1';
const buildRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const floeCli = path.join(buildRoot, 'src/shells/cli/main.js');
const REGIONS = ['east', 'west', 'north', 'south'];
type Variant = 'base' | 'eq' | 'pos';
const VARIANTS: Variant[] = ['base', 'eq', 'pos'];

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'region', required: true, type: { kind: 'primitive', name: 'string' } },
  { id: 3, name: 'customer', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 4, name: 'note', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 5, name: 'qty', required: false, type: { kind: 'primitive', name: 'int' } },
  { id: 6, name: 'price', required: false, type: { kind: 'primitive', name: 'double' } },
  { id: 7, name: 'created_at', required: false, type: { kind: 'primitive', name: 'timestamptz' } },
];
const COLS = FIELDS.map((f) => f.name).join(', ');

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

function rowsOfFile(f: number, rows: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let seed = (f + 1) * 2654435761;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  for (let i = 0; i < rows; i++) {
    const id = f * rows + i;
    out.push({
      id: BigInt(id),
      region: REGIONS[f % REGIONS.length],
      customer: `customer-${next() % 50_000}`,
      note: next() % 10 === 0 ? null : `${WORDS[next() % 10]} ${WORDS[next() % 10]} ${next() % 1_000_000}`,
      qty: next() % 1000,
      price: (next() % 1_000_000) / 100,
      created_at: 1_700_000_000_000_000n + BigInt(id) * 1_000_003n,
    });
  }
  return out;
}

interface Facts {
  files: number;
  rows: number;
  dataBytes: number;
  deleteFiles: Record<Variant, number>;
  expected: Record<Variant, { rows: number; checksum: string }>;
}

const CHECK = `
import json, os, sys
sys.path.insert(0, sys.argv[1])
from duckdb_read import connect
con = connect()
src, where = sys.argv[2], sys.argv[3]
n, s = con.execute(f"SELECT count(*), coalesce(sum(hash(${COLS})::HUGEINT), 0) FROM {src} {where}").fetchone()
print(json.dumps({"rows": n, "checksum": str(s)}))
`;

const DUCKDB_COPY = `
import json, sys
sys.path.insert(0, sys.argv[1])
from duckdb_read import connect
spec = json.loads(sys.argv[2])
con = connect()
con.execute(f"SET threads={int(spec['threads'])}")
con.execute("SET enable_progress_bar=false")
con.execute("COPY (SELECT * FROM " + spec["src"] + ") TO '" + spec["out"] + "' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (region))")
print(json.dumps({"rows": con.execute("SELECT count(*) FROM read_parquet($g)", {"g": spec["out"] + "/**/*.parquet"}).fetchone()[0]}))
`;
/** The oracles' Python helpers (duckdb_read.connect loads the iceberg extension from its wheel). */
const oraclePyDir = (): string => path.join(repoRoot, 'integration', 'oracles', 'py');

/** Every Parquet file under `dir`, recursively. */
function parquetFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((n) => n.endsWith('.parquet'))
    .map((n) => path.join(dir, n))
    .sort();
}

class DeletesTable {
  readonly root: string;
  readonly work: string;
  constructor(
    readonly files: number,
    readonly rows: number,
  ) {
    this.root = path.join(os.homedir(), '.cache/floe/bench', `deletes-${files}x${rows}-v1`);
    this.work = path.join(this.root, 'work/db/events');
  }
  pristine(v: Variant): string {
    return path.join(this.root, 'pristine', v);
  }
  /** The work table becomes variant `v` (data hard-linked: never changed in place; metadata copied). */
  restore(v: Variant): void {
    rmSync(this.work, { recursive: true, force: true });
    mkdirSync(this.work, { recursive: true });
    execFileSync('cp', ['-al', path.join(this.pristine(v), 'data'), path.join(this.work, 'data')]);
    cpSync(path.join(this.pristine(v), 'metadata'), path.join(this.work, 'metadata'), { recursive: true });
  }
  private save(v: Variant): void {
    rmSync(this.pristine(v), { recursive: true, force: true });
    mkdirSync(this.pristine(v), { recursive: true });
    execFileSync('cp', ['-a', path.join(this.work, 'data'), path.join(this.pristine(v), 'data')]);
    execFileSync('cp', ['-a', path.join(this.work, 'metadata'), path.join(this.pristine(v), 'metadata')]);
  }
  currentMetadata(dir = this.work): string {
    const m = readdirSync(path.join(dir, 'metadata'))
      .map((n) => /^v(\d+)\.metadata\.json$/.exec(n))
      .filter((x): x is RegExpExecArray => !!x)
      .sort((a, b) => Number(b[1]) - Number(a[1]))[0];
    if (!m) throw new Error(`no metadata in ${dir}`);
    return path.join(dir, 'metadata', m[0]);
  }
  async check(src: string, where = ''): Promise<{ rows: number; checksum: string }> {
    const r = await run(venvPython, ['-c', CHECK, oraclePyDir(), src, where]);
    return lastJson(r.stdout);
  }

  async ensure(log: (m: string) => void): Promise<Facts> {
    const factsFile = path.join(this.root, 'facts.json');
    if (existsSync(factsFile)) {
      const f = JSON.parse(readFileSync(factsFile, 'utf8')) as Facts & { version?: string };
      if (f.version === GEN_VERSION) return f;
    }
    const t0 = Date.now();
    const done = path.join(this.root, 'tables.done');
    if (!existsSync(done)) await this.generate(log);
    writeFileSync(done, GEN_VERSION);
    const dataDir = path.join(this.pristine('base'), 'data');
    const dataBytes = REGIONS.flatMap((r) => {
      const d = path.join(dataDir, `region=${r}`);
      return readdirSync(d).map((n) => readFileSync(path.join(d, n)).byteLength);
    }).reduce((a, b) => a + b, 0);
    const baseGlob = `read_parquet('${dataDir}/**/*.parquet', hive_partitioning=false)`;
    const expected = {
      base: await this.check(baseGlob),
      eq: await this.check(baseGlob, 'WHERE id % 20 <> 0'),
      pos: await this.check(baseGlob, 'WHERE id % 20 <> 0'),
    };
    // DuckDB's iceberg_scan crawls over this many equality deletes (it did not finish in 16 min): the eq
    // table's rows are checked after floe's rewrite instead, when no delete is left
    this.restore('pos'); // the table's paths are the work directory's
    const got = await this.check(`iceberg_scan('${this.currentMetadata()}')`);
    if (got.rows !== expected.pos.rows || got.checksum !== expected.pos.checksum)
      throw new Error(`deletes bench: DuckDB reads ${got.rows} rows from the pos table, expected ${expected.pos.rows}`);
    const facts: Facts & { version: string } = {
      version: GEN_VERSION,
      files: this.files,
      rows: this.files * this.rows,
      dataBytes,
      deleteFiles: { base: 0, eq: 5 * REGIONS.length, pos: this.files },
      expected,
    };
    writeFileSync(factsFile, JSON.stringify(facts, null, 2));
    log(`deletes bench: table ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    return facts;
  }

  private async generate(log: (m: string) => void): Promise<void> {
    rmSync(this.root, { recursive: true, force: true });
    mkdirSync(this.work, { recursive: true });
    const io = new FileIO();
    await createIcebergTable(io, this.work, { fields: FIELDS, partitionBy: ['region'] });
    const dataDir = path.join(this.work, 'data');
    const seen = new Set<string>();
    const listData = (): string[] =>
      existsSync(dataDir)
        ? REGIONS.flatMap((r) => {
            const d = path.join(dataDir, `region=${r}`);
            return existsSync(d) ? readdirSync(d).map((n) => path.join(d, n)) : [];
          })
        : [];
    const byFile: { path: string; f: number }[] = [];
    for (let f = 0; f < this.files; f++) {
      await appendRows(io, this.work, rowsOfFile(f, this.rows));
      const added = listData().filter((p) => !seen.has(p));
      if (added.length !== 1) throw new Error(`append ${f} wrote ${added.length} files`);
      seen.add(added[0]!);
      byFile.push({ path: added[0]!, f });
      if (f % 16 === 15) log(`deletes bench: ${f + 1}/${this.files} data files written`);
    }
    this.save('base');
    // eq: 5 commits, each a partition-scoped file per partition holding every 5th deleted id
    for (let c = 0; c < 5; c++) {
      const keys: unknown[][] = [];
      const parts: Record<string, unknown>[] = [];
      for (const { f } of byFile)
        for (let i = c * 20; i < this.rows; i += 100) {
          keys.push([BigInt(f * this.rows + i)]);
          parts.push({ region: REGIONS[f % REGIONS.length] });
        }
      await deleteByEquality(io, this.work, ['id'], keys, parts);
    }
    this.save('eq');
    this.restore('base');
    const positions = Array.from({ length: Math.ceil(this.rows / 20) }, (_, k) => k * 20);
    await deleteByPosition(
      io,
      this.work,
      byFile.map(({ path: p, f }) => ({ path: p, partition: { region: REGIONS[f % REGIONS.length] }, positions })),
    );
    this.save('pos');
  }
}

interface Sample {
  wall_s: number;
  cpu_s: number;
  peak_rss_bytes: number;
  rowsOk: boolean;
}

/**
 * Top self-time entries (idle left out) of the CPU profiles in `dir` (node --cpu-prof --cpu-prof-dir): one
 * per thread, the main thread's and each rewrite worker's, summed; `threads` is each one's sampled total.
 */
export function profileTop(
  dir: string,
  n = 15,
): { total_s: number; threads: number[]; top: { name: string; self_s: number }[] } {
  const self = new Map<string, number>();
  let total = 0;
  const threads: number[] = [];
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith('.cpuprofile'))
    .sort()) {
    const before = total;
    const p = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as {
      nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
      samples: number[];
      timeDeltas: number[];
    };
    const byId = new Map(p.nodes.map((x) => [x.id, x.callFrame]));
    p.samples.forEach((id, i) => {
      const cf = byId.get(id)!;
      const us = p.timeDeltas[i] ?? 0;
      const where = cf.url ? ` ${path.basename(cf.url)}:${cf.lineNumber + 1}` : '';
      const name = `${cf.functionName || '(anonymous)'}${where}`;
      if (name === '(idle)') return; // a thread waiting (on its workers, on I/O) costs no CPU
      self.set(name, (self.get(name) ?? 0) + us);
      total += us;
    });
    threads.push((total - before) / 1e6);
  }
  const top = [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, self_s: us / 1e6 }));
  return { total_s: total / 1e6, threads, top };
}

const bench: Benchmark = {
  name: 'deletes',
  description:
    'floe bin-pack with no / equality / position deletes vs DuckDB iceberg_scan → COPY (threads=2), CPU and wall',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const reps = numberFlag(ctx.flags, 'reps', 3);
    const table = new DeletesTable(numberFlag(ctx.flags, 'files', 64), numberFlag(ctx.flags, 'rows', 40_000));
    const variants = (typeof ctx.flags.variants === 'string' ? ctx.flags.variants.split(',') : VARIANTS) as Variant[];
    const before = typeof ctx.flags['floe-before'] === 'string' ? ctx.flags['floe-before'] : undefined;
    if (!existsSync(venvPython))
      throw new Error(`deletes bench: no oracle venv at ${venvPython} (scripts/setup-oracles.sh)`);
    const facts = await table.ensure(ctx.log);
    const loadBefore = os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
    const t0 = Date.now();
    const samples = new Map<string, Sample[]>();
    const add = (k: string, s: Sample) => samples.set(k, [...(samples.get(k) ?? []), s]);

    const floe = async (cli: string, v: Variant, extraNode: string[] = []): Promise<Sample> => {
      table.restore(v);
      const prior = table.currentMetadata();
      const c = await measured(
        [
          process.execPath,
          ...extraNode,
          cli,
          'compact',
          table.work,
          '--strategy',
          'binpack',
          '-o',
          'min-input-files=2',
          '--parallelism',
          '2',
          '--json',
          '--progress',
          'none',
        ],
        { FLOE_PARQUET_CODEC: 'native' },
      );
      if (table.currentMetadata() === prior) throw new Error(`floe on ${v} committed nothing`);
      const got = await table.check(`iceberg_scan('${table.currentMetadata()}')`);
      const rowsOk = got.rows === facts.expected[v].rows && got.checksum === facts.expected[v].checksum;
      return { wall_s: c.wall_s, cpu_s: c.cpu_s, peak_rss_bytes: c.peak_rss_bytes, rowsOk };
    };
    const duck = async (src: string, within?: number): Promise<Sample & { rowsOut: number; finished: boolean }> => {
      const out = path.join(table.root, 'duckdb-out');
      rmSync(out, { recursive: true, force: true });
      const argv = [venvPython, '-c', DUCKDB_COPY, oraclePyDir(), JSON.stringify({ threads: 2, src, out })];
      const c = await measured(argv, {}, within === undefined ? {} : { killAfterS: within });
      rmSync(out, { recursive: true, force: true });
      const rowsOut = c.finished ? lastJson<{ rows: number }>(c.stdout).rows : -1;
      const { wall_s, cpu_s, peak_rss_bytes, finished } = c;
      return { wall_s, cpu_s, peak_rss_bytes, rowsOk: true, rowsOut, finished };
    };
    const eqTimeout = numberFlag(ctx.flags, 'duckdb-eq-timeout', 120);
    let eqBound: { cpu_s: number; wall_s: number; seconds: number } | undefined; // iceberg_scan on eq, killed
    const antiJoin = (): string => {
      table.restore('eq');
      const base = new Set(parquetFiles(path.join(table.pristine('base'), 'data')).map((f) => path.basename(f)));
      const all = parquetFiles(path.join(table.work, 'data'));
      const list = (fs: string[]) => `[${fs.map((f) => `'${f}'`).join(', ')}]`;
      const data = all.filter((f) => base.has(path.basename(f)));
      const deletes = all.filter((f) => !base.has(path.basename(f)));
      if (deletes.length !== facts.deleteFiles.eq)
        throw new Error(
          `deletes bench: found ${deletes.length} equality-delete files, expected ${facts.deleteFiles.eq}`,
        );
      return `(SELECT d.* FROM read_parquet(${list(data)}, hive_partitioning=false) d ANTI JOIN read_parquet(${list(deletes)}) e ON d.id = e.id)`;
    };

    for (let rep = 1; rep <= reps; rep++) {
      for (const v of variants) {
        const s = await floe(floeCli, v);
        add(`floe|${v}`, s);
        ctx.log(
          `deletes rep ${rep} floe ${v}: ${s.cpu_s.toFixed(1)} CPU-s, ${s.wall_s.toFixed(1)} s, rows ${s.rowsOk ? 'identical' : 'DIFFER'}`,
        );
        if (before) {
          const b = await floe(before, v);
          add(`floe-before|${v}`, b);
          ctx.log(`deletes rep ${rep} floe-before ${v}: ${b.cpu_s.toFixed(1)} CPU-s, ${b.wall_s.toFixed(1)} s`);
        }
        if (v === 'eq') {
          const a = await duck(antiJoin());
          a.rowsOk = a.rowsOut === facts.expected.eq.rows;
          add('duckdb-antijoin|eq', a);
          ctx.log(`deletes rep ${rep} duckdb-antijoin eq: ${a.cpu_s.toFixed(1)} CPU-s, ${a.wall_s.toFixed(1)} s`);
          if (!ctx.flags['duckdb-eq']) {
            // see DeletesTable.ensure: once, bounded
            if (rep === 1) {
              table.restore(v);
              const d = await duck(`iceberg_scan('${table.currentMetadata()}')`, eqTimeout);
              if (d.finished) {
                d.rowsOk = d.rowsOut === facts.expected[v].rows;
                add(`duckdb|${v}`, d);
              } else eqBound = { cpu_s: d.cpu_s, wall_s: d.wall_s, seconds: eqTimeout };
              ctx.log(
                `deletes rep ${rep} duckdb ${v}: ${d.cpu_s.toFixed(1)} CPU-s, ${d.wall_s.toFixed(1)} s${d.finished ? '' : ` (killed after ${eqTimeout} s)`}`,
              );
            }
            continue;
          }
        }
        table.restore(v);
        const d = await duck(`iceberg_scan('${table.currentMetadata()}')`);
        d.rowsOk = d.rowsOut === facts.expected[v].rows;
        add(`duckdb|${v}`, d);
        ctx.log(`deletes rep ${rep} duckdb ${v}: ${d.cpu_s.toFixed(1)} CPU-s, ${d.wall_s.toFixed(1)} s`);
        if (v === 'base') {
          const raw = await duck(
            `read_parquet('${path.join(table.pristine('base'), 'data')}/**/*.parquet', hive_partitioning=false)`,
          );
          raw.rowsOk = raw.rowsOut === facts.expected.base.rows;
          add('duckdb-copy|base', raw);
        }
      }
    }
    const profiles: Record<string, ReturnType<typeof profileTop>> = {};
    if (ctx.flags.profile) {
      for (const v of variants) {
        const dir = mkdtempSync(path.join(table.root, 'prof-'));
        await floe(floeCli, v, ['--cpu-prof', '--cpu-prof-dir', dir]);
        profiles[v] = profileTop(dir);
        rmSync(dir, { recursive: true, force: true });
      }
    }
    const med = (k: string) => {
      const s = samples.get(k);
      if (!s) return undefined;
      return {
        wall_s: median(s.map((x) => x.wall_s)),
        cpu_s: median(s.map((x) => x.cpu_s)),
        peak: median(s.map((x) => x.peak_rss_bytes)),
        ok: s.every((x) => x.rowsOk),
        reps: s.map((x) => x.cpu_s.toFixed(1)).join(' '),
      };
    };
    const ratio = (a?: number, b?: number) => (a !== undefined && b ? (a / b).toFixed(2) : '');
    const rows: Record<string, string | number>[] = [];
    const verdicts: string[] = [];
    for (const v of variants) {
      const peer = med(`duckdb|${v}`);
      for (const k of [
        'floe',
        'floe-before',
        'duckdb',
        ...(v === 'base' ? ['duckdb-copy'] : []),
        ...(v === 'eq' ? ['duckdb-antijoin'] : []),
      ]) {
        const m = med(`${k}|${v}`);
        if (!m) continue;
        rows.push({
          case: k,
          variant: v,
          'wall s': m.wall_s.toFixed(1),
          'CPU s': m.cpu_s.toFixed(1),
          'peak RSS MiB': (m.peak / MiB).toFixed(0),
          'CPU × DuckDB scan': ratio(m.cpu_s, peer?.cpu_s),
          'wall × DuckDB scan': ratio(m.wall_s, peer?.wall_s),
          rows: m.ok ? 'identical' : 'DIFFER',
          'reps (CPU s)': m.reps,
        });
      }
      const f = med(`floe|${v}`);
      if (f && peer && v !== 'base')
        verdicts.push(
          `floe ${v}: CPU ${ratio(f.cpu_s, peer.cpu_s)}× DuckDB iceberg_scan→COPY ${f.cpu_s <= 1.3 * peer.cpu_s ? 'MET' : 'NOT met'} (target ≤ 1.3×)`,
        );
      if (f && v === 'eq' && !peer && eqBound)
        verdicts.push(
          `floe eq: CPU ≤ ${ratio(f.cpu_s, eqBound.cpu_s)}× DuckDB iceberg_scan→COPY, which was killed unfinished after ${eqBound.seconds} s having used ${eqBound.cpu_s.toFixed(1)} CPU-s (an upper bound on the ratio) ${f.cpu_s <= 1.3 * eqBound.cpu_s ? 'MET' : 'NOT shown'} (target ≤ 1.3×)`,
        );
      const anti = med('duckdb-antijoin|eq');
      if (f && anti && v === 'eq')
        verdicts.push(
          `floe eq: CPU ${ratio(f.cpu_s, anti.cpu_s)}× DuckDB read_parquet ANTI JOIN deletes→COPY (hand-written, a lower bound on DuckDB's cost) ${f.cpu_s <= 1.3 * anti.cpu_s ? 'within' : 'beyond'} 1.3×`,
        );
      const raw = med('duckdb-copy|base');
      if (f && raw && v === 'base')
        verdicts.push(
          `floe base: CPU ${ratio(f.cpu_s, raw.cpu_s)}× DuckDB read_parquet→COPY ${f.cpu_s <= raw.cpu_s ? 'MET' : 'NOT met'} (target ≤ 1.0×)`,
        );
      const b = med(`floe-before|${v}`);
      if (f && b)
        verdicts.push(`floe ${v}: CPU after / before ${ratio(f.cpu_s, b.cpu_s)}×, wall ${ratio(f.wall_s, b.wall_s)}×`);
    }
    const notes = [
      `table: ${facts.files} floe-written zstd files, ${facts.rows} rows, ${(facts.dataBytes / MiB).toFixed(1)} MiB, 4 identity partitions; eq: ${facts.deleteFiles.eq} partition-scoped equality-delete files on id; pos: ${facts.deleteFiles.pos} position-delete files; 5 % of rows deleted; cached in ${table.root}`,
      `floe: ${floeCli}${before ? `; floe-before: ${before}` : ''}; bin-pack min-input-files=2, --parallelism 2, native codec; DuckDB threads=2`,
      `${reps} interleaved reps, medians; CPU = user+sys of the process tree (bench/rusage.py), wall incl. process start`,
      `load average before: ${loadBefore}; after: ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}; ${os.availableParallelism()} cores; ${((Date.now() - t0) / 60_000).toFixed(1)} min`,
      ...verdicts,
      ...Object.entries(profiles).flatMap(([v, p]) => [
        `profile floe ${v} (${p.total_s.toFixed(1)} s sampled over ${p.threads.length} threads: ${p.threads.map((t) => t.toFixed(1)).join(' + ')}; under load a sample includes time waiting for a core), top self time:`,
        ...p.top.map((t) => `  ${t.self_s.toFixed(2)} s ${((100 * t.self_s) / p.total_s).toFixed(1)} %  ${t.name}`),
      ]),
    ];
    return { rows, notes, data: { facts, samples: Object.fromEntries(samples), profiles } };
  },
};

export default bench;
