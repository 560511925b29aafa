/**
 * Publishing a new metadata file atomically.
 *
 * Filesystem ("Hadoop") tables: the next `v<N+1>.metadata.json` is created with create-if-absent (conditional
 * PUT on S3, exclusive create locally) — exactly one writer can win version N+1 — then `version-hint.text`
 * is rewritten as a best-effort pointer, as Java's HadoopTableOperations does.
 */
import { FloeError, isFloeError } from '../../src/errors.js';
import { stringifyJsonLossless } from '../../src/util/json.js';
import { parseMetadataBytes } from './metadata.js';
import { metadataVersionOf, type RawMetadata } from './commit-metadata.js';
import type { CommitIO, TableOperations } from './commit-rewrite.js';
import type { IcebergIO } from './io.js';
import { locateCurrentMetadata } from './locate.js';

export interface VersionedIO extends CommitIO, IcebergIO {}

function dirOf(location: string): string {
  return location.slice(0, location.lastIndexOf('/'));
}

export class FilesystemTableOperations implements TableOperations {
  constructor(
    private readonly io: VersionedIO,
    /** Table metadata directory location, e.g. s3://b/db/t/metadata */
    private readonly metadataDir: string,
  ) {}

  /** The current version as a reader finds it: the hint (or a listing when it is missing), then newer versions. */
  async refresh(): Promise<{ metadata: RawMetadata; location: string }> {
    const tableLocation = this.metadataDir.slice(0, this.metadataDir.lastIndexOf('/'));
    const { metadataLocation } = await locateCurrentMetadata(this.io, tableLocation);
    const md = parseMetadataBytes(await this.io.read(metadataLocation), metadataLocation);
    return { metadata: md.raw, location: metadataLocation };
  }

  async commit(base: { metadata: RawMetadata; location: string }, next: RawMetadata): Promise<string> {
    const version = metadataVersionOf(base.location);
    if (version < 0 || !/\/v\d+\.metadata\.json$/.test(base.location)) {
      throw new FloeError('Unsupported', `${base.location} is not a filesystem-table metadata file (v<N>.metadata.json); commit through its catalog (--catalog)`, {
        context: { file: base.location },
      });
    }
    const dir = dirOf(base.location);
    const target = `${dir}/v${version + 1}.metadata.json`;
    try {
      await this.io.createNew(target, Buffer.from(stringifyJsonLossless(next, 2), 'utf8'));
    } catch (e) {
      if (isFloeError(e, 'PreconditionFailed')) {
        throw new FloeError('CommitConflict', `another writer committed version ${version + 1} of ${dir} first`, {
          context: { file: target },
          cause: e,
        });
      }
      throw e;
    }
    // the hint is only a shortcut for readers; the version file above is the commit
    await this.io.overwrite(`${dir}/version-hint.text`, Buffer.from(String(version + 1), 'utf8')).catch(() => undefined);
    return target;
  }
}
