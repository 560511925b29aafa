/**
 * `floe compact <table>`: plan, rewrite and commit. `--dry-run` shows the plan and writes nothing;
 * `--explain` prints each task's decision trail; `--json` prints one result document (schema/floe-result.schema.json).
 * Every flag either applies to the table's format or is refused (exit 2) naming the format.
 */
import { didYouMean } from '../../../../util/did-you-mean.js';
import type { Command } from 'commander';
import { FloeError } from '../../../../util/errors.js';
import type { CompactReport } from '../../../orchestration/compact-iceberg.js';
import type { CompactSpec } from '../../../orchestration/job-types.js';
import type { AccessOptions } from '../../../app/open-table.js';
import { accessOptionsOf } from '../../../app/access-options.js';
import { compactResult, compactResultDocument, runCompaction } from '../../../app/compact.js';
import { createProgress, formatBytes, parseProgressMode, PROGRESS_HELP } from '../progress.js';
import type { Plan } from '../../../core/planning/plan.js';
import type { SortStrategyOptions } from '../../../core/planning/sort-planner.js';
import { MIN_TARGET_SIZE_BYTES, parseSizeBytes, parseTargetSize } from '../../../../util/units.js';
import { checkOptionKeys, SPARK_ACTION_KEYS } from '../known-options.js';
import { refuseFlags, tableFormatOf, type TableFormat } from '../../../app/table-format.js';
import type { ProgressListener } from '../../../core/execution/events.js';
import {
  compactExitCode,
  icebergCompactResult,
  renderTaskOutcomes,
  type CompactResult,
} from '../../../app/compact-result.js';
import { writeStdout, renderResult } from '../result.js';
import { collectOption } from '../collect-option.js';
import { EXIT } from '../../../app/exit-codes.js';
import { PRICES_HELP } from '../../../app/cost/index.js';
import { estimateLines } from '../../../app/cost/text.js';
import { onInterrupt } from '../cancel.js';
import { NO_LEASE_HELP, type JobLeaseOptions } from '../../../lease/job-lease.js';

export interface CompactCliOptions extends AccessOptions, Omit<JobLeaseOptions, 'dryRun'> {
  /** Price sheet for the estimate (aws-s3-standard, r2, gcs or a .yaml/.json file). */
  prices?: string;
  strategy?: string;
  where?: string;
  targetSize?: string;
  force?: boolean;
  option: string[];
  dryRun?: boolean;
  explain?: boolean;
  json?: boolean;
  progress?: string;
  partialProgress?: boolean;
  maxConcurrentGroups?: string;
  maxConcurrentFileGroupRewrites?: string;
  /** Iceberg: worker threads for the rewrite step (default: auto). */
  parallelism?: string;
  onlyDanglingDeletes?: boolean;
  /** Iceberg: only merge position delete files / DVs (Spark rewrite_position_delete_files); no data is rewritten. */
  deletesOnly?: boolean;
  removeDanglingDeletes?: boolean;
  danglingDeletes?: boolean;
  full?: boolean;
  /** [sort] --strategy sort|zorder */
  sortOrder?: string;
  columns?: string;
  sortMemory?: string;
  spillDir?: string;
}

/**
 * "128MB", "1g", "134217728" → bytes. A bare number is bytes here (configuration files, Spark-style
 * properties); command-line flags use parseTargetSize, which wants a unit.
 */
export { parseSize } from '../../../../util/units.js';

export function parseOptions(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const i = p.indexOf('=');
    if (i <= 0) throw new FloeError('InvalidArgument', `--option expects key=value, got "${p}"`);
    out[p.slice(0, i).trim()] = p.slice(i + 1).trim();
  }
  return out;
}

const boolOption = (key: string, v: string): boolean => {
  const l = v.trim().toLowerCase();
  if (l === 'true') return true;
  if (l === 'false') return false;
  throw new FloeError('InvalidArgument', `-o ${key}=${v}: must be true or false`);
};

const positiveInt = (what: string, v: string): number => {
  if (!/^\d+$/.test(v.trim()) || Number(v) < 1)
    throw new FloeError('InvalidArgument', `${what}: "${v}" is not a positive integer`);
  return Number(v);
};

