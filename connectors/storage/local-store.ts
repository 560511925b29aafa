/**
 * ObjectStore over a local directory. Writes never expose a partial file: the body goes to a hidden temp
 * file beside the target, which is then published in one step —
 * - unconditional / If-Match: rename(temp, target) (atomic replace);
 * - If-None-Match '*': link(temp, target), which fails with EEXIST if the target exists, so of any number of
 *   racing creators (threads or processes) exactly one wins and the file appears complete.
 * If-Match compares the etag (inode-size-mtime_ns, which changes on every publish because each publish is a
 * new inode) under a per-key lock; that lock is per process, so If-Match is only atomic within one process.
 * Create-if-absent (what commits use) is atomic across processes.
 */
import { randomBytes } from 'node:crypto';
import { constants as fsc, promises as fs, type BigIntStats } from 'node:fs';
import * as path from 'node:path';
import pLimit from 'p-limit';
import { FloeError } from '../../util/errors.js';
import { compareKeys } from './memory-store.js';
import {
  type Body,
  type DeleteManyResult,
  type GetOptions,
  type ListEntry,
  type ListOptions,
  type ObjectMeta,
  type ObjectStore,
  type PutOptions,
  type PutResult,
  type PutStreamOptions,
  checkPutOptions,
  notFound,
  preconditionFailed,
  resolveRange,
  toBytes,
} from './object-store.js';

const TEMP_MARKER = '.floe-tmp-';
/**
 * Our in-flight temp files. Hidden from list() (readers must never take one for a table file) unless the
 * caller asks for them with `includeTemporary` — orphan removal does, to clean up after killed jobs.
 */
export const isTempName = (name: string) => name.includes(TEMP_MARKER);

export interface LocalStoreOptions {
  /** fsync file data before publishing (default true: commits must survive a crash). */
  fsync?: boolean;
  concurrency?: number;
}

export class LocalObjectStore implements ObjectStore {
  readonly root: string;
  private readonly fsync: boolean;
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly keyLocks = new Map<string, Promise<unknown>>();

  constructor(root: string, options: LocalStoreOptions = {}) {
    this.root = path.resolve(root);
    this.fsync = options.fsync ?? true;
    this.limit = pLimit(options.concurrency ?? 16);
  }

  describe(key: string): string {
    return `file://${path.join(this.root, key)}`;
  }

  private pathOf(key: string): string {
    const p = path.join(this.root, key);
    if (
      key === '' ||
      key.endsWith('/') ||
      (p !== this.root && !p.startsWith(this.root.endsWith('/') ? this.root : this.root + '/'))
    ) {
      throw new FloeError('InvalidArgument', `invalid object key ${JSON.stringify(key)} under ${this.root}`, {
        context: { file: this.describe(key) },
      });
    }
    return p;
  }

  async get(key: string, options?: GetOptions): Promise<Uint8Array> {
    const file = this.pathOf(key);
    const location = this.describe(key);
    return this.limit(async () => {
      let fh: fs.FileHandle;
      try {
        fh = await fs.open(file, 'r');
      } catch (e) {
        throw fsError(e, location, 'cannot read');
      }
      try {
        const st = await fh.stat();
        if (!st.isFile()) throw notFound(location, 'not a file');
        const [start, end] = resolveRange(options?.range, st.size, location);
        const out = new Uint8Array(end - start);
        let done = 0;
        while (done < out.byteLength) {
          const { bytesRead } = await fh.read(out, done, out.byteLength - done, start + done);
          if (bytesRead === 0)
            throw new FloeError('Corrupt', `${location} shrank while being read`, { context: { file: location } });
          done += bytesRead;
        }
        return out;
      } catch (e) {
        throw fsError(e, location, 'cannot read');
      } finally {
        await fh.close();
      }
    });
  }

