/**
 * `floe inspect <table>`: what the table is (format, version, snapshots), what its live files look like
 * (size classes, delete files by kind, per partition) and a health score (formula in src/health.ts).
 */
import type { Command } from 'commander';
import { FloeError } from '../../errors.js';
import {
  explainHealth,
  tableHealth,
  sizePolicyFromProperties,
  type CountBytes,
  type HealthReport,
} from '../../health.js';
import { formatPartitionValue } from '../../planning/partition-label.js';
import { buildPaimonInspect, paimonFileIO, renderPaimonInspect } from '../paimon-view.js';
import { detectTableFormat } from '../table-format.js';
import { renderResult, resultDocument, writeStdout } from '../result.js';
import { formatBytes, parseSizeBytes } from '../../util/units.js';
import type { RemapRule } from '../../../connectors/iceberg/io.js';
import { parseLocationMapSpec } from '../../../connectors/storage/location.js';
import { storageConfigFromEnv } from '../table-access.js';
import {
  loadTableModel,
  openIcebergTable,
  requireSnapshot,
  type IcebergTable,
  type OpenOptions,
} from '../../../connectors/iceberg/table.js';
import { displayValue } from '../../../connectors/iceberg/values.js';
import { indexFields, partitionResultType, typeToString } from '../../../connectors/iceberg/schema.js';

export interface TableCliOptions {
  locationMap?: string[];
  catalog?: string;
  catalogName?: string;
  token?: string;
  warehouse?: string;
}

