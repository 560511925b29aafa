/**
 * Table metadata JSON (format v1/v2/v3, spec §"Table Metadata Fields") → a typed view. 64-bit ids come through
 * util/json.ts as bigint; the parsed JSON object is kept as `raw` so a commit can rewrite it faithfully.
 */
import { getHeapStatistics } from 'node:v8';
import { gunzipSync } from 'node:zlib';
import { FloeError } from '../../util/errors.js';
import type { PartitionSpec, Schema, Snapshot, SnapshotRef } from '../../model/index.js';
import { parseJsonLosslessTaking, toBigInt } from '../../util/json.js';
import { parseSchema } from './schema.js';
import { validateMetadata } from './validate-metadata.js';

export const MAX_FORMAT_VERSION = 3;

export interface SortField {
  sourceId: number;
  transform: string;
  direction: 'asc' | 'desc';
  nullOrder: 'nulls-first' | 'nulls-last';
}
export interface SortOrder {
  orderId: number;
  fields: SortField[];
}

export interface StatisticsFile {
  snapshotId: bigint;
  path: string;
  fileSizeInBytes: number;
  fileFooterSizeInBytes?: number;
  blobs: {
    type: string;
    snapshotId: bigint;
    sequenceNumber: bigint;
    fields: number[];
    properties?: Record<string, string>;
  }[];
}
export interface PartitionStatisticsFile {
  snapshotId: bigint;
  path: string;
  fileSizeInBytes: number;
}

export interface IcebergSnapshot extends Snapshot {
  /** v1 tables may list manifests inline instead of a manifest list. */
  manifests?: string[];
}

export interface IcebergMetadata {
  /** Where this metadata was read from. */
  file: string;
  /** The parsed JSON, lossless (bigints), untouched. */
  raw: Record<string, unknown>;
  formatVersion: number;
  tableUuid?: string;
  location: string;
  lastSequenceNumber: bigint;
  lastUpdatedMs: number;
  lastColumnId: number;
  schemas: Schema[];
  currentSchemaId: number;
  specs: PartitionSpec[];
  defaultSpecId: number;
  lastPartitionId?: number;
  sortOrders: SortOrder[];
  defaultSortOrderId: number;
  properties: Record<string, string>;
  currentSnapshotId?: bigint;
  snapshots: IcebergSnapshot[];
  refs: SnapshotRef[];
  snapshotLog: { timestampMs: number; snapshotId: bigint }[];
  metadataLog: { timestampMs: number; metadataFile: string }[];
  statistics: StatisticsFile[];
  partitionStatistics: PartitionStatisticsFile[];
  nextRowId?: bigint;
}

/** Decompresses gzip metadata (detected by magic, whatever the name says) and decodes UTF-8. */
export function metadataText(bytes: Uint8Array, file: string): string {
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return gunzipSync(bytes).toString('utf8');
    } catch (e) {
      throw new FloeError('Corrupt', `metadata file ${file} is not valid gzip: ${(e as Error).message}`, {
        context: { file },
      });
    }
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/**
 * Parsed, a metadata file takes about this many times its size in memory (measured: 93 MiB with 200,000
 * snapshots peaks at 0.6 GB resident for `scan --count`).
 */
const METADATA_MEMORY_FACTOR = 6;

/**
 * The largest metadata text this process parses: FLOE_MAX_METADATA_BYTES when set, else what the V8 heap
 * limit (--max-old-space-size) can hold parsed. Past it the read is refused with a clear error instead of
 * the process dying of "JavaScript heap out of memory".
 */
export function metadataSizeLimit(env: NodeJS.ProcessEnv = process.env): { bytes: number; from: string } {
  const set = env.FLOE_MAX_METADATA_BYTES?.trim();
  if (set) {
    const n = Number(set);
    if (!Number.isSafeInteger(n) || n <= 0)
      throw new FloeError('InvalidArgument', `FLOE_MAX_METADATA_BYTES=${set} must be a positive number of bytes`);
    return { bytes: n, from: 'FLOE_MAX_METADATA_BYTES' };
  }
  const heap = getHeapStatistics().heap_size_limit;
  return {
    bytes: Math.floor(heap / METADATA_MEMORY_FACTOR),
    from: `the heap limit of ${mib(heap)} (node --max-old-space-size)`,
  };
}

const EMPTY = new Uint8Array(0);

const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;

function checkMetadataSize(size: number, file: string): void {
  const limit = metadataSizeLimit();
  if (size <= limit.bytes) return;
  throw new FloeError(
    'Unsupported',
    `metadata file ${file} is ${mib(size)}, more than the ${mib(limit.bytes)} this process can parse (set by ${limit.from}); run with a larger heap (NODE_OPTIONS=--max-old-space-size=<MiB>) or raise FLOE_MAX_METADATA_BYTES, then expire snapshots to shrink it`,
    { context: { file, bytes: size, limitBytes: limit.bytes } },
  );
}

