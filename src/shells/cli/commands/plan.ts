/**
 * `floe plan universal "L0:10 L0:10 L3:100"` — ask Paimon's universal compaction what it would do with
 * these sorted runs (newest first), optionally explaining every gate with its running sizes.
 */
import { renderResult, writeStdout } from '../result.js';
import { resultDocument } from '../../../app/result.js';
import type { Command } from 'commander';
import { collectOption } from '../collect-option.js';
import { FloeError } from '../../../../util/errors.js';
import { formatBytes, PAIMON_BYTES } from '../../../../util/units.js';
import {
  type Clock,
  type Run,
  type UniversalOptions,
  type UniversalState,
  decide,
  describeRuns,
  parseOptionAssignments,
  resolveOptions,
} from '../../../core/planning/universal/index.js';
import { parseMemorySize } from '../../../../util/units.js';

export interface PlanUniversalCliOptions {
  /** `key=value` assignments, Paimon dotted names or camelCase. */
  option?: string[];
  numLevels?: string;
  explain?: boolean;
  json?: boolean;
  /** Clock: ISO time or epoch ms (default: now). */
  now?: string;
  /** Hour of day for off-peak hours (default: the local hour of --now). */
  hour?: string;
  /** Writer state: last full compaction (ISO or epoch ms, or "never"). */
  lastFullCompaction?: string;
  /** Writer state: GENTLE lookup counter. */
  lookupCounter?: string;
}

/** Parses "L0:10 L3:100MB 5:1GB" (sizes default to MB; B/KB/MB/GB suffixes; commas or spaces between runs). */
export function parseRunsSpec(spec: string): Run[] {
  const tokens = spec.split(/[\s,]+/).filter((t) => t !== '');
  if (tokens.length === 0)
    throw new FloeError('InvalidArgument', 'no sorted runs given (expected e.g. "L0:10 L0:10 L3:100")');
  return tokens.map((t) => {
    const m = /^[Ll]?(\d+):(.+)$/.exec(t);
    if (!m)
      throw new FloeError(
        'InvalidArgument',
        `sorted run "${t}" must look like L<level>:<size>, e.g. L0:10 or L3:1.5GB`,
      );
    return { level: Number(m[1]), size: parseMemorySize(m[2]!, 'mb') };
  });
}

function parseTime(text: string, what: string): number {
  if (/^\d+$/.test(text)) return Number(text);
  const t = Date.parse(text);
  if (Number.isNaN(t))
    throw new FloeError('InvalidArgument', `${what}: "${text}" is neither epoch milliseconds nor an ISO time`);
  return t;
}

function parseIntArg(text: string, what: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw new FloeError('InvalidArgument', `${what}: "${text}" is not an integer`);
  return Number(text);
}

/** The action behind `floe plan universal`; writes to `write` so tests can capture it. */
export function planUniversalAction(
  runsSpec: string,
  opts: PlanUniversalCliOptions,
  write: (text: string) => void = writeStdout,
): void {
  const runs = parseRunsSpec(runsSpec);
  const options: UniversalOptions = parseOptionAssignments(opts.option ?? []);
  const numLevels =
    opts.numLevels !== undefined ? parseIntArg(opts.numLevels, '--num-levels') : resolveOptions(options).numLevels;
  const epochMs = opts.now !== undefined ? parseTime(opts.now, '--now') : Date.now();
  const clock: Clock = opts.hour !== undefined ? { epochMs, hourOfDay: parseIntArg(opts.hour, '--hour') } : epochMs;
  const state: UniversalState = {};
  if (opts.lastFullCompaction !== undefined) {
    state.lastFullCompactionMs =
      opts.lastFullCompaction === 'never' ? null : parseTime(opts.lastFullCompaction, '--last-full-compaction');
  }
  if (opts.lookupCounter !== undefined)
    state.lookupCompactTriggerCount = parseIntArg(opts.lookupCounter, '--lookup-counter');

  const d = decide(numLevels, runs, options, clock, state);
  const p = d.pick;
  if (opts.json) {
    const result = p && {
      outputLevel: p.outputLevel,
      runCount: p.runs.length,
      runs: p.runs.map((r) => ({ level: r.level, size: r.size })),
      inputBytes: p.inputBytes,
      dropDelete: p.dropDelete,
      reason: p.reason,
    };
    const out: Record<string, unknown> = {
      result,
      numLevels: d.numLevels,
      writerStalled: d.writerStalled,
      state: d.state,
    };
    if (opts.explain) out.trail = d.trail;
    write(renderResult(resultDocument('plan universal', 0, out)));
    return;
  }
  const lines: string[] = [];
  if (opts.explain) {
    d.trail.forEach((s, i) => lines.push(`${String(i + 1).padStart(2)}. [${s.gate}] ${s.outcome}: ${s.detail}`));
    lines.push('');
  }
  lines.push(
    p
      ? `Result: compact ${p.runs.length} run${p.runs.length > 1 ? 's' : ''} ${describeRuns(p.runs)} (${formatBytes(p.inputBytes, PAIMON_BYTES)}) ` +
          `into L${p.outputLevel} (${p.reason}; ${p.dropDelete ? 'drop deletes' : 'keep deletes'})`
      : 'Result: no compaction',
  );
  write(`${lines.join('\n')}\n`);
}

export function register(program: Command): void {
  const plan =
    program.commands.find((c) => c.name() === 'plan') ??
    program.command('plan').description('Show what a compaction planner would do, without touching a table');
  plan
    .command('universal')
    .description(
      'Paimon universal compaction (as in Apache Paimon master) for sorted runs listed newest first, e.g. "L0:10 L0:10 L3:100"; sizes default to MB',
    )
    .argument('<runs>', 'sorted runs newest first: L<level>:<size>[B|KB|MB|GB], separated by spaces or commas')
    .option(
      '-o, --option <key=value>',
      'Paimon option, dotted (num-sorted-run.compaction-trigger=5, compaction.size-ratio=1, compaction.offpeak.start.hour=2 …) or camelCase; repeatable. Threshold sizes without a unit are bytes, as in Paimon',
      collectOption,
      [],
    )
    .option('--num-levels <n>', 'number of levels (default: num-levels, else trigger + 1)')
    .option('--explain', 'print every gate with its running sizes, then the result')
    .option('--json', 'print the result as JSON (with --explain: include the trail)')
    .option('--now <time>', 'clock for the optimization interval: ISO time or epoch ms (default: now)')
    .option('--hour <h>', 'hour of day for off-peak hours (default: local hour of --now)')
    .option('--last-full-compaction <time>', 'writer state: time of the last full compaction, or "never"')
    .option('--lookup-counter <n>', 'writer state: empty picks counted so far in GENTLE lookup mode')
    .action((runs: string, opts: PlanUniversalCliOptions) => planUniversalAction(runs, opts));
}
