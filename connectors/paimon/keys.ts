/**
 * How the Paimon modules key what they match across manifests, index manifests and a commit's changes:
 * a partition by its BinaryRow bytes in hex, a bucket as `<partition hex>|<bucket>`, and the index type
 * of deletion-vector index files. One definition, so keys made in one module match those of another.
 */

/** The index type of deletion-vector index files (`DeletionVectorsIndexFile.DELETION_VECTORS_INDEX`). */
export const DELETION_VECTORS_INDEX = 'DELETION_VECTORS';

/** A partition's (or any) bytes as hex, read in place. */
export function partitionHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

export function bucketKey(partition: Uint8Array, bucket: number): string {
  return `${partitionHex(partition)}|${bucket}`;
}
