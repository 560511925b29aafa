/**
 * Storage settings from the process environment, the one place floe reads them: the AWS SDK's own
 * credential chain, plus an endpoint (and path-style addressing) for S3-compatible servers, plus the
 * caller's location-map rules (`--location-map from=to`).
 */
import { FloeError } from '../../util/errors.js';
import { CONDITIONAL_WRITE_MODES, type ConditionalWriteMode } from './conditional-writes.js';
import { FileIO, type StorageConfig } from './file-io.js';
import { LocationMap, parseLocationMapSpec, type LocationMapping } from './location.js';

/** Where an S3 endpoint may be set, first wins (the AWS SDK's own names after floe's). */
export const ENDPOINT_VARIABLES = ['FLOE_S3_ENDPOINT', 'AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL'] as const;

/**
 * S3 settings from the environment: the endpoint from FLOE_S3_ENDPOINT / AWS_ENDPOINT_URL_S3 /
 * AWS_ENDPOINT_URL (path style when one is set, FLOE_S3_PATH_STYLE overrides), what the store does with
 * conditional writes (FLOE_S3_CONDITIONAL_WRITES=probe|honoured|ignored) and the unsafe commit override
 * (FLOE_S3_UNSAFE_COMMITS=1). Region and credentials are the AWS SDK's chain (AWS_REGION, AWS_PROFILE …).
 */
export function storageConfigFromEnv(mappings: LocationMapping[] = [], env = process.env): StorageConfig {
  const endpointFrom = ENDPOINT_VARIABLES.find((v) => env[v]);
  const endpoint = endpointFrom ? env[endpointFrom] : undefined;
  const pathStyle = env.FLOE_S3_PATH_STYLE ?? (endpoint ? 'true' : 'false');
  const mode = env.FLOE_S3_CONDITIONAL_WRITES || 'probe';
  if (!(CONDITIONAL_WRITE_MODES as readonly string[]).includes(mode))
    throw new FloeError(
      'InvalidArgument',
      `FLOE_S3_CONDITIONAL_WRITES=${mode}: expected one of ${CONDITIONAL_WRITE_MODES.join(', ')}`,
      { context: { variable: 'FLOE_S3_CONDITIONAL_WRITES', value: mode } },
    );
  const unsafe = env.FLOE_S3_UNSAFE_COMMITS ?? '';
  if (!['', '0', '1', 'false', 'true'].includes(unsafe))
    throw new FloeError('InvalidArgument', `FLOE_S3_UNSAFE_COMMITS=${unsafe}: expected 1 (or 0)`, {
      context: { variable: 'FLOE_S3_UNSAFE_COMMITS', value: unsafe },
    });
  return {
    locationMap: new LocationMap(mappings),
    s3: {
      ...(endpoint ? { endpoint, endpointFrom } : {}),
      forcePathStyle: pathStyle === 'true',
      ...(mode !== 'probe' ? { conditionalWrites: mode as ConditionalWriteMode } : {}),
      ...(unsafe === '1' || unsafe === 'true' ? { unsafeCommits: true } : {}),
    },
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