export function collectRepeatable(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Adds the options every table-reading command shares. */
export function addTableOptions(cmd: Command): Command {
  return cmd
    .option(
      '--location-map <FROM=TO>',
      'read locations starting with FROM from TO instead (repeatable)',
      collectRepeatable,
      [],
    )
    .option(
      '--catalog <spec>',
      'catalog holding the table: sql:<sqlite-path|postgresql-url> or rest:<url>; the table is then <ns>.<table>',
    )
    .option('--catalog-name <name>', 'SQL catalog: the catalog_name to use when the file holds several')
    .option('--token <token>', 'REST catalog bearer token (default: $FLOE_REST_TOKEN)')
    .option('--warehouse <name>', 'REST catalog warehouse');
}

export function openOptionsFrom(opts: TableCliOptions): OpenOptions {
  const remap: RemapRule[] = (opts.locationMap ?? []).map((spec) => parseLocationMapSpec(spec));
  // S3 endpoint/path style from the environment (FLOE_S3_ENDPOINT …), as every other command reads it
  const { locationMap: _rules, ...storage } = storageConfigFromEnv([]);
  const o: OpenOptions = { remap, storage };
  if (opts.catalog) {
    o.catalog = opts.catalog;
    o.catalogOptions = {
      ...(opts.catalogName ? { catalogName: opts.catalogName } : {}),
      ...(opts.token ? { token: opts.token } : {}),
      ...(opts.warehouse ? { warehouse: opts.warehouse } : {}),
    };
  }
  return o;
}

export async function openTableForCli(ref: string, opts: TableCliOptions): Promise<IcebergTable> {
  return openIcebergTable(ref, openOptionsFrom(opts));
}

interface InspectOptions extends TableCliOptions {
  json?: boolean;
  explain?: boolean;
  snapshot?: string;
  targetSize?: string;
}

export interface InspectReport {
  format: 'iceberg';
  formatVersion: number;
  location: string;
  metadataLocation: string;
  foundVia: string;
  tableUuid?: string;
  currentSnapshotId: bigint | null;
  inspectedSnapshotId: bigint | null;
  snapshots: number;
  refs: { name: string; type: string; snapshotId: bigint }[];
  schema: { id: number; columns: { id: number; name: string; type: string; required: boolean }[] };
  partitionSpec: { id: number; fields: string[] };
  manifests: { data: number; deletes: number };
  health: HealthReport;
}

export async function buildInspectReport(
  table: IcebergTable,
  options: { snapshot?: string; targetSize?: number } = {},
): Promise<InspectReport> {
  const md = table.metadata;
  const snapshotId = options.snapshot ? requireSnapshot(md, options.snapshot) : md.currentSnapshotId;
  const model = await loadTableModel(table, snapshotId);
  const policy = sizePolicyFromProperties(md.properties, options.targetSize ? { targetSize: options.targetSize } : {});
  const health = tableHealth(model, policy);
  const schema = md.schemas.find((s) => s.schemaId === md.currentSchemaId)!;
  const spec = md.specs.find((s) => s.specId === md.defaultSpecId)!;
  // Partition values for display: dates/timestamps as text, by the spec's result types.
  const byId = indexFields(md.schemas.flatMap((s) => s.fields));
  for (const p of health.partitions) {
    const sp = md.specs.find((s) => s.specId === p.specId);
    p.partition = p.partition.map((v, i) => {
      const pf = sp?.fields[i];
      const t = pf && partitionResultType(pf, byId.get(pf.sourceId));
      if (!pf || !t) return v;
      // Time transforms produce ints whose meaning depends on the transform.
      if (pf.transform === 'day' && typeof v === 'number') return displayValue({ kind: 'primitive', name: 'date' }, v);
      if (['year', 'month', 'hour'].includes(pf.transform)) return formatPartitionValue(pf.transform, undefined, v);
      if (pf.transform.startsWith('bucket')) return v;
      return displayValue(t, v);
    });
  }
  return {
    format: 'iceberg',
    formatVersion: md.formatVersion,
    location: md.location,
    metadataLocation: table.metadataLocation,
    foundVia: table.via,
    ...(md.tableUuid ? { tableUuid: md.tableUuid } : {}),
    currentSnapshotId: md.currentSnapshotId ?? null,
    inspectedSnapshotId: snapshotId ?? null,
    snapshots: md.snapshots.length,
    refs: md.refs.map((r) => ({ name: r.name, type: r.type, snapshotId: r.snapshotId })),
    schema: {
      id: schema.schemaId,
      columns: schema.fields.map((f) => ({ id: f.id, name: f.name, type: typeToString(f.type), required: f.required })),
    },
    partitionSpec: { id: spec.specId, fields: spec.fields.map((f) => `${f.transform}(${f.sourceId}) as ${f.name}`) },
    manifests: {
      data: model.manifests.filter((m) => m.content === 'data').length,
      deletes: model.manifests.filter((m) => m.content === 'deletes').length,
    },
    health,
  };
}

export { formatBytes };

function line(label: string, c: CountBytes, withRecords = false): string {
  return `  ${label.padEnd(16)} ${String(c.files).padStart(7)} files ${formatBytes(c.bytes).padStart(11)}${withRecords ? `  ${c.records} records` : ''}`;
}

export function renderInspectText(r: InspectReport): string {
  const h = r.health;
  const out: string[] = [];
  out.push(`table            ${r.location}`);
  out.push(`format           Iceberg v${r.formatVersion}${r.tableUuid ? `  (uuid ${r.tableUuid})` : ''}`);
  out.push(`metadata         ${r.metadataLocation}  (found via ${r.foundVia})`);
  out.push(
    `current snapshot ${r.currentSnapshotId ?? 'none'}  (${r.snapshots} snapshots, refs: ${r.refs.map((x) => `${x.name}→${x.snapshotId}`).join(', ') || 'none'})`,
  );
  if (r.inspectedSnapshotId !== r.currentSnapshotId) out.push(`inspected at     snapshot ${r.inspectedSnapshotId}`);
  out.push(`schema ${r.schema.id}         ${r.schema.columns.map((c) => `${c.name}:${c.type}`).join(', ')}`);
  out.push(`partition spec   ${r.partitionSpec.fields.join(', ') || 'unpartitioned'}`);
  out.push(`manifests        ${r.manifests.data} data, ${r.manifests.deletes} delete`);
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
    let targetSize: number | undefined;
    if (opts.targetSize !== undefined) {
      targetSize = parseSizeBytes(opts.targetSize, { what: '--target-size' });
      if (targetSize <= 0) throw new FloeError('InvalidArgument', `--target-size must be more than 0 bytes`);
    }
    if (!opts.catalog) {
      const files = paimonFileIO(opts.locationMap);
      try {
        if ((await detectTableFormat(ref, files)) === 'paimon') {
          const r = await buildPaimonInspect(ref, files, opts.snapshot, targetSize);
          writeStdout(opts.json ? renderResult(resultDocument('inspect', 0, { ...r })) : `${renderPaimonInspect(r)}\n`);
          if (opts.explain && !opts.json) process.stdout.write(`${explainHealth(r.health).join('\n')}\n`);
          return;
        }
      } finally {
        files.destroy();
      }
    }
    const table = await openTableForCli(ref, opts);
    const report = await buildInspectReport(table, {
      ...(opts.snapshot ? { snapshot: opts.snapshot } : {}),
      ...(targetSize ? { targetSize } : {}),
    });
    writeStdout(
      opts.json ? renderResult(resultDocument('inspect', 0, { ...report })) : `${renderInspectText(report)}\n`,
    );
    if (opts.explain && !opts.json) process.stdout.write(`${explainHealth(report.health).join('\n')}\n`);
  });
}
