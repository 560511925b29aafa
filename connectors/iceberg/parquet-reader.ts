/**
 * Reads Parquet content files column-by-field-id into our value representation (see values.ts).
 *
 * This is the Iceberg reader's own small hyparquet path (used for data files and for position/equality
 * delete files). Binary columns are read as bytes (hyparquet's `utf8` off). hyparquet turns DECIMAL into a
 * JS number (exact only up to ~15 significant digits), so INT32/INT64/FIXED decimals are read unannotated —
 * as their unscaled integers — and formatted exactly here: equality keys on wide decimals must neither
 * collapse (over-delete) nor drift between files.
 */
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { FloeError } from '../../util/errors.js';
import { checkParquetFrame, parquetCorrupt } from '../formats/parquet/footer.js';
import type { Field, FieldType } from '../../model/index.js';
import { bigintFromBigEndian, formatDecimal } from '../../model/arrow/decimal.js';
import { uuidText } from '../../model/arrow/uuid.js';
import { fromJsonDefault } from './values.js';

interface SchemaElement {
  name: string;
  type?: string;
  num_children?: number;
  field_id?: number;
  converted_type?: string;
  logical_type?: { type: string; unit?: string; isAdjustedToUTC?: boolean };
  scale?: number;
  precision?: number;
  repetition_type?: string;
}

interface Node {
  el: SchemaElement;
  children: Node[];
}

function buildTree(elements: SchemaElement[]): Node {
  let i = 0;
  const take = (): Node => {
    const el = elements[i++]!;
    const children: Node[] = [];
    for (let c = 0; c < (el.num_children ?? 0); c++) children.push(take());
    return { el, children };
  };
  return take();
}

export interface ParquetContent {
  file: string;
  root: Node;
  numRows: number;
  buffer: ArrayBuffer;
  metadata: unknown;
}

export function openParquet(bytes: Uint8Array, file: string): ParquetContent {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  // the one frame check every footer reader makes (PAR1 at both ends, a footer length that fits), then
  // hyparquet's parse; whatever it trips over is the file's corruption, said the same way
  checkParquetFrame(bytes, file);
  let metadata: { schema: SchemaElement[]; num_rows: bigint | number };
  let root: Node;
  try {
    metadata = parquetMetadata(buffer) as unknown as typeof metadata;
    root = buildTree(metadata.schema);
  } catch (e) {
    throw parquetCorrupt(file, `unreadable footer (${e instanceof Error ? e.message : String(e)})`, e);
  }
  return { file, root, numRows: Number(metadata.num_rows), buffer, metadata };
}

/** A decimal hyparquet would hand back as a lossy number; read unannotated instead (see rawDecimalMetadata). */
function isRawDecimal(el: SchemaElement): boolean {
  return (el.converted_type === 'DECIMAL' || el.logical_type?.type === 'DECIMAL') && el.type !== 'BYTE_ARRAY';
}

/** The footer with decimal annotations dropped from INT32/INT64/FIXED columns: hyparquet then yields unscaled values. */
function rawDecimalMetadata(pq: ParquetContent): unknown {
  const md = pq.metadata as { schema: SchemaElement[] };
  if (!md.schema.some(isRawDecimal)) return md;
  return {
    ...md,
    schema: md.schema.map((el) => {
      if (!isRawDecimal(el)) return el;
      const { converted_type: _c, logical_type: _l, ...rest } = el;
      return rest;
    }),
  };
}

/** Name mapping (table property schema.name-mapping.default) entries. */
export interface NameMappingEntry {
  'field-id'?: number;
  names: string[];
  fields?: NameMappingEntry[];
}

/**
 * Top-level Parquet columns by Iceberg field id. Files without field ids use the table's name mapping if
 * there is one; otherwise ids are assigned by column position (1, 2, …), as Java's fallback does.
 */
export function topLevelColumnsById(pq: ParquetContent, nameMapping?: NameMappingEntry[]): Map<number, Node> {
  const out = new Map<number, Node>();
  const cols = pq.root.children;
  const hasIds = cols.some((c) => c.el.field_id !== undefined);
  if (hasIds) {
    for (const c of cols) if (c.el.field_id !== undefined) out.set(c.el.field_id, c);
  } else if (nameMapping) {
    for (const c of cols) {
      const m = nameMapping.find((e) => e.names.includes(c.el.name));
      if (m?.['field-id'] !== undefined) out.set(m['field-id'], c);
    }
  } else {
    cols.forEach((c, i) => out.set(i + 1, c));
  }
  return out;
}

