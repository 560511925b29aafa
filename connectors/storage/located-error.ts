/**
 * Decoders (Parquet, Avro) name a file by the location its metadata gives — on a relocated copy or through
 * --location-map that is `hdfs://…`, `s3a://…` or `/test-warehouse/…`, not where floe read the bytes. This
 * adds the real place to such an error, beside the metadata's spelling, as FileIO.describe does for I/O
 * errors: "Parquet file /tmp/t/data/x.parquet (metadata names s3a://lake/t/data/x.parquet) is corrupt".
 */
import { FloeError } from '../../util/errors.js';
import { normalizeLocation } from './location.js';

/** Where `location` really is, when that is not just its normal form (undefined: it is where it says). */
export function realPlaceOf(io: { map(location: string): string }, location: string): string | undefined {
  try {
    const real = io.map(location);
    return real === normalizeLocation(location) ? undefined : real;
  } catch {
    return undefined;
  }
}

/** `e` with `location` in its message replaced by "<real> (metadata names <location>)" when the two differ. */
export function withRealLocation(io: { map(location: string): string }, location: string, e: unknown): unknown {
  if (!(e instanceof FloeError) || !e.message.includes(location)) return e;
  const real = realPlaceOf(io, location);
  if (real === undefined || e.message.includes(real)) return e;
  return new FloeError(e.kind, e.message.replace(location, `${real} (metadata names ${location})`), {
    context: { ...e.context, file: location, realFile: real },
    retryable: e.retryable,
    cause: e,
  });
}
