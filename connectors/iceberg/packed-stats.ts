/**
 * Column statistics of a manifest entry, kept packed (issue 11.6): the field-id layout once per
 * manifest, and per file one byte buffer with the counts as varints and the bounds' raw single-value
 * bytes, decoded only when asked for. Six `Map`s with BigInt values and decoded bounds per file cost ~3 KB; this costs a few
 * hundred bytes, so a million-file table model fits in memory.
 *
 * The getters build a fresh Map on every access (read-only use: planners, filters and metrics call
 * `.get(id)`); a caller that wants to mutate stats should copy them into its own maps.
 */
import type { ColumnStats, Field, FieldType } from '../../model/index.js';
import { decodeSingleValue } from './values.js';

type AvroPairs<V> = readonly { key: number; value: V }[] | null | undefined;

/** The stats maps of an Avro `data_file`. */
interface AvroStatsMaps {
  columnSizes: AvroPairs<unknown>;
  valueCounts: AvroPairs<unknown>;
  nullValueCounts: AvroPairs<unknown>;
  nanValueCounts: AvroPairs<unknown>;
  lowerBounds: AvroPairs<Uint8Array>;
  upperBounds: AvroPairs<Uint8Array>;
}

function safeDecode(t: FieldType, b: Uint8Array): unknown {
  try {
    return decodeSingleValue(t, b);
  } catch {
    return new Uint8Array(b);
  }
}

/**
 * Which field ids each of the six maps holds (undefined = the map is absent). Files of one manifest
 * nearly always share it, so it is kept once per manifest (`layouts`), not per file.
 */
export interface Layout {
  counts: (readonly number[] | undefined)[];
  bounds: (readonly number[] | undefined)[];
  fields: ReadonlyMap<number, Field>;
}

const SAFE = 2 ** 52;

/** Writes v at `at` (≥ 0 → 2v, < 0 → −2v − 1, as unsigned LEB128, as Avro does); returns the end. */
function putVarint(out: Uint8Array, at: number, value: bigint | number): number {
  if (
    typeof value === 'number'
      ? Number.isSafeInteger(value) && Math.abs(value) < SAFE
      : value < BigInt(SAFE) && value > -BigInt(SAFE)
  ) {
    const v = Number(value);
    let z = v >= 0 ? v * 2 : -v * 2 - 1;
    while (z >= 0x80) {
      out[at++] = (z % 0x80) | 0x80;
      z = Math.floor(z / 0x80);
    }
    out[at++] = z;
    return at;
  }
  const v = BigInt(value);
  let z = v >= 0n ? v << 1n : (-v << 1n) - 1n;
  while (z >= 0x80n) {
    out[at++] = Number(z & 0x7fn) | 0x80;
    z >>= 7n;
  }
  out[at++] = Number(z);
  return at;
}

/** Feeds decoded Avro maps (arrays of {key, value}, or absent) to a packer, in slot order. */
export function packAvroMaps(packer: StatsPacker, maps: AvroStatsMaps): void {
  const counts = [maps.columnSizes, maps.valueCounts, maps.nullValueCounts, maps.nanValueCounts];
  counts.forEach((m, slot) => {
    if (!Array.isArray(m)) return;
    packer.present(slot);
    for (const e of m) packer.count(slot, Number(e.key), e.value as bigint | number);
  });
  [maps.lowerBounds, maps.upperBounds].forEach((m, i) => {
    if (!Array.isArray(m)) return;
    packer.present(4 + i);
    for (const e of m) packer.bound(4 + i, Number(e.key), e.value);
  });
}

class Cursor {
  constructor(
    private readonly b: Uint8Array,
    public at: number,
  ) {}
  varint(): bigint {
    // Up to 7 bytes (49 bits) in plain numbers, the rare longer ones in BigInt.
    const start = this.at;
    let z = 0;
    let mul = 1;
    for (let i = 0; i < 7; i++) {
      const byte = this.b[this.at++]!;
      z += (byte & 0x7f) * mul;
      if (byte < 0x80) return BigInt(z % 2 === 1 ? -(z + 1) / 2 : z / 2);
      mul *= 0x80;
    }
    this.at = start;
    let zb = 0n;
    let shift = 0n;
    for (;;) {
      const byte = this.b[this.at++]!;
      zb |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) break;
      shift += 7n;
    }
    return zb & 1n ? -((zb + 1n) >> 1n) : zb >> 1n;
  }
  bytes(n: number): Uint8Array {
    const out = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
}

/** The layout the previous file used (files of a manifest nearly always repeat it). */
const LAST = '\u0000last';

/** Bytes of a manifest's packed stats; `bytes` is swapped for an exact-size copy once the manifest is read. */
export interface Slab {
  bytes: Uint8Array;
}

