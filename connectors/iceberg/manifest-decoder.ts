/**
 * Manifest entries decoded straight from Avro bytes (issue 11.6), one record at a time, instead of through
 * avsc: only the fields the manifest reader uses are decoded (the rest skipped), longs become bigints
 * without a Buffer per value, and the six column-stats maps are never materialised — their values are
 * copied byte for byte into the manifest's StatsPacker (the packed form is Avro's own encoding).
 *
 * The objects produced carry the writer's field names, with the values avsc would give (bigint longs,
 * Buffer bytes, unwrapped unions), so the same entry decoding applies to both paths. Schemas this decoder
 * cannot compile (`compileEntryDecoder` returns undefined) are read through avsc as before.
 */
import type { StatsPacker } from './packed-stats.js';

/** A read position in one decompressed block, and the packer of the manifest being read. */
export interface EntryCursor {
  buf: Buffer;
  pos: number;
  packer: StatsPacker;
}

type Read = (c: EntryCursor) => unknown;
type Skip = (c: EntryCursor) => void;
interface Compiled {
  read: Read;
  skip: Skip;
}

/** Zig-zag varint as a number: ints, lengths, counts, union branches. */
function readInt(c: EntryCursor): number {
  const b = c.buf;
  let z = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    const byte = b[c.pos++]!;
    z += (byte & 0x7f) * mul;
    if (byte < 0x80 || byte === undefined) break;
    mul *= 0x80;
  }
  return z % 2 === 1 ? -(z + 1) / 2 : z / 2;
}

/** Zig-zag varint as a bigint, exact over the whole 64-bit range. */
function readLong(c: EntryCursor): bigint {
  const b = c.buf;
  const start = c.pos;
  let z = 0;
  let mul = 1;
  for (let i = 0; i < 7; i++) {
    const byte = b[c.pos++];
    if (byte === undefined) return 0n;
    z += (byte & 0x7f) * mul;
    if (byte < 0x80) return BigInt(z % 2 === 1 ? -(z + 1) / 2 : z / 2);
    mul *= 0x80;
  }
  c.pos = start;
  let zb = 0n;
  let shift = 0n;
  for (let i = 0; i < 10; i++) {
    const byte = b[c.pos++];
    if (byte === undefined) break;
    zb |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) break;
    shift += 7n;
  }
  return zb & 1n ? -((zb + 1n) >> 1n) : zb >> 1n;
}

function skipVarint(c: EntryCursor): void {
  const b = c.buf;
  for (let i = 0; i < 10; i++) if (!((b[c.pos++] ?? 0) & 0x80)) return;
}

function length(c: EntryCursor): number {
  const n = readInt(c);
  if (n < 0 || c.pos + n > c.buf.length) throw new Error(`bad length ${n} at byte ${c.pos}`);
  return n;
}

const PRIMITIVES: Record<string, Compiled> = {
  null: { read: () => null, skip: () => {} },
  boolean: { read: (c) => c.buf[c.pos++] === 1, skip: (c) => void c.pos++ },
  int: { read: readInt, skip: skipVarint },
  long: { read: readLong, skip: skipVarint },
  float: {
    read: (c) => ((c.pos += 4), c.buf.readFloatLE(c.pos - 4)),
    skip: (c) => void (c.pos += 4),
  },
  double: {
    read: (c) => ((c.pos += 8), c.buf.readDoubleLE(c.pos - 8)),
    skip: (c) => void (c.pos += 8),
  },
  bytes: {
    read: (c) => {
      const n = length(c);
      c.pos += n;
      return Buffer.from(c.buf.subarray(c.pos - n, c.pos));
    },
    skip: (c) => {
      const n = length(c);
      c.pos += n;
    },
  },
  string: {
    read: (c) => {
      const n = length(c);
      c.pos += n;
      return (c.buf as Buffer & { utf8Slice(start: number, end: number): string }).utf8Slice(c.pos - n, c.pos);
    },
    skip: (c) => {
      const n = length(c);
      c.pos += n;
    },
  },
};

type Node = unknown;
interface RecordNode {
  type: 'record' | 'error';
  name?: string;
  namespace?: string;
  fields: { name: string; type: Node; 'field-id'?: number }[];
}

/** Compiles writer schemas; named types are registered as they are met (and may be referenced after). */
class Compiler {
  private readonly named = new Map<string, Compiled>();

  private register(node: { name?: string; namespace?: string }, ns: string | undefined, c: Compiled): string {
    const name = String(node.name ?? '');
    const space = node.namespace ?? ns;
    const full = name.includes('.') || !space ? name : `${space}.${name}`;
    this.named.set(full, c);
    if (!this.named.has(name)) this.named.set(name, c);
    return full.includes('.') ? full.slice(0, full.lastIndexOf('.')) : (space ?? '');
  }

