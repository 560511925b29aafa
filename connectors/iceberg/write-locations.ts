/**
 * Where floe writes into an Iceberg table: new data and delete files under `write.data.path` (default
 * `<location>/data`), manifests and metadata under `write.metadata.path` (default `<location>/metadata`).
 */
import type { IcebergMetadata } from './metadata.js';

type Located = Pick<IcebergMetadata, 'location' | 'properties'>;

/** The directory rewrite outputs and new delete files go to, without a trailing slash. */
export function dataDirOf(md: Located): string {
  return (md.properties['write.data.path'] ?? `${md.location.replace(/\/$/, '')}/data`).replace(/\/$/, '');
}

/** The directory a commit's manifests and metadata go to, without a trailing slash. */
export function metadataDirOf(md: Located): string {
  return (md.properties['write.metadata.path'] ?? `${md.location.replace(/\/$/, '')}/metadata`).replace(/\/$/, '');
}