/** One of the six maps of the file being packed: present or absent, its ids, where its values' bytes are. */
class Slot {
  present = false;
  ids: number[] = [];
  start = 0;
  len = 0;
  reset(): void {
    this.present = false;
    if (this.ids.length) this.ids = [];
    this.len = 0;
  }
}

function sameIds(ids: readonly number[] | undefined, slot: Slot): boolean {
  if (!slot.present) return ids === undefined;
  if (!ids || ids.length !== slot.ids.length) return false;
  for (let i = 0; i < ids.length; i++) if (ids[i] !== slot.ids[i]) return false;
  return true;
}

/**
 * Packs the stats of a manifest's files, one file at a time (`begin`, the values, `finish`), into one
 * byte slab for the whole manifest; `seal` when the manifest is done. The packed value bytes are Avro's
 * own encodings (zig-zag varint longs, length-prefixed bytes), so a decoder reading the manifest's raw
 * bytes copies them as they are (`raw`); decoded Avro values go through `count` and `bound`. Values are
 * appended to the slab as they come; only a writer that orders the six maps differently costs a reorder.
 */
export class StatsPacker {
  private readonly slots = [0, 1, 2, 3, 4, 5].map(() => new Slot());
  /** A manifest's worth of scratch, handed from one sealed packer to the next (decoding is synchronous). */
  private static spare: Uint8Array | undefined;
  private readonly slab: Slab = { bytes: StatsPacker.take() };
  private used = 0;
  private fileStart = 0;
  private lastSlot = -1;
  private reorder = false;
  private sealed = false;

  constructor(
    private readonly fields: ReadonlyMap<number, Field>,
    private readonly layouts: Map<string, Layout> = new Map(),
  ) {}

  begin(): void {
    for (const s of this.slots) s.reset();
    this.used = this.fileStart;
    this.lastSlot = -1;
    this.reorder = false;
  }
  /** Map `slot` (0–3: column sizes, value, null, NaN counts; 4–5: lower, upper bounds) is present. */
  present(slot: number): void {
    const s = this.slots[slot]!;
    s.present = true;
    s.start = this.used;
    s.len = 0;
    if (slot < this.lastSlot) this.reorder = true;
    this.lastSlot = slot;
  }
  private reserve(n: number): Uint8Array {
    if (this.used + n > this.slab.bytes.length) {
      const grown = new Uint8Array(Math.max(this.slab.bytes.length * 2, this.used + n));
      grown.set(this.slab.bytes.subarray(0, this.used));
      this.slab.bytes = grown;
    }
    return this.slab.bytes;
  }
  /** A value of `slot` (after `present(slot)`, values of one slot in a row), as its Avro encoding `src[start, end)`. */
  raw(slot: number, id: number, src: Uint8Array, start: number, end: number): void {
    const s = this.slots[slot]!;
    s.ids.push(id);
    // A few bytes each: a loop is cheaper than a subarray view per value.
    const out = this.reserve(end - start);
    let at = this.used;
    for (let i = start; i < end; i++) out[at++] = src[i]!;
    s.len += at - this.used;
    this.used = at;
  }
  count(slot: number, id: number, value: bigint | number): void {
    const s = this.slots[slot]!;
    s.ids.push(id);
    const at = putVarint(this.reserve(10), this.used, value);
    s.len += at - this.used;
    this.used = at;
  }
  bound(slot: number, id: number, value: Uint8Array): void {
    const s = this.slots[slot]!;
    s.ids.push(id);
    const out = this.reserve(10 + value.length);
    let at = putVarint(out, this.used, value.length);
    out.set(value, at);
    at += value.length;
    s.len += at - this.used;
    this.used = at;
  }
  /** The packed stats of the file begun last; undefined when it has none of the six maps. */
  finish(): PackedColumnStats | undefined {
    const slots = this.slots;
    let any = false;
    for (const s of slots) any ||= s.present;
    if (!any) return undefined;
    let layout = this.layouts.get(LAST);
    let same = layout !== undefined;
    for (let i = 0; same && i < 6; i++) same = sameIds(i < 4 ? layout!.counts[i] : layout!.bounds[i - 4], slots[i]!);
    if (!same) {
      const ids = slots.map((s) => (s.present ? s.ids.slice() : undefined));
      const key = ids.map((l) => (l ? l.join(',') : '-')).join('|');
      layout = this.layouts.get(key);
      if (!layout)
        this.layouts.set(key, (layout = { counts: ids.slice(0, 4), bounds: ids.slice(4), fields: this.fields }));
      this.layouts.set(LAST, layout);
    }
    const start = this.fileStart;
    if (this.reorder) {
      const bytes = this.slab.bytes;
      const copy = bytes.slice(start, this.used);
      let at = start;
      for (const s of slots) {
        if (!s.present) continue;
        bytes.set(copy.subarray(s.start - start, s.start - start + s.len), at);
        at += s.len;
      }
    }
    this.fileStart = this.used;
    return new PackedColumnStats(layout!, this.slab, start);
  }
  private static take(): Uint8Array {
    const b = StatsPacker.spare ?? new Uint8Array(64 * 1024);
    StatsPacker.spare = undefined;
    return b;
  }
  /** Copies the slab to an exact-size buffer; the stats handed out read from the copy from now on. */
  seal(): void {
    if (this.sealed) return;
    this.sealed = true;
    this.used = this.fileStart;
    const scratch = this.slab.bytes;
    this.slab.bytes = scratch.slice(0, this.used);
    if (scratch.length <= 16 * 1024 * 1024) StatsPacker.spare = scratch;
  }
}

