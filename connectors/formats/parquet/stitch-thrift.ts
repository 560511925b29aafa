/**
 * Thrift compact protocol, typed both ways, for row-group stitching. Stitching rewrites a handful of
 * offsets in a footer written by some other engine and must keep everything else exactly as it was
 * (statistics, encoding stats, size statistics, fields newer than this code), so structs are read into a
 * tree that remembers every field's wire type and written back from it. hyparquet's reader drops the
 * i16/i32/i8 distinction and the element type of empty lists, so it cannot be used for the round trip.
 *
 * Wire format (Apache Thrift TCompactProtocol): field header = (id delta << 4 | type) or (type, zigzag
 * i16 id); ints are zigzag varints; binary = varint length + bytes; list/set = (size << 4 | elem type),
 * or (0xF0 | elem type) + varint size; struct ends with a 0 byte.
 */

export const T = {
  STOP: 0,
  TRUE: 1,
  FALSE: 2,
  BYTE: 3,
  I16: 4,
  I32: 5,
  I64: 6,
  DOUBLE: 7,
  BINARY: 8,
  LIST: 9,
  SET: 10,
  MAP: 11,
  STRUCT: 12,
} as const;

export type TValue = boolean | number | bigint | Uint8Array | TList | TStruct;

export interface TList {
  kind: 'list';
  /** T.LIST or T.SET */
  wire: number;
  elemType: number;
  items: TValue[];
}

export interface TField {
  id: number;
  /** Wire type; booleans are stored as T.TRUE whatever their value. */
  type: number;
  value: TValue;
}

/** A struct with its fields in wire order. */
export class TStruct {
  readonly kind = 'struct';
  constructor(public fields: TField[] = []) {}

  get(id: number): TValue | undefined {
    return this.fields.find((f) => f.id === id)?.value;
  }
  has(id: number): boolean {
    return this.fields.some((f) => f.id === id);
  }
  /** Replaces the value (keeping the field's position) or appends the field. */
  set(id: number, type: number, value: TValue): void {
    const f = this.fields.find((x) => x.id === id);
    if (f) {
      f.type = type;
      f.value = value;
    } else this.fields.push({ id, type, value });
  }
  delete(id: number): void {
    this.fields = this.fields.filter((f) => f.id !== id);
  }
  /** Shallow-enough copy for editing: nested structs and lists are copied, byte arrays shared. */
  clone(): TStruct {
    return new TStruct(this.fields.map((f) => ({ ...f, value: cloneValue(f.value) })));
  }
  struct(id: number): TStruct | undefined {
    const v = this.get(id);
    return v instanceof TStruct ? v : undefined;
  }
  list(id: number): TList | undefined {
    const v = this.get(id);
    return isList(v) ? v : undefined;
  }
  int(id: number): number | undefined {
    const v = this.get(id);
    return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined;
  }
}

export function isList(v: TValue | undefined): v is TList {
  return (
    typeof v === 'object' && v !== null && !(v instanceof Uint8Array) && !(v instanceof TStruct) && v.kind === 'list'
  );
}

function cloneValue(v: TValue): TValue {
  if (v instanceof TStruct) return v.clone();
  if (isList(v)) return { ...v, items: v.items.map(cloneValue) };
  return v;
}

// ---------------------------------------------------------------- reading

export class ThriftReader {
  offset: number;
  private readonly view: DataView;
  constructor(
    private readonly bytes: Uint8Array,
    offset = 0,
    private readonly end = bytes.byteLength,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.offset = offset;
  }

  private byte(): number {
    if (this.offset >= this.end) throw new Error('thrift data ends early');
    return this.bytes[this.offset++]!;
  }

