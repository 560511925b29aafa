/**
 * Iceberg schema JSON ↔ the neutral model's Field/FieldType, plus the lookups readers need
 * (field by id, partition field result types).
 */
import { FloeError } from '../../util/errors.js';
import type { Field, FieldType, PartitionField, PrimitiveTypeName, Schema } from '../../model/index.js';

const PRIMITIVES: ReadonlySet<string> = new Set([
  'boolean',
  'int',
  'long',
  'float',
  'double',
  'date',
  'time',
  'timestamp',
  'timestamptz',
  'timestamp_ns',
  'timestamptz_ns',
  'string',
  'uuid',
  'binary',
  'unknown',
  'variant',
]);

function num(v: unknown): number {
  return typeof v === 'bigint' ? Number(v) : (v as number);
}

export function parseType(t: unknown, where: string): FieldType {
  if (typeof t === 'string') {
    const s = t.trim();
    if (PRIMITIVES.has(s)) return { kind: 'primitive', name: s as PrimitiveTypeName };
    let m = /^decimal\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)$/.exec(s);
    if (m) return { kind: 'primitive', name: 'decimal', precision: Number(m[1]), scale: Number(m[2]) };
    m = /^fixed\s*\[\s*(\d+)\s*\]$/.exec(s);
    if (m) return { kind: 'primitive', name: 'fixed', length: Number(m[1]) };
    if (/^geometry(\s*\(.*\))?$/.test(s)) return { kind: 'primitive', name: 'geometry' };
    if (/^geography(\s*\(.*\))?$/.test(s)) return { kind: 'primitive', name: 'geography' };
    throw new FloeError('Unsupported', `${where}: unknown Iceberg type "${s}"`);
  }
  if (t && typeof t === 'object') {
    const o = t as Record<string, unknown>;
    switch (o.type) {
      case 'struct':
        return { kind: 'struct', fields: ((o.fields as unknown[]) ?? []).map((f) => parseField(f, where)) };
      case 'list':
        return {
          kind: 'list',
          elementId: num(o['element-id']),
          element: parseType(o.element, where),
          elementRequired: Boolean(o['element-required']),
        };
      case 'map':
        return {
          kind: 'map',
          keyId: num(o['key-id']),
          key: parseType(o.key, where),
          valueId: num(o['value-id']),
          value: parseType(o.value, where),
          valueRequired: Boolean(o['value-required']),
        };
    }
  }
  throw new FloeError(
    'Corrupt',
    `${where}: cannot read type ${JSON.stringify(t, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`,
  );
}

export function parseField(f: unknown, where: string): Field {
  const o = f as Record<string, unknown>;
  if (!o || typeof o !== 'object' || o.id === undefined || typeof o.name !== 'string') {
    throw new FloeError('Corrupt', `${where}: schema field without id/name`);
  }
  const field: Field = {
    id: num(o.id),
    name: o.name,
    required: Boolean(o.required),
    type: parseType(o.type, `${where} field ${o.name}`),
  };
  if (typeof o.doc === 'string') field.doc = o.doc;
  if ('initial-default' in o) field.initialDefault = o['initial-default'];
  if ('write-default' in o) field.writeDefault = o['write-default'];
  return field;
}

export function parseSchema(s: unknown, where: string, fallbackId = 0): Schema {
  const o = s as Record<string, unknown>;
  if (!o || typeof o !== 'object' || !Array.isArray(o.fields))
    throw new FloeError('Corrupt', `${where}: schema has no fields`);
  const schema: Schema = {
    schemaId: o['schema-id'] === undefined ? fallbackId : num(o['schema-id']),
    fields: o.fields.map((f) => parseField(f, where)),
  };
  if (Array.isArray(o['identifier-field-ids'])) schema.identifierFieldIds = o['identifier-field-ids'].map(num);
  return schema;
}

/** Every field (at any depth) by id; list elements and map keys/values are included as synthetic fields. */
export function indexFields(fields: readonly Field[]): Map<number, Field> {
  const out = new Map<number, Field>();
  const visitType = (t: FieldType, name: string): void => {
    if (t.kind === 'struct') for (const f of t.fields) visit(f);
    else if (t.kind === 'list')
      visit({ id: t.elementId, name: `${name}.element`, required: t.elementRequired, type: t.element });
    else if (t.kind === 'map') {
      visit({ id: t.keyId, name: `${name}.key`, required: true, type: t.key });
      visit({ id: t.valueId, name: `${name}.value`, required: t.valueRequired, type: t.value });
    }
  };
  const visit = (f: Field): void => {
    out.set(f.id, f);
    visitType(f.type, f.name);
  };
  for (const f of fields) visit(f);
  return out;
}

export function typeToString(t: FieldType): string {
  switch (t.kind) {
    case 'primitive':
      if (t.name === 'decimal') return `decimal(${t.precision},${t.scale})`;
      if (t.name === 'fixed') return `fixed[${t.length}]`;
      return t.name;
    case 'struct':
      return `struct<${t.fields.map((f) => `${f.name}: ${typeToString(f.type)}`).join(', ')}>`;
    case 'list':
      return `list<${typeToString(t.element)}>`;
    case 'map':
      return `map<${typeToString(t.key)}, ${typeToString(t.value)}>`;
  }
}

const INT: FieldType = { kind: 'primitive', name: 'int' };

/**
 * The type of a partition field's value (spec "Partition Transforms"): identity/truncate/void keep the
 * source type, bucket and the time transforms produce int. Unknown source (dropped column) → undefined.
 */
export function partitionResultType(pf: PartitionField, source: Field | undefined): FieldType | undefined {
  const t = pf.transform;
  if (t.startsWith('bucket')) return INT;
  if (t === 'year' || t === 'month' || t === 'day' || t === 'hour') return INT;
  return source?.type;
}

/** A transform is void (always null) — specs with only void fields count as unpartitioned. */
export function isVoidTransform(t: string): boolean {
  return t === 'void' || t === 'alwaysNull';
}
