/**
 * Nested Paimon columns (ARRAY, MAP, MULTISET, ROW) in the Parquet layout Java Paimon's
 * `ParquetSchemaConverter` gives them, so Java, pypaimon and floe read floe's files like Java's own:
 *
 * - ARRAY: `<rep> group name (LIST) { repeated group list { <rep> element } }`, the element carrying id
 *   `SpecialFields.getArrayElementFieldId(fieldId, depth + 1)`;
 * - MAP: `<rep> group name (MAP) { repeated group key_value { required key; <rep> value } }` — the key is
 *   always required (Parquet has no nullable map keys), ids `getMapKeyFieldId` / `getMapValueFieldId`;
 * - MULTISET<T>: written as MAP<T NOT NULL, INT NOT NULL> (element → count);
 * - ROW: a plain group whose children keep their own Paimon field ids (depth restarts at 0).
 *
 * `fieldId` and `depth` are those of the top-level column (a ROW child starts its own), as in Java; the id
 * arithmetic is Java `int` arithmetic (wraps at 32 bits).
 *
 * Values are the shapes the scan reads nested columns into (rows.ts `valueFromArrow`): arrays, `Map`s,
 * and objects keyed by the file's field names for ROW — with nested units as stored (a TIMESTAMP(3) inside
 * an array stays epoch millis), so they are written back unchanged.
 */
import * as arrow from 'apache-arrow';
import { FloeError } from '../../util/errors.js';
import { withFieldId } from '../../model/arrow/field-id.js';
import type { PaimonType } from './types.js';

/** `SpecialFields.STRUCTURED_TYPE_FIELD_ID_BASE` = Integer.MAX_VALUE / 4. */
const STRUCTURED_BASE = Math.floor(2147483647 / 4);
/** `SpecialFields.STRUCTURED_TYPE_FIELD_DEPTH_LIMIT` = 1 << 10. */
const DEPTH_LIMIT = 1 << 10;

export const arrayElementFieldId = (fieldId: number, depth: number): number =>
  (STRUCTURED_BASE + Math.imul(fieldId, DEPTH_LIMIT) + depth) | 0;
export const mapKeyFieldId = (fieldId: number, depth: number): number =>
  (STRUCTURED_BASE - Math.imul(fieldId, DEPTH_LIMIT) - depth) | 0;
export const mapValueFieldId = (fieldId: number, depth: number): number =>
  (STRUCTURED_BASE + Math.imul(fieldId, DEPTH_LIMIT) + depth) | 0;

export function isNestedPaimonType(t: PaimonType): boolean {
  return t.root === 'ARRAY' || t.root === 'MAP' || t.root === 'MULTISET' || t.root === 'ROW';
}

/** Arrow type of an atomic Paimon type (the top-level mapping of write-data-file.ts). */
export type AtomicArrowMapping = (t: PaimonType, where: string) => arrow.DataType;

/**
 * The Arrow field of one Paimon column or nested member, `name` and `id` as Java would put them in the
 * Parquet schema. Atomic members are mapped by `atomic`.
 */
export function paimonArrowField(
  name: string,
  t: PaimonType,
  fieldId: number,
  depth: number,
  where: string,
  atomic: AtomicArrowMapping,
): arrow.Field {
  return new arrow.Field(
    name,
    paimonArrowType(t, fieldId, depth, where, atomic),
    t.nullable,
    withFieldId(undefined, fieldId),
  );
}

function withId(f: arrow.Field, id: number): arrow.Field {
  return new arrow.Field(f.name, f.type, f.nullable, withFieldId(f.metadata, id));
}

function mapOf(key: arrow.Field, value: arrow.Field): arrow.Map_ {
  const map = new arrow.Map_(
    new arrow.Field('key_value', new arrow.Struct([key, value]), false) as arrow.Field<never>,
    false,
  );
  // Arrow JS renames the entries field to 'entries'; arrow-rs writes the field's name as the repeated
  // group's, and Paimon's layout calls it 'key_value' (ParquetSchemaConverter.MAP_REPEATED_NAME).
  (map.children[0] as { name: string }).name = 'key_value';
  return map;
}