  private varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
      if (shift > 70n) throw new Error('thrift varint too long');
    }
  }

  /** Varints of up to 28 bits (lengths, i16/i32 zigzag) without BigInt, which dominates page walks otherwise. */
  private smallVarint(): number {
    let result = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      const b = this.byte();
      result |= (b & 0x7f) << shift;
      if (!(b & 0x80)) return result >>> 0;
    }
    const rest = this.varint(); // rare: values of 2^28 and more
    const v = BigInt(result >>> 0) + (rest << 28n);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('thrift value too large');
    return Number(v);
  }

  private zigzag(): bigint {
    const z = this.varint();
    return (z >> 1n) ^ -(z & 1n);
  }

  private zigzag32(): number {
    const z = this.smallVarint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  readStruct(): TStruct {
    const out = new TStruct();
    let id = 0;
    for (;;) {
      const head = this.byte();
      const type = head & 0x0f;
      if (type === T.STOP) return out;
      const delta = head >> 4;
      id = delta ? id + delta : this.zigzag32();
      if (type === T.TRUE || type === T.FALSE) out.fields.push({ id, type: T.TRUE, value: type === T.TRUE });
      else out.fields.push({ id, type, value: this.readValue(type) });
    }
  }

  private readValue(type: number): TValue {
    switch (type) {
      case T.TRUE:
      case T.FALSE:
        return this.byte() === T.TRUE; // list elements: one byte each
      case T.BYTE: {
        const b = this.byte();
        return b > 127 ? b - 256 : b;
      }
      case T.I16:
      case T.I32:
        return this.zigzag32();
      case T.I64:
        return this.zigzag();
      case T.DOUBLE: {
        if (this.offset + 8 > this.end) throw new Error('thrift data ends early');
        const v = this.view.getFloat64(this.offset, true);
        this.offset += 8;
        return v;
      }
      case T.BINARY: {
        const n = this.smallVarint();
        if (this.offset + n > this.end) throw new Error(`thrift binary of ${n} bytes runs past the end`);
        const v = this.bytes.subarray(this.offset, this.offset + n);
        this.offset += n;
        return v;
      }
      case T.LIST:
      case T.SET: {
        const head = this.byte();
        const elemType = head & 0x0f;
        let size = head >> 4;
        if (size === 15) size = this.smallVarint();
        if (size > this.end - this.offset) throw new Error(`thrift list of ${size} elements runs past the end`);
        const items: TValue[] = new Array(size);
        for (let i = 0; i < size; i++) items[i] = this.readValue(elemType);
        return { kind: 'list', wire: type, elemType, items };
      }
      case T.STRUCT:
        return this.readStruct();
      default:
        throw new Error(`thrift type ${type} is not used by Parquet`);
    }
  }
}

/** Reads one struct at `offset`; `end` is where the reader must stop. */
export function readThriftStruct(
  bytes: Uint8Array,
  offset = 0,
  end = bytes.byteLength,
): { value: TStruct; end: number } {
  const r = new ThriftReader(bytes, offset, end);
  const value = r.readStruct();
  return { value, end: r.offset };
}

// ---------------------------------------------------------------- writing

export class ThriftWriter {
  private buf = new Uint8Array(1024);
  private len = 0;

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  private byte(b: number): void {
    this.ensure(1);
    this.buf[this.len++] = b & 0xff;
  }

  private varint(v: bigint): void {
    if (v < 0n) throw new Error('thrift varint must be unsigned');
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) b |= 0x80;
      this.byte(b);
    } while (v > 0n);
  }

  private zigzag(v: bigint, bits: bigint): void {
    this.varint(BigInt.asUintN(Number(bits), (v << 1n) ^ (v >> (bits - 1n))));
  }

  writeStruct(s: TStruct): void {
    let last = 0;
    // Field ids must be emitted in a form the delta encoding can express; any order is legal.
    for (const f of s.fields) {
      const type = f.type === T.TRUE || f.type === T.FALSE ? (f.value ? T.TRUE : T.FALSE) : f.type;
      const delta = f.id - last;
      if (delta > 0 && delta <= 15) this.byte((delta << 4) | type);
      else {
        this.byte(type);
        this.zigzag(BigInt(f.id), 16n);
      }
      last = f.id;
      if (type !== T.TRUE && type !== T.FALSE) this.writeValue(type, f.value);
    }
    this.byte(T.STOP);
  }

  private writeValue(type: number, v: TValue): void {
    switch (type) {
      case T.TRUE:
      case T.FALSE:
        this.byte(v ? T.TRUE : T.FALSE);
        return;
      case T.BYTE:
        this.byte(Number(v));
        return;
      case T.I16:
        this.zigzag(BigInt(v as number), 16n);
        return;
      case T.I32:
        this.zigzag(BigInt(v as number), 32n);
        return;
      case T.I64:
        this.zigzag(BigInt(v as bigint | number), 64n);
        return;
      case T.DOUBLE: {
        this.ensure(8);
        new DataView(this.buf.buffer, this.buf.byteOffset).setFloat64(this.len, v as number, true);
        this.len += 8;
        return;
      }
      case T.BINARY: {
        const b = v as Uint8Array;
        this.varint(BigInt(b.byteLength));
        this.ensure(b.byteLength);
        this.buf.set(b, this.len);
        this.len += b.byteLength;
        return;
      }
      case T.LIST:
      case T.SET: {
        const l = v as TList;
        if (l.items.length < 15) this.byte((l.items.length << 4) | l.elemType);
        else {
          this.byte(0xf0 | l.elemType);
          this.varint(BigInt(l.items.length));
        }
        for (const item of l.items) this.writeValue(l.elemType, item);
        return;
      }
      case T.STRUCT:
        this.writeStruct(v as TStruct);
        return;
      default:
        throw new Error(`thrift type ${type} is not used by Parquet`);
    }
  }

  bytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

export function writeThriftStruct(s: TStruct): Uint8Array {
  const w = new ThriftWriter();
  w.writeStruct(s);
  return w.bytes();
}
