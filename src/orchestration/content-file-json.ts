/**
 * A file a rewrite wrote (NewContentFile), as plain JSON for engine payloads and worker threads: bigints as
 * `{ big: "<decimal>" }`, metric maps as `{ map: [[fieldId, value]] }` with bounds as base64.
 */
import type { NewContentFile } from '../../connectors/iceberg/commit-rewrite.js';

/** One file a rewrite wrote, as JSON (bigints as decimal strings, bounds as base64). */
export type ContentFileJson = Record<string, unknown>;

const b64 = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('base64');
const unb64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));

export function encodeContentFile(f: NewContentFile): ContentFileJson {
  const out: ContentFileJson = {};
  for (const [k, v] of Object.entries(f)) {
    if (v === undefined) continue;
    if (v instanceof Map)
      out[k] = { map: [...v].map(([mk, mv]) => [mk, mv instanceof Uint8Array ? { b64: b64(mv) } : String(mv)]) };
    else if (typeof v === 'bigint') out[k] = { big: v.toString() };
    else if (Array.isArray(v)) out[k] = v.map((x) => (typeof x === 'bigint' ? { big: x.toString() } : x));
    else out[k] = v;
  }
  return out;
}

export function decodeContentFile(j: ContentFileJson): NewContentFile {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(j)) {
    if (v && typeof v === 'object' && !Array.isArray(v) && 'map' in v) {
      out[k] = new Map(
        (v as { map: [number, string | { b64: string }][] }).map.map(([mk, mv]) => [
          mk,
          typeof mv === 'string' ? BigInt(mv) : unb64(mv.b64),
        ]),
      );
    } else if (v && typeof v === 'object' && !Array.isArray(v) && 'big' in v)
      out[k] = BigInt((v as { big: string }).big);
    else if (Array.isArray(v))
      out[k] = v.map((x) => (x && typeof x === 'object' && 'big' in x ? BigInt((x as { big: string }).big) : x));
    else out[k] = v;
  }
  return out as unknown as NewContentFile;
}

/** Any value as JSON: bigints as `{ $big }`, byte arrays as `{ $b64 }`; undefined fields are left out. */
export function toTaggedJson(v: unknown): unknown {
  if (typeof v === 'bigint') return { $big: v.toString() };
  if (v instanceof Uint8Array) return { $b64: b64(v) };
  if (Array.isArray(v)) return v.map(toTaggedJson);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = toTaggedJson(x);
    return out;
  }
  return v;
}

export function fromTaggedJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(fromTaggedJson);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.$big === 'string' && Object.keys(o).length === 1) return BigInt(o.$big);
    if (typeof o.$b64 === 'string' && Object.keys(o).length === 1) return unb64(o.$b64);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = fromTaggedJson(x);
    return out;
  }
  return v;
}
