/**
 * Plumbing of the catalog interop tier:
 * - PyIceberg through a real catalog (integration/oracles/py/pyiceberg_catalog.py: SqlCatalog on a SQLite
 *   file, or RestCatalog);
 * - the Java oracle through JdbcCatalog / RESTCatalog (`--catalog jdbc:sqlite:… | rest:…`), one long-lived
 *   `serve` JVM per test file;
 * - the reference REST catalog server (Java oracle `rest-server`: iceberg-core's RESTCatalogAdapter +
 *   RESTCatalogServlet over a JdbcCatalog on SQLite), on 127.0.0.1;
 * - floe's CLI commands run in-process with `--json` (the real commander definitions);
 * - the catalog row as the SQLite file holds it.
 */
import Database from 'better-sqlite3';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { register as registerCompact } from '../../src/shells/cli/commands/compact.js';
import { register as registerExpire } from '../../src/shells/cli/commands/expire.js';
import { register as registerRemoveOrphans } from '../../src/shells/cli/commands/remove-orphans.js';
import { register as registerRewriteManifests } from '../../src/shells/cli/commands/rewrite-manifests.js';
import { oracleJar, repoRoot, type Availability, type CanonicalRow, type InputRow } from '../oracles/index.js';

const python = process.env.FLOE_ORACLE_PYTHON ?? path.join(repoRoot, '.venv/bin/python');
const script = path.join(repoRoot, 'integration/oracles/py/pyiceberg_catalog.py');
const javaOut = path.dirname(oracleJar);
const HINT = 'run `bash scripts/setup-oracles.sh`';

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], input?: string, cwd?: string): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => resolve({ code: -1, stdout: '', stderr: String(e) }));
    child.on('close', (code) =>
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

const lines = (text: string): CanonicalRow[] =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as CanonicalRow);

// ------------------------------------------------------------------ availability

export async function pythonCatalogAvailable(): Promise<Availability> {
  if (!existsSync(python)) return { ok: false, reason: `python venv missing at ${python}: ${HINT}` };
  const r = await run(python, ['-c', 'import pyiceberg.catalog.sql, pyiceberg.catalog.rest, pyarrow, sqlalchemy']);
  if (r.code !== 0)
    return { ok: false, reason: `PyIceberg catalogs not importable: ${r.stderr.trim().split('\n').pop()} (${HINT})` };
  return { ok: true };
}

/** The jar must be a build with the catalog commands (CatalogOracle, sqlite-jdbc, Jetty on its class path). */
export async function javaCatalogAvailable(): Promise<Availability> {
  const v = await run('java', ['-version']);
  if (v.code !== 0) return { ok: false, reason: 'java not runnable' };
  if (!existsSync(oracleJar)) return { ok: false, reason: `oracle jar missing at ${oracleJar}: ${HINT}` };
  const libs = existsSync(path.join(javaOut, 'lib')) ? readdirSync(path.join(javaOut, 'lib')) : [];
  const catalogBuild =
    existsSync(path.join(javaOut, 'classes/floe/oracle/CatalogOracle.class')) &&
    libs.some((n) => n.startsWith('sqlite-jdbc-')) &&
    libs.some((n) => n.startsWith('jetty-servlet-')) &&
    libs.some((n) => /^iceberg-core-.*-tests\.jar$/.test(n));
  if (!catalogBuild) return { ok: false, reason: `oracle jar predates the catalog commands: ${HINT}` };
  return { ok: true };
}

// ------------------------------------------------------------------ PyIceberg through a catalog

export interface PyWriteSpec {
  formatVersion?: 1 | 2;
  schema?: { name: string; type: string; required?: boolean }[];
  partitionSpec?: { source: string; transform?: string; name?: string }[];
  properties?: Record<string, string>;
  ops: { op: 'append'; rows: InputRow[] }[];
}

export interface PyWriteResult {
  location: string;
  metadataFile: string;
  currentSnapshotId: string | null;
  ops: { op: string; snapshotId: string | null }[];
}

export interface SnapshotList {
  current: string | null;
  snapshots: { id: string; parent: string | null; operation: string | null }[];
  metadataLog: string[];
}

/** PyIceberg through `catalog` (sql:<sqlite file> | rest:<url>), calls served by one Python process. */
export class PyCatalog {
  constructor(
    private readonly session: OracleSession,
    readonly catalog: string,
    private readonly warehouse?: string,
  ) {}

