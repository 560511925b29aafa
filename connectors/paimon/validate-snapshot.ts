/**
 * Invariants of a Paimon `snapshot/snapshot-N` file, checked when floe reads one (so before it plans a
 * compaction or an expiry and before it commits snapshot N+1 on top of it). The Java reader refuses most
 * of these through its JSON binding (required fields, enum kinds); floe also refuses values it would
 * otherwise carry into its own commit (negative totals). That the id matches the file name and the schema
 * exists is checked where the file is read (metadata.ts readSnapshot).
 */
import { FloeError } from '../../util/errors.js';
import type { PaimonSnapshot } from './metadata.js';

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const COMMIT_KINDS: ReadonlySet<string> = new Set(['APPEND', 'COMPACT', 'OVERWRITE', 'ANALYZE']);

function fail(file: string, invariant: string): never {
  throw new FloeError(
    'Corrupt',
    `corrupt Paimon snapshot ${file}: ${invariant}; floe refuses to read or commit on top of it`,
    {
      context: { file, invariant },
    },
  );
}

function int(file: string, v: unknown, what: string, min?: bigint): bigint {
  let b: bigint;
  if (typeof v === 'bigint') b = v;
  else if (typeof v === 'number' && Number.isInteger(v)) b = BigInt(v);
  else return fail(file, `"${what}" must be an integer, got ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`);
  if (b > INT64_MAX || b < INT64_MIN) fail(file, `"${what}" ${b} does not fit in a 64-bit integer`);
  if (min !== undefined && b < min) fail(file, `"${what}" is ${b}, must be ≥ ${min}`);
  return b;
}

/**
 * Why `name` cannot be a file found by name in one of the table's directories (undefined when it can):
 * a path (absolute, relative, with dot segments or separators) or a URI of any scheme.
 */
export function notPlainFileName(name: string): string | undefined {
  if (name === '') return 'is empty';
  if (name === '.' || name === '..' || name.includes('/') || name.includes('\\'))
    return 'is a path, not a plain file name: it would resolve outside the table';
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(name))
    return 'is a URI, not a plain file name: it would resolve outside the table';
  if (name.includes('\0')) return 'holds a NUL character';
  return undefined;
}

/** Field-level checks on a parsed snapshot (`s.raw` is the JSON as read). */
export function validatePaimonSnapshot(s: PaimonSnapshot): void {
  const { file, raw } = s;
  int(file, raw.id, 'id', 1n);
  int(file, raw.schemaId, 'schemaId', 0n);
  if ((raw.schemaId as number) > 2147483647) fail(file, `"schemaId" ${String(raw.schemaId)} is out of range`);
  if (raw.version !== undefined) int(file, raw.version, 'version', 1n);
  // floe's commits carry an identifier; a snapshot without one cannot be told apart from a retried commit
  if (raw.commitIdentifier === undefined || raw.commitIdentifier === null) fail(file, 'it has no "commitIdentifier"');
  int(file, raw.commitIdentifier, 'commitIdentifier');
  if (!COMMIT_KINDS.has(String(raw.commitKind))) fail(file, `unknown "commitKind" ${JSON.stringify(raw.commitKind)}`);
  int(file, raw.timeMillis, 'timeMillis', 0n);
  for (const k of ['baseManifestList', 'deltaManifestList'] as const) {
    const name = raw[k];
    if (typeof name !== 'string' || name === '') fail(file, `"${k}" is empty`);
  }
  // the files a snapshot (or changelog) names are found by name in the table's manifest/ and statistics/
  // directories: a path would lead a reader, and a commit built on what it read, outside the table
  for (const k of ['baseManifestList', 'deltaManifestList', 'changelogManifestList', 'indexManifest', 'statistics']) {
    const name = raw[k];
    if (name === undefined || name === null) continue;
    const why = typeof name === 'string' ? notPlainFileName(name) : `is not a string (${typeof name})`;
    if (why) fail(file, `"${k}" ${JSON.stringify(name)} ${why}`);
  }
  for (const k of [
    'totalRecordCount',
    'changelogRecordCount',
    'baseManifestListSize',
    'deltaManifestListSize',
    'changelogManifestListSize',
    'nextRowId',
  ]) {
    if (raw[k] !== undefined && raw[k] !== null) int(file, raw[k], k, 0n);
  }
  // a compaction or a retraction-heavy commit may shrink the table: deltaRecordCount can be negative
  if (raw.deltaRecordCount !== undefined && raw.deltaRecordCount !== null)
    int(file, raw.deltaRecordCount, 'deltaRecordCount');
  if (raw.watermark !== undefined && raw.watermark !== null) int(file, raw.watermark, 'watermark');
}
