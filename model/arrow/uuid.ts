/** UUIDs as Arrow and Parquet carry them (16 big-endian bytes) and as JSON and users write them. */
import { FloeError } from '../../util/errors.js';

export function uuidFromBytes(b: Uint8Array): string {
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A uuid value in its text form, lower case, whether it came as text or as 16 bytes (pyarrow and floe write
 * uuid as a bare FIXED_LEN_BYTE_ARRAY(16) without the UUID annotation); undefined for anything else.
 */
export function uuidText(v: unknown): string | undefined {
  if (typeof v === 'string') return v.toLowerCase();
  return v instanceof Uint8Array && v.length === 16 ? uuidFromBytes(v) : undefined;
}

export function uuidToBytes(s: string): Uint8Array {
  const hex = s.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new FloeError('InvalidArgument', `"${s}" is not a UUID`);
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
