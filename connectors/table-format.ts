/**
 * Which format a table location holds — the one detector every entry point uses (CLI, app jobs, service,
 * seam, bindings). Paimon: `schema/schema-<N>`. Iceberg: a metadata file, or anything else; what is wrong
 * with a path that holds no table is then said by the Iceberg locator (connectors/iceberg/locate.ts). A job
 * that must name the format of an existing table asks with `require`: Iceberg needs a non-empty
 * `metadata/`, neither layout is NotFound, and listing errors propagate. Loads no format module.
 */
import { FloeError } from '../util/errors.js';
import type { FileIO } from './storage/file-io.js';

export type TableFormat = 'iceberg' | 'paimon';

export interface DetectFormatOptions {
  /** A catalog names Iceberg tables only. */
  catalog?: string;
  /** The location must hold a table of either format (else NotFound); listing errors are not swallowed. */
  require?: boolean;
}

const PAIMON_SCHEMA_FILE = /^schema-\d+$/;
const ICEBERG_METADATA_FILE = /\.metadata\.json(\.gz)?$/;

export async function detectTableFormat(
  ref: string,
  files: Pick<FileIO, 'listNames'>,
  o: DetectFormatOptions = {},
): Promise<TableFormat> {
  if (o.catalog) return 'iceberg';
  const location = ref.replace(/\/+$/, '');
  if (ICEBERG_METADATA_FILE.test(location)) return 'iceberg';
  const list = (dir: string) =>
    o.require ? files.listNames(`${location}/${dir}`) : files.listNames(`${location}/${dir}`).catch(() => []);
  if ((await list('schema')).some((n) => PAIMON_SCHEMA_FILE.test(n))) return 'paimon';
  if (!o.require || (await list('metadata')).length > 0) return 'iceberg';
  throw new FloeError(
    'NotFound',
    `no Iceberg or Paimon table at ${ref} (neither metadata/ nor schema/ holds table files)`,
    { context: { table: ref } },
  );
}