export function parseMetadataBytes(bytes: Uint8Array, file: string): IcebergMetadata {
  const size = bytes.byteLength;
  checkMetadataSize(size, file);
  const box: { text?: string } = { text: metadataText(bytes, file) };
  // Only what is still needed stays referenced while the engine parses: the bytes (when the caller passed
  // them inline) and the decoded text are garbage by then, which keeps a 100 MiB file's peak ~200 MiB lower.
  bytes = EMPTY;
  if (box.text!.length > size) checkMetadataSize(box.text!.length, file); // gzip: the text is what is parsed
  let raw: unknown;
  try {
    raw = parseJsonLosslessTaking(box);
  } catch (e) {
    throw new FloeError('Corrupt', `metadata file ${file} is not valid JSON: ${(e as Error).message}`, {
      context: { file },
    });
  }
  return parseMetadata(raw, file);
}

const n = (v: unknown): number => (typeof v === 'bigint' ? Number(v) : (v as number));

function optInt(o: Record<string, unknown>, key: string): number | undefined {
  const v = o[key];
  return v === undefined || v === null ? undefined : n(v);
}

function strMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) out[k] = typeof x === 'string' ? x : String(x);
  return out;
}

/**
 * `v` itself when it is an object of strings (every summary Iceberg writes): 200,000 snapshots then share
 * the parsed summaries instead of holding a copy each. Read-only, like `raw`.
 */
function stringValued(v: unknown): Record<string, string> | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  for (const x of Object.values(v)) if (typeof x !== 'string') return undefined;
  return v as Record<string, string>;
}

function parseSpecFields(fields: unknown[], where: string): PartitionSpec['fields'] {
  let nextId = 1000; // v1 specs may omit field ids; they were assigned sequentially from 1000
  return fields.map((f) => {
    const o = f as Record<string, unknown>;
    if (typeof o.transform !== 'string' || o['source-id'] === undefined) {
      throw new FloeError('Corrupt', `${where}: partition field without transform/source-id`);
    }
    const fieldId = o['field-id'] === undefined ? nextId : n(o['field-id']);
    nextId = fieldId + 1;
    return { sourceId: n(o['source-id']), fieldId, name: String(o.name), transform: o.transform };
  });
}

/**
 * Typed views already built, by the parsed document they view (documents are never edited after parsing:
 * commits build new ones), so the several steps of one command that parse the same document share one view.
 */
const parsedDocuments = new WeakMap<object, IcebergMetadata>();

export function parseMetadata(rawIn: unknown, file: string): IcebergMetadata {
  const known = rawIn && typeof rawIn === 'object' ? parsedDocuments.get(rawIn) : undefined;
  if (known?.file === file) return known;
  const md = parseUncached(rawIn, file);
  parsedDocuments.set(md.raw, md);
  return md;
}

function parseUncached(rawIn: unknown, file: string): IcebergMetadata {
  const where = `metadata file ${file}`;
  if (!rawIn || typeof rawIn !== 'object' || Array.isArray(rawIn)) {
    throw new FloeError('Corrupt', `${where} is not a JSON object`, { context: { file } });
  }
  const raw = rawIn as Record<string, unknown>;
  const fv = raw['format-version'];
  if (typeof fv !== 'number' && typeof fv !== 'bigint') {
    throw new FloeError('Corrupt', `${where} has no format-version`, { context: { file } });
  }
  const formatVersion = n(fv);
  if (formatVersion < 1 || formatVersion > MAX_FORMAT_VERSION) {
    throw new FloeError(
      'Unsupported',
      `${where}: unsupported Iceberg format version ${formatVersion} (floe reads 1–${MAX_FORMAT_VERSION})`,
      {
        context: { file, formatVersion },
      },
    );
  }
  try {
    return parseChecked(raw, file, formatVersion, where);
  } catch (e) {
    if (e instanceof FloeError) throw e.context.file ? e : e.withContext({ file });
    throw new FloeError('Corrupt', `${where}: ${(e as Error).message}`, { context: { file }, cause: e });
  }
}

