/**
 * `npm run bench -- live`: the seed scenarios (src/core/simulate/presets.ts: append, upsert), scaled down and
 * live. A real Java writer (IcebergStreamWriter) commits through a SQLite JDBC catalog every few seconds
 * for a few minutes while floe maintains the same table through the same catalog, one regime per case:
 * - `serve`: `floe serve`, self-optimizing (tiered planner), compact job every --every seconds;
 * - `binpack`: fixed-interval `floe compact --strategy binpack` (Spark rewrite_data_files' options) on the
 *   same schedule (Spark itself only where bench/setup-spark.sh has been run; not here).
 * Measured per case: maintenance CPU-s, bytes read and written, commits, commit conflicts (floe's and the
 * writer's), data and delete files per partition sampled every --sample seconds, a Java reader's scan time
 * sampled with them; then the simulator replays the stream the writer actually committed against the same
 * policy and schedule, and each measured figure is printed beside its prediction.
 *
 * Flags: --seconds 150 (writer period per case), --interval 3000 (ms between writer commits), --every 30
 * (maintenance interval, s), --sample 10 (s), --scenarios append,upsert, --regimes serve,binpack.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatBytes } from '../util/units.js';
import type { PolicyResult, TimelinePoint } from '../src/core/simulate/index.js';
import { JavaReader, javaAvailable, startWriter, type WriterCommit, type WriterResult } from './live/java.js';
import { startFixedBinpack, startServe, type MaintenanceTally, type Target } from './live/maintainers.js';
import { predict, streamOf, type StreamShape } from './live/predict.js';
import { sampleTable, type TableSample } from './live/table-state.js';
import { numberFlag, type Benchmark, type BenchContext } from './types.js';

type Scenario = 'append' | 'upsert';
type Regime = 'serve' | 'binpack';

interface CaseResult {
  scenario: Scenario;
  regime: Regime;
  writer: WriterResult;
  maintenance: MaintenanceTally;
  samples: TableSample[];
  finalRows: number;
  predicted: PolicyResult;
}

const TABLE = 'bench.t';
const PARTITIONS = 4;

/** Spark rewrite_data_files' bin-pack as the presets model it: every small file, groups of ≥ 1 file. */
function binpackOptions(s: Scenario): Record<string, string> {
  return s === 'append' ? { 'min-input-files': '1' } : { 'min-input-files': '1', 'delete-file-threshold': '10' };
}

