/**
 * Storage settings from the process environment, the one place floe reads them: the AWS SDK's own
 * credential chain, plus an endpoint (and path-style addressing) for S3-compatible servers, plus the
 * caller's location-map rules (`--location-map from=to`).
 */
import { FileIO, type StorageConfig } from './file-io.js';
import { LocationMap, parseLocationMapSpec, type LocationMapping } from './location.js';

/** S3 endpoint from FLOE_S3_ENDPOINT / AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL; path style when one is set. */
export function storageConfigFromEnv(mappings: LocationMapping[] = []): StorageConfig {
  const endpoint = process.env.FLOE_S3_ENDPOINT ?? process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  const pathStyle = process.env.FLOE_S3_PATH_STYLE ?? (endpoint ? 'true' : 'false');
  return {
    locationMap: new LocationMap(mappings),
    s3: { ...(endpoint ? { endpoint } : {}), forcePathStyle: pathStyle === 'true' },
  };
}

/** The same, from location-map rules as the user spells them (`from=to`). */
export function storageConfigFromSpecs(locationMap: string[] = []): StorageConfig {
  return storageConfigFromEnv(locationMap.map(parseLocationMapSpec));
}

/** A FileIO over storage from the environment; call `destroy()` when done. */
export function fileIOFromEnv(locationMap: string[] = []): FileIO {
  return new FileIO(storageConfigFromSpecs(locationMap));
}