export function renderPlan(plan: Plan, explain: boolean): string {
  const lines: string[] = [];
  lines.push(`${plan.planner} plan: ${plan.tasks.length} task(s)`);
  for (const t of plan.tasks) {
    lines.push(
      `  ${t.id} [${t.kind}] partition ${t.partitionLabel ?? JSON.stringify(t.partition, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}: ${t.inputs.length} file(s), ${formatBytes(t.inputBytes)} → target ${formatBytes(t.targetFileSizeBytes)}; apply ${t.deletes.length} delete file(s), drop ${t.removableDeletes.length}`,
    );
    if (explain) for (const s of t.trail) lines.push(`      ${s.outcome.padEnd(4)} ${s.gate}: ${s.detail}`);
  }
  if (plan.removableDeletes.length)
    lines.push(`  table-wide: ${plan.removableDeletes.length} delete file(s) no longer needed`);
  if (explain) for (const s of plan.trail) lines.push(`  ${s.outcome.padEnd(4)} ${s.gate}: ${s.detail}`);
  return lines.join('\n');
}

export function renderReport(r: CompactReport, result: CompactResult = icebergCompactResult(r)): string {
  const row = (label: string, a: string, b: string) => `  ${label.padEnd(16)} ${a.padStart(14)} ${b.padStart(14)}`;
  const lines = [`${r.dryRun ? 'dry run — nothing written' : 'compaction'} of ${r.table}`];
  const after = r.after ?? r.before;
  lines.push(row('', 'before', r.dryRun ? '(unchanged)' : 'after'));
  lines.push(row('data files', String(r.before.dataFiles), String(after.dataFiles)));
  lines.push(row('data bytes', formatBytes(r.before.dataBytes), formatBytes(after.dataBytes)));
  lines.push(row('delete files', String(r.before.deleteFiles), String(after.deleteFiles)));
  // records are the data files' rows, deleted ones included: a drop is the deletes applied, not lost rows
  const dropped = r.before.records - after.records;
  lines.push(
    `${row('records', String(r.before.records), String(after.records))}${dropped > 0 ? `  (${dropped} deleted rows dropped; the live rows are unchanged)` : ''}`,
  );
  if (!r.dryRun) {
    lines.push(
      `  read ${formatBytes(r.bytesRead)} (${r.rowsIn} rows), wrote ${formatBytes(r.bytesWritten)} (${r.rowsOut} rows) in ${(r.durationMs / 1000).toFixed(1)} s`,
    );
    lines.push(`  snapshots committed: ${r.snapshots.length ? r.snapshots.join(', ') : 'none'}`);
  }
  if (r.danglingDeletes.length)
    lines.push(`  ${r.dryRun ? 'would drop' : 'dropped'} ${r.danglingDeletes.length} dangling delete file(s)`);
  lines.push(...renderTaskOutcomes(result));
  return lines.join('\n');
}

/** What the flags and `-o` mean, checked before anything is read. */
interface CheckedFlags {
  options: Record<string, string>;
  targetBytes?: number;
  partialProgress: boolean;
  maxConcurrent?: number;
  /** `--parallelism <n>`: worker threads for the rewrite step; unset = auto. */
  parallelism?: number;
  /** Spark's `remove-dangling-deletes`: also drop dangling deletes after rewriting (floe's default too). */
  removeDangling?: boolean;
  /** [sort] the sort / z-order request (src/core/planning/sort-planner.ts). */
  sort?: SortStrategyOptions;
  /** [sort] a sort flag given without --strategy sort|zorder. */
  sortFlagWithoutStrategy?: string;
}

const STRATEGIES = ['tiered', 'binpack', 'sort', 'zorder', 'hilbert'];