  async head(key: string): Promise<ObjectMeta> {
    const file = this.pathOf(key);
    const location = this.describe(key);
    let st: BigIntStats;
    try {
      st = await fs.stat(file, { bigint: true });
    } catch (e) {
      throw fsError(e, location, 'cannot stat');
    }
    if (!st.isFile()) throw notFound(location, 'not a file');
    return { key, size: Number(st.size), lastModified: st.mtime, etag: etagOf(st) };
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.head(key);
      return true;
    } catch (e) {
      if (e instanceof FloeError && e.kind === 'NotFound') return false;
      throw e;
    }
  }

  async put(key: string, body: Body, options?: PutOptions): Promise<PutResult> {
    const data = toBytes(body);
    return this.publish(key, options, async (fh) => {
      let done = 0;
      while (done < data.byteLength) {
        const { bytesWritten } = await fh.write(data, done, data.byteLength - done);
        done += bytesWritten;
      }
    });
  }

  async putStream(key: string, body: AsyncIterable<Uint8Array>, options?: PutStreamOptions): Promise<PutResult> {
    // streamed into the temp file, then published (with ifNoneMatch: linked only if absent)
    return this.publish(key, options?.ifNoneMatch ? { ifNoneMatch: options.ifNoneMatch } : undefined, async (fh) => {
      for await (const chunk of body) {
        let done = 0;
        while (done < chunk.byteLength) {
          const { bytesWritten } = await fh.write(chunk, done, chunk.byteLength - done);
          done += bytesWritten;
        }
      }
    });
  }

  /** Writes a temp file with `fill`, then publishes it as `key` according to the conditions. */
  private async publish(
    key: string,
    options: PutOptions | undefined,
    fill: (fh: fs.FileHandle) => Promise<void>,
  ): Promise<PutResult> {
    const target = this.pathOf(key);
    const location = this.describe(key);
    checkPutOptions(options, location);
    const dir = path.dirname(target);
    const temp = path.join(dir, `.${path.basename(target)}${TEMP_MARKER}${randomBytes(6).toString('hex')}`);
    // until the temp file is linked or renamed into place nothing is visible at `key`: a failure before
    // then (disk full, quota) is a definite "not stored", never an unknown outcome
    let published = false;
    try {
      await fs.mkdir(dir, { recursive: true });
      let etag: string;
      const fh = await fs.open(temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, 0o644);
      try {
        await fill(fh);
        if (this.fsync) await fh.datasync();
        // Publishing keeps the inode and mtime, so the temp file's etag is the published object's etag.
        etag = etagOf(await fh.stat({ bigint: true }));
      } finally {
        await fh.close();
      }
      published = true;
      await this.withKeyLock(target, async () => {
        if (options?.ifNoneMatch === '*') {
          try {
            await fs.link(temp, target);
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code === 'EEXIST')
              throw preconditionFailed(location, 'object already exists');
            throw e;
          }
        } else {
          if (options?.ifMatch !== undefined) {
            const current = await fs.stat(target, { bigint: true }).catch((e: NodeJS.ErrnoException) => {
              if (e.code === 'ENOENT') throw notFound(location, 'conditional write (If-Match) to a missing object');
              throw e;
            });
            if (etagOf(current) !== options.ifMatch) {
              throw preconditionFailed(location, `etag is ${etagOf(current)}, expected ${options.ifMatch}`);
            }
          }
          await fs.rename(temp, target);
        }
      });
      return { etag };
    } catch (e) {
      const err = fsError(e, location, 'cannot write');
      throw published ? err : err.withContext({ notStored: true });
    } finally {
      await fs.unlink(temp).catch(() => undefined);
    }
  }

  private async withKeyLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.keyLocks.get(file) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.catch(() => undefined);
    this.keyLocks.set(file, settled);
    try {
      return await run;
    } finally {
      if (this.keyLocks.get(file) === settled) this.keyLocks.delete(file);
    }
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ListEntry> {
    const withTemp = options?.includeTemporary === true;
    // Start at the deepest directory the prefix names, then filter by the full string prefix.
    const slash = prefix.lastIndexOf('/');
    const startDir = path.join(this.root, slash >= 0 ? prefix.slice(0, slash) : '');
    const entries: ListEntry[] = [];
    const walk = async (dir: string): Promise<void> => {
      let names: import('node:fs').Dirent[];
      try {
        names = await fs.readdir(dir, { withFileTypes: true });
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return;
        throw fsError(e, `file://${dir}`, 'cannot list');
      }
      await Promise.all(
        names.map(async (d) => {
          if (isTempName(d.name) && !(withTemp && d.isFile())) return;
          const full = path.join(dir, d.name);
          const key = path.relative(this.root, full);
          if (d.isDirectory()) {
            // Only descend where keys can still match the prefix.
            if ((key + '/').startsWith(prefix) || prefix.startsWith(key + '/')) await walk(full);
            return;
          }
          if (!key.startsWith(prefix)) return;
          const st = await this.limit(() => fs.stat(full)).catch(() => undefined); // vanished meanwhile: skip
          if (st?.isFile()) entries.push({ key, size: st.size, lastModified: st.mtime });
        }),
      );
    };
    await walk(startDir);
    entries.sort((a, b) => compareKeys(a.key, b.key));
    yield* entries;
  }

  async delete(key: string): Promise<void> {
    const location = this.describe(key);
    try {
      await fs.unlink(this.pathOf(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw fsError(e, location, 'cannot delete');
    }
  }

  async deleteMany(keys: readonly string[]): Promise<DeleteManyResult> {
    const result: DeleteManyResult = { deleted: [], failed: [] };
    await Promise.all(
      keys.map((key) =>
        this.limit(async () => {
          try {
            await this.delete(key);
            result.deleted.push(key);
          } catch (e) {
            result.failed.push({ key, error: fsError(e, this.describe(key), 'cannot delete') });
          }
        }),
      ),
    );
    return result;
  }
}

function etagOf(st: BigIntStats): string {
  return `"${st.ino.toString(16)}-${st.size.toString(16)}-${st.mtimeNs.toString(16)}"`;
}

function fsError(e: unknown, location: string, what: string): FloeError {
  if (e instanceof FloeError) return e.context.file ? e : e.withContext({ file: location });
  const code = (e as NodeJS.ErrnoException).code;
  const detail = e instanceof Error ? e.message : String(e);
  const kind =
    code === 'ENOENT' || code === 'ENOTDIR'
      ? 'NotFound'
      : code === 'EACCES' || code === 'EPERM'
        ? 'AccessDenied'
        : code === 'EISDIR'
          ? 'InvalidArgument'
          : code === 'EMFILE' || code === 'ENFILE' || code === 'EAGAIN' || code === 'EBUSY'
            ? 'Transient'
            : 'Internal';
  const hint = code === 'ENOSPC' || code === 'EDQUOT' ? ' (the disk or quota is full)' : '';
  return new FloeError(kind, `${what} ${location}: ${detail}${hint}`, { context: { file: location, code }, cause: e });
}
