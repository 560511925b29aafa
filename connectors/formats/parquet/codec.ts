/**
 * The Parquet codec floe decodes and encodes row data with: arrow-rs' Parquet implementation, either as a
 * native Node addon (native/parquet-codec, ~3× faster) or as parquet-wasm (the same Rust code compiled to
 * WebAssembly, the portable fallback). Both take and give Arrow IPC streams and produce byte-identical output
 * (test/connectors/formats/native-codec-equivalence.test.ts), so everything above this seam is the same for both.
 *
 * Which one: `FLOE_PARQUET_CODEC` = `auto` (default: native when the addon loads), `native` (an error when it
 * cannot load — what the test suite uses, so a missing build fails loudly), or `wasm`.
 */
import { isMainThread } from 'node:worker_threads';
import { nativeCodec, nativeCodecHint, nativeCodecStatus, wantedCodec, type CodecName } from './native-codec.js';
export { releaseBytes } from './native-codec.js';
import type { ParquetCodec } from './types.js';
import { wasmCodec } from './wasm.js';

export type { CodecName } from './native-codec.js';

/** arrow-rs WriterProperties, as both backends take them. */
export interface EncoderProps {
  writerVersion: 1 | 2;
  compression: ParquetCodec;
  dictionaryEnabled: boolean;
  dataPageSizeLimit: number;
  dictionaryPageSizeLimit: number;
  maxRowGroupSize: number;
  statistics: 'none' | 'chunk' | 'page';
  createdBy: string;
  keyValueMetadata: [string, string][];
  /** Top-level columns written without a dictionary. */
  plainColumns: string[];
}

/**
 * Where a streaming encoder's bytes go, in file order; awaited before the encoder goes on. A chunk is the
 * sink's only until its promise settles: the native encoder then reuses the buffer, so a sink that keeps bytes
 * past that keeps a copy.
 */
export type ChunkSink = (chunk: Uint8Array) => Promise<void>;

/** One Parquet file encoded incrementally; the footer is always the last chunk given to the sink. */
export interface StreamEncoder {
  /** Encodes the batches of one Arrow IPC stream (the file's schema); closed row groups go to the sink. */
  write(ipc: Uint8Array): Promise<void>;
  /** Flushes the open row group, then the footer. */
  finish(): Promise<void>;
  /** [rewrite] Encodes the row group `source` last prepared (native only; same schema as the IPC writes). */
  writeRewritten?(source: RewriteSourceHandle): Promise<void>;
}

/**
 * [rewrite] One input file rewritten inside the codec (native/parquet-codec/src/rewrite.rs): each row group is
 * decoded, its deleted rows dropped and its columns aligned with the output schema without crossing into JS.
 */
export interface RewriteSourceHandle {
  /** Why this file must go through the JS path (its columns need a cast only cast.ts does); else undefined. */
  readonly ineligible: string | undefined;
  /**
   * Decodes and aligns row group `index` (held until the next writeRewritten); `sample`: for the dictionary
   * choice. On libuv's pool when the request asked for it (CodecThreading).
   */
  prepare(index: number, sample: boolean): Promise<PreparedRowGroup>;
  close(): void;
}

export interface PreparedRowGroup {
  kept: number;
  /** Buffer bytes of the kept rows (arrow-rs' count; the writer's bytes-per-row estimate). */
  arrowBytes: number;
  /** Per output column dictionary-choice.ts' Sample as SAMPLE_FIELDS numbers (see sampleAt; visited < 0: not sampled); empty unless asked for. */
  samples: number[];
  floatIds: number[];
  floatNans: number[];
  floatAny: boolean[];
  floatMins: number[];
  floatMaxs: number[];
}

/**
 * [rewrite] Where the native codec does the heavy work of the rewrite fast path (decode a row group, encode it,
 * flush the last one): `offThread` on libuv's thread pool, so that tasks sharing one JS thread decode and
 * encode in parallel without worker threads (each an isolate of its own, with its own heap and garbage);
 * else on the calling thread (a worker thread's own work, or a run of one task at a time).
 */
