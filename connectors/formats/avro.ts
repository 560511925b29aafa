/**
 * Avro object container files, as Iceberg and Paimon write them.
 *
 * avsc decodes and encodes the records (with a bigint `long`, since snapshot ids and sequence numbers exceed
 * 2^53); the container framing — header, metadata map, blocks, sync markers — is ours, because avsc's
 * schema export drops Iceberg's `field-id` attributes and we must write the schema JSON verbatim.
 */
import avro from 'avsc';
import { randomBytes } from 'node:crypto';
import { FloeError } from '../../util/errors.js';
import { compressAvroBlock, decompressAvroBlock, ensureZstdEncoder, type AvroCodec } from './compression.js';

const MAGIC = [0x4f, 0x62, 0x6a, 0x01]; // "Obj" 1

/** avsc long type backed by bigint, so 64-bit values survive decoding and encoding exactly. */
const BigIntLong = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint | number) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (v: unknown) => BigInt(v as string | number),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === 'bigint' || (typeof n === 'number' && Number.isInteger(n)),
  compare: (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0),
});

export type AvroSchema = unknown;

const typeCache = new Map<string, avro.Type>();

/** Builds (and caches by schema text) an avsc type with bigint longs; logical types are left raw. */
export function avroType(schema: AvroSchema): avro.Type {
  const key = typeof schema === 'string' ? schema : JSON.stringify(schema);
  let t = typeCache.get(key);
  if (!t) {
    t = avro.Type.forSchema(schema as avro.Schema, {
      registry: { long: BigIntLong } as unknown as Record<string, avro.Type>,
      wrapUnions: false,
      noAnonymousTypes: false,
    });
    typeCache.set(key, t);
  }
  return t;
}

export interface AvroContainer<T = Record<string, unknown>> {
  /** The writer schema exactly as stored in the header (field ids and all). */
  schema: AvroSchema;
  schemaText: string;
  codec: string;
  /** Header metadata other than avro.schema/avro.codec, as UTF-8 strings. */
  metadata: Record<string, string>;
  records: T[];
}

class Cursor {
  pos = 0;
  constructor(
    readonly buf: Buffer,
    readonly file: string,
  ) {}
  fail(msg: string): never {
    throw new FloeError('Corrupt', `corrupt Avro file ${this.file}: ${msg} (at byte ${this.pos})`, {
      context: { file: this.file, offset: this.pos },
    });
  }
  need(n: number): void {
    if (this.pos + n > this.buf.length) this.fail(`truncated: needed ${n} more bytes`);
  }
  long(): number {
    // zig-zag varint; header lengths and block counts fit comfortably in a double
    let shift = 0;
    let result = 0;
    for (;;) {
      this.need(1);
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
      if (shift > 63) this.fail('varint too long');
    }
    return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
  }
  bytes(n: number): Buffer {
    if (n < 0) this.fail(`negative length ${n}`);
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

/** A container's header, and its blocks decompressed one at a time (for decoders other than avsc). */
export interface AvroBlocks {
  schema: AvroSchema;
  schemaText: string;
  codec: string;
  /** Header metadata other than avro.schema/avro.codec, as UTF-8 strings. */
  metadata: Record<string, string>;
  /** Each block's record count and decompressed bytes; checks sync markers. */
  blocks(): Generator<{ count: number; bytes: Buffer }>;
  /** Throws FloeError('Corrupt') naming the file. */
  fail(msg: string): never;
}

/**
 * Parses the header of a container file. Errors are FloeError('Corrupt') naming `file`. `parseSchema`
 * replaces JSON.parse of the schema text (a reader of many files with one schema memoises it).
 */
export function openAvroContainer(
  data: Uint8Array,
  file: string,
  parseSchema: (text: string) => AvroSchema = JSON.parse,
): AvroBlocks {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const c = new Cursor(buf, file);
  c.need(4);
  for (let i = 0; i < 4; i++) if (buf[i] !== MAGIC[i]) c.fail('not an Avro object container (bad magic)');
  c.pos = 4;
  const meta: Record<string, Buffer> = {};
  for (;;) {
    let count = c.long();
    if (count === 0) break;
    if (count < 0) {
      count = -count;
      c.long(); // block size in bytes, unused
    }
    for (let i = 0; i < count; i++) {
      const k = c.bytes(c.long()).toString('utf8');
      meta[k] = c.bytes(c.long());
    }
  }
  const sync = c.bytes(16);
  const schemaBuf = meta['avro.schema'];
  if (!schemaBuf) c.fail('header has no avro.schema');
  const schemaText = schemaBuf.toString('utf8');
  let schema: AvroSchema;
  try {
    schema = parseSchema(schemaText);
  } catch (e) {
    c.fail(`header schema is not JSON (${(e as Error).message})`);
  }
  const codec = meta['avro.codec']?.toString('utf8') || 'null';
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(meta)) {
    if (k !== 'avro.schema' && k !== 'avro.codec') metadata[k] = v.toString('utf8');
  }
  function* blocks(): Generator<{ count: number; bytes: Buffer }> {
    while (c.pos < buf.length) {
      const n = c.long();
      const size = c.long();
      const raw = c.bytes(size);
      let block: Buffer = Buffer.alloc(0);
      try {
        const plain = decompressAvroBlock(codec, raw);
        block = Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength);
      } catch (e) {
        if ((e as Error).message.startsWith('unsupported Avro codec')) {
          throw new FloeError('Unsupported', `Avro file ${file}: ${(e as Error).message}`, { context: { file } });
        }
        c.fail(`cannot decompress ${codec} block: ${(e as Error).message}`);
      }
      yield { count: n, bytes: block };
      const marker = c.bytes(16);
      if (!marker.equals(sync)) c.fail('sync marker mismatch');
    }
  }
  return { schema, schemaText, codec, metadata, blocks, fail: (msg) => c.fail(msg) };
}

