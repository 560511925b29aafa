/**
 * The live files of a manifest in a form that crosses between threads cheaply (issue 11.6): a worker
 * thread decodes a manifest (manifests.ts, the same code as in-thread) and writes its live files here as
 * one byte stream plus the manifest's packed-stats slab — both transferred, not cloned — and a few small
 * tables (distinct partitions, bigints, stats layouts) that are cloned. The receiving thread rebuilds the
 * ContentFile objects with the same properties, in the same order, sharing partitions, bigints, layouts
 * and single split offsets per manifest as the in-thread reader does.
 *
 * Byte stream, per file: head (content code | presence flags << 2), path, format code, size, record count,
 * spec id, partition index, data and file sequence number indexes, then the optional parts the flags name.
 * Numbers are `num` (a non-negative safe integer as an unsigned varint of 2v, anything else 1 + a float64).
 */
import type { ContentFile, Field, PartitionTuple } from '../../model/index.js';
import { PackedColumnStats, type Layout, type Slab } from './packed-stats.js';
import { baseOf } from './manifests.js';

/** One manifest's live files, ready for postMessage (`transfer` lists the buffers to move). */
export interface WireManifest {
  files: number;
  bytes: Uint8Array;
  slabs: Uint8Array[];
  partitions: PartitionTuple[];
  bigints: bigint[];
  layouts: { counts: Layout['counts']; bounds: Layout['bounds'] }[];
}

const CONTENT = ['data', 'position-deletes', 'equality-deletes', 'deletion-vector'] as const;
const FORMATS = ['parquet', 'orc', 'avro', 'puffin', 'paimon-index'] as const;
const F_SNAPSHOT = 1;
const F_STATS = 2;
const F_SPLITS = 4;
const F_SORT = 8;
const F_FIRST_ROW = 16;
const F_REFERENCED = 32;
const SAFE = Number.MAX_SAFE_INTEGER / 2;

