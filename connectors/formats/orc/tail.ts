/**
 * The ORC file tail: the last byte is the postscript length; the postscript (never compressed) gives the
 * compression and the footer length; the footer lists stripes, the flattened type tree and user metadata.
 * Each stripe ends with a stripe footer that lists its streams (in file order) and column encodings.
 */
import { FloeError } from '../../../util/errors.js';
import { checkCompression, compressionName, decompressOrc } from './compression.js';
import { Proto } from './protobuf.js';

/** `Type.Kind` values of the ORC spec. */
export const TypeKind = {
  BOOLEAN: 0,
  BYTE: 1,
  SHORT: 2,
  INT: 3,
  LONG: 4,
  FLOAT: 5,
  DOUBLE: 6,
  STRING: 7,
  BINARY: 8,
  TIMESTAMP: 9,
  LIST: 10,
  MAP: 11,
  STRUCT: 12,
  UNION: 13,
  DECIMAL: 14,
  DATE: 15,
  VARCHAR: 16,
  CHAR: 17,
  TIMESTAMP_INSTANT: 18,
} as const;
const TYPE_NAMES = Object.fromEntries(Object.entries(TypeKind).map(([k, v]) => [v, k])) as Record<number, string>;
export const typeKindName = (k: number): string => TYPE_NAMES[k] ?? `kind ${k}`;

/** `Stream.Kind` values the reader looks at. */
export const StreamKind = {
  PRESENT: 0,
  DATA: 1,
  LENGTH: 2,
  DICTIONARY_DATA: 3,
  DICTIONARY_COUNT: 4,
  SECONDARY: 5,
} as const;

/** `ColumnEncoding.Kind`. */
export const EncodingKind = { DIRECT: 0, DICTIONARY: 1, DIRECT_V2: 2, DICTIONARY_V2: 3 } as const;

export interface PostScript {
  footerLength: number;
  compression: number;
  compressionBlockSize: number;
  version: number[];
  metadataLength: number;
  writerVersion?: number;
}

export interface StripeInfo {
  offset: number;
  indexLength: number;
  dataLength: number;
  footerLength: number;
  numberOfRows: number;
}

export interface OrcType {
  /** Column id: position in the pre-order flattened type list. */
  id: number;
  kind: number;
  subtypes: number[];
  fieldNames: string[];
  precision?: number;
  scale?: number;
}

export interface Footer {
  headerLength: number;
  contentLength: number;
  stripes: StripeInfo[];
  types: OrcType[];
  metadata: Record<string, Uint8Array>;
  numberOfRows: number;
  rowIndexStride?: number;
  writer?: number;
}

export interface StreamInfo {
  kind: number;
  column: number;
  /** Absolute offset in the file. */
  offset: number;
  length: number;
}

export interface ColumnEncoding {
  kind: number;
  dictionarySize?: number;
}

export interface StripeFooter {
  streams: StreamInfo[];
  columns: ColumnEncoding[];
  writerTimezone?: string;
}

export interface OrcTail {
  fileLength: number;
  postScript: PostScript;
  footer: Footer;
}

const DEFAULT_BLOCK_SIZE = 256 * 1024;

function corrupt(file: string, msg: string): never {
  throw new FloeError('Corrupt', `corrupt ORC file ${file}: ${msg}`, { context: { file } });
}

const req = (v: number | undefined, file: string, what: string): number =>
  v === undefined ? corrupt(file, `${what} is missing`) : v;

export function parsePostScript(buf: Uint8Array, file: string): PostScript {
  const p = new Proto(buf, file, 'postscript');
  if (p.string(8000) !== 'ORC') corrupt(file, 'postscript magic is not "ORC"');
  const ps: PostScript = {
    footerLength: req(p.uint(1), file, 'postscript footerLength'),
    compression: p.uint(2, 0)!,
    compressionBlockSize: p.uint(3, DEFAULT_BLOCK_SIZE)!,
    version: p.repeatedUints(4),
    metadataLength: p.uint(5, 0)!,
  };
  const wv = p.uint(6);
  if (wv !== undefined) ps.writerVersion = wv;
  return ps;
}

