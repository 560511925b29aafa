/**
 * The issue-11 benchmark table, generated once by real engines and cached outside the clone.
 *
 * - base: PyIceberg (bench/gen_table.py, the project's .venv): 480 zstd files × ~2.1 MB, 19.2 M rows,
 *   15 columns (5 strings), identity-partitioned by `region` (8 partitions), 60 append commits.
 * - eq: base + 40 equality-delete files (5 commits × 8 partitions, on `id`) deleting every row with
 *   id % 20 = 0 (5 %), written by the Java Iceberg oracle (integration/oracles/java; PyIceberg writes none).
 * - pos: base + Spark 3.5 merge-on-read `DELETE … WHERE id % 20 = 0`: one position-delete file per data
 *   file (480), needs `bash bench/setup-spark.sh`.
 *
 * FLOE_BENCH_SCALE (or --scale) scales the number of files (multiple of 8, at least 16), 40,000 rows each.
 * Tables hold absolute paths, so every engine works on one path, `<root>/work/db/events`: a variant is
 * saved under `<root>/pristine/<variant>` and restored before each case (data hard-linked — Iceberg data
 * files are never changed in place — metadata copied). Cache key: GEN_VERSION + gen_table.py's content.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const GEN_VERSION = 'table-1gb/1';
export const ROWS_PER_FILE = 40_000;
export const PARTITIONS = 8;
export type Variant = 'base' | 'eq' | 'pos';
export const VARIANTS: Variant[] = ['base', 'eq', 'pos'];

export const repoRoot = (() => {
  let d = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(d, 'package.json')) && path.dirname(d) !== d) d = path.dirname(d);
  return d;
})();
export const benchSrc = path.join(repoRoot, 'bench');
export const venvPython = process.env.FLOE_ORACLE_PYTHON ?? path.join(repoRoot, '.venv/bin/python');
const oracleJar = path.join(repoRoot, '.cache/oracles/java-target/floe-oracle.jar');

export interface SparkSetup {
  python: string;
  jar: string;
}

/** The Spark peer installed by bench/setup-spark.sh, or why it is not there. */
export function sparkSetup(): SparkSetup | { missing: string } {
  const home = process.env.FLOE_SPARK_HOME ?? path.join(os.homedir(), '.cache/floe/spark');
  const venv = existsSync(home) ? readdirSync(home).find((n) => n.startsWith('venv-pyspark-3.5')) : undefined;
  const jar = existsSync(home)
    ? readdirSync(home).find((n) => /^iceberg-spark-runtime-3\.5_2\.12-1\.10\.\d+\.jar$/.test(n))
    : undefined;
  if (!venv || !jar) return { missing: `no Spark peer under ${home}: run \`bash bench/setup-spark.sh\`` };
  return { python: path.join(home, venv, 'bin/python'), jar: path.join(home, jar) };
}

export interface Checksum {
  rows: number;
  checksum: string;
}

export interface TableFacts {
  files: number;
  rows: number;
  dataBytes: number;
  deleteFiles: Partial<Record<Variant, number>>;
  expected: Partial<Record<Variant, Checksum>>;
  skipped: Partial<Record<Variant, string>>;
  generatedSeconds: Partial<Record<Variant, number>>;
}

export interface RunOut {
  stdout: string;
  stderr: string;
}

export function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  input?: string,
  timeoutMs?: number,
): Promise<RunOut> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    const timer = timeoutMs
      ? setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`${path.basename(cmd)} timed out after ${timeoutMs / 1000} s`));
        }, timeoutMs)
      : undefined;
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err = (err + d).slice(-20_000)));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0)
        reject(new Error(`${path.basename(cmd)} ${args.slice(0, 3).join(' ')} exited ${code}: ${err.slice(-3000)}`));
      else resolve({ stdout: out, stderr: err });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

export function lastJson<T>(text: string): T {
  const line = text
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (!line) throw new Error(`no JSON result in: ${text.slice(-500)}`);
  return JSON.parse(line) as T;
}

export function scaleFiles(scale: number): number {
  return Math.max(16, Math.round((480 * scale) / PARTITIONS) * PARTITIONS);
}

export class BenchTable {
  readonly root: string;
  readonly warehouse: string;
  /** The one path every engine reads and writes (Iceberg metadata holds absolute paths). */
  readonly work: string;

