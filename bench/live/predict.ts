/**
 * The simulator's prediction for the stream a live run actually committed: the writer's own log (commit
 * times, files and bytes) becomes a commit stream (src/core/simulate's format), replayed against the policy the
 * run's maintenance used, on the same schedule. Same planner code, modelled files instead of real ones.
 */
import {
  normalizePolicy,
  normalizeStream,
  simulatePolicy,
  type CommitSpec,
  type PolicyResult,
  type PolicySpec,
} from '../../src/core/simulate/index.js';
import type { WriterCommit, WriterResult } from './java.js';

export interface StreamShape {
  mode: 'append' | 'upsert';
  seconds: number;
  partitions: number;
  rowsPerFile: number;
  baseRows: number;
  upsertRows: number;
}

const TICK_MS = 1000;

const avg = (bytes: number, files: number) => Math.max(1, Math.round(bytes / Math.max(1, files)));

/** The commit stream the writer committed, as the simulator's JSON spec (validated by normalizeStream). */
export function streamOf(shape: StreamShape, log: WriterCommit[], writer: WriterResult) {
  const label = (k: number) => `part=${k % shape.partitions}`;
  const commits: CommitSpec[] = [];
  for (const c of log) {
    if (c.dataFiles === 0 && c.deleteFiles === 0) continue;
    const atMs = Math.floor(c.atMs / TICK_MS) * TICK_MS;
    const size = avg(c.dataBytes, c.dataFiles);
    if (shape.mode === 'append') {
      const data = Array.from({ length: c.dataFiles }, (_, k) => ({
        partition: label(k),
        sizeBytes: size,
        records: shape.rowsPerFile,
      }));
      commits.push({ atMs, data });
    } else {
      const data = Array.from({ length: c.dataFiles }, (_, k) => ({
        partition: label(k),
        sizeBytes: size,
        records: shape.upsertRows,
      }));
      const eq = avg(c.deleteBytes, c.deleteFiles);
      const equalityDeletes = Array.from({ length: c.deleteFiles }, (_, k) => ({
        partition: label(k),
        sizeBytes: eq,
        records: shape.upsertRows,
        deletesRows: shape.upsertRows,
      }));
      commits.push({ atMs, data, equalityDeletes });
    }
  }
  if (shape.mode === 'upsert' && !(writer.baseFiles > 0 && writer.baseBytes > 0))
    throw new Error(
      'the stream writer reported no base table (an oracle jar older than its source? run scripts/setup-oracles.sh)',
    );
  const base =
    shape.mode === 'upsert'
      ? Array.from({ length: writer.baseFiles }, (_, k) => ({
          partition: label(k),
          sizeBytes: avg(writer.baseBytes, writer.baseFiles),
          records: Math.round(shape.baseRows / Math.max(1, writer.baseFiles)),
        }))
      : [];
  return normalizeStream({
    name: `live-${shape.mode}`,
    description: `the ${log.length} commits the live writer made`,
    // through the writer's last commit but not the schedule's instant at its very end: the measured runs
    // stop with the writer, so the final states compare
    durationMinutes: Math.max(1, (shape.seconds - 1) / 60),
    tickMs: TICK_MS,
    base,
    commits,
  });
}

/** The simulated counterpart of a maintenance regime: its planner and options, periodic every `everySeconds`. */
export function predict(
  stream: ReturnType<typeof streamOf>,
  planner: 'tiered' | 'binpack',
  properties: Record<string, string>,
  everySeconds: number,
): PolicyResult {
  const spec: PolicySpec = {
    name: planner,
    planner,
    properties,
    schedule: { kind: 'periodic', everyMinutes: everySeconds / 60 },
  };
  return simulatePolicy(stream, normalizePolicy(spec, 'bench live'));
}