export function parseFooter(buf: Uint8Array, file: string): Footer {
  const f = new Proto(buf, file, 'footer');
  if (f.has(10)) {
    throw new FloeError('Unsupported', `ORC file ${file} uses column encryption, which this reader does not support`, {
      context: { file },
    });
  }
  const stripes = f.repeatedMessages(3, 'stripe information').map((s) => ({
    offset: req(s.uint(1), file, 'stripe offset'),
    indexLength: s.uint(2, 0)!,
    dataLength: s.uint(3, 0)!,
    footerLength: s.uint(4, 0)!,
    numberOfRows: s.uint(5, 0)!,
  }));
  const types = f.repeatedMessages(4, 'type').map((t, id) => {
    const ty: OrcType = {
      id,
      kind: req(t.uint(1), file, `type ${id} kind`),
      subtypes: t.repeatedUints(2),
      fieldNames: t.repeatedStrings(3),
    };
    const precision = t.uint(5);
    const scale = t.uint(6);
    if (precision !== undefined) ty.precision = precision;
    if (scale !== undefined) ty.scale = scale;
    return ty;
  });
  if (types.length === 0) corrupt(file, 'footer has no types');
  // the types must form a tree: every column but the root has exactly one parent with a smaller id, and
  // compound types have the number of children their kind needs
  const parents = new Array<number>(types.length).fill(0);
  for (const t of types) {
    for (const s of t.subtypes) {
      if (s <= t.id || s >= types.length) corrupt(file, `type ${t.id} has an impossible subtype ${s}`);
      parents[s]!++;
    }
    const need =
      t.kind === TypeKind.LIST
        ? 1
        : t.kind === TypeKind.MAP
          ? 2
          : t.kind === TypeKind.STRUCT || t.kind === TypeKind.UNION
            ? undefined
            : 0;
    if (need !== undefined && t.subtypes.length !== need)
      corrupt(file, `type ${t.id} (kind ${t.kind}) has ${t.subtypes.length} subtypes`);
    if (t.kind === TypeKind.STRUCT && t.fieldNames.length !== t.subtypes.length) {
      corrupt(file, `struct type ${t.id} has ${t.subtypes.length} children but ${t.fieldNames.length} field names`);
    }
  }
  parents.forEach((n, id) => {
    if (id > 0 && n !== 1) corrupt(file, `type ${id} has ${n} parents`);
  });
  const metadata: Record<string, Uint8Array> = {};
  for (const m of f.repeatedMessages(5, 'user metadata')) metadata[m.string(1) ?? ''] = m.bytes(2) ?? new Uint8Array(0);
  const footer: Footer = {
    headerLength: f.uint(1, 0)!,
    contentLength: f.uint(2, 0)!,
    stripes,
    types,
    metadata,
    numberOfRows: f.uint(6, 0)!,
  };
  const stride = f.uint(8);
  const writer = f.uint(9);
  if (stride !== undefined) footer.rowIndexStride = stride;
  if (writer !== undefined) footer.writer = writer;
  return footer;
}

/** Reads postscript and footer from a whole file held in memory. */
export function readTail(data: Uint8Array, file: string): OrcTail {
  if (data.length < 4) corrupt(file, `only ${data.length} bytes, too short for an ORC file`);
  if (data[0] !== 0x4f || data[1] !== 0x52 || data[2] !== 0x43) corrupt(file, 'does not start with "ORC"');
  const psLen = data[data.length - 1]!;
  const psStart = data.length - 1 - psLen;
  if (psLen === 0 || psStart < 3) corrupt(file, `postscript length ${psLen} does not fit the file`);
  const postScript = parsePostScript(data.subarray(psStart, data.length - 1), file);
  checkCompression(postScript.compression, file);
  const footerStart = psStart - postScript.footerLength;
  if (footerStart < 3) corrupt(file, `footer length ${postScript.footerLength} does not fit the file`);
  const footerBytes = decompressOrc(
    postScript.compression,
    data.subarray(footerStart, psStart),
    postScript.compressionBlockSize,
    file,
    'footer',
  );
  const footer = parseFooter(footerBytes, file);
  const tailStart = footerStart - postScript.metadataLength;
  for (const [i, s] of footer.stripes.entries()) {
    const end = s.offset + s.indexLength + s.dataLength + s.footerLength;
    if (s.offset < 3 || end > tailStart)
      corrupt(file, `stripe ${i} (bytes ${s.offset}..${end}) lies outside the file body`);
  }
  return { fileLength: data.length, postScript, footer };
}

/** Reads one stripe's footer and places its streams (listed in file order from the stripe start). */
export function readStripeFooter(
  data: Uint8Array,
  tail: OrcTail,
  stripe: StripeInfo,
  index: number,
  file: string,
): StripeFooter {
  const start = stripe.offset + stripe.indexLength + stripe.dataLength;
  const raw = data.subarray(start, start + stripe.footerLength);
  const { compression, compressionBlockSize } = tail.postScript;
  const f = new Proto(
    decompressOrc(compression, raw, compressionBlockSize, file, `stripe ${index} footer`),
    file,
    `stripe ${index} footer`,
  );
  if (f.has(4)) {
    throw new FloeError(
      'Unsupported',
      `ORC file ${file} has encrypted stripe data, which this reader does not support`,
      { context: { file } },
    );
  }
  let offset = stripe.offset;
  const streams = f.repeatedMessages(1, 'stream').map((s) => {
    const info: StreamInfo = {
      kind: req(s.uint(1), file, 'stream kind'),
      column: s.uint(2, 0)!,
      offset,
      length: s.uint(3, 0)!,
    };
    offset += info.length;
    return info;
  });
  if (offset > start) corrupt(file, `stripe ${index} streams run ${offset - start} bytes past the stripe data`);
  const columns = f.repeatedMessages(2, 'column encoding').map((e) => {
    const enc: ColumnEncoding = { kind: e.uint(1, 0)! };
    const d = e.uint(2);
    if (d !== undefined) enc.dictionarySize = d;
    return enc;
  });
  const footer: StripeFooter = { streams, columns };
  const tz = f.string(3);
  if (tz !== undefined) footer.writerTimezone = tz;
  return footer;
}

export { compressionName };
