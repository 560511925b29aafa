/**
 * Writing Paimon manifests and manifest lists (Avro, `manifest.compression` default zstd). The schemas are
 * the ones Java Paimon 1.3 writes, byte for byte (record `org.apache.paimon.avro.generated.record`, nested
 * `record__FILE…`, plain records, nullable fields as ["null", T] unions): a Java-written manifest of a
 * 1.3.1 table carries exactly this text. Newer readers match by field name and read absent fields as null.
 */
import { randomUUID } from 'node:crypto';
import { FloeError } from '../../util/errors.js';
import { writeAvroContainer } from '../formats/avro.js';
import type { AvroCodec } from '../formats/compression.js';
import { encodeSerializedRow } from './binary-row.js';
import { joinPath, type PaimonWriteIO } from './io.js';
import {
  FILE_KIND_ADD,
  FILE_KIND_DELETE,
  type DataFileMeta,
  type ManifestEntry,
  type ManifestFileMeta,
  type SimpleStats,
} from './manifest.js';
import type { PaimonType } from './types.js';
import { RowStatsCollector } from './write-stats.js';

const STATS = (name: string) =>
  `{"type":"record","name":"${name}","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},` +
  `{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}`;

export const MANIFEST_ENTRY_SCHEMA =
  '{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[' +
  '{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},' +
  '{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},' +
  '{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[' +
  '{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},' +
  '{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},' +
  `{"name":"_KEY_STATS","type":${STATS('record__FILE__KEY_STATS')}},` +
  `{"name":"_VALUE_STATS","type":${STATS('record__FILE__VALUE_STATS')}},` +
  '{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},' +
  '{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},' +
  '{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},' +
  '{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},' +
  '{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},' +
  '{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},' +
  '{"name":"_FILE_SOURCE","type":["null","int"],"default":null},' +
  '{"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},' +
  '{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},' +
  '{"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},' +
  '{"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null}]}}]}';

export const MANIFEST_FILE_META_SCHEMA =
  '{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[' +
  '{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},' +
  '{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},' +
  `{"name":"_PARTITION_STATS","type":${STATS('record__PARTITION_STATS')}},` +
  '{"name":"_SCHEMA_ID","type":"long"},' +
  '{"name":"_MIN_BUCKET","type":["null","int"],"default":null},{"name":"_MAX_BUCKET","type":["null","int"],"default":null},' +
  '{"name":"_MIN_LEVEL","type":["null","int"],"default":null},{"name":"_MAX_LEVEL","type":["null","int"],"default":null}]}';

/** Avro codec for `manifest.compression` (Paimon passes other names to Avro's CodecFactory). */
export function manifestCodec(options: Record<string, string>, table: string): AvroCodec {
  const c = (options['avro.codec'] ?? options['manifest.compression'] ?? 'zstd').toLowerCase();
  const map: Record<string, AvroCodec> = {
    zstd: 'zstandard',
    zstandard: 'zstandard',
    snappy: 'snappy',
    deflate: 'deflate',
    null: 'null',
    none: 'null',
  };
  const codec = map[c];
  if (!codec) {
    throw new FloeError(
      'Unsupported',
      `Paimon table ${table}: manifest.compression=${c} is not a codec floe can write`,
      { context: { table } },
    );
  }
  return codec;
}

function statsRecord(s: SimpleStats | null): Record<string, unknown> {
  const empty = encodeSerializedRow([], []);
  return {
    _MIN_VALUES: Buffer.from(s?.minValues ?? empty),
    _MAX_VALUES: Buffer.from(s?.maxValues ?? empty),
    _NULL_COUNTS: s?.nullCounts ?? null,
  };
}

export function dataFileRecord(f: DataFileMeta): Record<string, unknown> {
  return {
    _FILE_NAME: f.fileName,
    _FILE_SIZE: f.fileSize,
    _ROW_COUNT: f.rowCount,
    _MIN_KEY: Buffer.from(f.minKey),
    _MAX_KEY: Buffer.from(f.maxKey),
    _KEY_STATS: statsRecord(f.keyStats),
    _VALUE_STATS: statsRecord(f.valueStats),
    _MIN_SEQUENCE_NUMBER: f.minSequenceNumber,
    _MAX_SEQUENCE_NUMBER: f.maxSequenceNumber,
    _SCHEMA_ID: BigInt(f.schemaId),
    _LEVEL: f.level,
    _EXTRA_FILES: f.extraFiles,
    // avsc builds a plain (number) long for a logical-type long, not our bigint registry type
    _CREATION_TIME: f.creationTime ?? null,
    _DELETE_ROW_COUNT: f.deleteRowCount ?? null,
    _EMBEDDED_FILE_INDEX: f.embeddedIndex ? Buffer.from(f.embeddedIndex) : null,
    _FILE_SOURCE: f.fileSource ?? null,
    _VALUE_STATS_COLS: f.valueStatsCols ?? null,
    _EXTERNAL_PATH: f.externalPath ?? null,
    _FIRST_ROW_ID: f.firstRowId ?? null,
    _WRITE_COLS: f.writeCols ?? null,
  };
}

