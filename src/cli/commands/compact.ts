/**
 * `floe compact <table>`: plan, rewrite and commit. `--dry-run` shows the plan and writes nothing;
 * `--explain` prints each task's decision trail; `--json` prints the report for pipelines.
 */
import type { Command } from 'commander';
import { FloeError } from '../../errors.js';
import { stringifyJsonLossless } from '../../util/json.js';
import { compactIceberg, type CompactReport } from '../../orchestration/compact-iceberg.js';
import { openIcebergForWrite, requireCommitOps, type AccessOptions } from '../table-access.js';
import { formatBytes, progressRenderer } from '../progress.js';
import type { Plan } from '../../planning/plan.js';
import { compactPaimon, renderPaimonPlan } from '../../orchestration/compact-paimon.js';
import { detectPaimon, paimonFileIO } from '../paimon-view.js';

interface CompactCliOptions extends AccessOptions {
  strategy: string;
  where?: string;
  targetSize?: string;
  option: string[];
  dryRun?: boolean;
  explain?: boolean;
  json?: boolean;
  partialProgress?: boolean;
  maxConcurrentGroups?: string;
  removeDanglingDeletes?: boolean;
  danglingDeletes?: boolean;
  full?: boolean;
}

function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

/** "128MB", "1g", "134217728" → bytes. */
export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?i?b?)?\s*$/i.exec(text);
  if (!m) throw new FloeError('InvalidArgument', `cannot read "${text}" as a size (e.g. 128MB, 512m, 1GiB)`);
  const unit = (m[2] ?? '').toLowerCase().replace(/i?b$/, '');
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[unit];
  if (mult === undefined) throw new FloeError('InvalidArgument', `unknown size unit in "${text}"`);
  return Math.round(Number(m[1]) * mult);
}

export function parseOptions(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const i = p.indexOf('=');
    if (i <= 0) throw new FloeError('InvalidArgument', `--option expects key=value, got "${p}"`);
    out[p.slice(0, i).trim()] = p.slice(i + 1).trim();
  }
  return out;
}

export function renderPlan(plan: Plan, explain: boolean): string {
  const lines: string[] = [];
  lines.push(`${plan.planner} plan: ${plan.tasks.length} task(s)`);
  for (const t of plan.tasks) {
    lines.push(`  ${t.id} [${t.kind}] partition ${JSON.stringify(t.partition, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}: ${t.inputs.length} file(s), ${formatBytes(t.inputBytes)} → target ${formatBytes(t.targetFileSizeBytes)}; apply ${t.deletes.length} delete file(s), drop ${t.removableDeletes.length}`);
    if (explain) for (const s of t.trail) lines.push(`      ${s.outcome.padEnd(4)} ${s.gate}: ${s.detail}`);
  }
  if (plan.removableDeletes.length) lines.push(`  table-wide: ${plan.removableDeletes.length} delete file(s) no longer needed`);
  if (explain) for (const s of plan.trail) lines.push(`  ${s.outcome.padEnd(4)} ${s.gate}: ${s.detail}`);
  return lines.join('\n');
}

export function renderReport(r: CompactReport): string {
  const row = (label: string, a: string, b: string) => `  ${label.padEnd(16)} ${a.padStart(14)} ${b.padStart(14)}`;
  const lines = [`${r.dryRun ? 'dry run — nothing written' : 'compaction'} of ${r.table}`];
  const after = r.after ?? r.before;
  lines.push(row('', 'before', r.dryRun ? '(unchanged)' : 'after'));
  lines.push(row('data files', String(r.before.dataFiles), String(after.dataFiles)));
  lines.push(row('data bytes', formatBytes(r.before.dataBytes), formatBytes(after.dataBytes)));
  lines.push(row('delete files', String(r.before.deleteFiles), String(after.deleteFiles)));
  lines.push(row('records', String(r.before.records), String(after.records)));
  if (!r.dryRun) {
    lines.push(`  read ${formatBytes(r.bytesRead)} (${r.rowsIn} rows), wrote ${formatBytes(r.bytesWritten)} (${r.rowsOut} rows) in ${(r.durationMs / 1000).toFixed(1)} s`);
    lines.push(`  snapshots committed: ${r.snapshots.length ? r.snapshots.join(', ') : 'none'}`);
  }
  if (r.danglingDeletes.length) lines.push(`  ${r.dryRun ? 'would drop' : 'dropped'} ${r.danglingDeletes.length} dangling delete file(s)`);
  for (const f of r.failedTasks) lines.push(`  FAILED ${f.id}: ${f.reason}`);
  return lines.join('\n');
}