export interface CodecThreading {
  offThread?: boolean;
}

/** [rewrite] What opens a RewriteSourceHandle: the file, the output schema as IPC, per output column its source. */
export interface RewriteSourceRequest extends CodecThreading {
  bytes: Uint8Array;
  schemaIpc: Uint8Array;
  /** Per output column, the file's top-level column that holds it (null: absent, read as nulls). */
  columns: (string | null)[];
  /** One byte per row of the file, 1 = deleted. */
  mask: Uint8Array | undefined;
}

/** An opened file: its footer parsed once, row groups decoded on demand. */
export interface CodecFile {
  /** The given row groups (all when empty), projected to top-level `columns` (all when undefined), as Arrow IPC. */
  decode(rowGroups: number[], columns: string[] | undefined, batchSize: number): Promise<Uint8Array>;
  free(): void;
}

export interface ParquetCodecBackend {
  readonly name: CodecName;
  open(bytes: Uint8Array): Promise<CodecFile>;
  /** A whole file from one Arrow IPC stream (a stream without batches gives a file with no row groups). */
  encode(ipc: Uint8Array, props: EncoderProps): Uint8Array;
  encoder(props: EncoderProps, sink: ChunkSink, threading?: CodecThreading): StreamEncoder;
  /** [rewrite] The rewrite fast path; absent in parquet-wasm (the JS path is used). */
  rewriteSource?(request: RewriteSourceRequest): RewriteSourceHandle;
}

export interface NativeCodecStatus {
  available: boolean;
  /** The addon file that loaded, else the checkout build's path (where `npm run build:native` puts it). */
  path: string;
  /** Where the loaded addon came from: FLOE_NATIVE_CODEC_PATH, the checkout's build, or the platform package. */
  source?: 'env' | 'checkout' | 'package';
  /** `name@version` of the platform package that loaded. */
  package?: string;
  /** This platform's package triple (native-platform.ts), when one is built for it. */
  triple?: string;
  /** Why it did not load: every place tried, joined. */
  error?: string;
  /** Each place tried before the one that loaded (or all of them), with why it did not load. */
  tried: string[];
}

let chosen: ParquetCodecBackend | undefined;

export function codecByName(name: CodecName): ParquetCodecBackend {
  return name === 'native' ? nativeCodec() : wasmCodec;
}

export { nativeCodecHint, nativeCodecStatus };

/** The codec FLOE_PARQUET_CODEC selects here, and whether it is the WebAssembly fallback (auto, no addon). */
export function codecChoice(): { name: CodecName; fallback: boolean } {
  const want = wantedCodec();
  if (want !== 'auto') return { name: want, fallback: false };
  return nativeCodecStatus().available ? { name: 'native', fallback: false } : { name: 'wasm', fallback: true };
}

/** The one line said when floe falls back to WebAssembly: what, why, and how to get the native codec. */
export function fallbackNotice(): string {
  return (
    'floe: notice: using the WebAssembly Parquet codec (parquet-wasm: the same output, ~2-3x slower) because ' +
    `the native codec did not load (${nativeCodecStatus().error}). To get it: ${nativeCodecHint()}. ` +
    'FLOE_PARQUET_CODEC=wasm chooses WebAssembly without this notice.'
  );
}

let noticed = false;

/**
 * The codec this process uses (decided once per thread, from FLOE_PARQUET_CODEC). Falling back to WebAssembly
 * prints fallbackNotice() once per process, from the main thread (worker threads decide the same, silently).
 */
export function parquetCodec(): ParquetCodecBackend {
  if (chosen) return chosen;
  const { name, fallback } = codecChoice();
  chosen = codecByName(name);
  if (fallback && isMainThread && !noticed) {
    noticed = true;
    process.stderr.write(`${fallbackNotice()}\n`);
  }
  return chosen;
}