  private call(cmd: string, table: string, args: string[] = [], input?: unknown): Promise<string> {
    const wh = this.warehouse ? ['--warehouse', this.warehouse] : [];
    return this.session.call([cmd, table, '--catalog', this.catalog, ...wh, ...args], input);
  }

  async write(table: string, spec: PyWriteSpec): Promise<PyWriteResult> {
    return JSON.parse(await this.call('write', table, [], spec)) as PyWriteResult;
  }

  async read(table: string, snapshotId?: string): Promise<CanonicalRow[]> {
    return lines(await this.call('read', table, snapshotId ? ['--snapshot', snapshotId] : []));
  }

  async snapshots(table: string): Promise<SnapshotList> {
    return JSON.parse(await this.call('snapshots', table)) as SnapshotList;
  }

  /** Rows of every snapshot (time travel), keyed by snapshot id. */
  async history(table: string): Promise<Record<string, CanonicalRow[]>> {
    return JSON.parse(await this.call('history', table)) as Record<string, CanonicalRow[]>;
  }
}

// ------------------------------------------------------------------ long-lived oracle processes

/**
 * One oracle process in request-loop mode (`java -jar floe-oracle.jar serve`, `pyiceberg_catalog.py serve`):
 * each call is a JSON line {argv, input}, each reply a JSON line, answered in order. Engine start-up (JVM,
 * pyarrow imports) costs seconds on a busy machine; this pays it once per test file.
 */
export class OracleSession {
  private child: ChildProcessWithoutNullStreams | undefined;
  private waiting: ((line: string | undefined) => void)[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  private stderr = '';

  constructor(
    private readonly name: string,
    private readonly cmd: string,
    private readonly args: string[],
    private readonly cwd?: string,
    private readonly env?: NodeJS.ProcessEnv,
  ) {}

  private start(): ChildProcessWithoutNullStreams {
    const child = spawn(this.cmd, this.args, {
      cwd: this.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(this.env ? { env: this.env } : {}),
    });
    createInterface({ input: child.stdout }).on('line', (l) => this.waiting.shift()?.(l));
    child.stderr.on('data', (b: Buffer) => (this.stderr = (this.stderr + b.toString('utf8')).slice(-6000)));
    child.on('exit', () => {
      this.child = undefined;
      for (const w of this.waiting.splice(0)) w(undefined);
    });
    child.stdin.on('error', () => undefined);
    return child;
  }

  call(argv: string[], input?: unknown): Promise<string> {
    const next = this.chain.then(
      () =>
        new Promise<string>((resolve, reject) => {
          const child = (this.child ??= this.start());
          this.waiting.push((line) => {
            if (line === undefined) return reject(new Error(`${this.name} exited:\n${this.stderr}`));
            const reply = JSON.parse(line) as {
              ok: boolean;
              code?: number;
              stdout?: string;
              error?: string;
              trace?: string;
            };
            if (reply.ok && (reply.code ?? 0) === 0) resolve(reply.stdout ?? '');
            else
              reject(
                new Error(
                  `${this.name} ${argv.join(' ')} failed: ${reply.error ?? `exit ${reply.code}`}\n${(reply.trace ?? '').slice(-3000)}\n${this.stderr.slice(-2000)}`,
                ),
              );
          });
          child.stdin.write(`${JSON.stringify({ argv, input: input ?? null })}\n`);
        }),
    );
    this.chain = next.catch(() => undefined);
    return next;
  }

  close(): void {
    this.child?.stdin.end();
  }
}

/** `env`: the JVM's whole environment (e.g. without AWS credentials); default: this process's. */
export const javaSession = (env?: NodeJS.ProcessEnv): OracleSession =>
  new OracleSession('java oracle', 'java', ['-jar', oracleJar, 'serve'], undefined, env);
export const pythonSession = (): OracleSession =>
  new OracleSession('pyiceberg_catalog.py', python, ['-B', script, 'serve'], path.dirname(script));

/** Java's JdbcCatalog (`jdbc:sqlite:FILE`) or RESTCatalog (`rest:URL`), catalog name "oracle" like PyIceberg's. */
export class JavaCatalog {
  /** `properties`: extra catalog properties (credential, io-impl, header.* …), sent over the session's stdin. */
  constructor(
    private readonly session: OracleSession,
    private readonly catalog: string,
    private readonly warehouse?: string,
    private readonly properties?: Record<string, string>,
  ) {}

  private flags(): string[] {
    return [
      '--catalog',
      this.catalog,
      ...(this.warehouse ? ['--warehouse', this.warehouse] : []),
      ...(this.properties ? ['--catalog-properties', JSON.stringify(this.properties)] : []),
    ];
  }

