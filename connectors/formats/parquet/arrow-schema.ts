/** Iceberg (neutral model) types → Arrow types, with every field carrying its Parquet field id. */
import * as arrow from 'apache-arrow';
import { FloeError } from '../../../util/errors.js';
import type { Field, FieldType } from '../../../model/table.js';
import { withFieldId } from '../../../model/arrow/field-id.js';
import { ARROW_EXTENSION_KEY, ARROW_UUID } from './uuid-annotation.js';

export function arrowSchemaForIceberg(fields: Field[]): arrow.Schema {
  return new arrow.Schema(fields.map(arrowFieldForIceberg));
}

export function arrowFieldForIceberg(field: Field): arrow.Field {
  return new arrow.Field(
    field.name,
    arrowTypeForIceberg(field.type, field.name),
    !field.required,
    metadataFor(field.type, field.id),
  );
}

/** Field id, plus Arrow's `arrow.uuid` extension name on uuid fields (the writer turns it into the UUID logical type). */
function metadataFor(type: FieldType, id: number): Map<string, string> {
  const m = withFieldId(undefined, id);
  if (type.kind === 'primitive' && type.name === 'uuid') m.set(ARROW_EXTENSION_KEY, ARROW_UUID);
  return m;
}

export function arrowTypeForIceberg(type: FieldType, where = 'field'): arrow.DataType {
  switch (type.kind) {
    case 'struct':
      return new arrow.Struct(type.fields.map(arrowFieldForIceberg));
    case 'list':
      return new arrow.List(
        new arrow.Field(
          'element',
          arrowTypeForIceberg(type.element, `${where}.element`),
          !type.elementRequired,
          metadataFor(type.element, type.elementId),
        ),
      );
    case 'map': {
      const key = new arrow.Field(
        'key',
        arrowTypeForIceberg(type.key, `${where}.key`),
        false,
        metadataFor(type.key, type.keyId),
      );
      const value = new arrow.Field(
        'value',
        arrowTypeForIceberg(type.value, `${where}.value`),
        !type.valueRequired,
        metadataFor(type.value, type.valueId),
      );
      const map = new arrow.Map_(
        new arrow.Field('key_value', new arrow.Struct([key, value]), false) as arrow.Field<never>,
        false,
      );
      // Arrow JS renames the entries field to 'entries' (ARROW-8716); Iceberg's Parquet layout names the
      // repeated group 'key_value' (Java TypeToMessageType, PyIceberg), and arrow-rs writes the field's name.
      (map.children[0] as { name: string }).name = 'key_value';
      return map;
    }
    case 'primitive':
      break;
  }
  switch (type.name) {
    case 'boolean':
      return new arrow.Bool();
    case 'tinyint':
      return new arrow.Int8();
    case 'smallint':
      return new arrow.Int16();
    case 'int':
      return new arrow.Int32();
    case 'long':
      return new arrow.Int64();
    case 'float':
      return new arrow.Float32();
    case 'double':
      return new arrow.Float64();
    case 'decimal': {
      const precision = type.precision ?? 38;
      if (precision > 38) throw new FloeError('Unsupported', `${where}: decimal precision ${precision} > 38`);
      return new arrow.Decimal(type.scale ?? 0, precision, 128);
    }
    case 'date':
      return new arrow.DateDay();
    case 'time':
      return new arrow.TimeMicrosecond();
    case 'timestamp':
      return new arrow.TimestampMicrosecond();
    case 'timestamptz':
      return new arrow.TimestampMicrosecond('UTC');
    case 'timestamp_ns':
      return new arrow.TimestampNanosecond();
    case 'timestamptz_ns':
      return new arrow.TimestampNanosecond('UTC');
    case 'string':
      return new arrow.Utf8();
    case 'uuid':
      return new arrow.FixedSizeBinary(16);
    case 'fixed':
      return new arrow.FixedSizeBinary(type.length ?? 0);
    case 'binary':
      return new arrow.Binary();
    // always null; the Parquet writer leaves such columns out of the file (spec: omitted from data files)
    case 'unknown':
      return new arrow.Null();
    default:
      throw new FloeError('Unsupported', `${where}: Iceberg type ${type.name} has no Parquet mapping in floe`);
  }
}
