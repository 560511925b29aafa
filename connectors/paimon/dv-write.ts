/**
 * Writing Paimon deletion-vector index files (the 32-bit layout Java 1.3 writes by default): the version
 * byte 1, then per data file an int32-BE size, the DV bytes (magic 1581511376 BE + a portable
 * RoaringBitmap after `runOptimize`), and an int32-BE CRC32 of the DV bytes (`BitmapDeletionVector.
 * serializeTo`, `DeletionFileWriter`). The index manifest's range points at the size int (`f1`) and
 * gives the DV byte count (`f2`) and the cardinality.
 */
import { crc32 } from '../formats/compression.js';
import { FloeError } from '../../util/errors.js';
import { DV_MAGIC_32 } from './deletion-vector.js';
import type { DeletionVectorRange } from './manifest.js';

const SERIAL_COOKIE_NO_RUNCONTAINER = 12346;
const SERIAL_COOKIE = 12347;
const NO_OFFSET_THRESHOLD = 4;
const MAX_32 = 2 ** 31 - 1;

type Container =
  | { kind: 'array'; key: number; values: number[] }
  | { kind: 'bitmap'; key: number; values: number[] }
  | { kind: 'run'; key: number; runs: [number, number][]; card: number };

function runsOf(values: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const v of values) {
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] + 1 === v) last[1]++;
    else runs.push([v, 0]);
  }
  return runs;
}

/** One container as Java's RoaringBitmap holds it after `runOptimize` (run form only when strictly smaller). */
function container(key: number, low: number[]): Container {
  const runs = runsOf(low);
  const asRun = 2 + 4 * runs.length;
  const asIs = low.length > 4096 ? 8192 : 2 * low.length;
  if (asIs > asRun) return { kind: 'run', key, runs, card: low.length };
  return low.length > 4096 ? { kind: 'bitmap', key, values: low } : { kind: 'array', key, values: low };
}

const containerBytes = (c: Container) =>
  c.kind === 'run' ? 2 + 4 * c.runs.length : c.kind === 'bitmap' ? 8192 : 2 * c.values.length;
const cardinality = (c: Container) => (c.kind === 'run' ? c.card : c.values.length);

/** Serializes ascending, distinct positions (0 … 2^31−1) as a portable 32-bit RoaringBitmap. */
export function serializePortableRoaring(positions: readonly number[]): Uint8Array {
  const containers: Container[] = [];
  let i = 0;
  while (i < positions.length) {
    const key = Math.floor(positions[i]! / 65536);
    const low: number[] = [];
    while (i < positions.length && Math.floor(positions[i]! / 65536) === key) low.push(positions[i++]! % 65536);
    containers.push(container(key, low));
  }
  const size = containers.length;
  const hasRun = containers.some((c) => c.kind === 'run');
  const header = hasRun
    ? 4 + ((size + 7) >> 3) + 4 * size + (size >= NO_OFFSET_THRESHOLD ? 4 * size : 0)
    : 8 + 8 * size;
  const total = header + containers.reduce((n, c) => n + containerBytes(c), 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let pos = 0;
  if (hasRun) {
    view.setUint32(pos, (SERIAL_COOKIE | ((size - 1) << 16)) >>> 0, true);
    pos += 4;
    containers.forEach((c, k) => {
      if (c.kind === 'run') out[pos + (k >> 3)]! |= 1 << (k & 7);
    });
    pos += (size + 7) >> 3;
  } else {
    view.setUint32(pos, SERIAL_COOKIE_NO_RUNCONTAINER, true);
    view.setUint32(pos + 4, size, true);
    pos += 8;
  }
  for (const c of containers) {
    view.setUint16(pos, c.key, true);
    view.setUint16(pos + 2, cardinality(c) - 1, true);
    pos += 4;
  }
  if (!hasRun || size >= NO_OFFSET_THRESHOLD) {
    let offset = header;
    for (const c of containers) {
      view.setUint32(pos, offset, true);
      pos += 4;
      offset += containerBytes(c);
    }
  }
  for (const c of containers) {
    if (c.kind === 'run') {
      view.setUint16(pos, c.runs.length, true);
      pos += 2;
      for (const [s, len] of c.runs) {
        view.setUint16(pos, s, true);
        view.setUint16(pos + 2, len, true);
        pos += 4;
      }
    } else if (c.kind === 'bitmap') {
      for (const v of c.values) out[pos + (v >> 3)]! |= 1 << (v & 7);
      pos += 8192;
    } else {
      for (const v of c.values) {
        view.setUint16(pos, v, true);
        pos += 2;
      }
    }
  }
  return out;
}

/** `BitmapDeletionVector.serializeTo`: size, magic + bitmap, CRC32. Returns the bytes and the size value. */
export function serializeDeletionVector(positions: readonly number[], dataFile: string): Uint8Array {
  const sorted = [...new Set(positions)].sort((a, b) => a - b);
  if (sorted.length && (sorted[0]! < 0 || sorted[sorted.length - 1]! > MAX_32)) {
    throw new FloeError(
      'Unsupported',
      `deletion vector of ${dataFile}: row position beyond 2^31 − 1 needs deletion-vectors.bitmap64, which floe does not write`,
      { context: { file: dataFile } },
    );
  }
  const bitmap = serializePortableRoaring(sorted);
  const body = new Uint8Array(4 + bitmap.length);
  new DataView(body.buffer).setInt32(0, DV_MAGIC_32, false);
  body.set(bitmap, 4);
  const out = new Uint8Array(8 + body.length);
  const view = new DataView(out.buffer);
  view.setInt32(0, body.length, false);
  out.set(body, 4);
  view.setInt32(4 + body.length, crc32(body) | 0, false);
  return out;
}

export interface DvIndexFileContent {
  bytes: Uint8Array;
  ranges: DeletionVectorRange[];
}

/** One DV index file holding the given DVs, in the given order (`DeletionFileWriter`). Empty DVs are left out. */
export function buildDvIndexFile(
  dvs: readonly { dataFile: string; positions: readonly number[] }[],
): DvIndexFileContent {
  const parts: Uint8Array[] = [Uint8Array.of(1)];
  const ranges: DeletionVectorRange[] = [];
  let offset = 1;
  for (const dv of dvs) {
    if (!dv.positions.length) continue;
    const b = serializeDeletionVector(dv.positions, dv.dataFile);
    ranges.push({
      dataFileName: dv.dataFile,
      offset,
      length: b.length - 8,
      cardinality: BigInt(new Set(dv.positions).size),
    });
    parts.push(b);
    offset += b.length;
  }
  const bytes = new Uint8Array(offset);
  let p = 0;
  for (const x of parts) {
    bytes.set(x, p);
    p += x.length;
  }
  return { bytes, ranges };
}