export function register(program: Command): void {
  program
    .command('compact <table>')
    .description('Compact small files and apply deletes, then commit a replace snapshot (Iceberg) or a COMPACT snapshot (Paimon)')
    .option('--strategy <name>', 'tiered (self-optimizing) or binpack', 'tiered')
    .option('--where <predicate>', 'only files whose partition matches, e.g. "region = \'eu\'"')
    .option('--target-size <size>', 'target file size (e.g. 128MB)')
    .option('-o, --option <key=value>', 'planner/table property override (repeatable)', collect, [])
    .option('--dry-run', 'plan only; write nothing')
    .option('--explain', 'print every decision of the planner')
    .option('--json', 'print the report as JSON')
    .option('--partial-progress', 'commit each task as soon as it is written')
    .option('--remove-dangling-deletes', 'only drop delete files that no live data file needs (no rewriting)')
    .option('--no-dangling-deletes', 'do not drop dangling delete files after rewriting')
    .option('--max-concurrent-groups <n>', 'tasks rewritten at once', '2')
    .option('--full', 'Paimon: full compaction of every bucket instead of what the universal picker chooses')
    .option('--location-map <FROM=TO>', 'read and write locations under FROM at TO (repeatable)', collect, [])
    .option('--catalog <spec>', 'sql:<sqlite-path|postgresql-url> or rest:<url>; the table is then <ns>.<table>')
    .option('--catalog-name <name>', 'SQL catalog: the catalog_name when the file holds several')
    .option('--token <token>', 'REST catalog bearer token (default: $FLOE_REST_TOKEN)')
    .option('--warehouse <name>', 'REST catalog warehouse')
    .action(async (ref: string, o: CompactCliOptions) => {
      const options = parseOptions(o.option);
      if (!o.catalog) {
        const files = paimonFileIO(o.locationMap);
        try {
          if (await detectPaimon(ref, files)) {
            const report = await compactPaimon(ref, {
              full: !!o.full,
              dryRun: !!o.dryRun,
              explain: !!o.explain,
              options,
              fileIO: files,
              ...(o.json ? {} : { onProgress: progressRenderer() }),
            });
            process.stdout.write(o.json ? `${stringifyJsonLossless(report, 2)}\n` : `${renderPaimonPlan(report, !!o.explain)}\n`);
            return;
          }
        } finally {
          files.destroy();
        }
      }
      if (o.targetSize) {
        const bytes = String(parseSize(o.targetSize));
        options['self-optimizing.target-size'] ??= bytes;
        options['target-file-size-bytes'] ??= bytes;
      }
      if (o.where) options['self-optimizing.filter'] = o.where;
      if (!['tiered', 'binpack'].includes(o.strategy)) throw new FloeError('InvalidArgument', `--strategy must be tiered or binpack, got ${o.strategy}`);
      const opened = await openIcebergForWrite(ref, o);
      try {
        const ops = o.dryRun ? opened.ops : requireCommitOps(opened);
        const report = await compactIceberg(opened.table, opened.io, ops!, {
          strategy: o.strategy as 'tiered' | 'binpack',
          options,
          dryRun: !!o.dryRun,
          partialProgress: !!o.partialProgress,
          maxConcurrentGroups: Number(o.maxConcurrentGroups ?? 2),
          onlyDanglingDeletes: !!o.removeDanglingDeletes,
          removeDanglingDeletes: o.danglingDeletes !== false,
          ...(o.json ? {} : { onProgress: progressRenderer() }),
        });
        if (o.json) {
          process.stdout.write(`${stringifyJsonLossless(jsonReport(report), 2)}\n`);
        } else {
          process.stdout.write(`${renderPlan(report.plan, !!o.explain)}\n${renderReport(report)}\n`);
        }
        if (report.failedTasks.length > 0) process.exitCode = 3;
      } finally {
        opened.files.destroy();
      }
    });
}

function jsonReport(r: CompactReport): unknown {
  return {
    table: r.table,
    dryRun: r.dryRun,
    before: r.before,
    after: r.after ?? null,
    snapshots: r.snapshots,
    committedTasks: r.committedTasks,
    failedTasks: r.failedTasks,
    danglingDeletes: r.danglingDeletes,
    bytesRead: r.bytesRead,
    bytesWritten: r.bytesWritten,
    rowsIn: r.rowsIn,
    rowsOut: r.rowsOut,
    durationMs: r.durationMs,
    plan: {
      planner: r.plan.planner,
      tasks: r.plan.tasks.map((t) => ({
        id: t.id,
        kind: t.kind,
        partition: t.partition,
        inputs: t.inputs.map((f) => f.path),
        inputBytes: t.inputBytes,
        deletes: t.deletes.map((d) => d.path),
        removableDeletes: t.removableDeletes.map((d) => d.path),
        targetFileSizeBytes: t.targetFileSizeBytes,
        trail: t.trail,
      })),
      removableDeletes: r.plan.removableDeletes.map((d) => d.path),
      trail: r.plan.trail,
    },
  };
}