/** Reads a whole container file. Errors are FloeError('Corrupt') naming `file`. */
export function readAvroContainer<T = Record<string, unknown>>(data: Uint8Array, file: string): AvroContainer<T> {
  const container = openAvroContainer(data, file);
  let type: avro.Type;
  try {
    type = avroType(container.schema);
  } catch (e) {
    throw new FloeError('Unsupported', `Avro file ${file}: cannot use its schema: ${(e as Error).message}`, {
      context: { file },
    });
  }
  const records: T[] = [];
  for (const { count, bytes } of container.blocks()) {
    let off = 0;
    for (let i = 0; i < count; i++) {
      const r = type.decode(bytes, off);
      if (r.offset < 0) container.fail(`block ends inside record ${i + 1} of ${count}`);
      records.push(r.value as T);
      off = r.offset;
    }
  }
  const { schema, schemaText, codec, metadata } = container;
  return { schema, schemaText, codec, metadata, records };
}

function zigzag(n: number): Buffer {
  const out: number[] = [];
  let v = n >= 0 ? n * 2 : -n * 2 - 1;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Buffer.from(out);
}

function avroBytes(b: Buffer): Buffer[] {
  return [zigzag(b.length), b];
}

export interface AvroWriteOptions {
  codec?: AvroCodec;
  /** Extra header keys (Iceberg: schema, partition-spec, format-version, content …). */
  metadata?: Record<string, string>;
  /** Records per block; Java writes blocks of ~64 KiB, the count matters little for readers. */
  blockRecords?: number;
  compressionLevel?: number;
}

/** Writes a container file; `schema` is emitted verbatim (a JSON string keeps attribute order exactly). */
export async function writeAvroContainer(
  schema: AvroSchema | string,
  records: readonly unknown[],
  options: AvroWriteOptions = {},
): Promise<Uint8Array> {
  const codec = options.codec ?? 'deflate';
  if (codec === 'zstandard') await ensureZstdEncoder();
  const schemaText = typeof schema === 'string' ? schema : JSON.stringify(schema);
  const type = avroType(JSON.parse(schemaText));
  const sync = randomBytes(16);
  const meta: [string, Buffer][] = [
    ['avro.schema', Buffer.from(schemaText, 'utf8')],
    ['avro.codec', Buffer.from(codec, 'utf8')],
    ...Object.entries(options.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'utf8')] as [string, Buffer]),
  ];
  const parts: Buffer[] = [Buffer.from(MAGIC), zigzag(meta.length)];
  for (const [k, v] of meta) parts.push(...avroBytes(Buffer.from(k, 'utf8')), ...avroBytes(v));
  parts.push(zigzag(0), sync);
  const per = options.blockRecords ?? 1000;
  for (let i = 0; i < records.length; i += per) {
    const chunk = records.slice(i, i + per);
    const encoded = Buffer.concat(chunk.map((r) => type.toBuffer(r)));
    const body = compressAvroBlock(codec, encoded, options.compressionLevel);
    parts.push(
      zigzag(chunk.length),
      zigzag(body.length),
      Buffer.from(body.buffer, body.byteOffset, body.byteLength),
      sync,
    );
  }
  return new Uint8Array(Buffer.concat(parts));
}
