/**
 * The Java side of the live benchmark: the streaming writer (integration/oracles/java … IcebergStreamWriter)
 * and a reader — the oracle's request loop (`floe-oracle.jar serve`) asked for `iceberg-read <metadata file>
 * --count`, timed by the caller. The writer goes through Java's JdbcCatalog on the catalog floe maintains; the
 * reader scans the metadata file the catalog names at that moment without holding the catalog open: a Java
 * JdbcCatalog kept open through a scan holds the SQLite file's read lock for seconds, and any writer's commit
 * then waits behind it (Java's sqlite-jdbc gives up after 3 s) — that would measure the reader, not floe.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** dist/bench/live → the repository root; bench/live (tsx) → the same. */
const root = existsSync(path.join(repoRoot, 'package.json')) ? repoRoot : path.resolve(repoRoot, '..');
export const oracleJar = path.join(root, '.cache/oracles/java-target/floe-oracle.jar');

export function javaAvailable(): string | undefined {
  if (!existsSync(oracleJar)) return `no Java oracle at ${oracleJar} (run bash scripts/setup-oracles.sh)`;
  return undefined;
}

export interface WriterOptions {
  /** `jdbc:sqlite:FILE` or `jdbc:postgresql://…?user=…` */
  jdbc: string;
  warehouse: string;
  table: string;
  mode: 'append' | 'upsert';
  seconds: number;
  intervalMs: number;
  partitions: number;
  filesPerCommit: number;
  rowsPerFile: number;
  baseRows: number;
  upsertRows: number;
  ready: string;
  log: string;
}

export interface WriterResult {
  commits: number;
  attempts: number;
  /** Compare-and-swap losses inside Iceberg's retry loop (another committer — floe — moved the pointer). */
  conflicts: number;
  failures: { error: string; cause?: string }[];
  expectedRows: number;
  bytesData: number;
  bytesDeletes: number;
  baseFiles: number;
  baseBytes: number;
}

/** One line of the writer's --log: a commit round. */
export interface WriterCommit {
  atMs: number;
  commitMs: number;
  dataFiles: number;
  deleteFiles: number;
  dataBytes: number;
  deleteBytes: number;
  conflicts: number;
}

export function startWriter(o: WriterOptions) {
  const lib = path.join(path.dirname(oracleJar), 'lib', '*');
  const args = [
    '-cp',
    `${oracleJar}${path.delimiter}${lib}`,
    'floe.oracle.IcebergStreamWriter',
    ...['--catalog', o.jdbc, '--warehouse', o.warehouse, '--table', o.table, '--mode', o.mode],
    ...['--seconds', String(o.seconds), '--interval-ms', String(o.intervalMs)],
    ...['--partitions', String(o.partitions), '--files-per-commit', String(o.filesPerCommit)],
    ...['--rows-per-file', String(o.rowsPerFile), '--base-rows', String(o.baseRows)],
    ...['--upsert-rows', String(o.upsertRows), '--ready', o.ready, '--log', o.log],
  ];
  const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
  child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString('utf8')).slice(-8000)));
  const killer = setTimeout(() => child.kill('SIGKILL'), (o.seconds + 180) * 1000);
  let finished = false;
  const done = new Promise<WriterResult>((resolve, reject) => {
    child.on('close', (code) => {
      clearTimeout(killer);
      finished = true;
      if (code !== 0) return reject(new Error(`stream writer exited ${code}:\n${stderr}`));
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop()!) as WriterResult);
      } catch (e) {
        reject(new Error(`stream writer printed no result (${(e as Error).message}):\n${stdout}\n${stderr}`));
      }
    });
  });
  done.catch(() => undefined);
  const waitReady = async () => {
    const until = Date.now() + 180_000;
    while (!existsSync(o.ready)) {
      if (finished || Date.now() > until) throw new Error(`stream writer did not start:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  return { done, waitReady, running: () => !finished };
}

/** A long-lived JVM answering `iceberg-read … --count` requests, one at a time. */
export class JavaReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: ((line: string | undefined) => void)[] = [];
  private stderr = '';

  constructor() {
    this.child = spawn('java', ['-jar', oracleJar, 'serve'], { stdio: ['pipe', 'pipe', 'pipe'] });
    createInterface({ input: this.child.stdout }).on('line', (l) => this.waiting.shift()?.(l));
    this.child.stderr.on('data', (b: Buffer) => (this.stderr = (this.stderr + b.toString('utf8')).slice(-4000)));
    this.child.on('exit', () => {
      for (const w of this.waiting.splice(0)) w(undefined);
    });
  }

  /** Rows of the metadata file's current snapshot (deletes applied) and how long the scan took. */
  async count(metadataLocation: string): Promise<{ rows: number; ms: number }> {
    const t0 = performance.now();
    const line = await new Promise<string | undefined>((resolve) => {
      this.waiting.push(resolve);
      const argv = ['iceberg-read', metadataLocation, '--count'];
      this.child.stdin.write(`${JSON.stringify({ argv, input: null })}\n`);
    });
    const ms = performance.now() - t0;
    if (line === undefined) throw new Error(`java reader exited:\n${this.stderr}`);
    const reply = JSON.parse(line) as { ok: boolean; stdout?: string; error?: string };
    if (!reply.ok) throw new Error(`java reader: ${reply.error}`);
    const text = (reply.stdout ?? '').trim();
    const n = Number(/\d+/.exec(text)?.[0] ?? NaN);
    return { rows: n, ms };
  }

  close(): void {
    this.child.stdin.end();
  }
}
