/**
 * compact-1gb's pieces that decide something, kept apart so test/bench/compact-1gb.test.ts can check them:
 * what a `floe compact --json` run says about itself, the tiered case's rounds (the tiered planner is
 * incremental, as Amoro's is: one run spends one input budget and defers the rest, so a full compaction —
 * what Spark's rewrite_data_files does in one call — is `floe compact --strategy tiered` repeated until a run
 * plans nothing), and which cases a `--cases`/`--codec` selection means.
 */

export interface Cost {
  wall_s: number;
  cpu_s: number;
  peak_rss_bytes: number;
}

/** The fields of a floe-result/1 `compact` document the bench reads. */
export interface CompactDoc {
  status: string;
  exitCode: number;
  tasks: { id: string; kind: string; outcome: string }[];
  snapshots: string[];
  failedTasks: unknown[];
  before?: { dataFiles: number; deleteFiles: number; records: number };
  after?: { dataFiles: number; deleteFiles: number; records: number } | null;
  rowsIn?: number;
  rowsOut?: number;
  /** The Parquet codec the run used, once floe reports it (any of these names). */
  parquetCodec?: unknown;
  codec?: unknown;
}

/** The `--json` document of one `floe compact` run; throws, quoting the output, when it is not one. */
export function compactDoc(stdout: string): CompactDoc {
  let doc: CompactDoc;
  try {
    doc = JSON.parse(stdout) as CompactDoc;
  } catch {
    throw new Error(`floe compact --json printed no single JSON document: ${stdout.slice(0, 800)}`);
  }
  if (doc?.status === undefined || !Array.isArray(doc.tasks))
    throw new Error(`floe compact --json: not a compact result (no status / tasks): ${stdout.slice(0, 800)}`);
  return doc;
}

/** A run that planned nothing: status ok and no task (it commits nothing; the table is as compact as the planner wants). */
export function plannedNothing(doc: CompactDoc): boolean {
  return doc.status === 'ok' && doc.tasks.length === 0;
}

/** The codec a run reports, when it reports one (a string field `parquetCodec` or `codec`, or `{ name }`). */
export function reportedCodec(doc: CompactDoc): string | undefined {
  for (const v of [doc.parquetCodec, doc.codec]) {
    if (typeof v === 'string') return v;
    if (v && typeof v === 'object' && typeof (v as { name?: unknown }).name === 'string')
      return (v as { name: string }).name;
  }
  return undefined;
}

/** One line about a run: tasks, files and delete files before → after, rows in → out. */
export function describeRun(doc: CompactDoc): string {
  const parts = [`${doc.tasks.length} tasks`];
  if (doc.before && doc.after)
    parts.push(
      `data files ${doc.before.dataFiles}→${doc.after.dataFiles}`,
      `delete files ${doc.before.deleteFiles}→${doc.after.deleteFiles}`,
    );
  if (doc.rowsIn !== undefined) parts.push(`rows ${doc.rowsIn}→${doc.rowsOut ?? '?'}`);
  return parts.join(', ');
}

export interface Round extends Cost {
  doc: CompactDoc;
}

export interface Rounds {
  rounds: Round[];
  /** The last round planned nothing; false when `maxRounds` ran out first. */
  converged: boolean;
  /** Wall and CPU summed over every round (the last, empty one included), peak RSS the largest round's. */
  total: Cost;
}

/** Sum of wall and CPU, the largest peak RSS. */
export function sumCosts(costs: readonly Cost[]): Cost {
  return {
    wall_s: costs.reduce((n, c) => n + c.wall_s, 0),
    cpu_s: costs.reduce((n, c) => n + c.cpu_s, 0),
    peak_rss_bytes: costs.reduce((n, c) => Math.max(n, c.peak_rss_bytes), 0),
  };
}

/**
 * Runs `round` until one plans nothing or `maxRounds` rounds ran. The first round must plan something (a
 * table the planner leaves alone is no compaction to measure); every round must end ok (a failed or
 * partial round stops the case: its later rounds would measure a different table).
 */
export async function untilNothingPlanned(round: (i: number) => Promise<Round>, maxRounds: number): Promise<Rounds> {
  const rounds: Round[] = [];
  for (let i = 0; i < maxRounds; i++) {
    const r = await round(i);
    rounds.push(r);
    if (r.doc.status !== 'ok')
      throw new Error(`round ${i + 1} ended ${r.doc.status} (exit ${r.doc.exitCode}): ${describeRun(r.doc)}`);
    if (plannedNothing(r.doc)) {
      if (i === 0) throw new Error('the first round planned nothing: there is no compaction to measure');
      return { rounds, converged: true, total: sumCosts(rounds) };
    }
  }
  return { rounds, converged: false, total: sumCosts(rounds) };
}

export type CodecName = 'native' | 'wasm';
export type FloeCase = 'floe-binpack' | 'floe-tiered';
export type PeerCase = 'spark' | 'duckdb-1' | 'duckdb-2';
export const FLOE_CASES: FloeCase[] = ['floe-binpack', 'floe-tiered'];
export const PEER_CASES: PeerCase[] = ['spark', 'duckdb-1', 'duckdb-2'];

export interface CaseSpec {
  /** `floe-binpack`, `floe-binpack-wasm`, `spark`, … (a wasm floe case carries the suffix whatever --codec says). */
  name: string;
  kind: FloeCase | PeerCase;
  codec?: CodecName;
  /** [--before] another build's root (a `dist` holding src/shells/cli/main.js): the floe case runs that build. */
  build?: string;
}

/**
 * The cases of a `--cases` list (floe-binpack, floe-tiered, spark, duckdb-1, duckdb-2; default all) under
 * `--codec native|wasm|both` (default native): each floe case runs with that codec, or with both (then the
 * wasm one is a case of its own, `<case>-wasm`). A name may also carry `-wasm` itself. Unknown names throw.
 */
export function selectCases(casesFlag: string | undefined, codecFlag: string | undefined): CaseSpec[] {
  const codec = codecFlag ?? 'native';
  if (codec !== 'native' && codec !== 'wasm' && codec !== 'both')
    throw new Error(`--codec must be native, wasm or both, got ${codec}`);
  const names = casesFlag ? casesFlag.split(',').map((s) => s.trim()) : [...FLOE_CASES, ...PEER_CASES];
  const out: CaseSpec[] = [];
  const add = (c: CaseSpec): void => {
    if (!out.some((o) => o.name === c.name)) out.push(c);
  };
  for (const n of names) {
    const base = n.replace(/-wasm$/, '');
    if ((PEER_CASES as string[]).includes(n)) add({ name: n, kind: n as PeerCase });
    else if ((FLOE_CASES as string[]).includes(base)) {
      const kind = base as FloeCase;
      const codecs: CodecName[] = n !== base ? ['wasm'] : codec === 'both' ? ['native', 'wasm'] : [codec];
      for (const c of codecs) add({ name: c === 'wasm' ? `${kind}-wasm` : kind, kind, codec: c });
    } else
      throw new Error(
        `unknown case ${n}; known: ${[...FLOE_CASES, ...FLOE_CASES.map((c) => `${c}-wasm`), ...PEER_CASES].join(', ')}`,
      );
  }
  return out;
}
