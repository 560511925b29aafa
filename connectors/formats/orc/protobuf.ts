/**
 * Just enough of the protobuf wire format to read ORC's file tail: a message is parsed into its fields by
 * number, and typed accessors pick values out. Varints are kept as bigint so uint64/sint64 stay exact; the
 * accessors convert to number only where ORC's values (lengths, counts, enums) are known to be small.
 */
import { FloeError } from '../../../util/errors.js';

/** A varint (bigint), a length-delimited payload (Uint8Array) or a fixed32/fixed64 payload (Uint8Array). */
export type WireValue = { wire: 0; v: bigint } | { wire: 1 | 2 | 5; bytes: Uint8Array };

export type ProtoMessage = Map<number, WireValue[]>;

function fail(file: string, what: string, msg: string): never {
  throw new FloeError('Corrupt', `corrupt ORC file ${file}: ${what}: ${msg}`, { context: { file } });
}

/** Reads one base-128 varint at `pos`; returns the value and the position after it. */
export function readVarint(buf: Uint8Array, pos: number, file: string, what: string): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) fail(file, what, 'truncated varint');
    const b = buf[pos++]!;
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7n;
    if (shift > 63n) fail(file, what, 'varint longer than 10 bytes');
  }
}

/** Splits a serialized message into its fields; repeated fields keep their order. */
export function parseMessage(buf: Uint8Array, file: string, what: string): ProtoMessage {
  const fields: ProtoMessage = new Map();
  let pos = 0;
  while (pos < buf.length) {
    let key: bigint;
    [key, pos] = readVarint(buf, pos, file, what);
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field === 0) fail(file, what, 'field number 0');
    let value: WireValue;
    if (wire === 0) {
      let v: bigint;
      [v, pos] = readVarint(buf, pos, file, what);
      value = { wire: 0, v };
    } else if (wire === 2) {
      let len: bigint;
      [len, pos] = readVarint(buf, pos, file, what);
      if (BigInt(pos) + len > BigInt(buf.length)) fail(file, what, `field ${field} runs past the end`);
      value = { wire: 2, bytes: buf.subarray(pos, pos + Number(len)) };
      pos += Number(len);
    } else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      if (pos + n > buf.length) fail(file, what, `field ${field} runs past the end`);
      value = { wire, bytes: buf.subarray(pos, pos + n) };
      pos += n;
    } else {
      fail(file, what, `unsupported wire type ${wire} for field ${field}`);
    }
    const list = fields.get(field);
    if (list) list.push(value);
    else fields.set(field, [value]);
  }
  return fields;
}

/** Typed access to a parsed message; `what` names the message in errors. */
export class Proto {
  readonly fields: ProtoMessage;
  constructor(
    buf: Uint8Array,
    readonly file: string,
    readonly what: string,
  ) {
    this.fields = parseMessage(buf, file, what);
  }

  has(field: number): boolean {
    return this.fields.has(field);
  }

  private wrong(field: number, expected: string): never {
    fail(this.file, this.what, `field ${field} is not ${expected}`);
  }

  /** Last occurrence wins, as protobuf specifies for singular fields. */
  private last(field: number): WireValue | undefined {
    const l = this.fields.get(field);
    return l ? l[l.length - 1] : undefined;
  }

  uint64(field: number): bigint | undefined {
    const v = this.last(field);
    if (v === undefined) return undefined;
    if (v.wire !== 0) this.wrong(field, 'a varint');
    return v.v;
  }

  /** A uint that must fit a JS number (lengths, counts, enum values). */
  uint(field: number, dflt?: number): number | undefined {
    const v = this.uint64(field);
    if (v === undefined) return dflt;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) fail(this.file, this.what, `field ${field} value ${v} is too large`);
    return Number(v);
  }

  /** zig-zag decoded sint64. */
  sint64(field: number): bigint | undefined {
    const v = this.uint64(field);
    return v === undefined ? undefined : zigzag(v);
  }

  bytes(field: number): Uint8Array | undefined {
    const v = this.last(field);
    if (v === undefined) return undefined;
    if (v.wire !== 2) this.wrong(field, 'length-delimited');
    return v.bytes;
  }

  string(field: number): string | undefined {
    const b = this.bytes(field);
    return b === undefined ? undefined : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
  }

  repeatedStrings(field: number): string[] {
    return (this.fields.get(field) ?? []).map((v) => {
      if (v.wire !== 2) this.wrong(field, 'length-delimited');
      return Buffer.from(v.bytes.buffer, v.bytes.byteOffset, v.bytes.byteLength).toString('utf8');
    });
  }

  repeatedMessages(field: number, what: string): Proto[] {
    return (this.fields.get(field) ?? []).map((v) => {
      if (v.wire !== 2) this.wrong(field, 'a message');
      return new Proto(v.bytes, this.file, what);
    });
  }

  message(field: number, what: string): Proto | undefined {
    const b = this.bytes(field);
    return b === undefined ? undefined : new Proto(b, this.file, what);
  }

  /** Repeated varints, accepting both the packed and the unpacked encoding (parsers must take either). */
  repeatedUints(field: number): number[] {
    const out: number[] = [];
    for (const v of this.fields.get(field) ?? []) {
      if (v.wire === 0) out.push(Number(v.v));
      else if (v.wire === 2) {
        let pos = 0;
        while (pos < v.bytes.length) {
          let x: bigint;
          [x, pos] = readVarint(v.bytes, pos, this.file, this.what);
          out.push(Number(x));
        }
      } else this.wrong(field, 'varints');
    }
    return out;
  }
}

export function zigzag(v: bigint): bigint {
  return (v & 1n) === 0n ? v >> 1n : -((v >> 1n) + 1n);
}