/** Reads the columns for `fields` (top-level, by id). Missing columns come back as `undefined` per row. */
export async function readColumnsById(
  pq: ParquetContent,
  fields: readonly Field[],
  nameMapping?: NameMappingEntry[],
): Promise<unknown[][]> {
  const byId = topLevelColumnsById(pq, nameMapping);
  const present = fields.map((f) => byId.get(f.id));
  const names = [...new Set(present.filter((n): n is Node => n !== undefined).map((n) => n.el.name))];
  let rows: Record<string, unknown>[] = [];
  if (names.length > 0 && pq.numRows > 0) {
    try {
      rows = (await parquetReadObjects({
        file: pq.buffer,
        metadata: rawDecimalMetadata(pq),
        columns: names,
        compressors,
        // hyparquet would otherwise UTF-8-decode every BYTE_ARRAY, mangling binary columns; STRING-annotated
        // columns still arrive as text, unannotated ones are decoded in convert()
        utf8: false,
        parsers: {
          timestampFromMilliseconds: (v: bigint) => ({ unit: 3, v }),
          timestampFromMicroseconds: (v: bigint) => ({ unit: 6, v }),
          timestampFromNanoseconds: (v: bigint) => ({ unit: 9, v }),
          dateFromDays: (d: number) => d,
        },
      } as Parameters<typeof parquetReadObjects>[0])) as Record<string, unknown>[];
    } catch (e) {
      throw new FloeError('Corrupt', `cannot read Parquet data of ${pq.file}: ${(e as Error).message}`, {
        context: { file: pq.file },
        cause: e,
      });
    }
  } else {
    rows = Array.from({ length: pq.numRows }, () => ({}));
  }
  return rows.map((r) =>
    fields.map((f, i) => {
      const node = present[i];
      if (!node) return undefined;
      return convert(f.type, r[node.el.name], node);
    }),
  );
}

interface Stamp {
  unit: number;
  v: bigint;
}
function isStamp(v: unknown): v is Stamp {
  return typeof v === 'object' && v !== null && 'unit' in v && 'v' in v && typeof (v as Stamp).v === 'bigint';
}

function rescale(s: Stamp, digits: number): bigint {
  if (s.unit === digits) return s.v;
  if (s.unit < digits) return s.v * 10n ** BigInt(digits - s.unit);
  const d = 10n ** BigInt(s.unit - digits);
  // floor division so pre-epoch values round the same way as Java
  return s.v >= 0n ? s.v / d : -((-s.v + d - 1n) / d);
}

/** hyparquet value → our representation for Iceberg type `t` (with type promotion int→long, float→double). */
function convert(t: FieldType, v: unknown, node: Node | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (t.kind === 'struct') {
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const f of t.fields) {
      const child =
        node?.children.find((c) => c.el.field_id === f.id) ?? node?.children.find((c) => c.el.name === f.name);
      // a field added to the struct after the file was written: its initial-default, else null
      out[f.name] = child ? convert(f.type, o[child.el.name], child) : fromJsonDefault(f, f.initialDefault);
    }
    return out;
  }
  if (t.kind === 'list') {
    // hyparquet assembles LIST into plain arrays; the element node is two levels down.
    const elNode = node?.children[0]?.children[0];
    return (v as unknown[]).map((x) => convert(t.element, x, elNode));
  }
  if (t.kind === 'map') {
    const kv = node?.children[0];
    const out = new Map<unknown, unknown>();
    const entries = v instanceof Map ? [...v.entries()] : Object.entries(v as object);
    for (const [k, x] of entries) out.set(convert(t.key, k, kv?.children[0]), convert(t.value, x, kv?.children[1]));
    return out;
  }
  switch (t.name) {
    case 'int':
    case 'date':
      return typeof v === 'bigint' ? Number(v) : v;
    case 'long':
      return typeof v === 'bigint' ? v : BigInt(v as number);
    case 'float':
    case 'double':
      return Number(v);
    case 'time':
      return typeof v === 'bigint' ? v : BigInt(v as number) * (node?.el.logical_type?.unit === 'MILLIS' ? 1000n : 1n);
    case 'timestamp':
    case 'timestamptz':
      return isStamp(v)
        ? rescale(v, 6)
        : typeof v === 'bigint'
          ? v
          : v instanceof Date
            ? BigInt(v.getTime()) * 1000n
            : v;
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return isStamp(v) ? rescale(v, 9) : typeof v === 'bigint' ? v : v;
    case 'decimal': {
      const scale = t.scale ?? 0;
      if (node && isRawDecimal(node.el)) {
        // unscaled integer at the file's scale (Iceberg never changes a decimal's scale; rescale defensively)
        let unscaled =
          typeof v === 'bigint' ? v : v instanceof Uint8Array ? bigintFromBigEndian(v) : BigInt(v as number);
        const fileScale = node.el.scale ?? scale;
        if (fileScale < scale) unscaled *= 10n ** BigInt(scale - fileScale);
        return formatDecimal(unscaled, fileScale < scale ? scale : fileScale);
      }
      if (typeof v === 'bigint') return formatDecimal(v, scale);
      if (typeof v === 'number') return v.toFixed(scale);
      return String(v);
    }
    case 'string':
      return v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : String(v);
    case 'binary':
    case 'fixed':
      return v instanceof Uint8Array
        ? new Uint8Array(v)
        : typeof v === 'string'
          ? new Uint8Array(Buffer.from(v, 'utf8'))
          : v;
    case 'uuid':
      return uuidText(v) ?? v;
    default:
      return v;
  }
}
