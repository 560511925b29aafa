/**
 * Paimon table metadata files: `schema/schema-N` and `snapshot/snapshot-N` (JSON), plus the LATEST/EARLIEST
 * hint files. Hints may be stale or missing (`HintFileUtils`), so they are verified and, failing that,
 * replaced by a directory listing.
 */
import { FloeError, errorForFile } from '../../util/errors.js';
import { parseJsonLossless, toBigInt } from '../../util/json.js';
import { joinPath, listDir, type PaimonIO } from './io.js';
import { parsePaimonField, type PaimonField } from './types.js';
import { validatePaimonSnapshot } from './validate-snapshot.js';

export interface PaimonSchema {
  version: number;
  id: number;
  fields: PaimonField[];
  highestFieldId: number;
  partitionKeys: string[];
  primaryKeys: string[];
  options: Record<string, string>;
  comment?: string;
  timeMillis: number;
  /** Where it was read from. */
  file: string;
}

export type CommitKind = 'APPEND' | 'COMPACT' | 'OVERWRITE' | 'ANALYZE';

export interface PaimonSnapshot {
  version: number;
  id: bigint;
  schemaId: number;
  baseManifestList: string;
  baseManifestListSize?: bigint;
  deltaManifestList: string;
  deltaManifestListSize?: bigint;
  changelogManifestList?: string;
  changelogManifestListSize?: bigint;
  indexManifest?: string;
  commitUser: string;
  commitIdentifier: bigint;
  commitKind: CommitKind | string;
  timeMillis: number;
  totalRecordCount?: bigint;
  deltaRecordCount?: bigint;
  changelogRecordCount?: bigint;
  watermark?: bigint;
  statistics?: string;
  properties?: Record<string, string>;
  nextRowId?: bigint;
  uuid?: string;
  operation?: string;
  file: string;
  /** The JSON object as read (unknown keys kept, 64-bit values as bigint). */
  raw: Record<string, unknown>;
}

function parseJsonFile(bytes: Uint8Array, file: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = parseJsonLossless(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (e) {
    throw errorForFile('Corrupt', file, `corrupt Paimon ${what}`, e);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) {
    throw new FloeError('Corrupt', `corrupt Paimon ${what} ${file}: not a JSON object`, { context: { file } });
  }
  return v as Record<string, unknown>;
}

function need<T>(
  o: Record<string, unknown>,
  key: string,
  file: string,
  what: string,
  check: (v: unknown) => v is T,
): T {
  const v = o[key];
  if (!check(v)) {
    throw new FloeError('Corrupt', `corrupt Paimon ${what} ${file}: missing or invalid "${key}"`, {
      context: { file, key },
    });
  }
  return v;
}

const isNum = (v: unknown): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';
const isStr = (v: unknown): v is string => typeof v === 'string';

function optBig(o: Record<string, unknown>, key: string, file: string): bigint | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  return toBigInt(v, `${file} "${key}"`);
}

function optStr(o: Record<string, unknown>, key: string): string | undefined {
  const v = o[key];
  return typeof v === 'string' ? v : undefined;
}

export function parseSchema(bytes: Uint8Array, file: string): PaimonSchema {
  const o = parseJsonFile(bytes, file, 'schema');
  const fields = need(o, 'fields', file, 'schema', Array.isArray);
  const version = typeof o.version === 'number' ? o.version : 1;
  const options: Record<string, string> = {};
  for (const [k, v] of Object.entries((o.options ?? {}) as Record<string, unknown>)) options[k] = String(v);
  // Backward-compatible defaults Paimon applies when reading old schemas (`SchemaSerializer`).
  if (version <= 1 && options.bucket === undefined) options.bucket = '1';
  if (version <= 2 && options['file.format'] === undefined) options['file.format'] = 'orc';
  const parsed = fields.map((f) => parsePaimonField(f, file));
  const schema: PaimonSchema = {
    version,
    id: Number(need(o, 'id', file, 'schema', isNum)),
    fields: parsed,
    highestFieldId: isNum(o.highestFieldId) ? Number(o.highestFieldId) : Math.max(-1, ...parsed.map((f) => f.id)),
    partitionKeys: ((o.partitionKeys ?? []) as unknown[]).map(String),
    primaryKeys: ((o.primaryKeys ?? []) as unknown[]).map(String),
    options,
    timeMillis: isNum(o.timeMillis) ? Number(o.timeMillis) : 0,
    file,
  };
  if (typeof o.comment === 'string') schema.comment = o.comment;
  for (const k of [...schema.partitionKeys, ...schema.primaryKeys]) {
    if (!parsed.some((f) => f.name === k)) {
      throw new FloeError('Corrupt', `corrupt Paimon schema ${file}: key column "${k}" is not a field`, {
        context: { file },
      });
    }
  }
  return schema;
}

export function parseSnapshot(bytes: Uint8Array, file: string): PaimonSnapshot {
  const o = parseJsonFile(bytes, file, 'snapshot');
  try {
    return snapshotFields(o, file);
  } catch (e) {
    throw errorForFile('Corrupt', file, 'corrupt Paimon snapshot', e); // e.g. a count that is not an integer
  }
}

