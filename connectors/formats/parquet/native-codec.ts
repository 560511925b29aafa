/**
 * The native Parquet codec: native/parquet-codec (Rust, napi-rs) — arrow-rs' Parquet reader and writer built
 * for the host. Loaded on first use, from the first of these that loads:
 * 1. FLOE_NATIVE_CODEC_PATH, when set (then nothing else is tried: an explicit choice fails loudly);
 * 2. the checkout's own build, `<package root>/native/parquet-codec/floe-parquet-codec.node` (`npm run
 *    build:native`), so a developer's fresh build wins over an installed package;
 * 3. the prebuilt package for this platform, `@floe/parquet-codec-<triple>` (native-platform.ts), resolved from
 *    floe's own location as an optional dependency; its version must be floe's (the addon's interface is
 *    floe-internal).
 * Each worker thread loads its own instance.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FloeError } from '../../../util/errors.js';
import type {
  ChunkSink,
  CodecFile,
  EncoderProps,
  NativeCodecStatus,
  ParquetCodecBackend,
  PreparedRowGroup,
  RewriteSourceHandle,
  StreamEncoder,
} from './codec.js';
import { codecPackageName, hostTriple } from './native-platform.js';

/**
 * The addon's encoder (native/parquet-codec/src/lib.rs): `write` returns how many encoded bytes wait in its
 * drain, `drainInto` copies them out in order (freeing them natively as it goes), `finish` leaves the last row
 * group in the drain and returns the footer.
 */
type NativeEncoder = {
  write(ipc: Uint8Array): number;
  drainInto(target: Uint8Array): number;
  pending(): number;
  finish(): Uint8Array;
  finishAsync(): Promise<Uint8Array>;
};

/** rewrite.rs' RewriteSource. */
interface NativeRewriteSource {
  readonly ineligible: string | null;
  prepare(index: number, sample: boolean): PreparedRowGroup;
  prepareAsync(index: number, sample: boolean): Promise<PreparedRowGroup>;
  write(encoder: NativeEncoder): number;
  writeAsync(encoder: NativeEncoder): Promise<number>;
  close(): void;
}

interface Addon {
  decode(bytes: Uint8Array, rowGroups: number[], columns: string[] | null, batchSize: number): Uint8Array;
  encode(ipc: Uint8Array, props: string): Uint8Array;
  Encoder: new (props: string) => NativeEncoder;
  RewriteSource?: new (
    bytes: Uint8Array,
    schemaIpc: Uint8Array,
    plan: string,
    mask: Uint8Array | null,
  ) => NativeRewriteSource;
  /** Detaches an ArrayBuffer (napi_detach_arraybuffer); absent from addons built before it. */
  release?(buffer: ArrayBuffer): boolean;
  ParquetReader: new (bytes: Uint8Array) => {
    decode(rowGroups: number[], columns: string[] | null, batchSize: number): Uint8Array;
    close(): void;
  };
}

export const NATIVE_CODEC_FILE = 'floe-parquet-codec.node';

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };

/** The directory holding floe's package.json, from this module's own location (source or dist). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if (readJson(manifest).name === 'floe') return dir;
      } catch {
        /* not ours: keep walking */
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

type Loaded = { addon?: Addon; status: NativeCodecStatus };
let loaded: Loaded | undefined;

export type CodecName = 'native' | 'wasm';

/** FLOE_PARQUET_CODEC, checked (here, not in codec.ts, so the CLI can read it before loading the codecs). */
export function wantedCodec(): 'auto' | CodecName {
  const want = (process.env.FLOE_PARQUET_CODEC ?? 'auto').trim().toLowerCase() || 'auto';
  if (want !== 'auto' && want !== 'native' && want !== 'wasm') {
    throw new FloeError('InvalidArgument', `FLOE_PARQUET_CODEC must be auto, native or wasm, got ${want}`);
  }
  return want;
}

function requireAddon(file: string): Addon {
  return createRequire(import.meta.url)(file) as Addon;
}

