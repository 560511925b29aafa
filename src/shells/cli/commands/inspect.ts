/**
 * `floe inspect <table>`: the job is src/app/inspect.ts (what the table is, its live files by size class,
 * delete files, partitions, a health score); this module parses the command line and renders the report.
 */
import type { Command } from 'commander';
import { collectOption } from '../collect-option.js';
import { explainHealth, type CountBytes } from '../../../core/health.js';
import { renderResult, writeStdout } from '../result.js';
import { formatBytes, parseSizeBytes } from '../../../../util/units.js';
import { openTableForRead, type TableReadOptions } from '../../../app/open-table.js';
import { accessOptionsOf } from '../../../app/access-options.js';
import { inspectResult, inspectTable, type InspectReport } from '../../../app/inspect.js';
import type { IcebergTable } from '../../../../connectors/iceberg/table.js';

export { openOptionsFrom } from '../../../app/open-table.js';
export { buildInspectReport, type InspectReport } from '../../../app/inspect.js';

export type TableCliOptions = TableReadOptions;

/** Adds the options every table-reading command shares. */
export function addTableOptions(cmd: Command): Command {
  return cmd
    .option(
      '--location-map <FROM=TO>',
      'read locations starting with FROM from TO instead (repeatable)',
      collectOption,
      [],
    )
    .option(
      '--catalog <spec>',
      'catalog holding the table: sql:<sqlite-path|postgresql-url>, rest:<url>[?property=value…] or glue:<catalog-id>; the table is then <ns>.<table>',
    )
    .option('--catalog-name <name>', 'SQL catalog: the catalog_name to use when the file holds several')
    .option('--token <token>', 'REST catalog bearer token (default: $FLOE_REST_TOKEN)')
    .option('--warehouse <name>', 'REST catalog warehouse')
    .option(
      '--catalog-properties <file>',
      'catalog properties (credential, scope, rest.sigv4-enabled …): a JSON/YAML map or key=value lines; default $FLOE_CATALOG_PROPERTIES (secrets belong here or in $FLOE_REST_CREDENTIAL, never on the command line)',
    );
}

export async function openTableForCli(ref: string, opts: TableCliOptions): Promise<IcebergTable> {
  return openTableForRead(ref, opts);
}

interface InspectOptions extends TableCliOptions {
  json?: boolean;
  explain?: boolean;
  snapshot?: string;
  targetSize?: string;
}

export { formatBytes };

function line(label: string, c: CountBytes, withRecords = false): string {
  return `  ${label.padEnd(16)} ${String(c.files).padStart(7)} files ${formatBytes(c.bytes).padStart(11)}${withRecords ? `  ${c.records} records` : ''}`;
}