export function checkCompactFlags(o: CompactCliOptions): CheckedFlags {
  const options = parseOptions(o.option ?? []);
  const req: CheckedFlags = { options, partialProgress: !!o.partialProgress };
  if (o.targetSize !== undefined) req.targetBytes = parseTargetSize(o.targetSize, '--target-size', !!o.force);
  if (o.strategy !== undefined && !STRATEGIES.includes(o.strategy))
    throw new FloeError(
      'InvalidArgument',
      `--strategy must be tiered, binpack, sort, zorder or hilbert (Paimon), got ${o.strategy}${didYouMean(o.strategy, STRATEGIES)}`,
    );
  sortRequest(o, req);
  if (o.maxConcurrentGroups !== undefined && o.maxConcurrentFileGroupRewrites !== undefined) {
    throw new FloeError(
      'InvalidArgument',
      '--max-concurrent-groups and --max-concurrent-file-group-rewrites are the same option; give one',
    );
  }
  if (o.parallelism !== undefined) req.parallelism = positiveInt('--parallelism', o.parallelism);
  const conc = o.maxConcurrentGroups ?? o.maxConcurrentFileGroupRewrites;
  if (conc !== undefined)
    req.maxConcurrent = positiveInt(
      o.maxConcurrentGroups !== undefined ? '--max-concurrent-groups' : '--max-concurrent-file-group-rewrites',
      conc,
    );
  // Spark action options given with -o: read here (they are not planner options) and taken out
  const spark = SPARK_ACTION_KEYS;
  if (options[spark.partialProgress] !== undefined)
    req.partialProgress = boolOption(spark.partialProgress, options[spark.partialProgress]!) || req.partialProgress;
  if (options[spark.maxConcurrent] !== undefined) {
    if (req.maxConcurrent !== undefined)
      throw new FloeError(
        'InvalidArgument',
        `-o ${spark.maxConcurrent} and a --max-concurrent flag are the same option; give one`,
      );
    req.maxConcurrent = positiveInt(`-o ${spark.maxConcurrent}`, options[spark.maxConcurrent]!);
  }
  if (options[spark.removeDanglingDeletes] !== undefined)
    req.removeDangling = boolOption(spark.removeDanglingDeletes, options[spark.removeDanglingDeletes]!);
  if (o.removeDanglingDeletes) req.removeDangling = true;
  if (req.removeDangling === true && o.danglingDeletes === false) {
    throw new FloeError(
      'InvalidArgument',
      '--remove-dangling-deletes (Spark: also drop dangling deletes after rewriting) contradicts --no-dangling-deletes',
    );
  }
  if (o.onlyDanglingDeletes && o.danglingDeletes === false)
    throw new FloeError('InvalidArgument', '--only-dangling-deletes contradicts --no-dangling-deletes');
  if (o.full && o.strategy === 'tiered')
    throw new FloeError(
      'InvalidArgument',
      '--full rewrites every selected file (bin-pack with rewrite-all); it cannot be combined with --strategy tiered',
    );
  if (o.deletesOnly) {
    const clash = (
      [
        ['--full', !!o.full],
        ['--strategy', o.strategy !== undefined],
        ['--only-dangling-deletes', !!o.onlyDanglingDeletes],
        ['--partial-progress', req.partialProgress],
        ['--no-dangling-deletes', o.danglingDeletes === false],
      ] as [string, boolean][]
    ).find(([, g]) => g);
    if (clash)
      throw new FloeError(
        'InvalidArgument',
        `--deletes-only rewrites delete files only (one commit, dangling deletes dropped); it cannot be combined with ${clash[0]}`,
      );
  }
  if (o.full && o.onlyDanglingDeletes)
    throw new FloeError('InvalidArgument', '--full and --only-dangling-deletes contradict each other');
  return req;
}

