/**
 * Catalog specs, one grammar for `--catalog` and `floe serve`'s `catalogs:` / `tables[].catalog`:
 *
 *   <kind>:<target>[?<property>=<value>&…]
 *
 * e.g. `sql:/data/catalog.db`, `rest:https://polaris.example.com/api/catalog?warehouse=prod&scope=PRINCIPAL_ROLE:ALL`,
 * `glue:123456789012?glue.region=eu-west-1`. The kinds are a table (CATALOG_KINDS): adding one is one entry.
 *
 * Catalog properties use the names Iceberg's Java catalogs use (`credential`, `scope`, `oauth2-server-uri`,
 * `rest.sigv4-enabled` …) and come from, lowest first: the spec's query string, a properties file
 * (`--catalog-properties FILE`, $FLOE_CATALOG_PROPERTIES), `floe serve`'s `catalogProperties:` map, the
 * explicit options (`warehouse`, `token`, `credential`), then $FLOE_REST_TOKEN / $FLOE_REST_CREDENTIAL where
 * nothing else set them. Secrets are refused in the spec itself: a spec is typed on command lines and
 * printed in results and logs.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { FloeError } from '../../util/errors.js';

export interface CatalogKind {
  /** `--catalog <kind>:…`. */
  kind: string;
  /** What follows the colon, for messages. */
  target: string;
  /** Whether the target may carry `?property=value` pairs (a URL); SQL paths and JDBC URLs keep theirs. */
  queryProperties: boolean;
}

/** The catalog kinds floe opens; one entry per kind. */
export const CATALOG_KINDS: readonly CatalogKind[] = [
  { kind: 'sql', target: '<sqlite-path|postgresql-url>', queryProperties: false },
  { kind: 'rest', target: '<url>', queryProperties: true },
  { kind: 'glue', target: '<catalog-id|default>', queryProperties: true },
  // Paimon's JDBC catalog (connectors/catalog/paimon-jdbc.ts): its tables are Paimon tables
  { kind: 'paimon-jdbc', target: '<sqlite-path|postgresql-url>', queryProperties: false },
  // Paimon's REST catalog (connectors/catalog/paimon-rest.ts): the server publishes each snapshot
  { kind: 'paimon-rest', target: '<url>?warehouse=<name>', queryProperties: true },
];

/** Property names whose values are secrets: never accepted in a spec, never printed. */
export const SECRET_PROPERTIES: ReadonlySet<string> = new Set([
  'credential',
  'token',
  'rest.secret-access-key',
  'rest.session-token',
  'glue.secret-access-key',
  'glue.session-token',
  's3.secret-access-key',
  's3.session-token',
]);

export interface ParsedCatalogSpec {
  kind: string;
  /** The target without its query string (the REST base URI, the SQL path …). */
  target: string;
  /** Properties from the spec's query string. */
  properties: Record<string, string>;
}

export function catalogKindsText(): string {
  const all = CATALOG_KINDS.map((k) => `${k.kind}:${k.target}`);
  return `${all.slice(0, -1).join(', ')} or ${all[all.length - 1]}`;
}

/** Splits a spec into kind, target and query properties; unknown kinds and secrets in it are refused. */
export function parseCatalogSpec(spec: string): ParsedCatalogSpec {
  const i = spec.indexOf(':');
  const kind = i > 0 ? spec.slice(0, i) : '';
  let target = i > 0 ? spec.slice(i + 1) : '';
  const entry = CATALOG_KINDS.find((k) => k.kind === kind);
  if (!entry || !target)
    throw new FloeError(
      'InvalidArgument',
      `--catalog "${spec}": expected ${catalogKindsText()}${entry || !kind ? '' : ` (unknown catalog kind "${kind}")`}`,
    );
  const properties: Record<string, string> = {};
  const q = entry.queryProperties ? target.indexOf('?') : -1;
  if (q >= 0) {
    for (const [k, v] of new URLSearchParams(target.slice(q + 1))) {
      if (SECRET_PROPERTIES.has(k))
        throw new FloeError(
          'InvalidArgument',
          `--catalog: property "${k}" is a secret and may not be part of the catalog spec (it would be printed); set it in the catalog properties file or its environment variable`,
        );
      properties[k] = v;
    }
    target = target.slice(0, q);
  }
  return { kind, target, properties };
}

/** Reads a properties file: JSON or YAML (a map), or Java-style `key=value` lines. */
export function readCatalogPropertiesFile(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new FloeError('NotFound', `catalog properties file ${file}: ${(e as Error).message}`, { cause: e });
  }
  const out: Record<string, string> = {};
  if (/\.(ya?ml|json)$/i.test(file)) {
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (e) {
      throw new FloeError('InvalidArgument', `catalog properties file ${file}: ${(e as Error).message}`);
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
      throw new FloeError('InvalidArgument', `catalog properties file ${file}: expected a map of property: value`);
    for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
      if (typeof v === 'object' && v !== null)
        throw new FloeError('InvalidArgument', `catalog properties file ${file}: "${k}" must be a string`);
      out[k] = String(v);
    }
    return out;
  }
  for (const [n, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const eq = line.search(/[=:]/);
    if (eq <= 0) throw new FloeError('InvalidArgument', `catalog properties file ${file}:${n + 1}: expected key=value`);
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

/** Where a catalog's properties come from besides the spec (the access options of a command or job). */
export interface CatalogPropertySources {
  /** A properties file path (not its content: job specs and logs carry the path only). */
  catalogPropertiesFile?: string;
  /** `floe serve`: the `catalogProperties:` map of the catalog or table entry. */
  catalogPropertyValues?: Record<string, string>;
  warehouse?: string;
  token?: string;
  credential?: string;
}

/** Every property of a catalog, merged as the module comment says. */
export function resolveCatalogProperties(
  spec: ParsedCatalogSpec,
  o: CatalogPropertySources,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const file = o.catalogPropertiesFile ?? env.FLOE_CATALOG_PROPERTIES;
  const props: Record<string, string> = {
    ...spec.properties,
    ...(file ? readCatalogPropertiesFile(file) : {}),
    ...(o.catalogPropertyValues ?? {}),
    ...(o.warehouse !== undefined ? { warehouse: o.warehouse } : {}),
    ...(o.token !== undefined ? { token: o.token } : {}),
    ...(o.credential !== undefined ? { credential: o.credential } : {}),
  };
  if (props.token === undefined && props.credential === undefined) {
    if (env.FLOE_REST_CREDENTIAL) props.credential = env.FLOE_REST_CREDENTIAL;
    else if (env.FLOE_REST_TOKEN) props.token = env.FLOE_REST_TOKEN;
  }
  return props;
}

/** The secret values among `props`, for redaction. */
export function secretValues(props: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(props)) {
    if (!SECRET_PROPERTIES.has(k) || !v) continue;
    out.push(v);
    // `client_id:client_secret`: the secret half alone must not leak either
    if (k === 'credential' && v.includes(':')) out.push(v.slice(v.indexOf(':') + 1));
  }
  return out.filter((s) => s.length >= 4);
}

/** `text` with every secret replaced by `***` (messages of errors that may quote a server's answer). */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('***');
  return out;
}
