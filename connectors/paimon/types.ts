/**
 * Paimon data types as they appear in `schema/schema-N` (`DataField.serializeJson`): SQL-like strings for
 * atomic types ("INT NOT NULL", "DECIMAL(10, 2)", "TIMESTAMP(3) WITH LOCAL TIME ZONE") and JSON objects for
 * ARRAY / MAP / MULTISET / ROW. Parsed into a small tagged union and mapped onto the neutral model.
 */
import { FloeError } from '../../util/errors.js';
import type { Field, FieldType } from '../../model/table.js';

export type PaimonAtomicRoot =
  | 'BOOLEAN'
  | 'TINYINT'
  | 'SMALLINT'
  | 'INT'
  | 'BIGINT'
  | 'FLOAT'
  | 'DOUBLE'
  | 'DECIMAL'
  | 'DATE'
  | 'TIME'
  | 'TIMESTAMP'
  | 'TIMESTAMP_LTZ'
  | 'CHAR'
  | 'VARCHAR'
  | 'BINARY'
  | 'VARBINARY'
  | 'VARIANT'
  | 'BLOB';

export type PaimonType =
  | { root: PaimonAtomicRoot; nullable: boolean; precision?: number; scale?: number; length?: number }
  | { root: 'ARRAY' | 'MULTISET'; nullable: boolean; element: PaimonType }
  | { root: 'MAP'; nullable: boolean; key: PaimonType; value: PaimonType }
  | { root: 'ROW'; nullable: boolean; fields: PaimonField[] }
  | { root: 'VECTOR'; nullable: boolean; element: PaimonType; length: number };

export interface PaimonField {
  id: number;
  name: string;
  type: PaimonType;
  description?: string;
}

/** Max precision Paimon stores inline as a long in a BinaryRow (`DecimalType.MAX_COMPACT_PRECISION`). */
export const MAX_COMPACT_DECIMAL_PRECISION = 18;
/** Max timestamp precision stored inline as epoch millis (`TimestampType` compact check). */
export const MAX_COMPACT_TIMESTAMP_PRECISION = 3;

const VARCHAR_MAX = 2147483647;

function bad(what: string, file: string): never {
  throw new FloeError('Corrupt', `Paimon schema ${file}: cannot parse type ${what}`, { context: { file } });
}

