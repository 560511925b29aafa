/**
 * Vended credentials: the storage access an Iceberg REST catalog hands out with a table (LoadTableResult
 * `config` and `storage-credentials`, the latter per location prefix), turned into the StorageConfig of that
 * table's FileIO. S3 properties as Iceberg's S3FileIO names them: `s3.access-key-id`,
 * `s3.secret-access-key`, `s3.session-token`, `s3.session-token-expires-at-ms`, `s3.endpoint`,
 * `s3.path-style-access`, `client.region` / `s3.region`. `storage-credentials` apply per bucket (the FileIO's
 * unit of connection), the table-level `config` to every bucket.
 *
 * Credentials with an expiry are refreshed before it (a fifth of their lifetime, at most a minute, ahead)
 * through the catalog (`refresh`); the SDK asks again on its own. Remote signing
 * (`s3.remote-signing-enabled=true`) is not built: it is refused with a clear error rather than falling back
 * to other credentials. The credentials never appear in a message: stores describe them as "vended
 * credentials from <catalog>".
 */
import { FloeError } from '../../util/errors.js';
import type { StorageConfig } from './file-io.js';
import type { S3ConnectionConfig, S3CredentialSource, S3Credentials } from './s3-store.js';

export interface VendedStorage {
  config: Record<string, string>;
  storageCredentials: { prefix: string; config: Record<string, string> }[];
}

export interface VendedSource {
  /** `rest:<uri>` and the table, for messages. */
  catalog: string;
  table: string;
  initial: VendedStorage;
  /** Fetches the table's credentials again. */
  refresh?: () => Promise<VendedStorage>;
  now?: () => number;
}

const S3_KEYS = ['s3.access-key-id', 's3.endpoint', 's3.path-style-access', 'client.region', 's3.region'];

/** Whether the catalog vended anything floe's S3 FileIO uses. */
export function hasVendedStorage(v: VendedStorage): boolean {
  const uses = (c: Record<string, string>) =>
    S3_KEYS.some((k) => c[k] !== undefined) || c['s3.remote-signing-enabled'] === 'true';
  return uses(v.config) || v.storageCredentials.some((c) => c.prefix.startsWith('s3') && uses(c.config));
}

/** `base` with the vended S3 settings laid over it (undefined fields keep the environment's). */
export function vendedStorageConfig(base: StorageConfig, src: VendedSource): StorageConfig {
  const out: StorageConfig = { ...base, s3Buckets: { ...base.s3Buckets } };
  if (hasS3(src.initial.config)) out.s3 = { ...base.s3, ...connectionFrom(src, src.initial.config, undefined) };
  for (const c of src.initial.storageCredentials) {
    const bucket = /^s3[an]?:\/\/([^/]+)/.exec(c.prefix)?.[1];
    if (!bucket || !hasS3(c.config)) continue;
    out.s3Buckets![bucket] = { ...out.s3, ...out.s3Buckets![bucket], ...connectionFrom(src, c.config, c.prefix) };
  }
  return out;
}

function hasS3(c: Record<string, string>): boolean {
  return S3_KEYS.some((k) => c[k] !== undefined) || c['s3.remote-signing-enabled'] === 'true';
}

function connectionFrom(src: VendedSource, c: Record<string, string>, prefix: string | undefined): S3ConnectionConfig {
  if (c['s3.remote-signing-enabled'] === 'true')
    throw new FloeError(
      'Unsupported',
      `catalog ${src.catalog} asks for S3 remote signing for table ${src.table}: floe does not support remote signing; configure the catalog to vend credentials (X-Iceberg-Access-Delegation: vended-credentials) instead`,
      { context: { catalog: src.catalog, table: src.table } },
    );
  const conn: S3ConnectionConfig = {};
  if (c['s3.endpoint']) conn.endpoint = c['s3.endpoint'];
  if (c['s3.path-style-access'] !== undefined) conn.forcePathStyle = c['s3.path-style-access'] === 'true';
  else if (c['s3.endpoint']) conn.forcePathStyle = true;
  const region = c['client.region'] ?? c['s3.region'];
  if (region) conn.region = region;
  if (c['s3.access-key-id'] && c['s3.secret-access-key']) conn.credentials = credentialSource(src, c, prefix);
  return conn;
}

function credentialsOf(c: Record<string, string>): (S3Credentials & { expiration?: Date }) | undefined {
  const accessKeyId = c['s3.access-key-id'];
  const secretAccessKey = c['s3.secret-access-key'];
  if (!accessKeyId || !secretAccessKey) return undefined;
  const exp = Number(c['s3.session-token-expires-at-ms']);
  return {
    accessKeyId,
    secretAccessKey,
    ...(c['s3.session-token'] ? { sessionToken: c['s3.session-token'] } : {}),
    ...(Number.isFinite(exp) && exp > 0 ? { expiration: new Date(exp) } : {}),
  };
}

let sources = 0;

/** The credentials of one prefix (or of the table config), refreshed through the catalog before they expire. */
function credentialSource(
  src: VendedSource,
  c: Record<string, string>,
  prefix: string | undefined,
): S3CredentialSource {
  const now = src.now ?? Date.now;
  let current = credentialsOf(c)!;
  let issuedAt = now();
  let pending: Promise<S3Credentials & { expiration?: Date }> | undefined;
  const where = prefix ? ` for ${prefix}` : '';
  const refresh = async () => {
    if (!src.refresh)
      throw new FloeError(
        'AccessDenied',
        `vended credentials from ${src.catalog}${where} (table ${src.table}) expired and cannot be refreshed`,
      );
    let next: VendedStorage;
    try {
      next = await src.refresh();
    } catch (e) {
      throw new FloeError(
        e instanceof FloeError ? e.kind : 'Transient',
        `refreshing the vended credentials from ${src.catalog}${where} (table ${src.table}) failed: ${(e as Error).message}`,
        { cause: e },
      );
    }
    const match = prefix
      ? next.storageCredentials
          .filter((x) => prefix.startsWith(x.prefix) || x.prefix.startsWith(prefix))
          .sort((a, b) => b.prefix.length - a.prefix.length)[0]?.config
      : next.config;
    const fresh = credentialsOf(match ?? {}) ?? credentialsOf(next.config);
    if (!fresh)
      throw new FloeError(
        'AccessDenied',
        `catalog ${src.catalog} returned no storage credentials${where} for table ${src.table}`,
      );
    current = fresh;
    issuedAt = now();
    return fresh;
  };
  const fn = (async () => {
    const exp = current.expiration?.getTime();
    if (exp !== undefined) {
      const margin = Math.min(60_000, (exp - issuedAt) / 5);
      if (now() >= exp - margin) {
        pending ??= refresh().finally(() => (pending = undefined));
        return pending;
      }
    }
    return current;
  }) as S3CredentialSource;
  fn.description = `vended credentials from ${src.catalog}${where} (table ${src.table})`;
  fn.id = `vended#${++sources}`;
  return fn;
}
