/**
 * `floe advise <table> [--json] [--apply] [--out chart.svg|png]`: the job is src/app/advise (replay the
 * table's history through the simulator under candidate policies, price them, recommend); this module parses
 * the command line and renders the comparison table, the chart and the JSON result.
 */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { FloeError } from '../../../../util/errors.js';
import { describeDuration, formatBytes, parseDurationMs } from '../../../../util/units.js';
import { accessOptionsOf } from '../../../app/access-options.js';
import { resultDocument, toResultJson } from '../../../app/result.js';
import {
  adviseChart,
  adviseTable,
  PRICE_SHEETS,
  type AdviseReport,
  type Evaluated,
} from '../../../app/advise/index.js';
import { renderResult, writeStdout } from '../result.js';
import { addTableOptions, type TableCliOptions } from './inspect.js';

interface AdviseCliOptions extends TableCliOptions {
  json?: boolean;
  apply?: boolean;
  out?: string;
  prices?: string;
  currentEvery?: string;
  scansPerDay?: string;
  maxDays?: string;
}

function money(v: number, currency: string): string {
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 1 ? 2 : 4;
  return `${currency === 'USD' ? '$' : `${currency} `}${v.toFixed(digits)}`;
}

function row(label: string, e: Evaluated, currency: string): string {
  const p = e.predicted;
  return [
    label.padEnd(12),
    money(p.monthlyCost, currency).padStart(11),
    money(p.maintenanceCost, currency).padStart(11),
    money(p.readerCost, currency).padStart(11),
    p.scanFileOpens.toFixed(1).padStart(10),
    p.deletesPerDataFile.toFixed(2).padStart(8),
    formatBytes(p.bytesWritten).padStart(11),
    String(p.compactionRuns).padStart(7),
    `  ${e.name}`,
  ].join(' ');
}

export function renderAdviseText(r: AdviseReport): string {
  const c = r.prices.currency;
  const out: string[] = [];
  const span = describeDuration(r.replay.toMs - r.replay.fromMs);
  out.push(`table      ${r.table}`);
  out.push(
    `replayed   ${r.replay.snapshots} writer snapshots over ${span}; simulated ${r.replay.periodMinutes} min, ${r.replay.skipped} skipped; ${r.replay.baseFiles} base files, ${r.replay.partitions || 'no'} partitions`,
  );
  for (const n of r.replay.notes) out.push(`           note: ${n}`);
  out.push(`prices     ${r.prices.name} (${r.prices.date}); readers: ${r.readers.scansPerDay} full scans a day`);
  out.push('');
  out.push(
    `${''.padEnd(12)} ${'per month'.padStart(11)} ${'compaction'.padStart(11)} ${'readers'.padStart(11)} ${'scan opens'.padStart(10)} ${'del/file'.padStart(8)} ${'rewritten'.padStart(11)} ${'runs'.padStart(7)}   policy`,
  );
  out.push(row('recommended', r.recommended, c));
  out.push(row('current', r.current, c));
  out.push(row('nothing', r.nothing, c));
  for (const a of r.alternatives.slice(0, 5)) out.push(row('  alt', a, c));
  out.push('');
  const vs = (what: string, v: AdviseReport['versus']['current']) =>
    `vs ${what}: ${money(v.monthlyCostSaved, c)}/month saved (${v.monthlyCostSavedPercent.toFixed(1)} %), ${v.scanFileOpensSaved.toFixed(1)} fewer file opens per scan (${v.scanFileOpensSavedPercent.toFixed(1)} %)`;
  out.push(vs('current', r.versus.current));
  out.push(vs('nothing', r.versus.nothing));
  const changes = Object.entries(r.propertyChanges);
  out.push(
    changes.length
      ? `set        ${changes.map(([k, v]) => `${k}=${v}`).join(', ')}`
      : 'set        nothing: the table properties are already the recommended ones',
  );
  out.push(`schedule   floe.yaml ${r.schedule}`);
  if (r.applied)
    out.push(
      r.applied.committed
        ? `applied    committed ${r.applied.metadataLocation}`
        : 'applied    nothing to commit (already set)',
    );
  else if (changes.length) out.push('           (dry run: --apply sets these properties)');
  for (const v of r.violations) out.push(`violation  ${v}`);
  return out.join('\n');
}

