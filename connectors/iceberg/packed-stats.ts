/**
 * Column statistics of a manifest entry, kept packed (issue 11.6): the field-id layout once per
 * manifest, and per file one byte buffer with the counts as varints and the bounds' raw single-value
 * bytes, decoded only when asked for. Six `Map`s with BigInt values and decoded bounds per file cost ~3 KB; this costs a few
 * hundred bytes, so a million-file table model fits in memory.
 *
 * The getters build a fresh Map on every access (read-only use: planners, filters and metrics call
 * `.get(id)`); a caller that wants to mutate stats should copy them into its own maps.
 */
import type { ColumnStats, Field, FieldType } from '../../src/model/index.js';
import { decodeSingleValue } from './values.js';

type AvroPairs<V> = readonly { key: number; value: V }[] | null | undefined;

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
interface Layout {
  counts: (readonly number[] | undefined)[];
  bounds: (readonly number[] | undefined)[];
  fields: ReadonlyMap<number, Field>;
}

const SAFE = 2 ** 52;

/** Appends v (≥ 0 → 2v, < 0 → −2v − 1, as unsigned LEB128); plain number arithmetic when it is exact. */
function putVarint(out: number[], value: bigint | number): void {
  if (
    typeof value === 'number'
      ? Number.isSafeInteger(value) && Math.abs(value) < SAFE
      : value < BigInt(SAFE) && value > -BigInt(SAFE)
  ) {
    const v = Number(value);
    let z = v >= 0 ? v * 2 : -v * 2 - 1;
    while (z >= 0x80) {
      out.push((z % 0x80) | 0x80);
      z = Math.floor(z / 0x80);
    }
    out.push(z);
    return;
  }
  const v = BigInt(value);
  let z = v >= 0n ? v << 1n : (-v << 1n) - 1n;
  while (z >= 0x80n) {
    out.push(Number(z & 0x7fn) | 0x80);
    z >>= 7n;
  }
  out.push(Number(z));
}

class Cursor {
  at = 0;
  constructor(private readonly b: Uint8Array) {}
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

function sameIds(ids: readonly number[] | undefined, m: AvroPairs<unknown>): boolean {
  if (!Array.isArray(m)) return ids === undefined;
  if (!ids || ids.length !== m.length) return false;
  for (let i = 0; i < ids.length; i++) if (ids[i] !== Number(m[i]!.key)) return false;
  return true;
}

function sameLayout(l: Layout, counts: AvroPairs<unknown>[], bounds: AvroPairs<unknown>[]): boolean {
  for (let i = 0; i < counts.length; i++) if (!sameIds(l.counts[i], counts[i])) return false;
  for (let i = 0; i < bounds.length; i++) if (!sameIds(l.bounds[i], bounds[i])) return false;
  return true;
}

export class PackedColumnStats implements ColumnStats {
  private constructor(
    private readonly layout: Layout,
    /** The count values in layout order, then each bound as (length, bytes); varints as in putVarint. */
    private readonly packed: Uint8Array,
  ) {}

  /**
   * From the Avro `data_file` fields (arrays of {key, value}); undefined when the entry has no stats at
   * all. `fields` decodes bounds (columns no longer in any schema stay raw bytes, as before); `layouts`
   * shares the id layout between the files of a manifest.
   */
  static fromAvro(
    maps: {
      columnSizes: AvroPairs<unknown>;
      valueCounts: AvroPairs<unknown>;
      nullValueCounts: AvroPairs<unknown>;
      nanValueCounts: AvroPairs<unknown>;
      lowerBounds: AvroPairs<Uint8Array>;
      upperBounds: AvroPairs<Uint8Array>;
    },
    fields: ReadonlyMap<number, Field>,
    layouts: Map<string, Layout> = new Map(),
  ): PackedColumnStats | undefined {
    const counts = [maps.columnSizes, maps.valueCounts, maps.nullValueCounts, maps.nanValueCounts];
    const bounds = [maps.lowerBounds, maps.upperBounds];
    if (counts.every((m) => !Array.isArray(m)) && bounds.every((m) => !Array.isArray(m))) return undefined;
    let layout = layouts.get(LAST) as Layout | undefined;
    if (!layout || !sameLayout(layout, counts, bounds)) {
      const ids = (m: AvroPairs<unknown>) => (Array.isArray(m) ? m.map((e) => Number(e.key)) : undefined);
      const countIds = counts.map(ids);
      const boundIds = bounds.map(ids);
      const key = [...countIds, ...boundIds].map((l) => (l ? l.join(',') : '-')).join('|');
      layout = layouts.get(key);
      if (!layout) layouts.set(key, (layout = { counts: countIds, bounds: boundIds, fields }));
      layouts.set(LAST, layout);
    }
    const out: number[] = [];
    for (const m of counts) if (Array.isArray(m)) for (const e of m) putVarint(out, e.value as bigint | number);
    for (const m of bounds) {
      if (!Array.isArray(m)) continue;
      for (const e of m) {
        putVarint(out, BigInt(e.value.length));
        for (const byte of e.value) out.push(byte);
      }
    }
    return new PackedColumnStats(layout, Uint8Array.from(out));
  }

  /** Walks the packed values up to map `slot` (0–3 counts, 4–5 bounds) and decodes it. */
  private read(slot: number): Map<number, unknown> | undefined {
    const { counts, bounds } = this.layout;
    const target = slot < 4 ? counts[slot] : bounds[slot - 4];
    if (!target) return undefined;
    const c = new Cursor(this.packed);
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