export function renderInspectText(r: InspectReport): string {
  const h = r.health;
  const out: string[] = [];
  out.push(`table            ${r.realLocation ? `${r.realLocation}  (metadata names ${r.location})` : r.location}`);
  out.push(`format           Iceberg v${r.formatVersion}${r.tableUuid ? `  (uuid ${r.tableUuid})` : ''}`);
  out.push(`metadata         ${r.metadataLocation}  (found via ${r.foundVia})`);
  out.push(
    `current snapshot ${r.currentSnapshotId ?? 'none'}  (${r.snapshots} snapshots, refs: ${r.refs.map((x) => `${x.name}→${x.snapshotId}`).join(', ') || 'none'})`,
  );
  if (r.inspectedSnapshotId !== r.currentSnapshotId) out.push(`inspected at     snapshot ${r.inspectedSnapshotId}`);
  out.push(`schema ${r.schema.id}         ${r.schema.columns.map((c) => `${c.name}:${c.type}`).join(', ')}`);
  out.push(`partition spec   ${r.partitionSpec.fields.join(', ') || 'unpartitioned'}`);
  const dead = r.manifests.data + r.manifests.deletes - r.manifests.live;
  out.push(
    `manifests        ${r.manifests.data} data, ${r.manifests.deletes} delete${dead > 0 ? ` — ${r.manifests.live} with live files (the health score's count); ${dead} hold only deleted entries and are skipped unread` : ''}`,
  );
  out.push('');
  out.push(
    `data files (target ${formatBytes(h.policy.targetSize)}; fragment ≤ ${formatBytes(h.thresholds.fragmentMax)}, undersized ≤ ${formatBytes(h.thresholds.undersizedMax)})`,
  );
  out.push(line('fragment', h.data.fragment, true));
  out.push(line('undersized', h.data.undersized, true));
  out.push(line('target', h.data.target, true));
  out.push('delete files');
  out.push(line('position', h.deletes.position, true));
  out.push(line('equality', h.deletes.equality, true));
  out.push(line('deletion vector', h.deletes.deletionVector, true));
  out.push('');
  out.push(`partitions (${h.partitions.length})`);
  out.push(
    `  ${'spec'.padEnd(4)} ${'partition'.padEnd(32)} ${'files'.padStart(6)} ${'frag'.padStart(5)} ${'under'.padStart(5)} ${'bytes'.padStart(11)} ${'records'.padStart(9)} ${'pos-del'.padStart(8)} ${'eq-del'.padStart(8)} ${'score'.padStart(6)}`,
  );
  const shown = h.partitions.slice(0, 50);
  for (const p of shown) {
    const label = p.partition.length
      ? JSON.stringify(p.partition, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
      : '()';
    out.push(
      `  ${String(p.specId).padEnd(4)} ${label.slice(0, 32).padEnd(32)} ${String(p.dataFiles).padStart(6)} ${String(p.data.fragment.files).padStart(5)} ${String(p.data.undersized.files).padStart(5)} ${formatBytes(p.dataBytes).padStart(11)} ${String(p.dataRecords).padStart(9)} ${String(p.deletes.position.records + p.deletes.deletionVector.records).padStart(8)} ${String(p.deletes.equality.records).padStart(8)} ${p.score.toFixed(1).padStart(6)}`,
    );
  }
  if (h.partitions.length > shown.length)
    out.push(`  … ${h.partitions.length - shown.length} more (use --json for all)`);
  out.push('');
  out.push(`health score     ${h.score.toFixed(1)} / 100`);
  return out.join('\n');
}

export function register(program: Command): void {
  const cmd = program
    .command('inspect')
    .description(
      'Show an Iceberg or Paimon table: snapshots, data files by size class, delete files, partitions and a health score',
    )
    .argument('<table>', 'table directory, s3:// location, metadata file, or <ns>.<table> with --catalog')
    .option('--json', 'print one JSON result document (schema/floe-result.schema.json; 64-bit ids as decimal strings)')
    .option('--explain', "also print how the health score is computed, with this table's numbers")
    .option('--snapshot <id>', 'inspect the files of this snapshot instead of the current one')
    .option(
      '--target-size <size>',
      'target file size for the size classes, with a unit, e.g. 128MB (default: self-optimizing.target-size or 128 MiB)',
    );
  addTableOptions(cmd).action(async (ref: string, opts: InspectOptions) => {
    const targetSize =
      opts.targetSize !== undefined ? parseSizeBytes(opts.targetSize, { what: '--target-size' }) : undefined;
    const report = await inspectTable(ref, {
      ...accessOptionsOf(opts),
      ...(opts.snapshot !== undefined ? { snapshot: opts.snapshot } : {}),
      ...(targetSize !== undefined ? { targetSize } : {}),
    });
    // the Paimon view (and the Paimon adapter behind it) loads only for Paimon tables
    const text =
      report.format === 'paimon'
        ? (await import('../paimon-view.js')).renderPaimonInspect(report)
        : renderInspectText(report);
    writeStdout(opts.json ? renderResult(inspectResult(report)) : `${text}\n`);
    if (opts.explain && !opts.json) process.stdout.write(`${explainHealth(report.health).join('\n')}\n`);
  });
}
