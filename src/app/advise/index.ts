/**
 * `floe advise <table>`: the table's own history (snapshot summaries) replayed through the simulator under
 * candidate policies, priced, and the cheapest settings recommended against today's and against doing
 * nothing (docs/advise.md). Reads only, unless `apply`: then the recommended table properties are set by a
 * metadata-only commit through the one Iceberg commit path. Iceberg only; a Paimon table is refused.
 */
import { FloeError } from '../../../util/errors.js';
import { partitionKey } from '../../../model/index.js';
import { renderChart, type SimulationReport } from '../../core/simulate/index.js';
import { loadTableModel } from '../../../connectors/iceberg/table.js';
import { setTableProperties } from '../../../connectors/iceberg/set-properties.js';
import { tieredPolicyFromProperties } from '../../core/planning/policy.js';
import { openIcebergForWrite, openTableForRead, requireCommitOps, type TableReadOptions } from '../open-table.js';
import { tableFormatOf } from '../table-format.js';
import { advise, type Advice, type Evaluated } from './advise.js';
import { historyStream, type ReplayInfo } from './history.js';
import { DEFAULT_THROUGHPUT } from './predict.js';
import { loadPriceSheet, type PriceSheet } from './prices.js';

export { PRICE_SHEETS, DEFAULT_PRICE_SHEET, loadPriceSheet, type PriceSheet } from './prices.js';
export type { Advice, Evaluated, AdviceSettings, Comparison } from './advise.js';
export type { Predicted } from './predict.js';

export interface AdviseOptions extends TableReadOptions {
  /** Price sheet name or file (default aws-s3-standard). */
  prices?: string;
  /** How often compaction runs today, in minutes (default 60: `floe serve` jobs.compact hourly). */
  currentEveryMinutes?: number;
  /** Full scans readers run per day (default 24). */
  scansPerDay?: number;
  /** Replay at most this many days of history (default 1: the replay time grows faster than linearly, docs/advise.md). */
  maxDays?: number;
  /** Set the recommended properties. */
  apply?: boolean;
}

export interface AdviseReport {
  table: string;
  format: 'iceberg';
  replay: ReplayInfo;
  prices: Pick<PriceSheet, 'name' | 'source' | 'date' | 'currency'>;
  readers: { scansPerDay: number };
  current: Evaluated;
  recommended: Evaluated;
  nothing: Evaluated;
  alternatives: Evaluated[];
  versus: Advice['versus'];
  /** Table properties the recommendation changes (what --apply sets). */
  propertyChanges: Record<string, string>;
  /** The floe.yaml line for the recommended cadence (not a table property). */
  schedule: string;
  violations: string[];
  applied?: { committed: boolean; metadataLocation?: string; properties: Record<string, string> };
  /** The simulated runs (chart input; dropped from JSON). */
  runs: Advice['runs'];
}

function positive(what: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isFinite(v) || v <= 0)
    throw new FloeError('InvalidArgument', `${what} must be a number > 0, got ${v}`, { context: { option: what } });
  return v;
}

export async function adviseTable(ref: string, o: AdviseOptions = {}): Promise<AdviseReport> {
  const everyMinutes = positive('--current-every', o.currentEveryMinutes, 60);
  const scansPerDay = positive('--scans-per-day', o.scansPerDay, 24);
  const maxDays = positive('--max-days', o.maxDays, 1);
  const prices = await loadPriceSheet(o.prices);
  const format = await tableFormatOf(ref, o, { require: true });
  if (format === 'paimon')
    throw new FloeError(
      'Unsupported',
      `advise ${ref}: Paimon tables are not supported yet (the replay reads Iceberg snapshot summaries)`,
      { context: { table: ref, format } },
    );
  const table = await openTableForRead(ref, o);
  const md = table.metadata;
  tieredPolicyFromProperties(md.properties); // a bad self-optimizing.* property fails before any replay
  const unpartitioned = md.specs.find((s) => s.specId === md.defaultSpecId)?.fields.length === 0;
  let partitions = 0;
  if (!unpartitioned && md.currentSnapshotId !== undefined) {
    const model = await loadTableModel(table);
    partitions = new Set(model.dataFiles.map((f) => partitionKey(f.specId, f.partition))).size || 1;
  }
  const { stream, replay } = historyStream(ref, md.snapshots, md.currentSnapshotId, { partitions, maxDays });
  const advice = advise({
    stream,
    tableProperties: md.properties,
    currentSchedule: { kind: 'periodic', everyMinutes },
    cost: { prices, scansPerDay, throughputBytesPerSecond: DEFAULT_THROUGHPUT },
  });
  const report: AdviseReport = {
    table: ref,
    format: 'iceberg',
    replay,
    prices: { name: prices.name, source: prices.source, date: prices.date, currency: prices.currency },
    readers: { scansPerDay },
    ...advice,
    schedule: `jobs: { compact: every ${advice.recommended.settings.schedule.everyMinutes}m }`,
  };
  if (o.apply) report.applied = await applyAdvice(ref, o, advice.propertyChanges);
  return report;
}

/** Sets `changes` on the table (nothing is committed when they are empty or already set). */
async function applyAdvice(
  ref: string,
  o: AdviseOptions,
  changes: Record<string, string>,
): Promise<NonNullable<AdviseReport['applied']>> {
  if (Object.keys(changes).length === 0) return { committed: false, properties: {} };
  const opened = await openIcebergForWrite(ref, o);
  try {
    // validated like the planner will read them: a value compaction would refuse is never committed
    tieredPolicyFromProperties({ ...opened.table.metadata.properties, ...changes });
    const r = await setTableProperties(requireCommitOps(opened), opened.files, changes, { table: ref });
    return {
      committed: r.metadataLocation !== undefined,
      ...(r.metadataLocation ? { metadataLocation: r.metadataLocation } : {}),
      properties: r.changed,
    };
  } finally {
    opened.files.destroy();
  }
}

/** The chart: today's settings, the recommendation and doing nothing, through the simulator's renderer. */
export function adviseChart(report: AdviseReport): string {
  const names = [...new Set([report.current.name, report.recommended.name, report.nothing.name])];
  const label = (n: string) =>
    n === report.recommended.name ? `recommended ${n}` : n === report.current.name ? `current ${n}` : 'no compaction';
  const sim: SimulationReport = {
    stream: {
      name: `advise ${report.table}`,
      description: `history of ${report.table}`,
      durationMinutes: report.replay.periodMinutes,
      tickMs: 60_000,
      commits: report.replay.snapshots,
    },
    results: names.map((n) => ({ ...report.runs.get(n)!, policy: label(n) })),
  };
  return renderChart(sim);
}
