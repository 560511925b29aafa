/**
 * Editing the footer of a Parquet file the encoder just wrote (annotations and types arrow-rs cannot write):
 * the thrift FileMetaData is read, changed by the caller and re-encoded; data pages and their offsets stay.
 */
import { FloeError } from '../../../util/errors.js';
import { readThriftStruct, TStruct, writeThriftStruct } from './stitch-thrift.js';

/** The footer's FileMetaData and where it starts; `bytes` ends with footer, its length and PAR1. */
export function readFooter(bytes: Uint8Array, file: string, minStart: number): { meta: TStruct; start: number } {
  const n = bytes.byteLength;
  const len = new DataView(bytes.buffer, bytes.byteOffset + n - 8, 4).getUint32(0, true);
  const start = n - 8 - len;
  if (start < minStart)
    throw new FloeError('Internal', `${file}: the Parquet footer written by the encoder is malformed`, {
      context: { file },
    });
  return { meta: readThriftStruct(bytes, start, n - 8).value, start };
}

/** `bytes` up to `start` followed by `meta` as the new footer, its length and PAR1. */
export function withFooter(bytes: Uint8Array, start: number, meta: TStruct): Uint8Array {
  const footer = writeThriftStruct(meta);
  const out = new Uint8Array(start + footer.byteLength + 8);
  out.set(bytes.subarray(0, start), 0);
  out.set(footer, start);
  new DataView(out.buffer).setUint32(start + footer.byteLength, footer.byteLength, true);
  out.set([0x50, 0x41, 0x52, 0x31], start + footer.byteLength + 4);
  return out;
}
