/**
 * What the service remembers per table (the shapes; the database behind them is state-db.ts). This file
 * also keeps the original store, one JSON file per table in a state directory, which `floe serve` reads
 * once to migrate an existing directory into the database. Per table: the tiered planner's
 * memory, and per job the last start/finish, the last success (the schedule's base), the failure streak
 * with its retry time, and a summary of the last result. Files are replaced atomically (write a temp file,
 * fsync, rename), so a crash leaves either the old state or the new one, and a restart resumes from it.
 */
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { FloeError } from '../../../util/errors.js';
import type { JobKind, MaintenanceJobResult } from '../../orchestration/job-types.js';
import type { TieredStateJson } from '../../core/planning/tiered/state-json.js';

export const STATE_VERSION = 1;

/** The last result as kept in state, logs and `/health`: the job result, or the error that ended it. */
export type JobOutcome =
  | ({ ok: boolean } & Omit<MaintenanceJobResult, 'tieredState' | 'ok'>)
  | {
      ok: false;
      table: string;
      job: JobKind;
      startedAtMs: number;
      durationMs: number;
      error: string;
      errorKind?: string;
      retryable?: boolean;
    };

export interface JobState {
  /** When the service first saw this job's schedule: a cron job that never ran waits for its first fire after it. */
  firstSeenMs?: number;
  lastStartMs?: number;
  lastFinishMs?: number;
  /** Start of the last run that succeeded: schedules count from here. */
  lastSuccessStartMs?: number;
  /** Latest schedule occurrence skipped because the job was still running: the schedule resumes after it. */
  skippedThroughMs?: number;
  consecutiveFailures: number;
  /** Backoff: not before this time after a failure. */
  retryAtMs?: number;
  lastResult?: JobOutcome;
}

export interface TableState {
  version: number;
  /** The table's location or id when the state was written (a renamed table keeps its name's state). */
  table: string;
  tiered?: TieredStateJson;
  jobs: Partial<Record<JobKind, JobState>>;
}

export function emptyTableState(table: string): TableState {
  return { version: STATE_VERSION, table, jobs: {} };
}

/** Where the scheduler keeps per-table state: the database store, or (tests, legacy) the JSON folder. */
export interface TableStateStore {
  load(name: string): Promise<TableState | undefined>;
  save(name: string, state: TableState): Promise<void>;
  flush(): Promise<void>;
}

export class StateStore implements TableStateStore {
  /** Saves of one file run one after another, so an older state never lands over a newer one. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(readonly dir: string) {}

  fileFor(name: string): string {
    return path.join(this.dir, `${name}.json`);
  }

  async load(name: string): Promise<TableState | undefined> {
    const file = this.fileFor(name);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new FloeError('AccessDenied', `cannot read service state ${file}: ${(e as Error).message}`, {
        context: { file },
        cause: e,
      });
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new FloeError(
        'Corrupt',
        `service state ${file} is not JSON (${(e as Error).message}); move it away to start this table afresh`,
        { context: { file }, cause: e },
      );
    }
    const s = raw as Partial<TableState>;
    if (!s || typeof s !== 'object' || typeof s.jobs !== 'object' || s.jobs === null || typeof s.version !== 'number') {
      throw new FloeError(
        'Corrupt',
        `service state ${file} has no version/jobs; move it away to start this table afresh`,
        { context: { file } },
      );
    }
    if (s.version > STATE_VERSION) {
      throw new FloeError(
        'Unsupported',
        `service state ${file} has version ${s.version}, written by a newer floe (this one reads ${STATE_VERSION})`,
        { context: { file } },
      );
    }
    return s as TableState;
  }

  save(name: string, state: TableState): Promise<void> {
    const file = this.fileFor(name);
    const text = `${JSON.stringify(state, null, 2)}\n`;
    const prev = this.queues.get(file) ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(() => writeAtomically(file, text));
    this.queues.set(file, next);
    return next;
  }

  /** Resolves when every save started so far has landed. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.queues.values()]);
  }
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw new FloeError('AccessDenied', `cannot write service state ${file}: ${(e as Error).message}`, {
      context: { file },
      cause: e,
    });
  }
}