  compile(node: Node, ns?: string): Compiled {
    if (typeof node === 'string') {
      const p = PRIMITIVES[node];
      if (p) return p;
      const named = this.named.get(ns ? `${ns}.${node}` : node) ?? this.named.get(node);
      if (!named) throw new Error(`unknown Avro type ${node}`);
      return named;
    }
    if (Array.isArray(node)) {
      const branches = node.map((b) => this.compile(b, ns));
      return {
        read: (c) => {
          const b = branches[readInt(c)];
          if (!b) throw new Error(`bad union branch at byte ${c.pos}`);
          return b.read(c);
        },
        skip: (c) => {
          const b = branches[readInt(c)];
          if (!b) throw new Error(`bad union branch at byte ${c.pos}`);
          b.skip(c);
        },
      };
    }
    const n = node as { type: Node; [k: string]: unknown };
    switch (n.type) {
      case 'record':
      case 'error':
        return this.record(n as unknown as RecordNode, ns);
      case 'enum': {
        const symbols = n.symbols as string[];
        const c: Compiled = {
          read: (cur) => {
            const s = symbols[readInt(cur)];
            if (s === undefined) throw new Error(`bad enum index at byte ${cur.pos}`);
            return s;
          },
          skip: skipVarint,
        };
        this.register(n as { name?: string }, ns, c);
        return c;
      }
      case 'fixed': {
        const size = Number(n.size);
        const c: Compiled = {
          read: (cur) => {
            cur.pos += size;
            return Buffer.from(cur.buf.subarray(cur.pos - size, cur.pos));
          },
          skip: (cur) => void (cur.pos += size),
        };
        this.register(n as { name?: string }, ns, c);
        return c;
      }
      case 'array': {
        const items = this.compile(n.items, ns);
        return {
          read: (c) => {
            const out: unknown[] = [];
            forEachItem(c, () => out.push(items.read(c)));
            return out;
          },
          skip: (c) => forEachItem(c, () => items.skip(c)),
        };
      }
      case 'map': {
        const values = this.compile(n.values, ns);
        return {
          read: (c) => {
            const out: Record<string, unknown> = {};
            forEachItem(c, () => {
              const k = PRIMITIVES.string!.read(c) as string;
              out[k] = values.read(c);
            });
            return out;
          },
          skip: (c) =>
            forEachItem(c, () => {
              PRIMITIVES.string!.skip(c);
              values.skip(c);
            }),
        };
      }
      default:
        // {"type": "long", "logicalType": …}: logical types stay raw, as with avsc.
        if (typeof n.type === 'string' && PRIMITIVES[n.type]) return PRIMITIVES[n.type]!;
        return this.compile(n.type, ns);
    }
  }

  /**
   * A record: `only` (field ids) limits what is decoded, the other fields are skipped; `special` replaces
   * the reader of a field (by id) with one that returns nothing; `replace` gives a field's reader.
   */
  record(
    node: RecordNode,
    ns?: string,
    only?: ReadonlySet<number>,
    special?: ReadonlyMap<number, Skip>,
    replace?: ReadonlyMap<number, Compiled>,
  ): Compiled {
    const box: Compiled = { read: () => undefined, skip: () => {} };
    const inner = this.register(node, ns, {
      read: (c) => box.read(c),
      skip: (c) => box.skip(c),
    });
    const fields = node.fields.map((f) => {
      const id = f['field-id'] === undefined ? undefined : Number(f['field-id']);
      const sp = id === undefined ? undefined : special?.get(id);
      const t = (id === undefined ? undefined : replace?.get(id)) ?? this.compile(f.type, inner);
      const keep = !sp && (!only || (id !== undefined && only.has(id)));
      return { name: f.name, t, sp, keep };
    });
    // Every record starts as a copy of one template: one hidden class, no shape transitions per field.
    const template: Record<string, unknown> = {};
    for (const f of fields) if (f.keep) template[f.name] = undefined;
    box.read = (c) => {
      const out: Record<string, unknown> = { ...template };
      for (const f of fields) {
        if (f.sp) f.sp(c);
        else if (f.keep) out[f.name] = f.t.read(c);
        else f.t.skip(c);
      }
      return out;
    };
    box.skip = (c) => {
      for (const f of fields) f.t.skip(c);
    };
    return box;
  }
}

function forEachItem(c: EntryCursor, each: () => void): void {
  for (;;) {
    let n = readInt(c);
    if (n === 0) return;
    if (n < 0) {
      n = -n;
      readInt(c); // block size in bytes
    }
    for (let i = 0; i < n; i++) each();
  }
}

