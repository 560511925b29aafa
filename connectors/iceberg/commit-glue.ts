/**
 * Publishing through the AWS Glue Data Catalog API, as Java's GlueTableOperations does: write the next
 * metadata file (create-if-absent), then UpdateTable with the table's parameters pointing at it
 * (`metadata_location`, `previous_metadata_location`) and the `VersionId` read with the base as the
 * compare-and-swap: a ConcurrentModificationException means another writer won (a retryable conflict).
 * A lost answer to UpdateTable is settled from the table as it stands (settleLostSwap); the pointer still
 * at the base is unknown then, since Glue may yet apply the request.
 */
import { FloeError } from '../../util/errors.js';
import type { TableIdentifier } from '../catalog/catalog.js';
import { glueDatabase, GlueSession } from '../catalog/glue.js';
import { faultPoint } from '../../util/fault-points.js';
import { settleLostSwap, writeNextMetadata } from './commit-catalog.js';
import type { RawMetadata } from './commit-metadata.js';
import { parseMetadataBytes } from './metadata.js';
import type { CommitIO, TableOperations } from './transaction.js';

/** TableInput fields UpdateTable accepts, copied from the table GetTable returned. */
const TABLE_INPUT_FIELDS = [
  'Name',
  'Description',
  'Owner',
  'Retention',
  'StorageDescriptor',
  'PartitionKeys',
  'TableType',
  'Parameters',
  'TargetTable',
  'ViewOriginalText',
  'ViewExpandedText',
] as const;

export class GlueTableOperations implements TableOperations {
  private readonly session: GlueSession;
  /** VersionId of the Glue table when `base` was read, by metadata location. */
  private readonly versions = new Map<string, string | undefined>();

  constructor(
    private readonly io: CommitIO,
    private readonly id: TableIdentifier,
    catalogId: string,
    props: Record<string, string>,
  ) {
    this.session = new GlueSession(catalogId, props);
  }

  async refresh(): Promise<{ metadata: RawMetadata; location: string }> {
    const t = await this.session.getTable(this.id);
    this.versions.set(t.metadataLocation, t.versionId);
    const md = parseMetadataBytes(await this.io.read(t.metadataLocation), t.metadataLocation);
    return { metadata: md.raw, location: t.metadataLocation };
  }

  async commit(base: { metadata: RawMetadata; location: string }, next: RawMetadata): Promise<string> {
    const name = `${this.id.namespace.join('.')}.${this.id.name}`;
    // read the table now: its VersionId is the CAS, and a pointer already moved is a conflict before any write
    const now = await this.session.getTable(this.id);
    if (now.metadataLocation !== base.location)
      throw new FloeError(
        'CommitConflict',
        `another writer moved ${name} in ${this.session.description} past ${base.location}`,
      );
    const versionId = this.versions.get(base.location) ?? now.versionId;
    const target = await writeNextMetadata(this.io, base.location, next);
    const m = await this.session.sdk();
    const input: Record<string, unknown> = {};
    for (const k of TABLE_INPUT_FIELDS) if (now.table[k] !== undefined) input[k] = now.table[k];
    input.Parameters = {
      ...((now.table.Parameters as Record<string, string> | undefined) ?? {}),
      table_type: 'ICEBERG',
      metadata_location: target,
      previous_metadata_location: base.location,
    };
    faultPoint('iceberg.commit.before-publish');
    try {
      await (
        await this.session.glue()
      ).send(
        new m.UpdateTableCommand({
          ...this.session.idParam,
          DatabaseName: glueDatabase(this.id, this.session.description),
          TableInput: input as never,
          ...(versionId ? { VersionId: versionId } : {}),
          SkipArchive: false,
        }),
      );
    } catch (e) {
      const err = this.session.errorFor(`UpdateTable ${name}`, e);
      const answered = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (err.kind === 'CommitConflict' || (answered !== undefined && answered >= 400 && answered < 500)) {
        // Glue answered and refused: the pointer did not move
        await this.io.remove(target).catch(() => undefined);
        if (err.kind === 'CommitConflict')
          throw new FloeError(
            'CommitConflict',
            `another writer updated ${name} in ${this.session.description} (VersionId ${versionId ?? '?'} is stale)`,
            { cause: e },
          );
        throw new FloeError(err.kind, `${err.message} (the commit was refused: nothing was committed)`, {
          cause: e,
          retryable: false,
        });
      }
      return settleLostSwap({
        io: this.io,
        what: err.message,
        table: this.id.name,
        catalog: this.session.description,
        base: base.location,
        target,
        cause: e,
        pointer: async () => (await this.session.getTable(this.id)).metadataLocation,
        unappliedAtBase: false,
      });
    }
    faultPoint('iceberg.commit.after-publish');
    return target;
  }
}
