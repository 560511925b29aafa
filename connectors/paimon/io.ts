/**
 * The few file operations the Paimon reader needs, kept behind one small interface so the shared storage
 * layer (connectors/storage) can replace the local-disk default without touching the reader.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { FloeError, errorForFile } from '../../src/errors.js';
import { FileIO } from '../storage/file-io.js';

export interface PaimonIO {
  /** Whole-file read; a missing file is FloeError('NotFound') naming the path. */
  read(path: string): Promise<Uint8Array>;
  exists(path: string): Promise<boolean>;
  /** Names (not paths) of the entries of a directory; [] when it does not exist. */
  list(dir: string): Promise<string[]>;
}

export function joinPath(base: string, ...parts: string[]): string {
  let out = base.replace(/\/+$/, '');
  for (const p of parts) out += '/' + p.replace(/^\/+/, '');
  return out;
}

function isMissing(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Local file system; accepts plain paths and file:// URIs. */
export const localIO: PaimonIO = {
  async read(path) {
    const p = toLocal(path);
    try {
      return new Uint8Array(await readFile(p));
    } catch (e) {
      if (isMissing(e)) {
        throw new FloeError('NotFound', `file not found: ${path}`, { context: { file: path }, cause: e });
      }
      throw errorForFile('Transient', path, 'cannot read', e);
    }
  },
  async exists(path) {
    try {
      await stat(toLocal(path));
      return true;
    } catch (e) {
      if (isMissing(e)) return false;
      throw errorForFile('Transient', path, 'cannot stat', e);
    }
  },
  async list(dir) {
    try {
      return await readdir(toLocal(dir));
    } catch (e) {
      if (isMissing(e)) return [];
      throw errorForFile('Transient', dir, 'cannot list', e);
    }
  },
};

function toLocal(path: string): string {
  if (path.startsWith('file://')) return decodeURIComponent(path.slice('file://'.length));
  if (path.startsWith('file:')) return path.slice('file:'.length);
  return path;
}

/**
 * A PaimonIO over the shared storage layer (S3, local, in-memory mounts). Object stores list flat key
 * prefixes, so a "directory" listing keeps the first path segment under the prefix.
 */
export function paimonIOFromFileIO(fileIO: FileIO): PaimonIO {
  return {
    async read(path) {
      const { store, key } = fileIO.resolve(path);
      try {
        return await store.get(key);
      } catch (e) {
        if (e instanceof FloeError && e.kind === 'NotFound') {
          throw new FloeError('NotFound', `file not found: ${path}`, { context: { file: path }, cause: e });
        }
        throw errorForFile('Transient', path, 'cannot read', e);
      }
    },
    async exists(path) {
      const { store, key } = fileIO.resolve(path);
      return store.exists(key);
    },
    async list(dir) {
      const { store, key } = fileIO.resolve(dir);
      const prefix = key === '' ? '' : key.replace(/\/+$/, '') + '/';
      const names = new Set<string>();
      for await (const e of store.list(prefix)) {
        const rest = e.key.slice(prefix.length);
        const name = rest.split('/')[0];
        if (name) names.add(name);
      }
      return [...names];
    },
  };
}

/** Local paths and file:// URIs use the file system directly; other schemes go through the storage layer. */
export function defaultIOFor(location: string, fileIO?: FileIO): PaimonIO {
  if (fileIO) return paimonIOFromFileIO(fileIO);
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(location) || location.startsWith('file:')) return localIO;
  return paimonIOFromFileIO(new FileIO());
}
