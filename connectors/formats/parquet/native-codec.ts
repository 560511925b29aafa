/**
 * The native Parquet codec: native/parquet-codec (Rust, napi-rs) — arrow-rs' Parquet reader and writer built
 * for the host. Loaded on first use from `<package root>/native/parquet-codec/floe-parquet-codec.node`
 * (`npm run build:native`), or from FLOE_NATIVE_CODEC_PATH. Each worker thread loads its own instance.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FloeError } from '../../../src/errors.js';
import type {
  ChunkSink,
  CodecFile,
  EncoderProps,
  NativeCodecStatus,
  ParquetCodecBackend,
  StreamEncoder,
} from './codec.js';

/** The addon's exports (native/parquet-codec/src/lib.rs). */
interface Addon {
  decode(bytes: Uint8Array, rowGroups: number[], columns: string[] | null, batchSize: number): Uint8Array;
  encode(ipc: Uint8Array, props: string): Uint8Array;
  Encoder: new (props: string) => { write(ipc: Uint8Array): Uint8Array; finish(): Uint8Array[] };
  ParquetReader: new (bytes: Uint8Array) => {
    decode(rowGroups: number[], columns: string[] | null, batchSize: number): Uint8Array;
    close(): void;
  };
}

export const NATIVE_CODEC_FILE = 'floe-parquet-codec.node';

/** The directory holding floe's package.json, from this module's own location (source or dist). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'floe') return dir;
      } catch {
        /* not ours: keep walking */
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

function addonPath(): string {
  return process.env.FLOE_NATIVE_CODEC_PATH || path.join(packageRoot(), 'native', 'parquet-codec', NATIVE_CODEC_FILE);
}

let loaded: { addon?: Addon; status: NativeCodecStatus } | undefined;

function load(): { addon?: Addon; status: NativeCodecStatus } {
  if (loaded) return loaded;
  const file = addonPath();
  if (!existsSync(file)) {
    loaded = { status: { available: false, path: file, error: 'not built (npm run build:native)' } };
    return loaded;
  }
  try {
    const addon = createRequire(import.meta.url)(file) as Addon;
    loaded = { addon, status: { available: true, path: file } };
  } catch (e) {
    loaded = { status: { available: false, path: file, error: (e as Error).message } };
  }
  return loaded;
}

export function nativeCodecStatus(): NativeCodecStatus {
  return load().status;
}

let backend: ParquetCodecBackend | undefined;

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
      `the native Parquet codec is not available (${status.path}: ${status.error}); build it with ` +
        '`npm run build:native` (needs Rust) or set FLOE_PARQUET_CODEC=wasm',
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
    encoder: (props, sink) => nativeEncoder(addon, props, sink),
  };
  return backend;
}

function nativeEncoder(addon: Addon, props: EncoderProps, sink: ChunkSink): StreamEncoder {
  const encoder = new addon.Encoder(JSON.stringify(props));
  return {
    async write(ipc) {
      const chunk = encoder.write(ipc);
      if (chunk.byteLength) await sink(plain(chunk));
    },
    async finish() {
      const [body, footer] = encoder.finish();
      if (body && body.byteLength) await sink(plain(body));
      await sink(plain(footer!));
    },
  };
}
