/**
 * ORC's run-length encodings: byte RLE, boolean RLE (bits MSB-first over byte RLE), integer RLE v1 and
 * integer RLE v2 (short repeat, direct, patched base, delta). Integers decode to bigint so 64-bit columns
 * stay exact; callers narrow to number for 8/16/32-bit types.
 *
 * Every decoder reads exactly `count` values and throws Corrupt (naming the file and stream) when the
 * stream ends early or a header is impossible.
 */
import { FloeError } from '../../../util/errors.js';

/** A cursor over one decompressed stream; `what` names the column and stream for error messages. */
export class ByteCursor {
  pos = 0;
  constructor(
    readonly buf: Uint8Array,
    readonly file: string,
    readonly what: string,
  ) {}

  fail(msg: string): never {
    throw new FloeError('Corrupt', `corrupt ORC file ${this.file}: ${this.what}: ${msg} (at byte ${this.pos})`, {
      context: { file: this.file, stream: this.what, offset: this.pos },
    });
  }

  byte(): number {
    if (this.pos >= this.buf.length) this.fail('stream ends early');
    return this.buf[this.pos++]!;
  }

  bytes(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) this.fail(`stream ends early (needed ${n} bytes)`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) this.fail('varint longer than 10 bytes');
    }
  }

  /** Big-endian unsigned integer of `n` bytes. */
  bigEndian(n: number): bigint {
    let v = 0n;
    for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(this.byte());
    return v;
  }
}

export const unzigzag = (v: bigint): bigint => ((v & 1n) === 0n ? v >> 1n : -((v >> 1n) + 1n));

// ------------------------------------------------------------------------------------------ byte / boolean

/** Byte RLE: control 0..127 = run of (control + 3) copies of the next byte; 128..255 = (256 - control) literals. */
export function decodeByteRle(c: ByteCursor, count: number): Uint8Array {
  // two bytes expand to at most 130 values: refuse impossible counts before allocating for them
  const room = (c.buf.length - c.pos) * 65;
  if (count > room) c.fail(`expects ${count} values but the stream can hold at most ${room}`);
  const out = new Uint8Array(count);
  let n = 0;
  while (n < count) {
    const control = c.byte();
    if (control < 0x80) {
      const len = control + 3;
      const v = c.byte();
      if (n + len > count) c.fail(`byte run of ${len} overshoots the ${count} values expected`);
      out.fill(v, n, n + len);
      n += len;
    } else {
      const len = 256 - control;
      if (n + len > count) c.fail(`byte literals of ${len} overshoot the ${count} values expected`);
      out.set(c.bytes(len), n);
      n += len;
    }
  }
  return out;
}

/** Boolean RLE: byte RLE whose bytes hold 8 values each, most significant bit first. */
export function decodeBooleanRle(c: ByteCursor, count: number): boolean[] {
  const bytes = decodeByteRle(c, Math.ceil(count / 8));
  const out = new Array<boolean>(count);
  for (let i = 0; i < count; i++) out[i] = ((bytes[i >> 3]! >> (7 - (i & 7))) & 1) === 1;
  return out;
}

// ------------------------------------------------------------------------------------------- integer v1

/**
 * RLE v1: control 0..127 = run of (control + 3) values starting at a varint base with a signed byte delta;
 * 128..255 = (256 - control) literal varints. Signed streams zig-zag the varints.
 */
