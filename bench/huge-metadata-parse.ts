/**
 * floe's side of the like-for-like case of the huge-metadata benchmark: read and parse one metadata file
 * (parseMetadataBytes: the lossless parse, the typed view and its checks), as bench/java/ReadMetadata.java
 * does with Iceberg's TableMetadataParser. Prints the same counts.
 */
import { readFileSync } from 'node:fs';
import { parseMetadataBytes } from '../connectors/iceberg/metadata.js';

const file = process.argv[2];
if (!file) throw new Error('usage: node huge-metadata-parse.js <metadata.json>');
const md = parseMetadataBytes(readFileSync(file), file);
process.stdout.write(
  `${md.snapshots.length} ${md.snapshotLog.length} ${md.metadataLog.length} ${md.currentSnapshotId ?? 'none'}\n`,
);
