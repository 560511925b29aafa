/**
 * The parquet-wasm backend of the Parquet codec (codec.ts): arrow-rs compiled to WebAssembly, the portable
 * fallback when the native addon is not built. Arrow IPC streams in both directions.
 */
import { createRequire } from 'node:module';
import type * as PW from 'parquet-wasm';
import type { ChunkSink, EncoderProps, ParquetCodecBackend, StreamEncoder } from './codec.js';

let loaded: typeof PW | undefined;

/**
 * parquet-wasm, loaded on first use: instantiating its WebAssembly costs every thread ~60 ms, which a process
 * on the native codec never needs. Its Node build is CommonJS, so it can be required synchronously.
 */
function pw(): typeof PW {
  return (loaded ??= createRequire(import.meta.url)('parquet-wasm') as typeof PW);
}

function compression(c: EncoderProps['compression']): PW.Compression {
  const C = pw().Compression;
  const byName: Record<EncoderProps['compression'], PW.Compression> = {
    zstd: C.ZSTD,
    snappy: C.SNAPPY,
    gzip: C.GZIP,
    uncompressed: C.UNCOMPRESSED,
    lz4_raw: C.LZ4_RAW,
    brotli: C.BROTLI,
  };
  return byName[c];
}

function statistics(s: EncoderProps['statistics']): PW.EnabledStatistics {
  const S = pw().EnabledStatistics;
  return s === 'none' ? S.None : s === 'page' ? S.Page : S.Chunk;
}

function wasmProperties(p: EncoderProps): PW.WriterProperties {
  const { WriterPropertiesBuilder, WriterVersion } = pw();
  let b = new WriterPropertiesBuilder()
    .setWriterVersion(p.writerVersion === 2 ? WriterVersion.V2 : WriterVersion.V1)
    .setCompression(compression(p.compression))
    .setDictionaryEnabled(p.dictionaryEnabled)
    .setDataPageSizeLimit(p.dataPageSizeLimit)
    .setDictionaryPageSizeLimit(p.dictionaryPageSizeLimit)
    .setMaxRowGroupSize(p.maxRowGroupSize)
    .setStatisticsEnabled(statistics(p.statistics))
    .setCreatedBy(p.createdBy);
  if (p.keyValueMetadata.length) b = b.setKeyValueMetadata(new Map(p.keyValueMetadata));
  for (const column of p.plainColumns) b = b.setColumnDictionaryEnabled(column, false);
  return b.build();
}

export const wasmCodec: ParquetCodecBackend = {
  name: 'wasm',
  async open(bytes) {
    // the async reader: the one that honours column projection
    const handle = await pw().ParquetFile.fromFile(new Blob([bytes]));
    return {
      async decode(rowGroups, columns, batchSize) {
        const options: PW.ReaderOptions = { rowGroups: rowGroups.length ? rowGroups : undefined, batchSize };
        if (columns) options.columns = columns;
        return (await handle.read(options)).intoIPCStream();
      },
      free: () => handle.free(),
    };
  },
  encode: (ipc, props) => pw().writeParquet(pw().Table.fromIPCStream(ipc), wasmProperties(props)),
  encoder: (props, sink) => new WasmEncoder(props, sink),
};

/**
 * parquet-wasm's streaming writer (`transformParquetStream`) reads record batches from a ReadableStream and
 * gives encoded row groups as another: batches are queued as they arrive, and `write` waits until the encoder
 * has taken them, so only about one row group is buffered in WebAssembly at a time.
 */
class WasmEncoder implements StreamEncoder {
  private ctrl: ReadableStreamDefaultController<PW.RecordBatch> | undefined;
  private pullWaiter: (() => void) | undefined;
  private pump: Promise<void> | undefined;

  constructor(
    private readonly props: EncoderProps,
    private readonly sink: ChunkSink,
  ) {}

  async write(ipc: Uint8Array): Promise<void> {
    const batches = pw().Table.fromIPCStream(ipc).recordBatches();
    if (!this.ctrl) return this.start(batches);
    for (const b of batches) {
      this.ctrl.enqueue(b);
      await this.backpressure();
    }
  }

  async finish(): Promise<void> {
    if (!this.ctrl) throw new Error('nothing was written');
    this.ctrl.close();
    await this.pump;
  }

  private async start(first: PW.RecordBatch[]): Promise<void> {
    const input = new ReadableStream<PW.RecordBatch>({
      start: (c) => {
        this.ctrl = c;
      },
      pull: () => {
        const w = this.pullWaiter;
        this.pullWaiter = undefined;
        w?.();
      },
    });
    // The transform reads the first batch to learn the schema, so it must be queued before the call.
    for (const b of first) this.ctrl!.enqueue(b);
    const output = await pw().transformParquetStream(input, wasmProperties(this.props));
    const reader = output.getReader();
    this.pump = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        await this.sink(value instanceof Uint8Array ? value : new Uint8Array(value as ArrayBuffer));
      }
    })();
    this.pump.catch(() => {
      /* surfaced by backpressure() / finish() */
    });
    await this.backpressure();
  }

  /** Waits until the encoder has taken what was queued, or fails if the encoder failed. */
  private async backpressure(): Promise<void> {
    while ((this.ctrl!.desiredSize ?? 1) <= 0) {
      const pulled = new Promise<void>((resolve) => {
        this.pullWaiter = resolve;
      });
      await Promise.race([
        pulled,
        this.pump!.then(() => {
          throw new Error('encoder stopped early');
        }),
      ]);
    }
  }
}