/** Parses one atomic type string. */
export function parseAtomicType(text: string, file: string): PaimonType {
  let s = text.trim();
  let nullable = true;
  if (/\s+NOT\s+NULL$/i.test(s)) {
    nullable = false;
    s = s.replace(/\s+NOT\s+NULL$/i, '');
  } else if (/\s+NULL$/i.test(s)) {
    s = s.replace(/\s+NULL$/i, '');
  }
  const m =
    /^([A-Za-z_ ]+?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*((?:WITH|WITHOUT)\s+(?:LOCAL\s+)?TIME\s+ZONE)?$/i.exec(
      s,
    );
  if (!m) bad(JSON.stringify(text), file);
  const name = m[1]!.trim().toUpperCase().replace(/\s+/g, ' ');
  const a = m[2] === undefined ? undefined : Number(m[2]);
  const b = m[3] === undefined ? undefined : Number(m[3]);
  const ltz = /LOCAL/i.test(m[4] ?? '');
  switch (name) {
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'BIGINT':
    case 'FLOAT':
    case 'DOUBLE':
    case 'DATE':
    case 'VARIANT':
    case 'BLOB':
      return { root: name, nullable };
    case 'INT':
    case 'INTEGER':
      return { root: 'INT', nullable };
    case 'DOUBLE PRECISION':
      return { root: 'DOUBLE', nullable };
    case 'DECIMAL':
    case 'DEC':
    case 'NUMERIC':
      return { root: 'DECIMAL', nullable, precision: a ?? 10, scale: b ?? 0 };
    case 'TIME':
      return { root: 'TIME', nullable, precision: a ?? 0 };
    case 'TIMESTAMP':
      return { root: ltz ? 'TIMESTAMP_LTZ' : 'TIMESTAMP', nullable, precision: a ?? 6 };
    case 'TIMESTAMP_LTZ':
      return { root: 'TIMESTAMP_LTZ', nullable, precision: a ?? 6 };
    case 'STRING':
      return { root: 'VARCHAR', nullable, length: VARCHAR_MAX };
    case 'VARCHAR':
    case 'CHARACTER VARYING':
      return { root: 'VARCHAR', nullable, length: a ?? 1 };
    case 'CHAR':
    case 'CHARACTER':
      return { root: 'CHAR', nullable, length: a ?? 1 };
    case 'BYTES':
      return { root: 'VARBINARY', nullable, length: VARCHAR_MAX };
    case 'VARBINARY':
    case 'BINARY VARYING':
      return { root: 'VARBINARY', nullable, length: a ?? 1 };
    case 'BINARY':
      return { root: 'BINARY', nullable, length: a ?? 1 };
    default:
      bad(JSON.stringify(text), file);
  }
}

/** Parses a `type` value of a schema field (string or complex-type object). */
export function parsePaimonType(json: unknown, file: string): PaimonType {
  if (typeof json === 'string') return parseAtomicType(json, file);
  if (!json || typeof json !== 'object') bad(JSON.stringify(json), file);
  const o = json as Record<string, unknown>;
  const head = String(o.type ?? '');
  const nullable = !/NOT\s+NULL/i.test(head);
  const root = head
    .replace(/\s+NOT\s+NULL$/i, '')
    .trim()
    .toUpperCase();
  if (root.startsWith('ARRAY') || root.startsWith('MULTISET')) {
    return {
      root: root.startsWith('ARRAY') ? 'ARRAY' : 'MULTISET',
      nullable,
      element: parsePaimonType(o.element, file),
    };
  }
  if (root.startsWith('VECTOR')) {
    return { root: 'VECTOR', nullable, element: parsePaimonType(o.element, file), length: Number(o.length) };
  }
  if (root.startsWith('MAP')) {
    return { root: 'MAP', nullable, key: parsePaimonType(o.key, file), value: parsePaimonType(o.value, file) };
  }
  if (root.startsWith('ROW')) {
    if (!Array.isArray(o.fields)) bad(JSON.stringify(json), file);
    return { root: 'ROW', nullable, fields: (o.fields as unknown[]).map((f) => parsePaimonField(f, file)) };
  }
  bad(JSON.stringify(json), file);
}

export function parsePaimonField(json: unknown, file: string): PaimonField {
  const o = json as Record<string, unknown>;
  if (!o || typeof o !== 'object' || typeof o.name !== 'string' || typeof o.id !== 'number') {
    bad(`field ${JSON.stringify(json)}`, file);
  }
  const f: PaimonField = { id: o.id, name: o.name, type: parsePaimonType(o.type, file) };
  if (typeof o.description === 'string') f.description = o.description;
  return f;
}

/**
 * Paimon → model type. Nested element/key/value ids do not exist in Paimon's JSON; they get ids derived
 * from the parent field id in a negative range so they never collide with real field ids.
 */
export function toModelType(t: PaimonType, ownerId: number): FieldType {
  switch (t.root) {
    case 'BOOLEAN':
      return { kind: 'primitive', name: 'boolean' };
    case 'TINYINT':
      return { kind: 'primitive', name: 'tinyint' };
    case 'SMALLINT':
      return { kind: 'primitive', name: 'smallint' };
    case 'INT':
      return { kind: 'primitive', name: 'int' };
    case 'BIGINT':
      return { kind: 'primitive', name: 'long' };
    case 'FLOAT':
      return { kind: 'primitive', name: 'float' };
    case 'DOUBLE':
      return { kind: 'primitive', name: 'double' };
    case 'DECIMAL':
      return { kind: 'primitive', name: 'decimal', precision: t.precision!, scale: t.scale! };
    case 'DATE':
      return { kind: 'primitive', name: 'date' };
    case 'TIME':
      return { kind: 'primitive', name: 'time' };
    case 'TIMESTAMP':
      return {
        kind: 'primitive',
        name: (t.precision ?? 6) > 6 ? 'timestamp_ns' : 'timestamp',
        precision: t.precision!,
      };
    case 'TIMESTAMP_LTZ':
      return {
        kind: 'primitive',
        name: (t.precision ?? 6) > 6 ? 'timestamptz_ns' : 'timestamptz',
        precision: t.precision!,
      };
    case 'CHAR':
    case 'VARCHAR':
      return t.length === VARCHAR_MAX
        ? { kind: 'primitive', name: 'string' }
        : { kind: 'primitive', name: 'string', length: t.length! };
    case 'BINARY':
      return { kind: 'primitive', name: 'fixed', length: t.length! };
    case 'VARBINARY':
      return t.length === VARCHAR_MAX
        ? { kind: 'primitive', name: 'binary' }
        : { kind: 'primitive', name: 'binary', length: t.length! };
    case 'VARIANT':
      return { kind: 'primitive', name: 'variant' };
    case 'BLOB':
      return { kind: 'primitive', name: 'binary' };
    case 'ARRAY':
    case 'MULTISET':
    case 'VECTOR':
      return {
        kind: 'list',
        elementId: -(ownerId * 4 + 1) - 1,
        element: toModelType(t.element, ownerId * 4 + 1),
        elementRequired: !t.element.nullable,
      };
    case 'MAP':
      return {
        kind: 'map',
        keyId: -(ownerId * 4 + 2) - 1,
        key: toModelType(t.key, ownerId * 4 + 2),
        valueId: -(ownerId * 4 + 3) - 1,
        value: toModelType(t.value, ownerId * 4 + 3),
        valueRequired: !t.value.nullable,
      };
    case 'ROW':
      return { kind: 'struct', fields: t.fields.map(toModelField) };
  }
}

export function toModelField(f: PaimonField): Field {
  const out: Field = { id: f.id, name: f.name, required: !f.type.nullable, type: toModelType(f.type, f.id) };
  if (f.description) out.doc = f.description;
  return out;
}

/** Short readable form for messages. */
export function typeToString(t: PaimonType): string {
  const nn = t.nullable ? '' : ' NOT NULL';
  switch (t.root) {
    case 'DECIMAL':
      return `DECIMAL(${t.precision}, ${t.scale})${nn}`;
    case 'ARRAY':
    case 'MULTISET':
      return `${t.root}<${typeToString(t.element)}>${nn}`;
    case 'MAP':
      return `MAP<${typeToString(t.key)}, ${typeToString(t.value)}>${nn}`;
    case 'ROW':
      return `ROW<${t.fields.map((f) => `${f.name} ${typeToString(f.type)}`).join(', ')}>${nn}`;
    case 'VECTOR':
      return `VECTOR<${typeToString(t.element)}, ${t.length}>${nn}`;
    default:
      return `${t.root}${t.precision !== undefined ? `(${t.precision})` : ''}${nn}`;
  }
}