export type NewManifestEntry = Omit<ManifestEntry, 'manifest'>;

/** Names like Java's path factory: one uuid per writer, a counter per file. */
export class ManifestNamer {
  private readonly uuid = randomUUID();
  private n = 0;
  manifest(): string {
    return `manifest-${this.uuid}-${this.n++}`;
  }
  manifestList(): string {
    return `manifest-list-${this.uuid}-${this.n++}`;
  }
}

export interface ManifestWriteContext {
  table: string;
  storage: PaimonWriteIO;
  codec: AvroCodec;
  partitionTypes: readonly PaimonType[];
  /** Latest schema id: the manifest's schema id when it holds no file. */
  schemaId: number;
  names: ManifestNamer;
}

/** Partition stats of a manifest (`ManifestFileMeta._PARTITION_STATS`), all fields, over the entries. */
function partitionStats(
  entries: readonly NewManifestEntry[],
  types: readonly PaimonType[],
  decode: (b: Uint8Array) => unknown[],
): SimpleStats {
  const fields = types.map((type, i) => ({ id: i, name: `p${i}`, type }));
  const c = new RowStatsCollector(
    fields,
    fields.map(() => ({ kind: 'full' as const })),
  );
  for (const e of entries) c.add(decode(e.partition));
  return c.all();
}

/** Writes one manifest file and returns its ManifestFileMeta (for the manifest list). */
export async function writeManifest(
  ctx: ManifestWriteContext,
  entries: readonly NewManifestEntry[],
  decodePartition: (b: Uint8Array) => unknown[],
): Promise<ManifestFileMeta> {
  const name = ctx.names.manifest();
  const records = entries.map((e) => ({
    _VERSION: 2,
    _KIND: e.kind,
    _PARTITION: Buffer.from(e.partition),
    _BUCKET: e.bucket,
    _TOTAL_BUCKETS: e.totalBuckets,
    _FILE: dataFileRecord(e.file),
  }));
  const bytes = await writeAvroContainer(MANIFEST_ENTRY_SCHEMA, records, { codec: ctx.codec });
  await ctx.storage.createNew(joinPath(ctx.table, 'manifest', name), bytes);
  const meta: ManifestFileMeta = {
    version: 2,
    fileName: name,
    fileSize: BigInt(bytes.byteLength),
    numAddedFiles: BigInt(entries.filter((e) => e.kind === FILE_KIND_ADD).length),
    numDeletedFiles: BigInt(entries.filter((e) => e.kind === FILE_KIND_DELETE).length),
    partitionStats: partitionStats(entries, ctx.partitionTypes, decodePartition),
    schemaId: BigInt(entries.length ? Math.max(...entries.map((e) => e.file.schemaId)) : ctx.schemaId),
  };
  if (entries.length) {
    meta.minBucket = Math.min(...entries.map((e) => e.bucket));
    meta.maxBucket = Math.max(...entries.map((e) => e.bucket));
    meta.minLevel = Math.min(...entries.map((e) => e.file.level));
    meta.maxLevel = Math.max(...entries.map((e) => e.file.level));
  }
  return meta;
}

/** Writes a manifest list; returns its name and byte size. */
export async function writeManifestList(
  ctx: ManifestWriteContext,
  metas: readonly ManifestFileMeta[],
): Promise<{ name: string; size: bigint }> {
  const name = ctx.names.manifestList();
  const records = metas.map((m) => ({
    _VERSION: 2,
    _FILE_NAME: m.fileName,
    _FILE_SIZE: m.fileSize,
    _NUM_ADDED_FILES: m.numAddedFiles,
    _NUM_DELETED_FILES: m.numDeletedFiles,
    _PARTITION_STATS: statsRecord(m.partitionStats),
    _SCHEMA_ID: m.schemaId,
    _MIN_BUCKET: m.minBucket ?? null,
    _MAX_BUCKET: m.maxBucket ?? null,
    _MIN_LEVEL: m.minLevel ?? null,
    _MAX_LEVEL: m.maxLevel ?? null,
  }));
  const bytes = await writeAvroContainer(MANIFEST_FILE_META_SCHEMA, records, { codec: ctx.codec });
  await ctx.storage.createNew(joinPath(ctx.table, 'manifest', name), bytes);
  return { name, size: BigInt(bytes.byteLength) };
}
