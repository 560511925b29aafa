/**
 * The locations an Iceberg table owns, for delete confinement (connectors/storage/confine.ts): the table
 * location and the data/metadata locations its properties configure. Every delete floe makes on an
 * Iceberg table's behalf — expire, remove-orphans, rewrite-manifests and compaction cleanup — asks this
 * scope first.
 */
import { DeleteScope, type DeleteScopeOptions, type LocationMapper } from '../storage/confine.js';
import type { IcebergMetadata } from './metadata.js';

/** Properties naming where Iceberg writers put a table's files (Java's LocationProviders and TableProperties). */
export const ICEBERG_LOCATION_PROPERTIES = [
  'write.data.path',
  'write.metadata.path',
  'write.object-storage.path',
  'write.folder-storage.path',
] as const;

export function icebergDeleteScope(
  md: Pick<IcebergMetadata, 'location' | 'properties'>,
  map: LocationMapper,
  options: DeleteScopeOptions = {},
): DeleteScope {
  return new DeleteScope(
    md.location,
    ICEBERG_LOCATION_PROPERTIES.map((k) => md.properties[k]),
    map,
    options,
  );
}

/** location and properties of a raw (unparsed) metadata document, for icebergDeleteScope. */
export function rawTableLocations(raw: Record<string, unknown>): Pick<IcebergMetadata, 'location' | 'properties'> {
  const props = raw.properties && typeof raw.properties === 'object' ? (raw.properties as Record<string, unknown>) : {};
  const properties: Record<string, string> = {};
  for (const [k, v] of Object.entries(props)) if (typeof v === 'string') properties[k] = v;
  return { location: typeof raw.location === 'string' ? raw.location : '', properties };
}