/** Field id → stats slot of the packer (StatsPacker: 0–3 counts, 4–5 bounds). */
const STATS_SLOTS = new Map([
  [108, 0],
  [109, 1],
  [110, 2],
  [137, 3],
  [125, 4],
  [128, 5],
]);

const isPrim = (t: Node, name: string): boolean =>
  t === name || (typeof t === 'object' && t !== null && !Array.isArray(t) && (t as { type: unknown }).type === name);

/**
 * A reader that copies a stats map (array of {key: int, value: long | bytes}, optional) into the packer;
 * undefined when the field has another shape (then the whole manifest goes through avsc).
 */
function statsSink(type: Node, slot: number): Skip | undefined {
  let t = type;
  let nullBranch = -1;
  if (Array.isArray(t)) {
    if (t.length !== 2) return undefined;
    nullBranch = t.indexOf('null');
    if (nullBranch < 0) return undefined;
    t = t[1 - nullBranch];
  }
  const arr = t as { type?: unknown; items?: unknown };
  if (typeof arr !== 'object' || arr === null || arr.type !== 'array') return undefined;
  const rec = arr.items as { type?: unknown; fields?: { type: Node }[] };
  if (typeof rec !== 'object' || rec === null || rec.type !== 'record' || rec.fields?.length !== 2) return undefined;
  const [k, v] = rec.fields;
  if (!isPrim(k!.type, 'int')) return undefined;
  const bytes = slot >= 4;
  if (bytes ? !isPrim(v!.type, 'bytes') : !isPrim(v!.type, 'long') && !isPrim(v!.type, 'int')) return undefined;
  const union = nullBranch >= 0;
  return (c) => {
    if (union) {
      const branch = readInt(c);
      if (branch === nullBranch) return;
      if (branch !== 1 - nullBranch) throw new Error(`bad union branch at byte ${c.pos}`);
    }
    c.packer.present(slot);
    forEachItem(c, () => {
      const id = readInt(c);
      const start = c.pos;
      if (bytes) {
        const n = length(c);
        c.pos += n;
      } else skipVarint(c);
      c.packer.raw(slot, id, c.buf, start, c.pos);
    });
  };
}

/** The manifest_entry and data_file fields the manifest reader uses (by field id). */
const ENTRY_FIELDS = new Set([0, 1, 2, 3, 4]);
const FILE_FIELDS = new Set([100, 101, 102, 103, 104, 132, 134, 135, 140, 142, 143, 144, 145]);

const cache = new Map<string, ((c: EntryCursor) => Record<string, unknown>) | null>();

/**
 * A decoder for one manifest_entry record (the cursor's packer has been begun by it and holds the file's
 * stats afterwards), or undefined when the schema has a shape it does not handle.
 */
export function compileEntryDecoder(
  schema: unknown,
  schemaText: string,
): ((c: EntryCursor) => Record<string, unknown>) | undefined {
  const hit = cache.get(schemaText);
  if (hit !== undefined) return hit ?? undefined;
  let out: ((c: EntryCursor) => Record<string, unknown>) | null = null;
  try {
    out = compile(schema) ?? null;
  } catch {
    out = null;
  }
  if (cache.size > 64) cache.clear();
  cache.set(schemaText, out);
  return out ?? undefined;
}

function compile(schema: unknown): ((c: EntryCursor) => Record<string, unknown>) | undefined {
  const entry = schema as RecordNode;
  if (typeof entry !== 'object' || entry === null || entry.type !== 'record') return undefined;
  const dfField = entry.fields.find((f) => Number(f['field-id']) === 2);
  const df = dfField?.type as RecordNode | undefined;
  if (!df || typeof df !== 'object' || Array.isArray(df) || df.type !== 'record') return undefined;
  const special = new Map<number, Skip>();
  for (const f of df.fields) {
    const slot = STATS_SLOTS.get(Number(f['field-id']));
    if (slot === undefined) continue;
    const sink = statsSink(f.type, slot);
    if (!sink) return undefined;
    special.set(Number(f['field-id']), sink);
  }
  const compiler = new Compiler();
  // data_file first, with its stats fields as sinks; the entry record then uses that reader for field 2.
  const fileReader = compiler.record(df, entry.namespace, FILE_FIELDS, special);
  const entryReader = compiler.record(entry, undefined, ENTRY_FIELDS, undefined, new Map([[2, fileReader]]));
  return (c) => {
    c.packer.begin();
    return entryReader.read(c) as Record<string, unknown>;
  };
}
