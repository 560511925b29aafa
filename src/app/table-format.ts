/**
 * Table formats for the jobs: the one detector (connectors/table-format.ts), opened on a job's storage, and
 * the refusals of a command or flag that does not apply to the format found.
 */
import { FloeError } from '../../util/errors.js';
import { detectTableFormat, type TableFormat } from '../../connectors/table-format.js';
import { fileIOFromEnv } from '../../connectors/storage/env.js';
import { isPaimonCatalogSpec } from '../../connectors/catalog/paimon-catalog.js';

export { detectTableFormat, type TableFormat };

/** The format of a job's table, looked at through the job's storage (`require`: see detectTableFormat). */
export async function tableFormatOf(
  ref: string,
  access: { catalog?: string; locationMap?: string[] },
  o: { require?: boolean } = {},
): Promise<TableFormat> {
  // a Paimon JDBC catalog names Paimon tables, every other catalog Iceberg ones
  if (isPaimonCatalogSpec(access.catalog)) return 'paimon';
  if (access.catalog) return 'iceberg';
  const files = fileIOFromEnv(access.locationMap);
  try {
    return await detectTableFormat(ref, files, o);
  } finally {
    files.destroy();
  }
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