function shapeOf(s: Scenario, seconds: number): StreamShape & { filesPerCommit: number } {
  // append: 8 parallel writers' 200-row checkpoint files per commit (the preset's 8 writers);
  // upsert: a 20,000-row base, 50 keys per partition replaced per commit (eq delete + insert per partition)
  return {
    mode: s,
    seconds,
    partitions: PARTITIONS,
    rowsPerFile: 200,
    baseRows: 20_000,
    upsertRows: 50,
    filesPerCommit: 8,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

async function runCase(
  ctx: BenchContext,
  scenario: Scenario,
  regime: Regime,
  o: { seconds: number; intervalMs: number; everySeconds: number; sampleSeconds: number },
): Promise<CaseResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `floe-bench-live-${scenario}-${regime}-`));
  try {
    const db = path.join(dir, 'catalog.db');
    const warehouse = path.join(dir, 'warehouse');
    mkdirSync(warehouse);
    const jdbc = `jdbc:sqlite:${db}`;
    const shape = shapeOf(scenario, o.seconds);
    const log = path.join(dir, 'writer.jsonl');
    const writer = startWriter({
      jdbc,
      warehouse,
      table: TABLE,
      mode: scenario,
      seconds: o.seconds,
      intervalMs: o.intervalMs,
      partitions: shape.partitions,
      filesPerCommit: shape.filesPerCommit,
      rowsPerFile: shape.rowsPerFile,
      baseRows: shape.baseRows,
      upsertRows: shape.upsertRows,
      ready: path.join(dir, 'ready'),
      log,
    });
    await writer.waitReady();
    // the writer's clock (its log's atMs) starts at its ready file; maintenance starts with it
    const startedAt = Date.now();
    const target: Target = {
      table: TABLE,
      catalog: `sql:${db}`,
      catalogName: 'oracle',
      everySeconds: o.everySeconds,
      binpackOptions: binpackOptions(scenario),
    };
    const maint = regime === 'serve' ? startServe(dir, target) : startFixedBinpack(dir, target);
    const reader = new JavaReader();
    // the JVM's first scan (class loading, JIT) is not the table's cost: done before sampling starts
    const first = await sampleTable(TABLE, target.catalog, target.catalogName, 0);
    await reader.count(first.metadataLocation).catch(() => undefined);
    const samples: TableSample[] = [];
    try {
      const take = async () => {
        const s = await sampleTable(TABLE, target.catalog, target.catalogName, Date.now() - startedAt);
        const scan = await reader.count(s.metadataLocation);
        samples.push({ ...s, scanMs: Math.round(scan.ms), scanRows: scan.rows });
        ctx.log(
          `  [${scenario}/${regime}] t=${Math.round(s.atMs / 1000)}s data ${s.dataFiles} (max/partition ${s.maxDataFilesPerPartition}), deletes ${s.deleteFiles}, scan ${Math.round(scan.ms)} ms`,
        );
      };
      for (let n = Math.ceil((Date.now() - startedAt) / (o.sampleSeconds * 1000)); writer.running(); n++) {
        await sleep(startedAt + n * o.sampleSeconds * 1000 - Date.now());
        if (writer.running()) await take();
      }
      const w = await writer.done;
      const maintenance = await maint.stop();
      await take();
      const finalRows = samples[samples.length - 1]!.scanRows ?? NaN;
      const commits = readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as WriterCommit);
      const stream = streamOf(shape, commits, w);
      const predicted =
        regime === 'serve'
          ? predict(stream, 'tiered', {}, o.everySeconds)
          : predict(stream, 'binpack', binpackOptions(scenario), o.everySeconds);
      return { scenario, regime, writer: w, maintenance, samples, finalRows, predicted };
    } finally {
      reader.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------ figures

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => (xs.length ? sum(xs) / xs.length : 0);
const r1 = (x: number) => (Number.isFinite(x) ? Math.round(x * 10) / 10 : NaN);

/** The measured sample nearest to (at or before) each simulated minute mark, for a side-by-side timeline. */
function atMinute(samples: TableSample[], minute: number): TableSample | undefined {
  const t = minute * 60_000;
  let best: TableSample | undefined;
  for (const s of samples) if (s.atMs <= t + 5000) best = s;
  return best;
}

function rowsOf(c: CaseResult): Record<string, string | number> {
  const m = c.maintenance;
  const p = c.predicted;
  const committed = m.runs.filter((r) => r.commits > 0);
  const parts = PARTITIONS;
  const dataPer = c.samples.map((s) => s.dataFiles / parts);
  const delPer = c.samples.map((s) => s.deleteFiles / parts);
  const last = c.samples[c.samples.length - 1]!;
  const scans = c.samples.map((s) => s.scanMs ?? 0);
  return {
    scenario: c.scenario,
    maintenance: m.regime,
    'CPU-s': r1(m.cpuSeconds),
    'runs committed / run (sim)': `${committed.length} / ${m.runs.length} (${p.compactionRuns} / ${p.plannerCalls})`,
    'bytes read (sim)': `${formatBytes(sum(m.runs.map((r) => r.bytesRead)))} (${formatBytes(p.compactionBytesRead)})`,
    'bytes written (sim)': `${formatBytes(sum(m.runs.map((r) => r.bytesWritten)))} (${formatBytes(p.compactionBytesWritten)})`,
    'data files/partition mean, max, final (sim)': `${r1(mean(dataPer))}, ${r1(Math.max(...dataPer))}, ${r1(last.dataFiles / parts)} (${r1(p.liveDataFiles.mean / parts)}, ${r1(p.liveDataFiles.max / parts)}, ${r1(p.liveDataFiles.final / parts)})`,
    'delete files/partition mean, final (sim)': `${r1(mean(delPer))}, ${r1(last.deleteFiles / parts)} (${r1(p.deleteFiles.mean / parts)}, ${r1(p.deleteFiles.final / parts)})`,
    'Java scan ms mean / max / final': `${Math.round(mean(scans))} / ${Math.max(...scans)} / ${last.scanMs ?? ''}`,
    'conflicts floe / writer': `${m.runs.filter((r) => r.conflict).length} / ${c.writer.conflicts}`,
    'writer commits, failures': `${c.writer.commits}, ${c.writer.failures.length}`,
    'rows (expected)': `${c.finalRows} (${c.writer.expectedRows})`,
  };
}

function timelineNotes(c: CaseResult): string[] {
  const parts = PARTITIONS;
  const out = [
    `${c.scenario} / ${c.maintenance.regime}: minute, data files/partition measured (sim), delete files/partition measured (sim), scan ms`,
  ];
  for (const tp of c.predicted.timeline as TimelinePoint[]) {
    const s = atMinute(c.samples, tp.minute);
    if (!s) continue;
    out.push(
      `  min ${tp.minute}: data ${r1(s.dataFiles / parts)} (${r1(tp.liveDataFiles / parts)}), deletes ${r1(s.deleteFiles / parts)} (${r1(tp.deleteFiles / parts)}), scan ${s.scanMs} ms`,
    );
  }
  const last = c.samples[c.samples.length - 1]!;
  out.push(
    `  end (${Math.round(last.atMs / 1000)} s): data ${r1(last.dataFiles / parts)} (${r1(c.predicted.liveDataFiles.final / parts)}), deletes ${r1(last.deleteFiles / parts)} (${r1(c.predicted.deleteFiles.final / parts)}), scan ${last.scanMs} ms`,
  );
  const failed = c.maintenance.runs.filter((r) => r.error);
  for (const r of failed.slice(0, 3))
    out.push(`  floe run at ${Math.round(r.atMs / 1000)} s: ${r.outcome}: ${r.error}`);
  for (const f of c.writer.failures.slice(0, 3))
    out.push(`  writer failure: ${f.error}${f.cause ? ` (${f.cause})` : ''}`);
  return out;
}

const live: Benchmark = {
  name: 'live',
  description:
    'append and upsert streams from a real Java writer; floe serve (self-optimizing) vs fixed-interval bin-pack, measured beside the simulator',
  async run(ctx) {
    const missing = javaAvailable();
    if (missing) {
      ctx.log(`!!! live: SKIPPED: ${missing}`);
      return { rows: [{ skipped: missing }], notes: [`SKIPPED: ${missing}`], data: { skipped: missing } };
    }
    const o = {
      seconds: numberFlag(ctx.flags, 'seconds', 150),
      intervalMs: numberFlag(ctx.flags, 'interval', 3000),
      everySeconds: numberFlag(ctx.flags, 'every', 30),
      sampleSeconds: numberFlag(ctx.flags, 'sample', 10),
    };
    const pick = <T extends string>(flag: string, all: T[]): T[] => {
      const v = ctx.flags[flag];
      if (typeof v !== 'string') return all;
      const chosen = v.split(',') as T[];
      const bad = chosen.filter((x) => !all.includes(x));
      if (bad.length) throw new Error(`--${flag}: unknown ${bad.join(', ')} (known: ${all.join(', ')})`);
      return chosen;
    };
    const cases: CaseResult[] = [];
    for (const scenario of pick<Scenario>('scenarios', ['append', 'upsert']))
      for (const regime of pick<Regime>('regimes', ['serve', 'binpack'])) {
        ctx.log(`live: ${scenario} with ${regime}, ${o.seconds} s of commits every ${o.intervalMs} ms`);
        cases.push(await runCase(ctx, scenario, regime, o));
      }
    const notes = [
      `writer: Java IcebergStreamWriter (Iceberg 1.10 JdbcCatalog, SQLite), ${o.seconds} s, a commit every ${o.intervalMs} ms, ${PARTITIONS} partitions; maintenance every ${o.everySeconds} s; samples every ${o.sampleSeconds} s`,
      '(sim) = the simulator (src/simulate) replaying the commits the writer made, same planner, options and schedule',
      'CPU-s: floe serve = the service process (start-up included); bin-pack = every `floe compact` process (rusage.py)',
      ...cases.flatMap(timelineNotes),
    ];
    return { rows: cases.map(rowsOf), notes, data: cases };
  },
};

export default live;
