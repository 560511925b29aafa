/**
 * The read/merge half of a PK compaction rewrite (`MergeTreeCompactRewriter.rewriteCompaction`): the
 * candidate sections are read one after another (they do not overlap), the runs of a section are merged
 * by key (then `sequence.field`, `_SEQUENCE_NUMBER`, retract before add), each key goes through the
 * table's merge engine (merge-engines.ts) and — unlike a batch read — a retraction result is kept
 * unless `dropDelete` allows dropping it (`DropDeleteReader`).
 *
 * The scan keeps its file reader and merge loop private and drops retractions; this module has its own
 * small equivalents for compaction. Values are projected onto the current schema by field id, so
 * compaction also migrates files of older schemas to the current one, as Java's rewriter does.
 */
import { FloeError } from '../../src/errors.js';
import { readDataFile } from './data-file.js';
import { createMergeFunction, isRetract, sequenceFields, type KeyValue, type MergeFunction } from './merge-engines.js';
import { KEY_FIELD_ID_START, SEQUENCE_NUMBER_FIELD_ID, VALUE_KIND_FIELD_ID } from './scan.js';
import { fieldsByName, trimmedPrimaryKeyFields, type PaimonFile, type PaimonTable } from './table.js';
import type { PaimonField, PaimonType } from './types.js';
import { comparatorFor, rowComparator } from './values.js';

/** Widening casts for values read with an older schema's type. */
function castValue(v: unknown, to: PaimonType): unknown {
  if (v === null || v === undefined) return null;
  switch (to.root) {
    case 'BIGINT': return typeof v === 'number' ? BigInt(v) : v;
    case 'FLOAT': case 'DOUBLE': return typeof v === 'bigint' ? Number(v) : v;
    case 'CHAR': case 'VARCHAR': return typeof v === 'string' ? v : String(v);
    default: return v;
  }
}

/** Name → field id through the schema the file was written with (files without Parquet field ids). */
function idResolver(table: PaimonTable, f: PaimonFile): (name: string) => number | undefined {
  const byName = fieldsByName(table.schemas.get(f.meta.schemaId) ?? table.schema);
  return (name) => {
    if (name === '_SEQUENCE_NUMBER') return SEQUENCE_NUMBER_FIELD_ID;
    if (name === '_VALUE_KIND') return VALUE_KIND_FIELD_ID;
    if (name.startsWith('_KEY_')) {
      const k = byName.get(name.slice('_KEY_'.length));
      return k ? KEY_FIELD_ID_START + k.id : undefined;
    }
    return byName.get(name)?.id;
  };
}

/** Reads one data file as records in the current schema. Append files get kind +I and sequence 0. */
export async function readFileRecords(table: PaimonTable, f: PaimonFile): Promise<KeyValue[]> {
  const fields = table.schema.fields;
  const keyFields = table.schema.primaryKeys.length ? trimmedPrimaryKeyFields(table.schema) : [];
  const want = new Set<number>([...fields.map((x) => x.id), SEQUENCE_NUMBER_FIELD_ID, VALUE_KIND_FIELD_ID]);
  for (const k of keyFields) want.add(KEY_FIELD_ID_START + k.id);
  const cols = await readDataFile(table.io, f.path, want, idResolver(table, f));
  if (keyFields.length && (!cols.byId.has(SEQUENCE_NUMBER_FIELD_ID) || !cols.byId.has(VALUE_KIND_FIELD_ID))) {
    throw new FloeError('Corrupt', `Paimon data file ${f.path} of a primary-key table lacks _SEQUENCE_NUMBER/_VALUE_KIND`, { context: { file: f.path } });
  }
  const valueCols = fields.map((x) => cols.byId.get(x.id));
  const keyCols = keyFields.map((k) => cols.byId.get(KEY_FIELD_ID_START + k.id) ?? cols.byId.get(k.id));
  const seqCol = cols.byId.get(SEQUENCE_NUMBER_FIELD_ID);
  const kindCol = cols.byId.get(VALUE_KIND_FIELD_ID);
  const out: KeyValue[] = new Array(cols.numRows);
  for (let i = 0; i < cols.numRows; i++) {
    out[i] = {
      key: keyCols.map((c, j) => castValue(c ? c[i] : null, keyFields[j]!.type)),
      sequenceNumber: seqCol ? BigInt(seqCol[i] as bigint) : 0n,
      kind: kindCol ? Number(kindCol[i]) : 0,
      value: valueCols.map((c, j) => castValue(c ? c[i] : null, fields[j]!.type)),
      level: f.meta.level,
    };
  }
  return out;
}

/** Records of one sorted run in key order, one file in memory at a time. */
class RunCursor {
  private next = 0;
  private buf: KeyValue[] = [];
  private pos = 0;
  constructor(private readonly files: readonly PaimonFile[], private readonly load: (f: PaimonFile) => Promise<KeyValue[]>, private readonly onFile: (f: PaimonFile, rows: number) => void) {}
  async head(): Promise<KeyValue | undefined> {
    while (this.pos >= this.buf.length) {
      if (this.next >= this.files.length) return undefined;
      const f = this.files[this.next++]!;
      this.buf = await this.load(f);
      this.onFile(f, this.buf.length);
      this.pos = 0;
    }
    return this.buf[this.pos];
  }
  advance(): void {
    this.pos++;
  }
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
    if (!f) throw new FloeError('Corrupt', `Paimon table ${table.location}: sequence.field '${n}' is not a column`, { context: { table: table.location } });
    return { idx: schema.fields.indexOf(f), cmp: comparatorFor(f.type) };
  });
  const descending = (schema.options['sequence.field.sort-order'] ?? 'ascending').trim().toLowerCase() === 'descending';
  const order = (a: KeyValue, b: KeyValue): number => {
    for (const s of seq) {
      const c = s.cmp(a.value[s.idx], b.value[s.idx]);
      if (c !== 0) return descending ? -c : c;
    }
    if (a.sequenceNumber !== b.sequenceNumber) return a.sequenceNumber < b.sequenceNumber ? -1 : 1;
    return (isRetract(a.kind) ? 0 : 1) - (isRetract(b.kind) ? 0 : 1);
  };
  return { keyTypes, mf: createMergeFunction(schema.fields as PaimonField[], schema.primaryKeys, schema.options, table.location), order };
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
  const keyCmp = rowComparator(ctx.keyTypes);
  const load = (f: PaimonFile) => readFileRecords(table, f);
  for (const section of sections) {
    const cursors = section.map((run) => new RunCursor(run, load, onFile));
    for (;;) {
      let minKey: unknown[] | undefined;
      const heads: (KeyValue | undefined)[] = [];
      for (const c of cursors) {
        const h = await c.head();
        heads.push(h);
        if (h && (!minKey || keyCmp(h.key, minKey) < 0)) minKey = h.key;
      }
      if (!minKey) break;
      const group: KeyValue[] = [];
      for (let i = 0; i < cursors.length; i++) {
        for (let h = heads[i]; h && keyCmp(h.key, minKey) === 0; h = await cursors[i]!.head()) {
          group.push(h);
          cursors[i]!.advance();
        }
      }
      group.sort(ctx.order);
      const merged = ctx.mf.merge(group);
      if (!merged) continue;
      if (dropDelete && isRetract(merged.kind)) continue;
      yield merged;
    }
  }
}