  constructor(readonly files: number) {
    const hash = createHash('sha256').update(GEN_VERSION);
    // the base's generator is hashed; a change to how the delete variants are made needs a GEN_VERSION bump
    hash.update(readFileSync(path.join(benchSrc, 'gen_table.py')));
    const base = process.env.FLOE_BENCH_CACHE ?? path.join(os.homedir(), '.cache/floe/bench');
    this.root = path.join(base, `table-1gb-${hash.digest('hex').slice(0, 12)}-f${files}`);
    this.warehouse = path.join(this.root, 'work');
    this.work = path.join(this.warehouse, 'db/events');
  }

  pristine(v: Variant): string {
    return path.join(this.root, 'pristine', v);
  }

  /** The current metadata file of the work table (version-hint → v<N>.metadata.json). */
  currentMetadata(): string {
    const dir = path.join(this.work, 'metadata');
    const v = readFileSync(path.join(dir, 'version-hint.text'), 'utf8').trim();
    return path.join(dir, `v${v}.metadata.json`);
  }

  async restore(v: Variant): Promise<void> {
    rmSync(this.work, { recursive: true, force: true });
    mkdirSync(this.work, { recursive: true });
    await run('cp', ['-al', path.join(this.pristine(v), 'data'), path.join(this.work, 'data')]);
    await run('cp', ['-r', path.join(this.pristine(v), 'metadata'), path.join(this.work, 'metadata')]);
  }

  private save(v: Variant): void {
    mkdirSync(path.dirname(this.pristine(v)), { recursive: true });
    rmSync(this.pristine(v), { recursive: true, force: true });
    renameSync(this.work, this.pristine(v));
  }

  async checksum(
    target: string | { filesMinusDeletes: string } | { files: string },
    timeoutMs?: number,
  ): Promise<Checksum> {
    const args =
      typeof target === 'string'
        ? [target]
        : 'files' in target
          ? ['--files', target.files]
          : ['--files-minus-deletes', target.filesMinusDeletes];
    return lastJson<Checksum>(
      (await run(venvPython, [path.join(benchSrc, 'check_rows.py'), ...args], {}, undefined, timeoutMs)).stdout,
    );
  }

  /**
   * The cached table's facts, or undefined when it must be generated again: Iceberg metadata holds absolute
   * paths, so a cache directory copied or renamed from another key would make every engine read that
   * other directory's files.
   */
  facts(): TableFacts | undefined {
    const f = path.join(this.root, 'ready.json');
    if (!existsSync(f)) return undefined;
    const meta = path.join(this.pristine('base'), 'metadata');
    const hint = path.join(meta, 'version-hint.text');
    if (existsSync(hint)) {
      const v = readFileSync(hint, 'utf8').trim();
      const location = (
        JSON.parse(readFileSync(path.join(meta, `v${v}.metadata.json`), 'utf8')) as { location?: string }
      ).location;
      if (location !== pathToFileURL(this.work).href && location !== this.work) return undefined;
    }
    return JSON.parse(readFileSync(f, 'utf8')) as TableFacts;
  }