  async append(table: string, rows: InputRow[]): Promise<{ currentSnapshotId: string; metadataFile: string }> {
    return JSON.parse(await this.session.call(['iceberg-append', table, ...this.flags()], { rows })) as {
      currentSnapshotId: string;
      metadataFile: string;
    };
  }

  async read(table: string, snapshotId?: string): Promise<CanonicalRow[]> {
    return lines(
      await this.session.call([
        'iceberg-read',
        table,
        ...this.flags(),
        ...(snapshotId ? ['--snapshot', snapshotId] : []),
      ]),
    );
  }
}

// ------------------------------------------------------------------ REST catalog server

export interface RestServer {
  uri: string;
  stop(): Promise<void>;
}

/**
 * Starts the reference REST catalog on 127.0.0.1 over a JdbcCatalog on `backendDb`, warehouse `warehouse`;
 * `backendProperties` (e.g. S3FileIO and its keys for an S3 warehouse) reach it through the environment.
 */
export function startRestServer(
  warehouse: string,
  backendDb: string,
  timeoutMs = 120_000,
  backendProperties?: Record<string, string>,
): Promise<RestServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'java',
      ['-jar', oracleJar, 'rest-server', warehouse, '--backend', `jdbc:sqlite:${backendDb}`],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        ...(backendProperties
          ? { env: { ...process.env, FLOE_ORACLE_BACKEND_PROPERTIES: JSON.stringify(backendProperties) } }
          : {}),
      },
    );
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString('utf8')).slice(-6000)));
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`REST catalog server did not start within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`REST catalog server exited (${code}) before listening:\n${stderr}`));
    });
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const { uri } = JSON.parse(line) as { uri: string };
      resolve({
        uri,
        async stop() {
          child.stdin.end(); // the server stops at EOF
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
  });
}

// ------------------------------------------------------------------ floe CLI, in-process

let queue: Promise<unknown> = Promise.resolve();

/** `floe <args> --json` through the real command definitions; returns the parsed JSON and the exit code. */
export function floeCli<T = Record<string, unknown>>(args: string[]): Promise<{ json: T; exitCode: number }> {
  const go = async () => {
    const program = new Command().exitOverride();
    for (const register of [registerCompact, registerExpire, registerRemoveOrphans, registerRewriteManifests])
      register(program);
    const chunks: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    const saved = process.exitCode;
    process.exitCode = 0;
    process.stdout.write = ((c: string | Uint8Array) => {
      chunks.push(typeof c === 'string' ? c : Buffer.from(c).toString('utf8'));
      return true;
    }) as typeof process.stdout.write;
    let exitCode: number;
    try {
      await program.parseAsync(['node', 'floe', ...args, '--json']);
    } finally {
      process.stdout.write = write;
      exitCode = Number(process.exitCode ?? 0);
      process.exitCode = saved;
    }
    return { json: JSON.parse(chunks.join('')) as T, exitCode };
  };
  const p = queue.then(go, go);
  queue = p.catch(() => undefined);
  return p;
}

// ------------------------------------------------------------------ SQLite catalog rows

export interface CatalogRow {
  catalog_name: string;
  metadata_location: string;
  previous_metadata_location: string | null;
}

export function catalogRow(db: string, namespace: string, table: string): CatalogRow {
  const conn = new Database(db, { readonly: true });
  try {
    const rows = conn
      .prepare(
        'SELECT catalog_name, metadata_location, previous_metadata_location FROM iceberg_tables WHERE table_namespace = ? AND table_name = ?',
      )
      .all(namespace, table) as CatalogRow[];
    if (rows.length !== 1)
      throw new Error(`expected one catalog row for ${namespace}.${table} in ${db}, found ${rows.length}`);
    return rows[0]!;
  } finally {
    conn.close();
  }
}

/** Version number of a metastore-style metadata file name (`00012-<uuid>.metadata.json` → 12). */
export function metastoreVersion(location: string): number {
  const m = /\/(\d{5,})-[0-9a-f-]{36}\.metadata\.json$/.exec(location);
  if (!m) throw new Error(`not a metastore-style metadata file name: ${location}`);
  return Number(m[1]);
}

/** Ids from `current` back through parents, newest first. */
export function lineage(list: SnapshotList): string[] {
  const byId = new Map(list.snapshots.map((s) => [s.id, s]));
  const out: string[] = [];
  for (let id = list.current; id !== null; id = byId.get(id)?.parent ?? null) {
    out.push(id);
    if (!byId.has(id)) break;
  }
  return out;
}
