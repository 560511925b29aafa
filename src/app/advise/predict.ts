/**
 * What a policy's simulated run over the replayed period predicts, per month: the maintenance it pays
 * (object-store requests, compute) and what readers pay (a full scan's file opens), priced by a sheet.
 *
 * Request model (per the replayed period, then scaled to 30 days):
 * - every planner evaluation reads the metadata file and the manifest list: 2 GET;
 * - every file a compaction task opens: a footer GET plus one ranged GET per 8 MiB of bytes read;
 * - every committed run writes a manifest, a manifest list and a metadata file: 3 PUT (+ 2 GET to re-read);
 * - bytes written go up in 16 MiB multipart parts (each a PUT), at least one per task;
 * - compute: bytes read + written at `throughputBytesPerSecond` per vCPU, plus 20 ms per file opened.
 * Readers: `scansPerDay` full scans, each opening every live data file and the delete files Iceberg attaches
 * to it (2 GET a file: footer and data) — `scanFileOpens` is that count averaged over the period's minutes.
 */
import type { CommitStream, PolicyResult } from '../../core/simulate/index.js';
import { priceOf, type PriceSheet } from './prices.js';

const MiB = 1024 * 1024;
const MONTH_MS = 30 * 24 * 3_600_000;
const RANGED_GET_BYTES = 8 * MiB;
const PART_BYTES = 16 * MiB;
const OPEN_CPU_SECONDS = 0.02;
const SCAN_GETS_PER_FILE = 2;

export interface ReaderModel {
  /** Full scans a day that readers run (default 24: one an hour). */
  scansPerDay: number;
}

export interface CostModel extends ReaderModel {
  prices: PriceSheet;
  /** Compaction throughput per vCPU (read + write), default 64 MiB/s. */
  throughputBytesPerSecond: number;
}

export const DEFAULT_THROUGHPUT = 64 * MiB;

export interface Predicted {
  /** Maintenance + reader cost per 30 days, in the sheet's currency. */
  monthlyCost: number;
  /** Of which compaction (requests + compute). */
  maintenanceCost: number;
  /** Of which readers' full scans (GET requests for the files they open). */
  readerCost: number;
  /** File opens a full scan pays (data files + attached delete files), averaged over the replayed period. */
  scanFileOpens: number;
  /** Delete files a reader merges per data file, averaged. */
  deletesPerDataFile: number;
  /** Per month. */
  requests: { get: number; put: number };
  bytesRead: number;
  bytesWritten: number;
  cpuSeconds: number;
  compactionRuns: number;
  writeAmplification: number;
}

export function predict(result: PolicyResult, stream: CommitStream, model: CostModel): Predicted {
  const scale = MONTH_MS / stream.durationMs;
  const p = model.prices;
  const get =
    result.plannerCalls * 2 +
    result.filesOpened +
    Math.ceil(result.compactionBytesRead / RANGED_GET_BYTES) +
    result.compactionRuns * 2;
  const put = result.compactionRuns * 3 + Math.max(result.tasks, Math.ceil(result.compactionBytesWritten / PART_BYTES));
  const cpuSeconds =
    (result.compactionBytesRead + result.compactionBytesWritten) / model.throughputBytesPerSecond +
    result.filesOpened * OPEN_CPU_SECONDS;
  const maintenance = priceOf({ requests: { get, put }, cpuSeconds }, p).total * scale;

  const opens = result.timeline.map((t) => t.liveDataFiles * (1 + t.deletesPerDataFile));
  const scanFileOpens = opens.length ? opens.reduce((a, b) => a + b, 0) / opens.length : 0;
  const scansPerMonth = model.scansPerDay * 30;
  const reader = priceOf(
    { requests: { get: scansPerMonth * scanFileOpens * SCAN_GETS_PER_FILE }, cpuSeconds: 0 },
    p,
  ).total;
  return {
    monthlyCost: maintenance + reader,
    maintenanceCost: maintenance,
    readerCost: reader,
    scanFileOpens,
    deletesPerDataFile: result.queryPenalty.mean,
    requests: { get: Math.round(get * scale), put: Math.round(put * scale) },
    bytesRead: Math.round(result.compactionBytesRead * scale),
    bytesWritten: Math.round(result.compactionBytesWritten * scale),
    cpuSeconds: cpuSeconds * scale,
    compactionRuns: Math.round(result.compactionRuns * scale),
    writeAmplification: result.writeAmplification,
  };
}
