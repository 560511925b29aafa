/**
 * Stores one Puffin file of deletion vectors (puffin-write.ts) at a table location and describes each DV as
 * the manifest entry Java writes for it (BaseDVFileWriter): content 1, format PUFFIN, the Puffin file's path
 * and size, the blob's `content_offset` / `content_size_in_bytes`, `referenced_data_file`, and the DV's
 * cardinality as the record count; no column metrics.
 */
import type { DeletionVectorFile } from '../../model/index.js';
import type { CommitIO, NewContentFile } from './commit-rewrite.js';
import type { DataFileDeletes } from './delete-writer.js';
import type { IcebergIO } from './io.js';
import { readPuffinFooterRanged } from './puffin.js';
import { writeDeletionVectorPuffin } from './puffin-write.js';

export type { DataFileDeletes };

/** Writes the DVs (at most one per data file) into one Puffin file at `location`; nothing when all are empty. */
export async function storeDeletionVectors(
  out: CommitIO,
  location: string,
  dvs: readonly DataFileDeletes[],
): Promise<NewContentFile[]> {
  const seen = new Set<string>();
  const inputs: { file: DataFileDeletes['file']; positions: number[] }[] = [];
  for (const d of dvs) {
    if (seen.has(d.file.path)) throw new Error(`two deletion vectors for ${d.file.path} in one Puffin file`);
    seen.add(d.file.path);
    const positions = [...new Set(d.positions)];
    if (positions.length > 0) inputs.push({ file: d.file, positions });
  }
  if (inputs.length === 0) return [];
  const { bytes, blobs } = writeDeletionVectorPuffin(
    inputs.map((d) => ({ referencedDataFile: d.file.path, positions: d.positions })),
  );
  await out.createNew(location, bytes);
  return blobs.map((b, i) => ({
    content: 1,
    path: location,
    format: 'PUFFIN',
    recordCount: b.cardinality,
    sizeBytes: bytes.byteLength,
    specId: inputs[i]!.file.specId,
    partitionOf: b.referencedDataFile,
    referencedDataFile: b.referencedDataFile,
    contentOffset: BigInt(b.contentOffset),
    contentSizeInBytes: BigInt(b.contentSizeBytes),
  }));
}

/**
 * The bytes of all blobs of each Puffin file the deletion vectors live in (from its footer, by ranged
 * reads): set against its live DVs' bytes, it tells how much of the file is dead.
 */
export async function puffinBlobBytes(
  io: Pick<IcebergIO, 'readRange'>,
  dvs: readonly Pick<DeletionVectorFile, 'path' | 'sizeBytes'>[],
): Promise<Map<string, number>> {
  const bytes = new Map<string, number>();
  for (const d of dvs) {
    if (bytes.has(d.path)) continue;
    const footer = await readPuffinFooterRanged((off, len) => io.readRange(d.path, off, len), d.sizeBytes, d.path);
    bytes.set(
      d.path,
      footer.blobs.reduce((n, b) => n + b.length, 0),
    );
  }
  return bytes;
}
