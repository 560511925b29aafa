/** The table access options (location maps, catalog, credentials) among a caller's options. */
import type { AccessOptions } from '../../connectors/iceberg/open-for-write.js';

/**
 * Only the table access options among a caller's options (a command's parsed flags, a job's options), as
 * plain JSON: what travels to worker threads and into the distributed seam's job specs.
 */
export function accessOptionsOf(o: AccessOptions): AccessOptions {
  return {
    ...(o.locationMap ? { locationMap: o.locationMap } : {}),
    ...(o.catalog ? { catalog: o.catalog } : {}),
    ...(o.catalogName ? { catalogName: o.catalogName } : {}),
    ...(o.token ? { token: o.token } : {}),
    ...(o.credential ? { credential: o.credential } : {}),
    ...(o.warehouse ? { warehouse: o.warehouse } : {}),
    ...(o.catalogProperties ? { catalogProperties: o.catalogProperties } : {}),
    ...(o.catalogPropertyValues ? { catalogPropertyValues: o.catalogPropertyValues } : {}),
  };
}