/** The platform package, when installed where floe resolves its dependencies; its file and version checked. */
function loadPackage(name: string, floeVersion: string | undefined): { addon: Addon; file: string; version: string } {
  const req = createRequire(import.meta.url);
  let manifest: string;
  try {
    manifest = req.resolve(`${name}/package.json`);
  } catch {
    throw new Error('not installed');
  }
  const { version = '?' } = readJson(manifest);
  if (floeVersion && version !== floeVersion) {
    throw new Error(`version ${version} installed, floe ${floeVersion} needs the same version`);
  }
  const file = req.resolve(name);
  return { addon: requireAddon(file), file, version };
}

function load(): Loaded {
  if (loaded) return loaded;
  const explicit = process.env.FLOE_NATIVE_CODEC_PATH;
  if (explicit) {
    if (!existsSync(explicit))
      return (loaded = unavailable(explicit, [`FLOE_NATIVE_CODEC_PATH=${explicit}: no such file`]));
    try {
      return (loaded = {
        addon: requireAddon(explicit),
        status: { available: true, path: explicit, source: 'env', tried: [] },
      });
    } catch (e) {
      return (loaded = unavailable(explicit, [`FLOE_NATIVE_CODEC_PATH=${explicit}: ${(e as Error).message}`]));
    }
  }
  const root = packageRoot();
  const checkout = path.join(root, 'native', 'parquet-codec', NATIVE_CODEC_FILE);
  const tried: string[] = [];
  if (existsSync(checkout)) {
    try {
      return (loaded = {
        addon: requireAddon(checkout),
        status: { available: true, path: checkout, source: 'checkout', tried },
      });
    } catch (e) {
      tried.push(`checkout build ${checkout}: ${(e as Error).message}`);
    }
  } else if (existsSync(path.join(root, 'native', 'parquet-codec', 'Cargo.toml'))) {
    tried.push(`checkout build ${checkout}: not built (npm run build:native)`);
  }
  const triple = hostTriple();
  if (!triple) {
    tried.push(`no prebuilt package for ${process.platform}-${process.arch}`);
    return (loaded = unavailable(checkout, tried));
  }
  const name = codecPackageName(triple);
  let floeVersion: string | undefined;
  try {
    floeVersion = readJson(path.join(root, 'package.json')).version;
  } catch {
    /* a bundled floe without its manifest: any version */
  }
  try {
    const { addon, file, version } = loadPackage(name, floeVersion);
    return (loaded = {
      addon,
      status: { available: true, path: file, source: 'package', package: `${name}@${version}`, triple, tried },
    });
  } catch (e) {
    tried.push(`package ${name}: ${(e as Error).message}`);
    return (loaded = unavailable(checkout, tried, triple));
  }
}

function unavailable(file: string, tried: string[], triple?: string): Loaded {
  return {
    status: { available: false, path: file, error: tried.join('; '), tried, ...(triple ? { triple } : {}) },
  };
}

export function nativeCodecStatus(): NativeCodecStatus {
  return load().status;
}

/** How to get the native codec on this platform, for messages. */
export function nativeCodecHint(): string {
  const triple = load().status.triple ?? hostTriple();
  const pkg = triple
    ? `install ${codecPackageName(triple)} (npm, or its tarball from \`npm run pack:native\`)`
    : undefined;
  return [pkg, 'build it from a clone with `npm run build:native` (needs Rust)'].filter(Boolean).join(', or ');
}

let backend: ParquetCodecBackend | undefined;

/**
 * Gives back, now, the memory of bytes the caller is done with, instead of at V8's next full GC. A buffer that
 * lived across a task's awaits sits in old space, and V8 starts a mark-sweep for external memory only after
 * ~64 MiB of it has piled up: with equality deletes, each data file's bytes and its decoded key columns made
 * that pile (issue 27). Detaching the ArrayBuffer frees it at once (the addon's `release`; JS on Node 20 has
 * no ArrayBuffer.transfer).
 *
 * Only a buffer that owns its whole ArrayBuffer, only when the addon is already loaded, and only when the
 * caller holds the only reference: any other view of it reads as empty afterwards. Otherwise a no-op.
 */