/** [sort] --sort-order / --columns / --sort-memory / --spill-dir: only with --strategy sort or zorder. */
function sortRequest(o: CompactCliOptions, req: CheckedFlags): void {
  const sorted = o.strategy === 'sort' || o.strategy === 'zorder' || o.strategy === 'hilbert';
  const given: [string, boolean][] = [
    ['--sort-order', o.sortOrder !== undefined],
    ['--columns', o.columns !== undefined],
    ['--sort-memory', o.sortMemory !== undefined],
    ['--spill-dir', o.spillDir !== undefined],
  ];
  if (!sorted) {
    // refused once the format is known (a Paimon table names its format instead)
    const flag = given.find(([, g]) => g)?.[0];
    if (flag) req.sortFlagWithoutStrategy = flag;
    return;
  }
  if (o.full)
    throw new FloeError(
      'InvalidArgument',
      `--full is bin-pack with rewrite-all; with --strategy ${o.strategy} use -o rewrite-all=true (Iceberg; Paimon sort compaction rewrites whole partitions anyway)`,
    );
  if (o.strategy === 'zorder' && o.sortOrder !== undefined && !/^\s*zorder\s*\(/i.test(o.sortOrder))
    throw new FloeError('InvalidArgument', '--strategy zorder takes --columns a,b, not --sort-order');
  if (o.strategy === 'hilbert' && o.sortOrder !== undefined)
    throw new FloeError('InvalidArgument', '--strategy hilbert takes --columns a,b, not --sort-order');
  if (o.strategy === 'sort' && o.columns !== undefined)
    throw new FloeError('InvalidArgument', '--columns is for --strategy zorder; --strategy sort takes --sort-order');
  const sort: SortStrategyOptions = {};
  if (o.sortOrder !== undefined) sort.sortOrder = o.sortOrder;
  if (o.columns !== undefined)
    sort.columns = o.columns
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '');
  if (o.sortMemory !== undefined) {
    sort.memoryBytes = parseSizeBytes(o.sortMemory, { bare: 'b', what: '--sort-memory' });
    if (!(sort.memoryBytes > 0))
      throw new FloeError('InvalidArgument', `--sort-memory must be a positive size, got ${o.sortMemory}`);
  }
  if (o.spillDir !== undefined) sort.spillDir = o.spillDir;
  req.sort = sort;
}

/** `-o` target sizes (bytes, as the properties are written) below 1 MiB need --force, as --target-size does. */
function checkTargetFloor(options: Record<string, string>, keys: string[], force: boolean): void {
  for (const k of keys) {
    const v = options[k];
    if (v === undefined || force) continue;
    const bytes = parseSizeBytes(v, { bare: 'b', what: `-o ${k}` });
    if (bytes < MIN_TARGET_SIZE_BYTES) {
      throw new FloeError(
        'InvalidArgument',
        `-o ${k}=${v}: ${formatBytes(bytes)} is below ${formatBytes(MIN_TARGET_SIZE_BYTES)}, which would write very small files; add --force if you mean it`,
      );
    }
  }
}

/** The compaction the flags ask for, as every entry point describes one (resolveCompactSpec resolves it). */
function compactSpecOf(o: CompactCliOptions, req: CheckedFlags): CompactSpec {
  return {
    ...(o.strategy !== undefined ? { strategy: o.strategy as NonNullable<CompactSpec['strategy']> } : {}),
    // bytes as a bare number: --target-size was checked (unit, floor) by checkCompactFlags
    ...(req.targetBytes !== undefined ? { targetSize: String(req.targetBytes) } : {}),
    ...(o.where !== undefined ? { where: o.where } : {}),
    full: !!o.full,
    ...(req.sort ? { sort: req.sort } : {}),
    partialProgress: req.partialProgress,
    ...(req.maxConcurrent !== undefined ? { maxConcurrentGroups: req.maxConcurrent } : {}),
    ...(req.parallelism !== undefined ? { parallelism: req.parallelism } : {}),
    onlyDanglingDeletes: !!o.onlyDanglingDeletes,
    removeDanglingDeletes: o.danglingDeletes !== false,
    deletesOnly: !!o.deletesOnly,
    explain: !!o.explain,
  };
}

/** The lease flags (`--no-lease`) and the holder/run/takeover options in-process callers give. */
function leaseOptionsOf(o: CompactCliOptions): Omit<JobLeaseOptions, keyof AccessOptions> {
  return {
    ...(o.lease === false ? { lease: false } : {}),
    ...(o.leaseHolder ? { leaseHolder: o.leaseHolder } : {}),
    ...(o.runId ? { runId: o.runId } : {}),
    ...(o.onLeaseTakeover ? { onLeaseTakeover: o.onLeaseTakeover } : {}),
  };
}