export function decodeIntRleV1(c: ByteCursor, count: number, signed: boolean): bigint[] {
  const out: bigint[] = [];
  const read = () => (signed ? unzigzag(c.varint()) : c.varint());
  while (out.length < count) {
    const control = c.byte();
    if (control < 0x80) {
      const len = control + 3;
      const deltaByte = c.byte();
      const delta = BigInt(deltaByte < 0x80 ? deltaByte : deltaByte - 256);
      const base = read();
      if (out.length + len > count) c.fail(`integer run of ${len} overshoots the ${count} values expected`);
      for (let i = 0; i < len; i++) out.push(base + BigInt(i) * delta);
    } else {
      const len = 256 - control;
      if (out.length + len > count) c.fail(`integer literals of ${len} overshoot the ${count} values expected`);
      for (let i = 0; i < len; i++) out.push(read());
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------- integer v2

/** The 5-bit width code of RLE v2 headers → bit width (code 0 means 0 bits for delta, 1 bit otherwise). */
export function decodeWidth(code: number, delta = false): number {
  if (code === 0 && delta) return 0;
  if (code <= 23) return code + 1;
  return [26, 28, 30, 32, 40, 48, 56, 64][code - 24]!;
}

/** The smallest width RLE v2 can express that holds `bits` (patch entries are packed at this width). */
export function closestFixedBits(bits: number): number {
  if (bits <= 24) return Math.max(bits, 1);
  for (const w of [26, 28, 30, 32, 40, 48, 56, 64]) if (bits <= w) return w;
  return 64;
}

/** `n` big-endian bit-packed unsigned values of `width` bits; the group is padded to a whole byte. */
function readPacked(c: ByteCursor, n: number, width: number): bigint[] {
  const out = new Array<bigint>(n);
  if (width === 0) return out.fill(0n);
  const bytes = c.bytes(Math.ceil((n * width) / 8));
  let bitPos = 0;
  for (let i = 0; i < n; i++) {
    let v = 0n;
    let need = width;
    while (need > 0) {
      const byte = bytes[bitPos >> 3]!;
      const avail = 8 - (bitPos & 7);
      const take = Math.min(avail, need);
      const bits = (byte >> (avail - take)) & ((1 << take) - 1);
      v = (v << BigInt(take)) | BigInt(bits);
      need -= take;
      bitPos += take;
    }
    out[i] = v;
  }
  return out;
}

/** Decodes `count` integers from an RLE v2 stream (signed streams zig-zag their values). */
export function decodeIntRleV2(c: ByteCursor, count: number, signed: boolean): bigint[] {
  const out: bigint[] = [];
  const push = (vals: bigint[]) => {
    if (out.length + vals.length > count)
      c.fail(`RLE v2 group of ${vals.length} overshoots the ${count} values expected`);
    for (const v of vals) out.push(v);
  };
  while (out.length < count) {
    const first = c.byte();
    switch (first >> 6) {
      case 0:
        push(shortRepeat(c, first, signed));
        break;
      case 1:
        push(direct(c, first, signed));
        break;
      case 2:
        push(patchedBase(c, first));
        break;
      default:
        push(delta(c, first, signed));
        break;
    }
  }
  return out;
}

/** Short repeat: 3 bits width-1 (bytes), 3 bits count-3; one big-endian value repeated. */
function shortRepeat(c: ByteCursor, first: number, signed: boolean): bigint[] {
  const width = ((first >> 3) & 7) + 1;
  const repeat = (first & 7) + 3;
  let v = c.bigEndian(width);
  if (signed) v = unzigzag(v);
  return new Array<bigint>(repeat).fill(v);
}

/** Length (1..512) from the low bit of the first header byte and the whole second byte. */
function runLength(c: ByteCursor, first: number): number {
  return (((first & 1) << 8) | c.byte()) + 1;
}

/** Direct: 5-bit width code, 9-bit length-1; values bit-packed big-endian. */
function direct(c: ByteCursor, first: number, signed: boolean): bigint[] {
  const width = decodeWidth((first >> 1) & 0x1f);
  const len = runLength(c, first);
  const vals = readPacked(c, len, width);
  return signed ? vals.map(unzigzag) : vals;
}

/**
 * Patched base: values are base + W-bit offsets; a patch list ORs the high bits of the few outliers back in.
 * Each patch entry is (gap, patch) packed together at the closest fixed width of PGW + PW bits; the gap
 * counts positions from the previous patch.
 */
function patchedBase(c: ByteCursor, first: number): bigint[] {
  const width = decodeWidth((first >> 1) & 0x1f);
  const len = runLength(c, first);
  const third = c.byte();
  const fourth = c.byte();
  const baseBytes = ((third >> 5) & 7) + 1;
  const patchWidth = decodeWidth(third & 0x1f);
  const gapWidth = ((fourth >> 5) & 7) + 1;
  const patchCount = fourth & 0x1f;
  if (gapWidth + patchWidth > 64) c.fail(`patch gap width ${gapWidth} + patch width ${patchWidth} exceed 64 bits`);

  // base: big-endian, the top bit of its first byte is a sign flag
  let base = c.bigEndian(baseBytes);
  const signBit = 1n << BigInt(baseBytes * 8 - 1);
  if (base & signBit) base = -(base & (signBit - 1n));

  const vals = readPacked(c, len, width);
  const entryWidth = closestFixedBits(gapWidth + patchWidth);
  const entries = readPacked(c, patchCount, entryWidth);
  const patchMask = (1n << BigInt(patchWidth)) - 1n;
  let at = 0;
  for (const e of entries) {
    at += Number(e >> BigInt(patchWidth));
    const patch = e & patchMask;
    if (patch === 0n) continue; // a filler entry that only advances past a gap wider than PGW allows
    if (at >= len) c.fail(`patch position ${at} is outside the ${len} values of the group`);
    vals[at] = vals[at]! | (patch << BigInt(width));
  }
  return vals.map((v) => base + v);
}

/**
 * Delta: a base varint, a signed first delta, then L-2 unsigned W-bit deltas whose direction follows the
 * first delta's sign. W = 0 means every delta equals the first (arithmetic sequence).
 */
function delta(c: ByteCursor, first: number, signed: boolean): bigint[] {
  const width = decodeWidth((first >> 1) & 0x1f, true);
  const len = runLength(c, first);
  const base = signed ? unzigzag(c.varint()) : c.varint();
  const firstDelta = unzigzag(c.varint());
  const out: bigint[] = [base];
  if (len === 1) return out;
  out.push(base + firstDelta);
  if (width === 0) {
    for (let i = 2; i < len; i++) out.push(out[i - 1]! + firstDelta);
  } else {
    const deltas = readPacked(c, len - 2, width);
    const negative = firstDelta < 0n;
    for (const d of deltas) out.push(negative ? out[out.length - 1]! - d : out[out.length - 1]! + d);
  }
  return out;
}
