/**
 * Inspect and scan for Paimon tables (detected from the layout: a `schema/` directory with `schema-N` files).
 * The size classes and health score are the same format-neutral ones Iceberg uses; Paimon adds the LSM
 * picture: sorted runs per bucket. Loaded only when a Paimon table is opened.
 */
import { FloeError } from '../../util/errors.js';
import type { FileIO } from '../../connectors/storage/file-io.js';
import { loadPaimonTable, scanPaimon } from '../../connectors/paimon/index.js';
import type { TableModel } from '../../model/index.js';
import { tableHealth, sizePolicyFromProperties, type HealthReport } from '../core/health.js';
import { stringifyJsonLossless } from '../../util/json.js';

/** `--snapshot <id>` for a Paimon table: a snapshot number. */
export function snapshotIdArg(text: string): bigint {
  if (!/^\d+$/.test(text.trim()))
    throw new FloeError('InvalidArgument', `--snapshot: "${text}" is not a snapshot id (a Paimon snapshot number)`);
  return BigInt(text.trim());
}

export interface PaimonInspectReport {
  format: 'paimon';
  location: string;
  snapshotId: bigint | null;
  snapshots: number;
  primaryKeys: string[];
  columns: { id: number; name: string; required: boolean }[];
  options: Record<string, string>;
  buckets: { partition: unknown[]; bucket: number; runs: { level: number; files: number; bytes: number }[] }[];
  health: HealthReport;
}

export async function buildPaimonInspect(
  ref: string,
  files: FileIO,
  snapshot?: string,
  targetSize?: number,
): Promise<PaimonInspectReport> {
  const model: TableModel = await loadPaimonTable(ref, {
    fileIO: files,
    ...(snapshot ? { snapshotId: snapshotIdArg(snapshot) } : {}),
  });
  const schema =
    model.schemas.find((s) => s.schemaId === model.currentSchemaId) ?? model.schemas[model.schemas.length - 1]!;
  const pk = new Set(model.primaryKeyFieldIds ?? []);
  return {
    format: 'paimon',
    location: model.location,
    snapshotId: model.currentSnapshotId ?? null,
    snapshots: model.snapshots.length,
    primaryKeys: schema.fields.filter((f) => pk.has(f.id)).map((f) => f.name),
    columns: schema.fields.map((f) => ({ id: f.id, name: f.name, required: f.required })),
    options: model.properties,
    buckets: (model.lsm ?? []).map((b) => ({
      partition: b.partition,
      bucket: b.bucket,
      runs: b.runs.map((r) => ({ level: r.level, files: r.files.length, bytes: r.sizeBytes })),
    })),
    health: tableHealth(model, sizePolicyFromProperties(model.properties, targetSize ? { targetSize } : {})),
  };
}

export async function* paimonScanLines(
  ref: string,
  files: FileIO,
  format: 'jsonl' | 'csv',
  snapshot?: string,
): AsyncGenerator<string> {
  let header = false;
  const csv = (v: unknown) => {
    if (v === null || v === undefined) return '';
    const s = typeof v === 'string' ? v : typeof v === 'object' ? stringifyJsonLossless(v, undefined) : String(v);
    return /[",\r\n]/.test(s) || s === '' ? `"${s.replace(/"/g, '""')}"` : s;
  };
  for await (const row of scanPaimon(ref, {
    fileIO: files,
    ...(snapshot ? { snapshotId: snapshotIdArg(snapshot) } : {}),
  })) {
    const plain = Object.fromEntries(
      Object.entries(row).map(([k, v]) => [k, v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v]),
    );
    if (format === 'jsonl') {
      yield stringifyJsonLossless(plain);
    } else {
      if (!header) {
        yield Object.keys(plain).map(csv).join(',');
        header = true;
      }
      yield Object.values(plain).map(csv).join(',');
    }
  }
}