/** What the action prints and the exit code it sets, for in-process callers (tests, the demo). */
export interface CompactOutcome {
  result: CompactResult;
  exitCode: number;
  cancelled: boolean;
}

/** A filter error from `--where` names the flag the user typed, not the property it is passed on as. */
function throwAsWhere(e: unknown, where: string | undefined): void {
  const ctx = e instanceof FloeError ? e.context : undefined;
  if (where === undefined || ctx?.property !== 'self-optimizing.filter' || ctx.value !== where) return;
  if (typeof ctx.reason !== 'string') return;
  throw new FloeError('InvalidArgument', `--where ${JSON.stringify(where)}: ${ctx.reason}`, {
    context: { ...ctx, option: '--where' },
    cause: e,
  });
}

type CompactOut = { stdout: (t: string) => void; stderr: { write(t: string): unknown; isTTY?: boolean } };

export async function compactAction(
  ref: string,
  o: CompactCliOptions,
  out: CompactOut = { stdout: writeStdout, stderr: process.stderr },
): Promise<CompactOutcome> {
  const req = checkCompactFlags(o);
  const progressMode = parseProgressMode(o.progress, out.stderr);
  const format = await tableFormatOf(ref, o);
  checkFlagsForFormat(ref, o, req, format);
  const progress = createProgress(out.stderr, { mode: progressMode, command: 'compact' });
  // Paimon compaction does not take an AbortSignal yet (src/orchestration/compact-paimon.ts; the signal is
  // passed for when it does): Ctrl-C says the job finishes what it started
  const cancel = onInterrupt(out.stderr, { stoppable: format !== 'paimon' });
  let done: { result: CompactResult; text: string };
  try {
    done = await runAndRender(ref, o, req, format, progress.listener, cancel.signal);
  } catch (e) {
    progress.abort();
    throwAsWhere(e, o.where);
    if (cancel.cancelled) throw reportCancelled(ref, e, cancel.by, out);
    throw e;
  } finally {
    cancel.dispose();
  }
  progress.finish();
  const { result, text } = done;
  const exitCode = cancel.cancelled || result.cancelled ? EXIT.cancelled : compactExitCode(result);
  if (exitCode === EXIT.cancelled) out.stderr.write(cancelledAfterRun(result, cancel.by));
  out.stdout(o.json ? renderResult(compactResultDocument(result, exitCode)) : `${text}\n`);
  return { result, exitCode, cancelled: cancel.cancelled };
}

/** The flags and `-o` keys that apply to the table's format, or a usage error naming the format. */
function checkFlagsForFormat(ref: string, o: CompactCliOptions, req: CheckedFlags, format: TableFormat): void {
  const { options } = req;
  if (format === 'paimon') {
    // [sort] Paimon sort compaction: --strategy sort|zorder|hilbert and its flags (compact-paimon-sort.ts)
    if (req.sortFlagWithoutStrategy)
      throw new FloeError(
        'InvalidArgument',
        `${req.sortFlagWithoutStrategy} needs --strategy sort, zorder or hilbert (Paimon sort compaction)`,
      );
    refuseFlags(
      'paimon',
      ref,
      [
        ['--strategy', o.strategy !== undefined && !req.sort],
        ['--partial-progress', req.partialProgress],
        ['--only-dangling-deletes', !!o.onlyDanglingDeletes],
        ['--deletes-only', !!o.deletesOnly],
        ['--remove-dangling-deletes', req.removeDangling !== undefined],
        ['--no-dangling-deletes', o.danglingDeletes === false],
        ['--max-concurrent-groups', req.maxConcurrent !== undefined],
        ['--parallelism', req.parallelism !== undefined],
      ],
      'Paimon compaction picks sorted runs per bucket (Paimon universal compaction) and commits all buckets in one snapshot',
    );
    checkOptionKeys(options, 'paimon');
    checkTargetFloor(options, ['target-file-size'], !!o.force);
    return;
  }
  if (o.strategy === 'hilbert')
    throw new FloeError(
      'InvalidArgument',
      `--strategy hilbert is Paimon's sort compaction (order_strategy=hilbert); Iceberg tables take --strategy sort or zorder`,
    );
  if (req.sortFlagWithoutStrategy)
    throw new FloeError('InvalidArgument', `${req.sortFlagWithoutStrategy} needs --strategy sort or --strategy zorder`);
  // Spark action options given with -o were read by checkCompactFlags: they are not planner options
  for (const k of Object.values(SPARK_ACTION_KEYS)) delete options[k];
  checkOptionKeys(options, 'iceberg');
  checkTargetFloor(options, ['self-optimizing.target-size', 'target-file-size-bytes'], !!o.force);
}