export class PackedColumnStats implements ColumnStats {
  /** @internal use StatsPacker or fromAvro. */
  constructor(
    private readonly layout: Layout,
    /** The count values in layout order, then each bound as (length, bytes); varints as in putVarint. */
    private readonly slab: Slab,
    private readonly start: number,
  ) {}

  /**
   * From the Avro `data_file` fields (arrays of {key, value}); undefined when the entry has no stats at
   * all. `fields` decodes bounds (columns no longer in any schema stay raw bytes, as before); `layouts`
   * shares the id layout between the files of a manifest.
   */
  static fromAvro(
    maps: AvroStatsMaps,
    fields: ReadonlyMap<number, Field>,
    layouts: Map<string, Layout> = new Map(),
    /** The manifest's packer (then the caller seals it); by default one for this file alone. */
    packer?: StatsPacker,
  ): PackedColumnStats | undefined {
    const p = packer ?? new StatsPacker(fields, layouts);
    p.begin();
    packAvroMaps(p, maps);
    const out = p.finish();
    if (!packer) p.seal();
    return out;
  }

  /**
   * @internal The parts the stats are made of, for handing them from a worker thread to another
   * (manifest-wire.ts): the id layout, the manifest's slab, where this file's values start.
   */
  wireParts(): { layout: Layout; slab: Slab; start: number } {
    return { layout: this.layout, slab: this.slab, start: this.start };
  }

  /** Walks the packed values up to map `slot` (0–3 counts, 4–5 bounds) and decodes it. */
  private read(slot: number): Map<number, unknown> | undefined {
    const { counts, bounds } = this.layout;
    const target = slot < 4 ? counts[slot] : bounds[slot - 4];
    if (!target) return undefined;
    const c = new Cursor(this.slab.bytes, this.start);
    for (let s = 0; s < slot; s++) {
      const l = s < 4 ? counts[s] : bounds[s - 4];
      if (!l) continue;
      for (let i = 0; i < l.length; i++) {
        if (s < 4) c.varint();
        else c.bytes(Number(c.varint()));
      }
    }
    const m = new Map<number, unknown>();
    for (const id of target) {
      if (slot < 4) m.set(id, c.varint());
      else {
        const b = c.bytes(Number(c.varint()));
        const f = this.layout.fields.get(id);
        m.set(id, f ? safeDecode(f.type, b) : new Uint8Array(b));
      }
    }
    return m;
  }

  get columnSizes(): Map<number, bigint> | undefined {
    return this.read(0) as Map<number, bigint> | undefined;
  }
  get valueCounts(): Map<number, bigint> | undefined {
    return this.read(1) as Map<number, bigint> | undefined;
  }
  get nullValueCounts(): Map<number, bigint> | undefined {
    return this.read(2) as Map<number, bigint> | undefined;
  }
  get nanValueCounts(): Map<number, bigint> | undefined {
    return this.read(3) as Map<number, bigint> | undefined;
  }
  get lowerBounds(): Map<number, unknown> | undefined {
    return this.read(4);
  }
  get upperBounds(): Map<number, unknown> | undefined {
    return this.read(5);
  }

  /** Plain maps, e.g. to compare with or to mutate. */
  toPlain(): ColumnStats {
    const out: ColumnStats = {};
    const put = <K extends keyof ColumnStats>(k: K, v: ColumnStats[K] | undefined) => {
      if (v !== undefined) out[k] = v;
    };
    put('columnSizes', this.columnSizes);
    put('valueCounts', this.valueCounts);
    put('nullValueCounts', this.nullValueCounts);
    put('nanValueCounts', this.nanValueCounts);
    put('lowerBounds', this.lowerBounds);
    put('upperBounds', this.upperBounds);
    return out;
  }
}
