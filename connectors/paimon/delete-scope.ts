/**
 * The locations a Paimon table owns, for delete confinement (connectors/storage/confine.ts): the table
 * directory and the external data paths its options configure (`data-file.external-paths`, comma-separated).
 */
import { DeleteScope, type DeleteScopeOptions, type LocationMapper } from '../storage/confine.js';

export function paimonExternalPaths(options: Record<string, string>): string[] {
  return (options['data-file.external-paths'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** `table` as floe opened it (a relative path is resolved against the working directory, as for reads). */
export function paimonDeleteScope(
  table: string,
  options: Record<string, string>,
  map: LocationMapper,
  scope: DeleteScopeOptions = {},
): DeleteScope {
  return new DeleteScope(table, paimonExternalPaths(options), map, scope);
}