class Writer {
  buf = Buffer.allocUnsafe(16 * 1024);
  at = 0;
  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }
  uint(v: number): void {
    this.room(10);
    const b = this.buf;
    while (v >= 0x80) {
      b[this.at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    b[this.at++] = v;
  }
  num(v: number): void {
    if (Number.isSafeInteger(v) && v <= SAFE && (v > 0 || Object.is(v, 0))) return this.uint(v * 2);
    this.uint(1);
    this.room(8);
    this.buf.writeDoubleLE(v, this.at);
    this.at += 8;
  }
  str(s: string): void {
    this.room(10 + s.length * 3);
    const n = Buffer.byteLength(s, 'utf8');
    this.uint(n);
    this.buf.write(s, this.at, n, 'utf8');
    this.at += n;
  }
  done(): Uint8Array {
    return new Uint8Array(this.buf.subarray(0, this.at));
  }
}

/** Index of `v` in `list`, appended when new. */
function indexIn<K>(map: Map<K, number>, v: K, add: (v: K) => void): number {
  let i = map.get(v);
  if (i === undefined) {
    i = map.size;
    map.set(v, i);
    add(v);
  }
  return i;
}

/** A buffer that can be transferred as it is: exactly its own ArrayBuffer. */
function ownBuffer(b: Uint8Array): Uint8Array {
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer
    ? b
    : new Uint8Array(b);
}

/**
 * Writes a manifest's live files as they are decoded (worker side); `finish` once the manifest is read
 * (its stats slab is final only then).
 */
export class ManifestFilesWriter {
  private readonly w = new Writer();
  private files = 0;
  private readonly out: Omit<WireManifest, 'files' | 'bytes' | 'slabs'> = { partitions: [], bigints: [], layouts: [] };
  private readonly partitions = new Map<PartitionTuple, number>();
  private readonly bigints = new Map<bigint, number>();
  private readonly slabs = new Map<Slab, number>();
  private readonly layouts = new Map<Layout, number>();

  private big(v: bigint): void {
    this.w.uint(indexIn(this.bigints, v, (x) => this.out.bigints.push(x)));
  }

  add(f: ContentFile): void {
    const w = this.w;
    this.files++;
    const content = CONTENT.indexOf(f.content);
    const format = FORMATS.indexOf(f.format);
    if (content < 0 || format < 0) throw new Error(`cannot hand over file ${f.path}: ${f.content} / ${f.format}`);
    let flags = 0;
    if (f.snapshotId !== undefined) flags |= F_SNAPSHOT;
    const stats = 'stats' in f ? f.stats : undefined;
    if (stats !== undefined) {
      if (!(stats instanceof PackedColumnStats)) throw new Error(`cannot hand over the stats of ${f.path}`);
      flags |= F_STATS;
    }
    if (f.content === 'data') {
      if (f.splitOffsets !== undefined) flags |= F_SPLITS;
      if (f.sortOrderId !== undefined) flags |= F_SORT;
      if (f.firstRowId !== undefined) flags |= F_FIRST_ROW;
      if (f.lsm !== undefined) throw new Error(`cannot hand over the LSM facts of ${f.path}`);
    } else if (f.content === 'position-deletes' && f.referencedDataFile !== undefined) flags |= F_REFERENCED;
    w.uint(content | (flags << 2));
    w.str(f.path);
    w.uint(format);
    w.num(f.sizeBytes);
    w.num(f.recordCount);
    w.num(f.specId);
    w.uint(indexIn(this.partitions, f.partition, (x) => this.out.partitions.push(x)));
    this.big(f.dataSequenceNumber);
    this.big(f.fileSequenceNumber);
    if (f.snapshotId !== undefined) this.big(f.snapshotId);
    if (stats instanceof PackedColumnStats) {
      const { layout, slab, start } = stats.wireParts();
      w.uint(indexIn(this.layouts, layout, (l) => this.out.layouts.push({ counts: l.counts, bounds: l.bounds })));
      w.uint(indexIn(this.slabs, slab, () => {}));
      w.uint(start);
    }
    if (f.content === 'data') {
      if (f.splitOffsets !== undefined) {
        w.uint(f.splitOffsets.length);
        for (const o of f.splitOffsets) w.num(o);
      }
      if (f.sortOrderId !== undefined) w.num(f.sortOrderId);
      if (f.firstRowId !== undefined) this.big(f.firstRowId);
    } else if (f.content === 'position-deletes') {
      if (f.referencedDataFile !== undefined) w.str(f.referencedDataFile);
    } else if (f.content === 'equality-deletes') {
      w.uint(f.equalityFieldIds.length);
      for (const id of f.equalityFieldIds) w.num(id);
    } else {
      w.str(f.referencedDataFile);
      w.num(f.contentOffset);
      w.num(f.contentSizeBytes);
    }
  }

  finish(): WireManifest {
    return {
      files: this.files,
      bytes: this.w.done(),
      slabs: [...this.slabs.keys()].map((s) => ownBuffer(s.bytes)),
      ...this.out,
    };
  }
}

/** A manifest's live files in the wire form. */
export function encodeManifestFiles(files: readonly ContentFile[]): WireManifest {
  const w = new ManifestFilesWriter();
  for (const f of files) w.add(f);
  return w.finish();
}

/** The buffers of `m` to transfer with postMessage. */
export function transferList(m: WireManifest): ArrayBuffer[] {
  return [m.bytes.buffer as ArrayBuffer, ...m.slabs.map((s) => s.buffer as ArrayBuffer)];
}

/**
 * Where the receiving thread keeps the stats slabs of one table load: copied into a few large chunks of its
 * own. Keeping the transferred buffers instead would leave them scattered through the worker threads'
 * malloc arenas between freed read and inflate buffers (~25 % more RSS at a million files).
 */
export class SlabArena {
  private chunk = new Uint8Array(0);
  private used = 0;
  constructor(private readonly chunkBytes = 4 * 1024 * 1024) {}
  copy(b: Uint8Array): Uint8Array {
    if (b.length > this.chunkBytes / 4) return new Uint8Array(b);
    if (this.used + b.length > this.chunk.length) {
      this.chunk = new Uint8Array(this.chunkBytes);
      this.used = 0;
    }
    const out = this.chunk.subarray(this.used, this.used + b.length);
    out.set(b);
    this.used += b.length;
    return out;
  }
}

/** Rebuilds a manifest's live files (receiving side); `fields` decodes bounds, as the reader's would. */
export function decodeManifestFiles(
  m: WireManifest,
  fields: ReadonlyMap<number, Field>,
  arena: SlabArena = new SlabArena(0),
): ContentFile[] {
  const b = Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
  let at = 0;
  // Small integers with int32 arithmetic: the values stored in the files stay Smis, as the in-thread
  // reader's are (a double-valued field costs a 16-byte box per value: ~90 MB at a million files).
  const uint = (): number => {
    let byte = b[at++]!;
    if (byte < 0x80) return byte;
    let v = byte & 0x7f;
    byte = b[at++]!;
    v |= (byte & 0x7f) << 7;
    if (byte < 0x80) return v;
    byte = b[at++]!;
    v |= (byte & 0x7f) << 14;
    if (byte < 0x80) return v;
    byte = b[at++]!;
    v |= (byte & 0x7f) << 21;
    if (byte < 0x80) return v;
    let big = v;
    let mul = 2 ** 28;
    for (;;) {
      byte = b[at++]!;
      big += (byte & 0x7f) * mul;
      if (byte < 0x80) return big;
      mul *= 0x80;
    }
  };
  const num = (): number => {
    const z = uint();
    if (z === 1) {
      at += 8;
      return b.readDoubleLE(at - 8);
    }
    return z < 0x80000000 ? z >>> 1 : z / 2;
  };
  const str = (): string => {
    const n = uint();
    at += n;
    return b.toString('utf8', at - n, at);
  };
  const slabs: Slab[] = m.slabs.map((bytes) => ({ bytes: arena.copy(bytes) }));
  // Structured clone gives arrays with spare element capacity (~110 bytes more per tuple): exact copies.
  const partitions = m.partitions.map((p) => p.map((v) => v));
  const layouts: Layout[] = m.layouts.map((l) => ({ counts: l.counts, bounds: l.bounds, fields }));
  const singleOffsets = new Map<number, number[]>();
  const out: ContentFile[] = new Array<ContentFile>(m.files);
  for (let i = 0; i < m.files; i++) {
    const head = uint();
    const content = CONTENT[head & 3]!;
    const flags = head >> 2;
    const path = str();
    const format = FORMATS[uint()]!;
    const sizeBytes = num();
    const recordCount = num();
    const specId = num();
    const partition = partitions[uint()]!;
    const dataSequenceNumber = m.bigints[uint()]!;
    const fileSequenceNumber = m.bigints[uint()]!;
    const snapshotId = flags & F_SNAPSHOT ? m.bigints[uint()] : undefined;
    let stats: PackedColumnStats | undefined;
    if (flags & F_STATS) {
      const layout = layouts[uint()]!;
      const slab = slabs[uint()]!;
      stats = new PackedColumnStats(layout, slab, uint());
    }
    const base = () =>
      baseOf(
        path,
        format,
        sizeBytes,
        recordCount,
        specId,
        partition,
        dataSequenceNumber,
        fileSequenceNumber,
        snapshotId,
      );
    let file: ContentFile;
    if (content === 'data') {
      let splitOffsets: number[] | undefined;
      if (flags & F_SPLITS) {
        const n = uint();
        if (n === 1) {
          const o = num();
          splitOffsets = singleOffsets.get(o);
          if (!splitOffsets) singleOffsets.set(o, (splitOffsets = Object.freeze([o]) as number[]));
        } else {
          splitOffsets = [];
          for (let k = 0; k < n; k++) splitOffsets.push(num());
        }
      }
      const sortOrderId = flags & F_SORT ? num() : undefined;
      file =
        snapshotId !== undefined && stats && splitOffsets && sortOrderId !== undefined
          ? // the common case as one literal, as manifests.ts builds it
            {
              content,
              path,
              format,
              sizeBytes,
              recordCount,
              specId,
              partition,
              dataSequenceNumber,
              fileSequenceNumber,
              snapshotId,
              stats,
              splitOffsets,
              sortOrderId,
            }
          : {
              content,
              ...base(),
              ...(stats ? { stats } : {}),
              ...(splitOffsets ? { splitOffsets } : {}),
              ...(sortOrderId !== undefined ? { sortOrderId } : {}),
            };
      if (flags & F_FIRST_ROW) file.firstRowId = m.bigints[uint()]!;
    } else if (content === 'position-deletes') {
      const referencedDataFile = flags & F_REFERENCED ? str() : undefined;
      file = {
        content,
        ...base(),
        ...(referencedDataFile !== undefined ? { referencedDataFile } : {}),
        ...(stats ? { stats } : {}),
      };
    } else if (content === 'equality-deletes') {
      const n = uint();
      const equalityFieldIds: number[] = [];
      for (let k = 0; k < n; k++) equalityFieldIds.push(num());
      file = { content, ...base(), equalityFieldIds, ...(stats ? { stats } : {}) };
    } else {
      file = { content, ...base(), referencedDataFile: str(), contentOffset: num(), contentSizeBytes: num() };
    }
    out[i] = file;
  }
  if (at !== b.length) throw new Error(`handed-over manifest files end at byte ${at} of ${b.length}`);
  return out;
}
