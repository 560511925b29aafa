/**
 * Writing a Paimon index manifest (`index-manifest-<uuid>-<n>`, Avro, `_VERSION` 1): the full list of live
 * index files of a snapshot, ADD entries only (`IndexManifestFileHandler.write`). The schema is the one
 * Java 1.4 writes (`IndexManifestEntry.SCHEMA` with `DeletionVectorMeta`'s `_CARDINALITY` and 1.4's nullable
 * `_GLOBAL_INDEX`); readers of 1.3 resolve by field name and skip the field they do not know.
 */
import { randomUUID } from 'node:crypto';
import { writeAvroContainer } from '../formats/avro.js';
import { joinPath } from './io.js';
import { FILE_KIND_ADD, type IndexManifestEntry } from './manifest.js';
import type { ManifestWriteContext } from './write-manifest.js';

export const INDEX_MANIFEST_ENTRY_SCHEMA =
  '{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[' +
  '{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},' +
  '{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},' +
  '{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},' +
  '{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record",' +
  '"name":"record__DELETIONS_VECTORS_RANGES","fields":[{"name":"f0","type":"string"},{"name":"f1","type":"int"},' +
  '{"name":"f2","type":"int"},{"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null},' +
  '{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},' +
  '{"name":"_GLOBAL_INDEX","type":["null",{"type":"record","name":"record__GLOBAL_INDEX","fields":[' +
  '{"name":"_ROW_RANGE_START","type":"long"},{"name":"_ROW_RANGE_END","type":"long"},' +
  '{"name":"_INDEX_FIELD_ID","type":"int"},{"name":"_EXTRA_FIELD_IDS","type":["null",{"type":"array","items":"int"}],' +
  '"default":null},{"name":"_INDEX_META","type":["null","bytes"],"default":null}]}],"default":null}]}';

export type NewIndexEntry = Omit<IndexManifestEntry, 'manifest'>;

/** Writes the index manifest; returns its file name. */
export async function writeIndexManifest(
  ctx: ManifestWriteContext,
  entries: readonly NewIndexEntry[],
  name: string,
): Promise<string> {
  const records = entries.map((e) => ({
    _VERSION: 1,
    _KIND: FILE_KIND_ADD,
    _PARTITION: Buffer.from(e.partition),
    _BUCKET: e.bucket,
    _INDEX_TYPE: e.indexType,
    _FILE_NAME: e.fileName,
    _FILE_SIZE: e.fileSize,
    _ROW_COUNT: e.rowCount,
    _DELETIONS_VECTORS_RANGES: e.dvRanges
      ? e.dvRanges.map((r) => ({ f0: r.dataFileName, f1: r.offset, f2: r.length, _CARDINALITY: r.cardinality ?? null }))
      : null,
    _EXTERNAL_PATH: e.externalPath ?? null,
    _GLOBAL_INDEX: e.globalIndex ?? null,
  }));
  const bytes = await writeAvroContainer(INDEX_MANIFEST_ENTRY_SCHEMA, records, { codec: ctx.codec });
  await ctx.storage.createNew(joinPath(ctx.table, 'manifest', name), bytes);
  return name;
}

/** `index-manifest-<uuid>-<n>`, as Java's index manifest path factory names them. */
export class IndexManifestNamer {
  private readonly uuid = randomUUID();
  private n = 0;
  next(): string {
    return `index-manifest-${this.uuid}-${this.n++}`;
  }
}