function parseChecked(
  raw: Record<string, unknown>,
  file: string,
  formatVersion: number,
  where: string,
): IcebergMetadata {
  if (typeof raw.location !== 'string') throw new FloeError('Corrupt', `${where} has no location`);

  // Schemas: v2+ `schemas` + `current-schema-id`; old v1 only `schema`.
  let schemas: Schema[];
  let currentSchemaId: number;
  if (Array.isArray(raw.schemas) && raw.schemas.length > 0) {
    schemas = raw.schemas.map((s, i) => parseSchema(s, where, i));
    currentSchemaId = optInt(raw, 'current-schema-id') ?? schemas[0]!.schemaId;
  } else if (raw.schema) {
    const s = parseSchema(raw.schema, where, 0);
    schemas = [s];
    currentSchemaId = s.schemaId;
  } else {
    throw new FloeError('Corrupt', `${where} has neither schemas nor schema`);
  }
  if (!schemas.some((s) => s.schemaId === currentSchemaId)) {
    throw new FloeError('Corrupt', `${where}: current-schema-id ${currentSchemaId} is not among the schemas`);
  }

  let specs: PartitionSpec[];
  let defaultSpecId: number;
  if (Array.isArray(raw['partition-specs']) && raw['partition-specs'].length > 0) {
    specs = raw['partition-specs'].map((s) => {
      const o = s as Record<string, unknown>;
      return { specId: n(o['spec-id']), fields: parseSpecFields((o.fields as unknown[]) ?? [], where) };
    });
    defaultSpecId = optInt(raw, 'default-spec-id') ?? specs[0]!.specId;
  } else if (Array.isArray(raw['partition-spec'])) {
    specs = [{ specId: 0, fields: parseSpecFields(raw['partition-spec'], where) }];
    defaultSpecId = 0;
  } else {
    specs = [{ specId: 0, fields: [] }];
    defaultSpecId = 0;
  }

  const sortOrders: SortOrder[] = Array.isArray(raw['sort-orders'])
    ? raw['sort-orders'].map((s) => {
        const o = s as Record<string, unknown>;
        return {
          orderId: n(o['order-id']),
          fields: ((o.fields as Record<string, unknown>[]) ?? []).map((f) => ({
            sourceId: n(f['source-id']),
            transform: String(f.transform),
            direction: f.direction === 'desc' ? 'desc' : 'asc',
            nullOrder: f['null-order'] === 'nulls-last' ? 'nulls-last' : 'nulls-first',
          })),
        };
      })
    : [{ orderId: 0, fields: [] }];

  const snapshots: IcebergSnapshot[] = (Array.isArray(raw.snapshots) ? raw.snapshots : []).map((s) => {
    const o = s as Record<string, unknown>;
    const summary = stringValued(o.summary) ?? strMap(o.summary);
    const snap: IcebergSnapshot = {
      snapshotId: toBigInt(o['snapshot-id'], `${where} snapshot-id`),
      sequenceNumber:
        o['sequence-number'] === undefined ? 0n : toBigInt(o['sequence-number'], `${where} sequence-number`),
      timestampMs: n(o['timestamp-ms']),
      operation: summary.operation ?? (o.operation as string | undefined) ?? 'append',
      summary,
    };
    if (o['parent-snapshot-id'] !== undefined && o['parent-snapshot-id'] !== null) {
      snap.parentSnapshotId = toBigInt(o['parent-snapshot-id'], `${where} parent-snapshot-id`);
    }
    if (o['schema-id'] !== undefined && o['schema-id'] !== null) snap.schemaId = n(o['schema-id']);
    if (typeof o['manifest-list'] === 'string') snap.manifestList = o['manifest-list'];
    if (Array.isArray(o.manifests)) snap.manifests = o.manifests.map(String);
    if (o['first-row-id'] !== undefined && o['first-row-id'] !== null)
      snap.firstRowId = toBigInt(o['first-row-id'], 'first-row-id');
    if (o['added-rows'] !== undefined && o['added-rows'] !== null)
      snap.addedRows = toBigInt(o['added-rows'], 'added-rows');
    return snap;
  });

  // -1 (v1/v2 writers) and null (v3) both mean "no current snapshot".
  let currentSnapshotId: bigint | undefined;
  const cs = raw['current-snapshot-id'];
  if (cs !== undefined && cs !== null) {
    const id = toBigInt(cs, `${where} current-snapshot-id`);
    if (id !== -1n) currentSnapshotId = id;
  }

  const refs: SnapshotRef[] = [];
  if (raw.refs && typeof raw.refs === 'object') {
    for (const [name, r] of Object.entries(raw.refs as Record<string, Record<string, unknown>>)) {
      const ref: SnapshotRef = {
        name,
        type: r.type === 'tag' ? 'tag' : 'branch',
        snapshotId: toBigInt(r['snapshot-id'], `${where} ref ${name}`),
      };
      if (r['max-ref-age-ms'] != null) ref.maxRefAgeMs = n(r['max-ref-age-ms']);
      if (r['max-snapshot-age-ms'] != null) ref.maxSnapshotAgeMs = n(r['max-snapshot-age-ms']);
      if (r['min-snapshots-to-keep'] != null) ref.minSnapshotsToKeep = n(r['min-snapshots-to-keep']);
      refs.push(ref);
    }
  }
  // The main branch is implicit in tables written without refs (spec: "there is always a main branch").
  if (currentSnapshotId !== undefined && !refs.some((r) => r.name === 'main')) {
    refs.unshift({ name: 'main', type: 'branch', snapshotId: currentSnapshotId });
  }
  if (currentSnapshotId !== undefined && !snapshots.some((s) => s.snapshotId === currentSnapshotId)) {
    throw new FloeError('Corrupt', `${where}: current snapshot ${currentSnapshotId} is not in the snapshot list`);
  }

  const stats = (v: unknown): StatisticsFile[] =>
    (Array.isArray(v) ? v : []).map((s) => {
      const o = s as Record<string, unknown>;
      const out: StatisticsFile = {
        snapshotId: toBigInt(o['snapshot-id'], 'statistics snapshot-id'),
        path: String(o['statistics-path']),
        fileSizeInBytes: n(o['file-size-in-bytes']),
        blobs: ((o['blob-metadata'] as Record<string, unknown>[]) ?? []).map((b) => ({
          type: String(b.type),
          snapshotId: toBigInt(b['snapshot-id'], 'blob snapshot-id'),
          sequenceNumber: toBigInt(b['sequence-number'], 'blob sequence-number'),
          fields: ((b.fields as unknown[]) ?? []).map(n),
          ...(b.properties ? { properties: strMap(b.properties) } : {}),
        })),
      };
      if (o['file-footer-size-in-bytes'] != null) out.fileFooterSizeInBytes = n(o['file-footer-size-in-bytes']);
      return out;
    });

  const md: IcebergMetadata = {
    file,
    raw,
    formatVersion,
    location: raw.location.replace(/\/+$/, ''),
    lastSequenceNumber:
      raw['last-sequence-number'] == null ? 0n : toBigInt(raw['last-sequence-number'], 'last-sequence-number'),
    lastUpdatedMs: n(raw['last-updated-ms'] ?? 0),
    lastColumnId: n(raw['last-column-id'] ?? 0),
    schemas,
    currentSchemaId,
    specs,
    defaultSpecId,
    sortOrders,
    defaultSortOrderId: optInt(raw, 'default-sort-order-id') ?? 0,
    properties: strMap(raw.properties),
    snapshots,
    refs,
    snapshotLog: (Array.isArray(raw['snapshot-log']) ? raw['snapshot-log'] : []).map((e) => {
      const o = e as Record<string, unknown>;
      return { timestampMs: n(o['timestamp-ms']), snapshotId: toBigInt(o['snapshot-id'], 'snapshot-log') };
    }),
    metadataLog: (Array.isArray(raw['metadata-log']) ? raw['metadata-log'] : []).map((e) => {
      const o = e as Record<string, unknown>;
      return { timestampMs: n(o['timestamp-ms']), metadataFile: String(o['metadata-file']) };
    }),
    statistics: stats(raw.statistics),
    partitionStatistics: (Array.isArray(raw['partition-statistics']) ? raw['partition-statistics'] : []).map((s) => {
      const o = s as Record<string, unknown>;
      return {
        snapshotId: toBigInt(o['snapshot-id'], 'partition-statistics snapshot-id'),
        path: String(o['statistics-path']),
        fileSizeInBytes: n(o['file-size-in-bytes']),
      };
    }),
  };
  if (typeof raw['table-uuid'] === 'string') md.tableUuid = raw['table-uuid'];
  if (raw['last-partition-id'] != null) md.lastPartitionId = n(raw['last-partition-id']);
  if (currentSnapshotId !== undefined) md.currentSnapshotId = currentSnapshotId;
  if (raw['next-row-id'] != null) md.nextRowId = toBigInt(raw['next-row-id'], 'next-row-id');
  validateMetadata(md); // before any plan or commit: never build on inconsistent metadata
  return md;
}

/** The schema a read at `snapshotId` uses: the snapshot's own schema when it names one (as Java's time travel does). */
export function schemaForSnapshot(md: IcebergMetadata, snapshotId?: bigint): Schema {
  const current = md.schemas.find((s) => s.schemaId === md.currentSchemaId)!;
  if (snapshotId === undefined) return current;
  const snap = md.snapshots.find((s) => s.snapshotId === snapshotId);
  if (snap?.schemaId === undefined) return current;
  return md.schemas.find((s) => s.schemaId === snap.schemaId) ?? current;
}

export function findSnapshot(md: IcebergMetadata, snapshotId: bigint): IcebergSnapshot {
  const s = md.snapshots.find((x) => x.snapshotId === snapshotId);
  if (!s) {
    throw new FloeError(
      'NotFound',
      `table ${md.location}: snapshot ${snapshotId} does not exist (metadata ${md.file})`,
      {
        context: { file: md.file, snapshotId: snapshotId.toString() },
      },
    );
  }
  return s;
}
