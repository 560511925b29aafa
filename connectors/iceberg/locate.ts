/**
 * Finding the current metadata file of a filesystem ("Hadoop") table, the way Java's
 * HadoopTableOperations does:
 *   1. read metadata/version-hint.text as an integer N (a missing, empty or unparsable hint falls back to 2);
 *   2. list metadata/ for `v<N>.*` names and take the highest version whose metadata file exists;
 *   3. probe forward: while v<N+1> exists, N += 1 (the hint is best-effort and may lag);
 *   4. the file for version N is the first that exists of v<N>.metadata.json, v<N>.gz.metadata.json,
 *      v<N>.metadata.json.gz.
 * floe extension: a metadata directory with no `v<N>` files but metastore-style `NNNNN-<uuid>.metadata.json`
 * files (written by catalogs) resolves to the highest NNNNN (ties: the later file name). Java would not
 * treat such a directory as a table at all; we say which file we picked.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FloeError } from '../../util/errors.js';
import type { IcebergIO } from './io.js';
import { joinPath as joinLocation } from '../storage/location.js';

const HINT = 'version-hint.text';
const V_NAME = /^v([^.]*)\..*$/;
const METASTORE_NAME = /^(\d+)-[^.]+\.(?:gz\.)?metadata\.json(?:\.gz)?$/;

export function isMetadataFileName(name: string): boolean {
  return /\.metadata\.json$/.test(name) || /\.metadata\.json\.gz$/.test(name);
}

async function versionFile(io: IcebergIO, metaDir: string, v: number): Promise<string | undefined> {
  for (const name of [`v${v}.metadata.json`, `v${v}.gz.metadata.json`, `v${v}.metadata.json.gz`]) {
    const loc = joinLocation(metaDir, name);
    if (await io.exists(loc)) return loc;
  }
  return undefined;
}

export interface LocatedMetadata {
  metadataLocation: string;
  /** How it was found, for `inspect`: "version-hint", "listing", "metastore-name". */
  via: 'version-hint' | 'listing' | 'metastore-name';
}

export async function locateCurrentMetadata(io: IcebergIO, tableLocation: string): Promise<LocatedMetadata> {
  const metaDir = joinLocation(tableLocation, 'metadata');
  let version: number | undefined;
  let via: LocatedMetadata['via'] = 'version-hint';
  try {
    const text = Buffer.from(await io.read(joinLocation(metaDir, HINT))).toString('utf8');
    const first = text.split('\n')[0]!.trim();
    if (/^\d+$/.test(first)) version = Number(first);
  } catch {
    // missing hint: fall through to listing
  }
  const names = version === undefined ? await io.listNames(metaDir) : [];
  if (version === undefined) {
    via = 'listing';
    let max = 0;
    for (const name of names) {
      const m = V_NAME.exec(name);
      if (!m || !/^\d+$/.test(m[1]!)) continue;
      const v = Number(m[1]);
      if (v > max && (await versionFile(io, metaDir, v))) max = v;
    }
    if (max > 0) version = max;
  }
  if (version !== undefined) {
    let file = await versionFile(io, metaDir, version);
    if (!file) {
      throw new FloeError(
        'NotFound',
        `table ${tableLocation}: ${HINT} names version ${version}, but ${metaDir}/v${version}.metadata.json is missing`,
        {
          context: { file: joinLocation(metaDir, `v${version}.metadata.json`) },
        },
      );
    }
    for (;;) {
      const next = await versionFile(io, metaDir, version + 1);
      if (!next) break;
      version += 1;
      file = next;
    }
    return { metadataLocation: file, via };
  }
  // No v<N> files: metastore-style names.
  const candidates = names
    .map((name) => ({ name, m: METASTORE_NAME.exec(name) }))
    .filter((x) => x.m)
    .sort((a, b) => Number(a.m![1]) - Number(b.m![1]) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const last = candidates[candidates.length - 1];
  if (last) return { metadataLocation: joinLocation(metaDir, last.name), via: 'metastore-name' };
  throw await notATable(io, tableLocation, metaDir);
}

const isLocalPath = (p: string) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(p) || p.startsWith('file:');

/** Why `tableLocation` is not a table: it does not exist, is a file, is a Paimon table, or what was looked for. */
async function notATable(io: IcebergIO, tableLocation: string, metaDir: string): Promise<FloeError> {
  const physical = io.map(tableLocation);
  const local = isLocalPath(physical)
    ? physical.startsWith('file://')
      ? fileURLToPath(physical)
      : physical.replace(/^file:/, '')
    : undefined;
  const same =
    physical === tableLocation ||
    (local !== undefined && isLocalPath(tableLocation) && path.resolve(local) === path.resolve(tableLocation));
  const shown = same ? tableLocation : `${tableLocation} (${physical})`;
  if (local !== undefined) {
    const st = await stat(local).catch(() => undefined);
    if (!st) {
      return new FloeError('NotFound', `${shown} does not exist`, { context: { file: physical } });
    }
    if (st.isFile()) {
      return new FloeError(
        'NotFound',
        `${shown} is a file, not a table directory or an Iceberg metadata file (*.metadata.json)`,
        {
          context: { file: physical },
        },
      );
    }
  }
  if ((await io.listNames(joinLocation(tableLocation, 'schema'))).some((n) => /^schema-\d+$/.test(n))) {
    return new FloeError('Unsupported', `${shown} is a Paimon table (it has schema/schema-N), not an Iceberg table`, {
      context: { file: physical, format: 'paimon' },
    });
  }
  return new FloeError(
    'NotFound',
    `no table at ${shown}: looked for an Iceberg table (metadata/${HINT}, metadata/v<N>.metadata.json or ` +
      `metadata/<NNNNN>-<uuid>.metadata.json) and a Paimon table (schema/schema-<N>), and found neither`,
    { context: { file: metaDir } },
  );
}