  /** Generates whatever is missing (base, then the delete variants) and returns the table's facts. */
  async ensure(log: (m: string) => void): Promise<TableFacts> {
    const have = this.facts();
    const spark = sparkSetup();
    if (have && (have.skipped.pos === undefined || 'missing' in spark)) return have;
    const facts: TableFacts = have ?? {
      files: 0,
      rows: 0,
      dataBytes: 0,
      deleteFiles: {},
      expected: {},
      skipped: {},
      generatedSeconds: {},
    };
    if (!have) {
      rmSync(this.root, { recursive: true, force: true });
      mkdirSync(this.warehouse, { recursive: true });
      log(`table-1gb: generating ${this.files} files with PyIceberg under ${this.root} …`);
      const t0 = Date.now();
      const g = lastJson<{ rows: number; files: number; bytes: number }>(
        (
          await run(venvPython, [
            path.join(benchSrc, 'gen_table.py'),
            this.work,
            '--files',
            String(this.files),
            '--rows-per-file',
            String(ROWS_PER_FILE),
          ])
        ).stdout,
      );
      Object.assign(facts, { files: g.files, rows: g.rows, dataBytes: g.bytes });
      facts.expected.base = await this.checksum(this.currentMetadata());
      const raw = await this.checksum({ files: path.join(this.work, 'data') });
      if (raw.rows !== g.rows || raw.checksum !== facts.expected.base.checksum)
        throw new Error(
          `table-1gb: DuckDB iceberg_scan ${JSON.stringify(facts.expected.base)} ≠ files ${JSON.stringify(raw)}`,
        );
      facts.deleteFiles.base = 0;
      facts.generatedSeconds.base = (Date.now() - t0) / 1000;
      this.save('base');

      const minusDeletes = await (async () => {
        await this.restore('base');
        return this.checksum({ filesMinusDeletes: path.join(this.work, 'data') });
      })();

      log('table-1gb: equality deletes with the Java Iceberg oracle …');
      const t1 = Date.now();
      if (!existsSync(oracleJar))
        throw new Error(`no Java oracle at ${oracleJar}: run \`bash scripts/setup-oracles.sh\``);
      const specFile = path.join(this.root, 'eq-deletes.json');
      writeFileSync(specFile, this.eqDeleteSpec(g.rows));
      await run('java', ['-jar', oracleJar, 'iceberg-ops', this.work, '--spec', specFile]);
      rmSync(specFile);
      // Not read back: DuckDB's iceberg_scan applies equality deletes very slowly (minutes for 2 M rows)
      // and the Java oracle's reader holds every row. The deleted ids exist, so the live rows are the
      // base's minus id % 20 = 0; every compacted result is checked against that.
      facts.expected.eq = minusDeletes;
      facts.deleteFiles.eq = this.countDeleteFiles(facts.files);
      facts.generatedSeconds.eq = (Date.now() - t1) / 1000;
      this.save('eq');
    }
    if ('missing' in spark) {
      facts.skipped.pos = spark.missing;
    } else {
      log('table-1gb: position deletes with Spark (merge-on-read DELETE) …');
      const t2 = Date.now();
      await this.restore('base');
      const minusDeletes = await this.checksum({ filesMinusDeletes: path.join(this.work, 'data') });
      await run(spark.python, [path.join(benchSrc, 'spark_job.py'), 'pos-deletes', this.warehouse], {
        ICEBERG_SPARK_JAR: spark.jar,
      });
      facts.expected.pos = await this.checksum(this.currentMetadata());
      this.assertSame('pos', facts.expected.pos, minusDeletes);
      facts.deleteFiles.pos = this.countDeleteFiles(facts.files);
      facts.generatedSeconds.pos = (Date.now() - t2) / 1000;
      delete facts.skipped.pos;
      this.save('pos');
    }
    writeFileSync(path.join(this.root, 'ready.json'), JSON.stringify(facts, null, 2));
    return facts;
  }

  private assertSame(v: Variant, got: Checksum, want: Checksum): void {
    if (got.rows !== want.rows || got.checksum !== want.checksum)
      throw new Error(
        `table-1gb: the ${v} variant reads ${JSON.stringify(got)} but base minus id % 20 = 0 is ${JSON.stringify(want)}`,
      );
  }

  /** Delete files = Parquet files beyond the base's data files (engines name them differently). */
  private countDeleteFiles(baseFiles: number): number {
    let n = 0;
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(d, e.name));
        else if (e.name.endsWith('.parquet')) n++;
      }
    };
    walk(path.join(this.work, 'data'));
    return n - baseFiles;
  }

  /** 5 delete-eq ops (→ 5 commits × 8 partition files) over every id with id % 20 = 0. */
  private eqDeleteSpec(rows: number): string {
    const regions = ['eu-west', 'eu-central', 'eu-north', 'us-east', 'us-west', 'ap-south', 'ap-east', 'sa-east'];
    const perBatch = ROWS_PER_FILE * PARTITIONS;
    const ops: string[] = [];
    for (let k = 0; k < 5; k++) {
      const keys: string[] = [];
      for (let id = k * 20; id < rows; id += 100) {
        const region = regions[Math.floor((id % perBatch) / ROWS_PER_FILE)];
        keys.push(`{"id":"${id}","region":"${region}"}`);
      }
      ops.push(`{"op":"delete-eq","fields":["id"],"rows":[${keys.join(',')}]}`);
    }
    return `{"ops":[${ops.join(',')}]}`;
  }

  dataBytesOf(dir: string): number {
    let n = 0;
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(d, e.name));
        else if (e.name.endsWith('.parquet')) n += statSync(path.join(d, e.name)).size;
      }
    };
    walk(dir);
    return n;
  }
}
