/**
 * The read/merge half of a PK compaction rewrite (`MergeTreeCompactRewriter.rewriteCompaction`): the
 * candidate sections are read one after another (they do not overlap), the runs of a section are merged
 * by key (then `sequence.field`, `_SEQUENCE_NUMBER`, retract before add), each key goes through the
 * table's merge engine (merge-engines.ts) and — unlike a batch read — a retraction result is kept
 * unless `dropDelete` allows dropping it (`DropDeleteReader`).
 *
 * It shares the scan's file reader, run cursor and merge order; its own merge loop keeps retractions,
 * which a batch read drops. Values are projected onto the current schema by field id, so
 * compaction also migrates files of older schemas to the current one, as Java's rewriter does.
 */
import { FloeError } from '../../src/errors.js';
import { createMergeFunction, sequenceFields, type KeyValue, type MergeFunction } from './merge-engines.js';
import { RunCursor, mergeRuns, readKeyValues, recordOrder } from './scan.js';
import { fieldsByName, trimmedPrimaryKeyFields, type PaimonFile, type PaimonTable } from './table.js';
import type { PaimonField, PaimonType } from './types.js';

/** Reads one data file as records in the current schema. Append files get kind +I and sequence 0. */
export function readFileRecords(table: PaimonTable, f: PaimonFile): Promise<KeyValue[]> {
  const keyFields = table.schema.primaryKeys.length ? trimmedPrimaryKeyFields(table.schema) : [];
  return readKeyValues(table, f, table.schema.fields, keyFields, undefined, keyFields.length > 0);
}

export interface MergeContext {
  keyTypes: PaimonType[];
  mf: MergeFunction;
  order: (a: KeyValue, b: KeyValue) => number;
}

export function mergeContext(table: PaimonTable): MergeContext {
  const schema = table.schema;
  const keyTypes = trimmedPrimaryKeyFields(schema).map((f) => f.type);
  const byName = fieldsByName(schema);
  const seq = sequenceFields(schema.options).map((n) => {
    const f = byName.get(n);
    if (!f)
      throw new FloeError('Corrupt', `Paimon table ${table.location}: sequence.field '${n}' is not a column`, {
        context: { table: table.location },
      });
    return { idx: schema.fields.indexOf(f), type: f.type };
  });
  const descending = (schema.options['sequence.field.sort-order'] ?? 'ascending').trim().toLowerCase() === 'descending';
  const order = recordOrder(
    seq.map((x) => x.idx),
    seq.map((x) => x.type),
    descending,
  );
  return {
    keyTypes,
    mf: createMergeFunction(schema.fields as PaimonField[], schema.primaryKeys, schema.options, table.location),
    order,
  };
}

/**
 * Merges the sections (each a list of sorted runs) in order. Yields the merged record of every key;
 * retractions only when `dropDelete` is false.
 */
export async function* mergeSections(
  table: PaimonTable,
  ctx: MergeContext,
  sections: readonly (readonly (readonly PaimonFile[])[])[],
  dropDelete: boolean,
  onFile: (f: PaimonFile, rows: number) => void = () => undefined,
): AsyncGenerator<KeyValue> {
  const load = (f: PaimonFile) => readFileRecords(table, f);
  for (const section of sections) {
    const cursors = section.map((run) => new RunCursor(run, load, onFile));
    yield* mergeRuns(cursors, ctx.keyTypes, ctx.mf, ctx.order, !dropDelete);
  }
}