/** The compaction under the table lease (src/lease/job-lease.ts), and its text report. */
async function runAndRender(
  ref: string,
  o: CompactCliOptions,
  req: CheckedFlags,
  format: TableFormat,
  onProgress: ProgressListener,
  signal: AbortSignal | undefined,
): Promise<{ result: CompactResult; text: string }> {
  const run = await runCompaction(ref, {
    ...accessOptionsOf(o),
    ...leaseOptionsOf(o),
    ...compactSpecOf(o, req),
    format,
    options: req.options,
    dryRun: !!o.dryRun,
    ...(o.prices !== undefined ? { prices: o.prices } : {}),
    onProgress,
    ...(signal ? { signal } : {}),
  });
  const result = compactResult(run);
  let text =
    run.format === 'paimon'
      ? `${(await import('../../../orchestration/compact-paimon.js')).renderPaimonPlan(run.report, !!o.explain)}\n${renderTaskOutcomes(result).join('\n')}`.trimEnd()
      : `${renderPlan(run.report.plan, !!o.explain)}\n${renderReport(run.report, result)}`;
  // the estimate line in --dry-run and --explain (with what a real run measured beside it)
  if (o.dryRun || o.explain) text = [text.trimEnd(), ...estimateLines(run.estimate, run.measured)].join('\n');
  return { result, text };
}

/** A run stopped before its commit: says so on stderr and returns the error main.ts maps to exit 130. */
function reportCancelled(ref: string, e: unknown, by: string | undefined, out: CompactOut): FloeError {
  const removed = Number((e as { context?: { removedFiles?: number } }).context?.removedFiles ?? 0);
  out.stderr.write(
    `floe: cancelled, nothing committed (${by})${removed > 0 ? `; the ${removed} file(s) this run wrote were removed` : ''}\n`,
  );
  // reported: main.ts only sets the exit code (130)
  const err = new FloeError('Cancelled', `compaction of ${ref} cancelled by ${by}; nothing committed`, {
    cause: e,
    context: { table: ref, cancelled: true, committed: false, reported: true },
  });
  err.name = 'AbortError';
  return err;
}

/** The line for a run cancelled once its commit had started: what was committed. */
function cancelledAfterRun(result: CompactResult, by: string | undefined): string {
  const said = (result.cancelled as { message?: string } | undefined)?.message;
  if (said) return `floe: ${said}\n`;
  return result.snapshots.length
    ? `floe: cancelled (${by ?? 'signal'}) — the commit had already finished: snapshot ${result.snapshots.join(', ')} is committed\n`
    : `floe: cancelled (${by ?? 'signal'}), nothing committed\n`;
}

