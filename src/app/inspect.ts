/**
 * The inspect job: what a table is (format, version, snapshots), what its live files look like (size classes,
 * delete files by kind, per partition) and a health score (formula in src/core/health.ts). Paimon tables add the
 * LSM picture (src/app/paimon-view.ts, loaded only for Paimon tables). The text views are the CLI's.
 */
import { FloeError } from '../../util/errors.js';
import { holdsLiveFiles, tableHealth, sizePolicyFromProperties, type HealthReport } from '../core/health.js';
import { realPlaceOf } from '../../connectors/storage/located-error.js';
import { formatPartitionValue } from '../core/planning/partition-label.js';
import { loadTableModel, requireSnapshot, type IcebergTable } from '../../connectors/iceberg/table.js';
import { displayValue } from '../../connectors/iceberg/values.js';
import { indexFields, partitionResultType, typeToString } from '../../connectors/iceberg/schema.js';
import { fileIOFromEnv, openTableForRead, type TableReadOptions } from './open-table.js';
import { detectTableFormat } from './table-format.js';
import { resultDocument, type ResultDocument } from './result.js';
import type { PaimonInspectReport } from './paimon-view.js';

export type { PaimonInspectReport } from './paimon-view.js';

export interface InspectTableOptions extends TableReadOptions {
  /** Inspect the files of this snapshot instead of the current one. */
  snapshot?: string;
  /** Target file size in bytes for the size classes (default: the table's target size or 128 MiB). */
  targetSize?: number;
}

export interface InspectReport {
  format: 'iceberg';
  formatVersion: number;
  location: string;
  /** Where the table really is when that differs from `location` (a relocated copy, --location-map). */
  realLocation?: string;
  metadataLocation: string;
  foundVia: string;
  tableUuid?: string;
  currentSnapshotId: bigint | null;
  inspectedSnapshotId: bigint | null;
  snapshots: number;
  refs: { name: string; type: string; snapshotId: bigint }[];
  schema: { id: number; columns: { id: number; name: string; type: string; required: boolean }[] };
  partitionSpec: { id: number; fields: string[] };
  /** Manifests of the snapshot; `live`: those that may hold a live file (the others are skipped unread). */
  manifests: { data: number; deletes: number; live: number };
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
    ...realLocationOf(table),
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
      live: model.manifests.filter(holdsLiveFiles).length,
    },
    health,
  };
}

/** `{ realLocation }` when the metadata's location is not where the table's files are read. */
function realLocationOf(table: IcebergTable): { realLocation?: string } {
  const real = realPlaceOf(table.io, table.metadata.location);
  return real === undefined ? {} : { realLocation: real };
}

/** Inspects an Iceberg or Paimon table (detected; a catalog names Iceberg tables). */
export async function inspectTable(
  ref: string,
  o: InspectTableOptions = {},
): Promise<InspectReport | PaimonInspectReport> {
  if (o.targetSize !== undefined && o.targetSize <= 0)
    throw new FloeError('InvalidArgument', `--target-size must be more than 0 bytes`);
  if (!o.catalog) {
    const files = fileIOFromEnv(o.locationMap);
    try {
      if ((await detectTableFormat(ref, files)) === 'paimon') {
        const { buildPaimonInspect } = await import('./paimon-view.js');
        return await buildPaimonInspect(ref, files, o.snapshot, o.targetSize);
      }
    } finally {
      files.destroy();
    }
  }
  const table = await openTableForRead(ref, o);
  return buildInspectReport(table, {
    ...(o.snapshot ? { snapshot: o.snapshot } : {}),
    ...(o.targetSize ? { targetSize: o.targetSize } : {}),
  });
}

/** The floe-result/1 document of an inspect report. */
export function inspectResult(report: InspectReport | PaimonInspectReport): ResultDocument {
  return resultDocument('inspect', 0, { ...report });
}
