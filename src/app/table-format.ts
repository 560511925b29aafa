/**
 * Which format a `<table>` argument is: Paimon when it has schema/schema-N, else Iceberg. What is wrong
 * with a path that is no table (it does not exist, is a file, holds neither layout) is said by the Iceberg
 * locator (connectors/iceberg/locate.ts), the one place that knows what floe looks for.
 */
import { FloeError } from '../errors.js';
import type { FileIO } from '../../connectors/storage/file-io.js';
import { isPaimonCatalogSpec } from '../../connectors/catalog/paimon-catalog.js';

/** Whether Paimon's reader recognises the location as a table (loads the Paimon adapter only when asked). */
export async function detectPaimon(ref: string, files: FileIO): Promise<boolean> {
  const { detectPaimon: detect } = await import('../../connectors/paimon/detect.js');
  return detect(ref, files);
}

export type TableFormat = 'iceberg' | 'paimon';

/** The format of a table reference; `--catalog paimon-jdbc:…` names Paimon tables, other catalogs Iceberg ones. */
export async function detectTableFormat(
  ref: string,
  files: FileIO,
  o: { catalog?: string } = {},
): Promise<TableFormat> {
  if (isPaimonCatalogSpec(o.catalog)) return 'paimon';
  if (o.catalog) return 'iceberg';
  const stripped = ref.replace(/\/+$/, '');
  if (/\.metadata\.json(\.gz)?$/.test(stripped)) return 'iceberg';
  const names = await files.listNames(`${stripped}/schema`).catch(() => [] as string[]);
  return names.some((n) => /^schema-\d+$/.test(n)) ? 'paimon' : 'iceberg';
}

/**
 * The format of a table location that must hold one (the job results name it): Iceberg for a metadata file
 * or a metadata/ directory with files, Paimon for schema/schema-N; neither is NotFound. Listing errors
 * propagate (unlike detectTableFormat, which leaves them to the Iceberg locator's message).
 */
export async function requireTableFormat(io: FileIO, ref: string): Promise<TableFormat> {
  const stripped = ref.replace(/\/+$/, '');
  if (/\.metadata\.json(\.gz)?$/.test(stripped)) return 'iceberg';
  if ((await io.listNames(`${stripped}/schema`)).some((n) => n.startsWith('schema-'))) return 'paimon';
  if ((await io.listNames(`${stripped}/metadata`)).length > 0) return 'iceberg';
  throw new FloeError(
    'NotFound',
    `no Iceberg or Paimon table at ${ref} (neither metadata/ nor schema/ holds table files)`,
    { context: { table: ref } },
  );
}

/** A command that only exists for one format, run on the other: a usage error naming both. */
export function requireFormat(command: string, want: TableFormat, got: TableFormat, ref: string, why = ''): void {
  if (want === got) return;
  const name = (f: TableFormat) => (f === 'iceberg' ? 'Iceberg' : 'Paimon');
  throw new FloeError(
    'InvalidArgument',
    `${command} is ${name(want)}-only; ${ref} is a ${name(got)} table${why ? ` (${why})` : ''}`,
    { context: { table: ref, format: got } },
  );
}

/** Flags given that do not apply to the table's format: refused, naming the format. */
export function refuseFlags(
  format: TableFormat,
  ref: string,
  given: [flag: string, isSet: boolean][],
  hint = '',
): void {
  const bad = given.filter(([, set]) => set).map(([f]) => f);
  if (bad.length === 0) return;
  const name = format === 'iceberg' ? 'Iceberg' : 'Paimon';
  throw new FloeError(
    'InvalidArgument',
    `${bad.join(', ')} ${bad.length > 1 ? 'do' : 'does'} not apply to ${name} tables (${ref} is ${name})${hint ? `; ${hint}` : ''}`,
    {
      context: { table: ref, format, flags: bad },
    },
  );
}