function numberOption(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0)
    throw new FloeError('InvalidArgument', `${flag} must be a number > 0, got ${JSON.stringify(text)}`, {
      context: { option: flag },
    });
  return n;
}

async function writeChart(out: string, svg: string): Promise<void> {
  if (/\.svg$/i.test(out)) return writeFile(out, svg, 'utf8');
  if (!/\.png$/i.test(out))
    throw new FloeError('InvalidArgument', `--out ${out}: the chart is written as .svg or .png`, {
      context: { option: '--out' },
    });
  let Resvg: typeof import('@resvg/resvg-js').Resvg;
  try {
    ({ Resvg } = await import('@resvg/resvg-js'));
  } catch (e) {
    throw new FloeError('Unsupported', `--out ${out}: PNG charts need @resvg/resvg-js (npm install @resvg/resvg-js)`, {
      cause: e,
    });
  }
  await writeFile(out, new Resvg(svg, { background: '#fff' }).render().asPng());
}

export async function adviseAction(ref: string, opts: AdviseCliOptions, write = writeStdout): Promise<AdviseReport> {
  if (opts.out && !/\.(svg|png)$/i.test(opts.out))
    throw new FloeError('InvalidArgument', `--out ${opts.out}: the chart is written as .svg or .png`, {
      context: { option: '--out' },
    });
  const currentEveryMinutes = opts.currentEvery === undefined ? undefined : parseDurationMs(opts.currentEvery) / 60_000;
  const scansPerDay = numberOption('--scans-per-day', opts.scansPerDay);
  const maxDays = numberOption('--max-days', opts.maxDays);
  const report = await adviseTable(ref, {
    ...accessOptionsOf(opts),
    ...(opts.prices !== undefined ? { prices: opts.prices } : {}),
    ...(currentEveryMinutes !== undefined ? { currentEveryMinutes } : {}),
    ...(scansPerDay !== undefined ? { scansPerDay } : {}),
    ...(maxDays !== undefined ? { maxDays } : {}),
    ...(opts.apply ? { apply: true } : {}),
  });
  if (opts.out) await writeChart(opts.out, adviseChart(report));
  if (opts.json) {
    const { runs: _runs, nothing, alternatives, ...rest } = report;
    const body = toResultJson({
      ...rest,
      // doing nothing is the first alternative, so `alternatives` always holds the baseline
      alternatives: [nothing, ...alternatives.filter((a) => a.name !== nothing.name)],
      ...(opts.out ? { chart: opts.out } : {}),
    }) as Record<string, unknown>;
    write(renderResult(resultDocument('advise', 0, body)));
  } else write(`${renderAdviseText(report)}${opts.out ? `\n\nchart: ${opts.out}` : ''}\n`);
  return report;
}

export function register(program: Command): void {
  addTableOptions(
    program
      .command('advise')
      .description(
        "Replay a table's own history under candidate compaction policies and recommend the cheapest (docs/advise.md)",
      )
      .argument('<table>', 'an Iceberg table (path, metadata file, URI, or <ns>.<table> with --catalog)')
      .option('--json', 'print the result as JSON')
      .option('--apply', 'set the recommended table properties (a metadata-only commit); default: write nothing')
      .option('--out <chart>', 'write a chart of current vs recommended vs no compaction (.svg or .png)')
      .option('--prices <sheet|file>', `price sheet: ${Object.keys(PRICE_SHEETS).join(', ')} or a .yaml/.json file`)
      .option('--current-every <duration>', 'how often compaction runs today (default 1h)')
      .option('--scans-per-day <n>', 'full scans readers run a day (default 24)')
      .option('--max-days <n>', 'replay at most the newest N days of history (default 1)'),
  ).action(async (ref: string, opts: AdviseCliOptions) => {
    await adviseAction(ref, opts);
  });
}
