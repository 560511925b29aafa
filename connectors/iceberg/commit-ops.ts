/**
 * Publishing a new metadata file atomically.
 *
 * Filesystem ("Hadoop") tables: the next `v<N+1>.metadata.json` is created with create-if-absent (conditional
 * PUT on S3, exclusive create locally) — exactly one writer can win version N+1 — then `version-hint.text`
 * is rewritten as a best-effort pointer, as Java's HadoopTableOperations does.
 *
 * A lost response never turns into a wrong answer: the version file is read back (createVerified) — our
 * bytes there mean we committed, another writer's mean a conflict, and anything undecidable is "commit state
 * unknown", on which every caller keeps the files the new metadata references.
 */
import { FloeError, isFloeError } from '../../util/errors.js';
import { faultPoint } from '../../util/fault-points.js';
import { createVerified, isOutcomeUnknown } from '../storage/create-verified.js';
import { commitStateUnknown } from '../commit-state.js';
import { stringifyJsonLossless } from '../../util/json.js';
import { parseMetadataBytes } from './metadata.js';
import { metadataVersionOf, type RawMetadata } from './commit-metadata.js';
import type { CommitIO, TableOperations } from './transaction.js';
import type { IcebergIO } from './io.js';
import { locateCurrentMetadata } from './locate.js';
import type { FileIO } from '../storage/file-io.js';

/** `requireConditionalCreate`: FileIO's store check (absent in test doubles, whose stores are not S3). */
export interface VersionedIO extends CommitIO, IcebergIO, Partial<Pick<FileIO, 'requireConditionalCreate'>> {}

function dirOf(location: string): string {
  return location.slice(0, location.lastIndexOf('/'));
}

export class FilesystemTableOperations implements TableOperations {
  constructor(
    private readonly io: VersionedIO,
    /** Table metadata directory location, e.g. s3://b/db/t/metadata */
    private readonly metadataDir: string,
    /**
     * The version the caller already read. A `vN.metadata.json` is created once and never rewritten, so a
     * refresh that finds the same file current returns it instead of reading and parsing it again (with
     * 200,000 snapshots that is seconds and a second copy of the whole document in memory).
     */
    private last?: { location: string; metadata: RawMetadata },
  ) {}

  /** The current version as a reader finds it: the hint (or a listing when it is missing), then newer versions. */
  async refresh(): Promise<{ metadata: RawMetadata; location: string }> {
    const tableLocation = this.metadataDir.slice(0, this.metadataDir.lastIndexOf('/'));
    const { metadataLocation } = await locateCurrentMetadata(this.io, tableLocation);
    if (this.last?.location !== metadataLocation) {
      const md = parseMetadataBytes(await this.io.read(metadataLocation), metadataLocation);
      this.last = { location: metadataLocation, metadata: md.raw };
    }
    return { metadata: this.last.metadata, location: metadataLocation };
  }

  /**
   * Refuses, before a job writes anything, a table this class could not commit to (see `commit`) — also one
   * on an S3 store that does not honour conditional create, where the version file's create is not atomic.
   */
  async preflight(base: { location: string }): Promise<void> {
    filesystemVersionOf(base.location);
    await this.requireAtomicCreate();
  }

  private async requireAtomicCreate(): Promise<void> {
    await this.io.requireConditionalCreate?.(dirOf(this.metadataDir), 'Iceberg');
  }

  /** Publishes `next` (the transaction's applyUpdates document): the create-if-absent is the requirement check. */
  async commit(base: { metadata: RawMetadata; location: string }, next: RawMetadata): Promise<string> {
    const version = filesystemVersionOf(base.location);
    await this.requireAtomicCreate(); // remembered per store: free after preflight
    const dir = dirOf(base.location);
    const target = `${dir}/v${version + 1}.metadata.json`;
    const bytes = Buffer.from(stringifyJsonLossless(next, 2), 'utf8');
    faultPoint('iceberg.commit.before-publish');
    await publishMetadataFile(this.io, target, bytes, `version ${version + 1} of ${dir}`);
    faultPoint('iceberg.commit.after-publish');
    // the hint is only a shortcut for readers; the version file above is the commit
    await this.io
      .overwrite(`${dir}/version-hint.text`, Buffer.from(String(version + 1), 'utf8'))
      .catch(() => undefined);
    return target;
  }
}

/** The version of a filesystem-table metadata file (`v<N>.metadata.json`); anything else cannot be committed to by path. */
function filesystemVersionOf(location: string): number {
  const version = metadataVersionOf(location);
  if (version < 0 || !/\/v\d+\.metadata\.json$/.test(location)) {
    throw new FloeError(
      'Unsupported',
      `${location} is not a filesystem-table metadata file (v<N>.metadata.json); commit through its catalog (--catalog)`,
      {
        context: { file: location },
      },
    );
  }
  return version;
}

/**
 * Creates a metadata file that publishes a commit (or that a catalog pointer will name): resolves when it is
 * stored with our bytes, CommitConflict when another writer's file holds the name, commit-state-unknown
 * when that cannot be decided, and a refusal (403 …) as it came, when nothing was stored.
 */
export async function publishMetadataFile(
  io: CommitIO,
  target: string,
  bytes: Uint8Array,
  what: string,
): Promise<void> {
  try {
    await createVerified(
      { location: target, create: () => io.createNew(target, bytes), read: () => io.read(target) },
      bytes,
    );
  } catch (e) {
    if (isFloeError(e, 'PreconditionFailed')) {
      throw new FloeError('CommitConflict', `another writer committed ${what} first`, {
        context: { file: target },
        cause: e,
      });
    }
    if (isOutcomeUnknown(e)) throw commitStateUnknown(`${target}: ${(e as Error).message}`, e);
    throw e;
  }
}