export function paimonArrowType(
  t: PaimonType,
  fieldId: number,
  depth: number,
  where: string,
  atomic: AtomicArrowMapping,
): arrow.DataType {
  switch (t.root) {
    case 'ARRAY': {
      const element = paimonArrowField('element', t.element, fieldId, depth + 1, `${where}.element`, atomic);
      return new arrow.List(withId(element, arrayElementFieldId(fieldId, depth + 1)));
    }
    case 'MAP':
    case 'MULTISET': {
      const keyType = t.root === 'MAP' ? t.key : t.element;
      const valueType: PaimonType = t.root === 'MAP' ? t.value : { root: 'INT', nullable: false };
      const key = paimonArrowField('key', { ...keyType, nullable: false }, fieldId, depth + 1, `${where}.key`, atomic);
      const value = paimonArrowField('value', valueType, fieldId, depth + 1, `${where}.value`, atomic);
      return mapOf(withId(key, mapKeyFieldId(fieldId, depth + 1)), withId(value, mapValueFieldId(fieldId, depth + 1)));
    }
    case 'ROW':
      return new arrow.Struct(
        t.fields.map((f) => paimonArrowField(f.name, f.type, f.id, 0, `${where}.${f.name}`, atomic)),
      );
    default:
      return atomic(t, where);
  }
}

function shapeError(where: string, what: string): never {
  throw new FloeError('Unsupported', `${where}: ${what}`, { context: { column: where } });
}

type Convert = (v: unknown) => unknown;
const identity: Convert = (v) => v;

/**
 * The writer of a nested column's values: checks that each value read from a data file has the shape of the
 * table's current type — a ROW member the value lacks means the file was written under another nested
 * schema (a renamed or added ROW field), which floe does not map; writing it would silently turn the
 * member into null — and converts the atomic members `leaf` names (INT96 timestamps) to what the Arrow
 * column holds.
 */
export function nestedValueWriter(t: PaimonType, where: string, leaf: (t: PaimonType) => Convert | undefined): Convert {
  const inner = memberWriter(t, where, leaf);
  return (v) => (v === null || v === undefined ? null : inner(v));
}

function memberWriter(t: PaimonType, where: string, leaf: (t: PaimonType) => Convert | undefined): Convert {
  const sub = (m: PaimonType, w: string) => {
    const c = memberWriter(m, w, leaf);
    return (v: unknown) => (v === null || v === undefined ? null : c(v));
  };
  switch (t.root) {
    case 'ARRAY': {
      const e = sub(t.element, `${where}.element`);
      return (v) => {
        if (!Array.isArray(v)) shapeError(where, 'expected an array value');
        return v.map(e);
      };
    }
    case 'MAP':
    case 'MULTISET': {
      const k = sub(t.root === 'MAP' ? t.key : t.element, `${where}.key`);
      const x = t.root === 'MAP' ? sub(t.value, `${where}.value`) : identity;
      return (v) => {
        if (!(v instanceof Map)) shapeError(where, 'expected a map value');
        const out = new Map<unknown, unknown>();
        for (const [key, val] of v) {
          if (key === null || key === undefined) shapeError(where, 'a map key is null (Parquet map keys are required)');
          out.set(k(key), x(val));
        }
        return out;
      };
    }
    case 'ROW': {
      const fields = t.fields.map((f) => ({ name: f.name, w: sub(f.type, `${where}.${f.name}`) }));
      return (v) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Map || v instanceof Uint8Array)
          shapeError(where, 'expected a row value');
        const o = v as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const f of fields) {
          if (!Object.prototype.hasOwnProperty.call(o, f.name)) {
            shapeError(
              where,
              `ROW field ${f.name} is missing from a value read from a data file (the file was written under another ` +
                'nested schema — renamed or added ROW fields are not mapped by floe yet)',
            );
          }
          out[f.name] = f.w(o[f.name]);
        }
        return out;
      };
    }
    default:
      return leaf(t) ?? identity;
  }
}