function snapshotFields(o: Record<string, unknown>, file: string): PaimonSnapshot {
  const s: PaimonSnapshot = {
    version: typeof o.version === 'number' ? o.version : 1,
    id: toBigInt(need(o, 'id', file, 'snapshot', isNum), `${file} "id"`),
    schemaId: Number(need(o, 'schemaId', file, 'snapshot', isNum)),
    baseManifestList: need(o, 'baseManifestList', file, 'snapshot', isStr),
    deltaManifestList: need(o, 'deltaManifestList', file, 'snapshot', isStr),
    commitUser: optStr(o, 'commitUser') ?? '',
    commitIdentifier: optBig(o, 'commitIdentifier', file) ?? 0n,
    commitKind: need(o, 'commitKind', file, 'snapshot', isStr),
    timeMillis: Number(need(o, 'timeMillis', file, 'snapshot', isNum)),
    file,
    raw: o,
  };
  const assign = <K extends keyof PaimonSnapshot>(k: K, v: PaimonSnapshot[K] | undefined) => {
    if (v !== undefined) s[k] = v;
  };
  assign('baseManifestListSize', optBig(o, 'baseManifestListSize', file));
  assign('deltaManifestListSize', optBig(o, 'deltaManifestListSize', file));
  assign('changelogManifestList', optStr(o, 'changelogManifestList'));
  assign('changelogManifestListSize', optBig(o, 'changelogManifestListSize', file));
  assign('indexManifest', optStr(o, 'indexManifest'));
  assign('totalRecordCount', optBig(o, 'totalRecordCount', file));
  assign('deltaRecordCount', optBig(o, 'deltaRecordCount', file));
  assign('changelogRecordCount', optBig(o, 'changelogRecordCount', file));
  assign('watermark', optBig(o, 'watermark', file));
  assign('statistics', optStr(o, 'statistics'));
  assign('nextRowId', optBig(o, 'nextRowId', file));
  assign('uuid', optStr(o, 'uuid'));
  assign('operation', optStr(o, 'operation'));
  if (o.properties && typeof o.properties === 'object') {
    s.properties = Object.fromEntries(
      Object.entries(o.properties as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
    );
  }
  validatePaimonSnapshot(s); // before any plan or commit: never build on an inconsistent snapshot
  return s;
}

// ------------------------------------------------------------------------------------------ table files

export function schemaPath(table: string, id: number): string {
  return joinPath(table, 'schema', `schema-${id}`);
}
export function snapshotPath(table: string, id: bigint): string {
  return joinPath(table, 'snapshot', `snapshot-${id}`);
}

export async function readSchema(io: PaimonIO, table: string, id: number): Promise<PaimonSchema> {
  const file = schemaPath(table, id);
  return parseSchema(await io.read(file), file);
}

export async function readSnapshot(io: PaimonIO, table: string, id: bigint): Promise<PaimonSnapshot> {
  const file = snapshotPath(table, id);
  const s = parseSnapshot(await io.read(file), file);
  if (s.id !== id) {
    throw new FloeError('Corrupt', `corrupt Paimon snapshot ${file}: it says id ${s.id}`, { context: { file } });
  }
  // every reader and every commit on top of it needs the snapshot's schema
  if (!(await io.exists(schemaPath(table, s.schemaId)))) {
    throw new FloeError(
      'Corrupt',
      `corrupt Paimon snapshot ${file}: "schemaId" ${s.schemaId} names a schema the table does not have (${schemaPath(table, s.schemaId)} is missing); floe refuses to read or commit on top of it`,
      {
        context: { file, schemaId: s.schemaId },
      },
    );
  }
  return s;
}

/** Ids of all `prefix<N>` files in a directory, ascending. */
async function listIds(io: PaimonIO, dir: string, prefix: string): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (const name of await listDir(io, dir)) {
    if (name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length))) ids.push(BigInt(name.slice(prefix.length)));
  }
  return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export async function listSchemaIds(io: PaimonIO, table: string): Promise<number[]> {
  return (await listIds(io, joinPath(table, 'schema'), 'schema-')).map(Number);
}

export async function listSnapshotIds(io: PaimonIO, table: string): Promise<bigint[]> {
  return listIds(io, joinPath(table, 'snapshot'), 'snapshot-');
}

async function readHint(io: PaimonIO, table: string, name: 'LATEST' | 'EARLIEST'): Promise<bigint | undefined> {
  try {
    const text = new TextDecoder().decode(await io.read(joinPath(table, 'snapshot', name))).trim();
    return /^\d+$/.test(text) ? BigInt(text) : undefined;
  } catch {
    return undefined; // a hint that cannot be read is "no hint"
  }
}

/** Latest snapshot id: LATEST if snapshot-(n+1) does not exist and snapshot-n does, else the listing. */
export async function latestSnapshotId(io: PaimonIO, table: string): Promise<bigint | undefined> {
  const hint = await readHint(io, table, 'LATEST');
  if (
    hint !== undefined &&
    hint > 0n &&
    !(await io.exists(snapshotPath(table, hint + 1n))) &&
    (await io.exists(snapshotPath(table, hint)))
  ) {
    return hint;
  }
  const ids = await listSnapshotIds(io, table);
  return ids.length ? ids[ids.length - 1] : undefined;
}

export async function earliestSnapshotId(io: PaimonIO, table: string): Promise<bigint | undefined> {
  const hint = await readHint(io, table, 'EARLIEST');
  if (hint !== undefined && (await io.exists(snapshotPath(table, hint)))) return hint;
  const ids = await listSnapshotIds(io, table);
  return ids.length ? ids[0] : undefined;
}