export function releaseBytes(bytes: Uint8Array): void {
  const release = loaded?.addon?.release;
  const ab = bytes.buffer;
  if (!release || !(ab instanceof ArrayBuffer)) return;
  if (bytes.byteOffset !== 0 || bytes.byteLength !== ab.byteLength || ab.byteLength < 64 * 1024) return;
  release(ab);
}

/**
 * The addon hands back Node Buffers, whose `slice` is a view where Uint8Array's is a copy — code here relies on
 * the copy (e.g. a footer sliced out and read through its `.buffer`). A plain view over the same memory.
 */
function plain(b: Uint8Array): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** The native backend; throws (naming the file and why) when the addon cannot be loaded. */
export function nativeCodec(): ParquetCodecBackend {
  if (backend) return backend;
  const { addon, status } = load();
  if (!addon) {
    throw new FloeError(
      'Unsupported',
      `the native Parquet codec is not available (${status.error}); ${nativeCodecHint()}, or set ` +
        'FLOE_PARQUET_CODEC=wasm',
    );
  }
  backend = {
    name: 'native',
    async open(bytes: Uint8Array): Promise<CodecFile> {
      const reader = new addon.ParquetReader(bytes);
      return {
        decode: async (rowGroups, columns, batchSize) => plain(reader.decode(rowGroups, columns ?? null, batchSize)),
        free: () => reader.close(), // its copy of the bytes goes now, not at some later GC
      };
    },
    encode: (ipc, props) => plain(addon.encode(ipc, JSON.stringify(props))),
    encoder: (props, sink, threading) => nativeEncoder(addon, props, sink, threading?.offThread === true),
  };
  const Source = addon.RewriteSource;
  // an addon built before rewrite.rs (an older platform package) simply has no fast path
  if (Source) {
    backend.rewriteSource = (r) => {
      const native = new Source(r.bytes, r.schemaIpc, JSON.stringify({ columns: r.columns }), r.mask ?? null);
      const offThread = r.offThread === true;
      const handle: RewriteSourceHandle & { native: NativeRewriteSource } = {
        native,
        ineligible: native.ineligible ?? undefined,
        prepare: async (index, sample) =>
          offThread ? native.prepareAsync(index, sample) : native.prepare(index, sample),
        close: () => native.close(),
      };
      return handle;
    };
  }
  return backend;
}

/** The most bytes one chunk holds: the addon's drain segment. */
const DRAIN_CHUNK = 4 * 1024 * 1024;

/**
 * The sink gets the encoded bytes through one buffer this encoder reuses (ChunkSink's contract: a chunk is the
 * sink's only until its promise settles), so a flushed row group leaves native memory as it is copied out
 * instead of waiting for garbage collection to run its Buffers' finalizers.
 */
function nativeEncoder(addon: Addon, props: EncoderProps, sink: ChunkSink, offThread: boolean): StreamEncoder {
  const encoder = new addon.Encoder(JSON.stringify(props));
  let buf = new Uint8Array(0);
  const drain = async (pending: number) => {
    // sized by the first bytes it carries (small files stay small), up to one drain segment
    if (pending > buf.byteLength && buf.byteLength < DRAIN_CHUNK) buf = new Uint8Array(Math.min(pending, DRAIN_CHUNK));
    for (;;) {
      const n = encoder.drainInto(buf);
      if (n === 0) return;
      await sink(buf.subarray(0, n));
    }
  };
  return {
    async write(ipc) {
      await drain(encoder.write(ipc));
    },
    async finish() {
      // the last row group waits in the drain; the footer follows it
      const footer = offThread ? await encoder.finishAsync() : encoder.finish();
      await drain(encoder.pending());
      await sink(plain(footer));
    },
    async writeRewritten(source) {
      const native = (source as RewriteSourceHandle & { native: NativeRewriteSource }).native;
      await drain(offThread ? await native.writeAsync(encoder) : native.write(encoder));
    },
  };
}
