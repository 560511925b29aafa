/**
 * [rewrite] The rewrite fast path's JS half (issue 27): opens one input file in the codec's RewriteSource
 * (native/parquet-codec/src/rewrite.rs), which decodes each row group, drops its deleted rows and aligns it
 * with the output schema without the columns crossing into JS; ParquetWriter.writeRewritten encodes it.
 *
 * Only where that gives the same rows and values as read.ts → cast.ts → slice-rows.ts: the columns are
 * resolved here exactly as read.ts resolves them (field id, else the name mapping); an added column must be
 * optional without an initial-default (cast.ts' fill is then all nulls); nested output fields and any type
 * difference beyond rewrite.rs' plain widenings are left to the JS path (`ineligible` says why).
 */
import * as arrow from 'apache-arrow';
import type { Field } from '../../../model/table.js';
import { errorForFile } from '../../../util/errors.js';
import { parquetCodec, type RewriteSourceHandle } from './codec.js';
import { readParquetFooter } from './footer.js';
import { assertPageHeadersReadable } from './page-headers.js';
import type { ParquetFooter } from './types.js';

export type RewriteOpen =
  | { source: RewriteSourceHandle; footer: ParquetFooter; ineligible?: undefined }
  | { ineligible: string; source?: undefined };

/** Why output fields can never take the fast path (undefined: they can, file by file). */
export function rewriteIneligibleFields(fields: readonly Field[]): string | undefined {
  if (!parquetCodec().rewriteSource) return `the ${parquetCodec().name} Parquet codec has no rewrite fast path`;
  for (const f of fields) {
    if (f.type.kind !== 'primitive') return `column ${f.name} is nested`;
    if (f.type.name === 'unknown') return `column ${f.name} has type unknown`;
  }
  return undefined;
}

/** The output schema as the encoder sees it (an IPC stream without batches), for RewriteSource. */
export function schemaIpc(schema: arrow.Schema): Uint8Array {
  return arrow.tableToIPC(new arrow.Table(schema), 'stream');
}

/**
 * Opens `bytes` (data file `file`) for the fast path, or says why it must take the JS path. `fields` and
 * `schemaIpc` are the output's (arrowSchemaForIceberg of the fields); `mask` the deletedMask of the file.
 */
export function openRewrite(
  bytes: Uint8Array,
  file: string,
  fields: readonly Field[],
  outputSchemaIpc: Uint8Array,
  opts: { nameMapping?: Map<string, number>; mask?: Uint8Array; offThread?: boolean },
): RewriteOpen {
  const open = parquetCodec().rewriteSource;
  const never = rewriteIneligibleFields(fields);
  if (never || !open) return { ineligible: never ?? 'no rewrite fast path' };
  const footer = readParquetFooter(bytes, file);
  assertPageHeadersReadable(bytes, footer, file, undefined); // before arrow-rs sees the pages, as read.ts does
  // a manifest that miscounts the file's rows: the JS path reports it, after the rows it could read
  if (opts.mask && opts.mask.length !== footer.numRows)
    return { ineligible: `the file has ${footer.numRows} rows, its deletion mask ${opts.mask.length}` };
  const hasIds = footer.schema.some((n) => n.fieldId !== undefined);
  const byId = new Map<number, string>();
  for (const n of footer.schema) {
    const id = hasIds ? n.fieldId : opts.nameMapping?.get(n.name);
    if (id !== undefined) byId.set(id, n.name);
  }
  const columns = fields.map((f) => byId.get(f.id) ?? null);
  for (const [i, f] of fields.entries()) {
    if (columns[i] !== null) continue;
    if (f.initialDefault !== undefined && f.initialDefault !== null)
      return { ineligible: `column ${f.name} is absent and has an initial-default` };
    if (f.required) return { ineligible: `required column ${f.name} is absent` };
  }
  let source: RewriteSourceHandle;
  try {
    source = open({ bytes, schemaIpc: outputSchemaIpc, columns, mask: opts.mask, offThread: opts.offThread === true });
  } catch (e) {
    throw errorForFile('Corrupt', file, 'cannot open Parquet file', e);
  }
  if (source.ineligible !== undefined) {
    source.close();
    return { ineligible: source.ineligible };
  }
  return { source, footer };
}