export function register(program: Command): void {
  program
    .command('compact <table>')
    .description(
      'Compact small files and apply deletes, then commit a replace snapshot (Iceberg) or a COMPACT snapshot (Paimon)',
    )
    .option(
      '--strategy <name>',
      'Iceberg: tiered (self-optimizing, default), binpack, sort or zorder; Paimon append tables: sort, zorder or hilbert (sort compaction)',
    )
    .option(
      '--sort-order <order>',
      'Iceberg, --strategy sort: "a ASC NULLS FIRST, b DESC" (Spark sort_order; default: the table\'s sort order); "zorder(a,b)" = --strategy zorder --columns a,b',
    )
    .option('--columns <a,b>', 'Iceberg, --strategy zorder: the z-order columns')
    .option(
      '--sort-memory <size>',
      'Iceberg, sort/zorder: rows a task sorts in memory before spilling sorted runs to disk (default 256MB)',
    )
    .option(
      '--spill-dir <dir>',
      'Iceberg, sort/zorder: where sorted runs are spilled (default: the system temp directory); removed afterwards',
    )
    .option('--where <predicate>', 'only partitions matching, e.g. "region = \'eu\'" (Paimon: partition columns only)')
    .option('--target-size <size>', 'target file size with a unit (e.g. 128MB); below 1 MiB needs --force')
    .option('--force', 'allow a --target-size below 1 MiB')
    .option(
      '-o, --option <key=value>',
      'planner/table option override (repeatable): Amoro self-optimizing.*, Spark rewrite_data_files options (Iceberg), Paimon compaction options; unknown keys are refused',
      collectOption,
      [],
    )
    .option('--dry-run', 'plan only; write nothing')
    .option('--prices <sheet|file>', PRICES_HELP)
    .option('--no-lease', NO_LEASE_HELP)
    .option('--explain', 'print every decision of the planner')
    .option('--json', 'print one JSON result document (schema/floe-result.schema.json)')
    .option('--progress <mode>', PROGRESS_HELP, 'auto')
    .option(
      '--partial-progress',
      'Iceberg: commit each task as soon as it is written, so a failed task leaves the others committed (exit 3); without it a run is all or nothing, as Spark: one failed task commits nothing (exit 1)',
    )
    .option(
      '--deletes-only',
      'Iceberg: rewrite position delete files / deletion vectors only, no data (Spark rewrite_position_delete_files: -o rewrite-all, min-input-files, target-file-size-bytes, min-file-size-bytes, max-file-group-size-bytes)',
    )
    .option('--only-dangling-deletes', 'Iceberg: only drop delete files that no live data file needs; rewrite nothing')
    .option(
      '--remove-dangling-deletes',
      "Iceberg (Spark's meaning): also drop dangling delete files after rewriting — floe's default",
    )
    .option('--no-dangling-deletes', 'Iceberg: do not drop dangling delete files after rewriting')
    .option('--max-concurrent-groups <n>', 'Iceberg: tasks rewritten at once (default 2)')
    .option(
      '--parallelism <n>',
      'Iceberg: threads for the rewrite step (native-codec tasks: codec threads, else worker threads); 1 = one task at a time on this thread (default: one per CPU for runs reading 64 MiB or more)',
    )
    .option('--max-concurrent-file-group-rewrites <n>', "Spark's name for --max-concurrent-groups")
    .option(
      '--full',
      'full compaction: Paimon — every bucket fully; Iceberg — rewrite every file of the selected partitions (bin-pack, rewrite-all)',
    )
    .option('--location-map <FROM=TO>', 'read and write locations under FROM at TO (repeatable)', collectOption, [])
    .option(
      '--catalog <spec>',
      'sql:<sqlite-path|postgresql-url>, rest:<url>[?property=value…] or glue:<catalog-id> (Iceberg), paimon-jdbc:<sqlite-path|postgresql-url> or paimon-rest:<url>?warehouse=<name> (Paimon; its token in $FLOE_PAIMON_REST_TOKEN); the table is then <ns>.<table>',
    )
    .option('--catalog-name <name>', 'SQL catalog: the catalog_name when the file holds several (Paimon: catalog-key)')
    .option('--token <token>', 'REST catalog bearer token (default: $FLOE_REST_TOKEN)')
    .option('--warehouse <name>', 'REST catalog warehouse; Paimon JDBC catalog: the warehouse location')
    .option(
      '--catalog-properties <file>',
      'catalog properties (credential, scope, rest.sigv4-enabled …): a JSON/YAML map or key=value lines; default $FLOE_CATALOG_PROPERTIES (secrets belong here or in $FLOE_REST_CREDENTIAL, never on the command line)',
    )
    .action(async (ref: string, o: CompactCliOptions) => {
      const { exitCode } = await compactAction(ref, o);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}
