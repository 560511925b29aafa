/**
 * The Avro schemas of manifests and manifest lists, generated per format version exactly as Java Iceberg writes
 * them: record names (manifest_entry, r2, r102, k117_v118, r508), field ids, field order, docs, and the
 * `iceberg.schema` header. Readers such as Java fail on other record names, so none of this is free-form.
 */
import type { Field, FieldType, PartitionSpec, Schema } from '../../model/index.js';
import { FloeError } from '../../util/errors.js';

type IType =
  | string
  | { type: 'struct'; fields: IField[] }
  | { type: 'list'; 'element-id': number; element: string | object; 'element-required': boolean }
  | { type: 'map'; 'key-id': number; key: string; 'value-id': number; value: string; 'value-required': boolean };
interface IField {
  id: number;
  name: string;
  required: boolean;
  type: IType;
  doc?: string;
}

/** One field of a metadata struct, with the versions that carry it. */
interface MetaField extends IField {
  versions: readonly number[];
}

const ALL = [1, 2, 3] as const;
const V2UP = [2, 3] as const;

const intMap = (keyId: number, valueId: number, value: 'long' | 'binary'): IType => ({
  type: 'map',
  'key-id': keyId,
  key: 'int',
  'value-id': valueId,
  value,
  'value-required': true,
});
const list = (elementId: number, element: string): IType => ({
  type: 'list',
  'element-id': elementId,
  element,
  'element-required': true,
});

function dataFileFields(partitionType: IType, version: number): IField[] {
  const fields: MetaField[] = [
    {
      id: 134,
      name: 'content',
      required: true,
      type: 'int',
      doc: 'Contents of the file: 0=data, 1=position deletes, 2=equality deletes',
      versions: V2UP,
    },
    { id: 100, name: 'file_path', required: true, type: 'string', doc: 'Location URI with FS scheme', versions: ALL },
    {
      id: 101,
      name: 'file_format',
      required: true,
      type: 'string',
      doc: 'File format name: avro, orc, or parquet',
      versions: ALL,
    },
    {
      id: 102,
      name: 'partition',
      required: true,
      type: partitionType,
      doc: 'Partition data tuple, schema based on the partition spec',
      versions: ALL,
    },
    {
      id: 103,
      name: 'record_count',
      required: true,
      type: 'long',
      doc: 'Number of records in the file',
      versions: ALL,
    },
    {
      id: 104,
      name: 'file_size_in_bytes',
      required: true,
      type: 'long',
      doc: 'Total file size in bytes',
      versions: ALL,
    },
    { id: 105, name: 'block_size_in_bytes', required: true, type: 'long', doc: 'Block size', versions: [1] },
    {
      id: 108,
      name: 'column_sizes',
      required: false,
      type: intMap(117, 118, 'long'),
      doc: 'Map of column id to total size on disk',
      versions: ALL,
    },
    {
      id: 109,
      name: 'value_counts',
      required: false,
      type: intMap(119, 120, 'long'),
      doc: 'Map of column id to total count, including null and NaN',
      versions: ALL,
    },
    {
      id: 110,
      name: 'null_value_counts',
      required: false,
      type: intMap(121, 122, 'long'),
      doc: 'Map of column id to null value count',
      versions: ALL,
    },
    {
      id: 137,
      name: 'nan_value_counts',
      required: false,
      type: intMap(138, 139, 'long'),
      doc: 'Map of column id to number of NaN values in the column',
      versions: ALL,
    },
    {
      id: 125,
      name: 'lower_bounds',
      required: false,
      type: intMap(126, 127, 'binary'),
      doc: 'Map of column id to lower bound',
      versions: ALL,
    },
    {
      id: 128,
      name: 'upper_bounds',
      required: false,
      type: intMap(129, 130, 'binary'),
      doc: 'Map of column id to upper bound',
      versions: ALL,
    },
    {
      id: 131,
      name: 'key_metadata',
      required: false,
      type: 'binary',
      doc: 'Encryption key metadata blob',
      versions: ALL,
    },
    {
      id: 132,
      name: 'split_offsets',
      required: false,
      type: list(133, 'long'),
      doc: 'Splittable offsets',
      versions: ALL,
    },
    {
      id: 135,
      name: 'equality_ids',
      required: false,
      type: list(136, 'int'),
      doc: 'Equality comparison field IDs',
      versions: V2UP,
    },
    { id: 140, name: 'sort_order_id', required: false, type: 'int', doc: 'Sort order ID', versions: ALL },
    {
      id: 142,
      name: 'first_row_id',
      required: false,
      type: 'long',
      doc: 'The first row ID assigned to the first row in the data file',
      versions: [3],
    },
    {
      id: 143,
      name: 'referenced_data_file',
      required: false,
      type: 'string',
      doc: 'Fully qualified location (URI with FS scheme) of a data file that all deletes reference',
      versions: V2UP,
    },
    {
      id: 144,
      name: 'content_offset',
      required: false,
      type: 'long',
      doc: 'The offset in the file where the content starts',
      versions: [3],
    },
    {
      id: 145,
      name: 'content_size_in_bytes',
      required: false,
      type: 'long',
      doc: 'The length of referenced content stored in the file',
      versions: [3],
    },
  ];
  return fields.filter((f) => f.versions.includes(version)).map(({ versions: _v, ...f }) => f);
}

function manifestFileFields(version: number): IField[] {
  const summary: IType = {
    type: 'list',
    'element-id': 508,
    element: {
      type: 'struct',
      fields: [
        {
          id: 509,
          name: 'contains_null',
          required: true,
          type: 'boolean',
          doc: 'True if any file has a null partition value',
        },
        {
          id: 518,
          name: 'contains_nan',
          required: false,
          type: 'boolean',
          doc: 'True if any file has a nan partition value',
        },
        { id: 510, name: 'lower_bound', required: false, type: 'binary', doc: 'Partition lower bound for all files' },
        { id: 511, name: 'upper_bound', required: false, type: 'binary', doc: 'Partition upper bound for all files' },
      ],
    },
    'element-required': true,
  };
  const v1 = version === 1;
  const fields: MetaField[] = [
    {
      id: 500,
      name: 'manifest_path',
      required: true,
      type: 'string',
      doc: 'Location URI with FS scheme',
      versions: ALL,
    },
    { id: 501, name: 'manifest_length', required: true, type: 'long', doc: 'Total file size in bytes', versions: ALL },
    { id: 502, name: 'partition_spec_id', required: true, type: 'int', doc: 'Spec ID used to write', versions: ALL },
    {
      id: 517,
      name: 'content',
      required: true,
      type: 'int',
      doc: 'Contents of the manifest: 0=data, 1=deletes',
      versions: V2UP,
    },
    {
      id: 515,
      name: 'sequence_number',
      required: true,
      type: 'long',
      doc: 'Sequence number when the manifest was added',
      versions: V2UP,
    },
    {
      id: 516,
      name: 'min_sequence_number',
      required: true,
      type: 'long',
      doc: 'Lowest sequence number in the manifest',
      versions: V2UP,
    },
    {
      id: 503,
      name: 'added_snapshot_id',
      required: true,
      type: 'long',
      doc: 'Snapshot ID that added the manifest',
      versions: ALL,
    },
    { id: 504, name: 'added_files_count', required: !v1, type: 'int', doc: 'Added entry count', versions: ALL },
    { id: 505, name: 'existing_files_count', required: !v1, type: 'int', doc: 'Existing entry count', versions: ALL },
    { id: 506, name: 'deleted_files_count', required: !v1, type: 'int', doc: 'Deleted entry count', versions: ALL },
    { id: 512, name: 'added_rows_count', required: !v1, type: 'long', doc: 'Added rows count', versions: ALL },
    { id: 513, name: 'existing_rows_count', required: !v1, type: 'long', doc: 'Existing rows count', versions: ALL },
    { id: 514, name: 'deleted_rows_count', required: !v1, type: 'long', doc: 'Deleted rows count', versions: ALL },
    { id: 507, name: 'partitions', required: false, type: summary, doc: 'Summary for each partition', versions: ALL },
    {
      id: 519,
      name: 'key_metadata',
      required: false,
      type: 'binary',
      doc: 'Encryption key metadata blob',
      versions: ALL,
    },
    {
      id: 520,
      name: 'first_row_id',
      required: false,
      type: 'long',
      doc: 'Starting row ID to assign to new rows in ADDED data files',
      versions: [3],
    },
  ];
  // v1 writes partitions before the row counts (Java V1Metadata order)
  const kept = fields.filter((f) => f.versions.includes(version)).map(({ versions: _v, ...f }) => f);
  if (v1) {
    const order = [500, 501, 502, 503, 504, 505, 506, 507, 512, 513, 514, 519];
    kept.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  }
  return kept;
}

/** Iceberg type → Avro type, as Java's TypeToSchema does (logical types, fixed names). */
export function avroTypeFor(t: FieldType): unknown {
  if (t.kind !== 'primitive') {
    throw new FloeError('Unsupported', `nested partition source types are not supported (${t.kind})`);
  }
  switch (t.name) {
    case 'boolean':
      return 'boolean';
    case 'int':
      return 'int';
    case 'long':
      return 'long';
    case 'float':
      return 'float';
    case 'double':
      return 'double';
    case 'date':
      return { type: 'int', logicalType: 'date' };
    case 'time':
      return { type: 'long', logicalType: 'time-micros' };
    case 'timestamp':
      return { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': false };
    case 'timestamptz':
      return { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': true };
    case 'timestamp_ns':
      return { type: 'long', logicalType: 'timestamp-nanos', 'adjust-to-utc': false };
    case 'timestamptz_ns':
      return { type: 'long', logicalType: 'timestamp-nanos', 'adjust-to-utc': true };
    case 'string':
      return 'string';
    case 'binary':
      return 'bytes';
    case 'uuid':
      return { type: 'fixed', name: 'uuid_fixed', size: 16, logicalType: 'uuid' };
    case 'fixed':
      return { type: 'fixed', name: `fixed_${t.length}`, size: t.length };
    case 'decimal': {
      const p = t.precision ?? 38;
      return {
        type: 'fixed',
        name: `decimal_${p}_${t.scale ?? 0}`,
        size: decimalBytes(p),
        logicalType: 'decimal',
        precision: p,
        scale: t.scale ?? 0,
      };
    }
    default:
      throw new FloeError('Unsupported', `type ${t.name} cannot be a partition value`);
  }
}

/** Smallest byte count that holds a decimal of `precision` digits (Java TypeUtil.decimalRequiredBytes). */
export function decimalBytes(precision: number): number {
  let bytes = 1;
  while (2 ** (8 * bytes - 1) - 1 < 10 ** precision - 1) bytes++;
  return bytes;
}

/** Result type of a partition transform applied to its source type. */
export function partitionResultType(transform: string, source: FieldType): FieldType {
  const prim = (name: 'int' | 'date'): FieldType => ({ kind: 'primitive', name });
  if (transform === 'identity' || transform === 'void' || transform.startsWith('truncate')) return source;
  if (transform.startsWith('bucket')) return prim('int');
  if (transform === 'year' || transform === 'month' || transform === 'hour') return prim('int');
  if (transform === 'day') return prim('date');
  throw new FloeError('Unsupported', `unknown partition transform '${transform}'`);
}

function icebergTypeName(t: FieldType): string {
  if (t.kind !== 'primitive') throw new FloeError('Unsupported', `nested partition type ${t.kind}`);
  switch (t.name) {
    case 'decimal':
      return `decimal(${t.precision},${t.scale})`;
    case 'fixed':
      return `fixed[${t.length}]`;
    case 'timestamp_ns':
      return 'timestamp_ns';
    case 'timestamptz_ns':
      return 'timestamptz_ns';
    default:
      return t.name;
  }
}

export interface PartitionTypeField {
  id: number;
  name: string;
  type: FieldType;
}

export function partitionType(spec: PartitionSpec, schema: Schema): PartitionTypeField[] {
  const byId = new Map<number, Field>();
  const walk = (fs: Field[]) => {
    for (const f of fs) {
      byId.set(f.id, f);
      if (f.type.kind === 'struct') walk(f.type.fields);
    }
  };
  walk(schema.fields);
  return spec.fields.map((pf) => {
    const src = byId.get(pf.sourceId);
    if (!src)
      throw new FloeError('Corrupt', `partition field ${pf.name} refers to missing source column ${pf.sourceId}`);
    return { id: pf.fieldId, name: pf.name, type: partitionResultType(pf.transform, src.type) };
  });
}

/** Iceberg struct JSON → Avro record schema, naming nested records r<fieldId> as Java does. */
function toAvro(fields: IField[], recordName: string, partition?: PartitionTypeField[]): unknown {
  return {
    type: 'record',
    name: recordName,
    fields: fields.map((f) => {
      let type: unknown;
      if (f.id === 102 && partition) {
        type = {
          type: 'record',
          name: 'r102',
          fields: partition.map((p) => ({
            name: p.name,
            type: ['null', avroTypeFor(p.type)],
            default: null,
            'field-id': p.id,
          })),
        };
      } else if (typeof f.type === 'string') {
        type = f.type === 'binary' ? 'bytes' : f.type;
      } else if (f.type.type === 'struct') {
        type = toAvro(f.type.fields, `r${f.id}`);
      } else if (f.type.type === 'map') {
        type = {
          type: 'array',
          items: {
            type: 'record',
            name: `k${f.type['key-id']}_v${f.type['value-id']}`,
            fields: [
              { name: 'key', type: f.type.key, 'field-id': f.type['key-id'] },
              {
                name: 'value',
                type: f.type.value === 'binary' ? 'bytes' : f.type.value,
                'field-id': f.type['value-id'],
              },
            ],
          },
          logicalType: 'map',
        };
      } else {
        const el = f.type.element;
        const items =
          typeof el === 'string' ? el : toAvro((el as { fields: IField[] }).fields, `r${f.type['element-id']}`);
        type = { type: 'array', items, 'element-id': f.type['element-id'] };
      }
      const out: Record<string, unknown> = { name: f.name, type: f.required ? type : ['null', type] };
      if (f.doc) out.doc = f.doc;
      if (!f.required) out.default = null;
      out['field-id'] = f.id;
      return out;
    }),
  };
}

function icebergStructJson(fields: IField[], partition?: PartitionTypeField[]): unknown {
  return {
    type: 'struct',
    'schema-id': 0,
    fields: fields.map((f) => {
      let type: unknown = f.type;
      if (f.id === 102 && partition) {
        type = {
          type: 'struct',
          fields: partition.map((p) => ({ id: p.id, name: p.name, required: false, type: icebergTypeName(p.type) })),
        };
      } else if (typeof f.type === 'object' && f.type.type === 'struct') {
        type = { type: 'struct', fields: (icebergStructJson(f.type.fields) as { fields: unknown[] }).fields };
      }
      const out: Record<string, unknown> = { id: f.id, name: f.name, required: f.required, type };
      if (f.doc) out.doc = f.doc;
      return out;
    }),
  };
}

function manifestEntryFields(version: number, partition: PartitionTypeField[]): IField[] {
  const partitionStruct: IType = { type: 'struct', fields: [] };
  const dataFile: IField = {
    id: 2,
    name: 'data_file',
    required: true,
    type: { type: 'struct', fields: dataFileFields(partitionStruct, version) },
  };
  const head: IField[] =
    version === 1
      ? [
          { id: 0, name: 'status', required: true, type: 'int' },
          { id: 1, name: 'snapshot_id', required: true, type: 'long' },
        ]
      : [
          { id: 0, name: 'status', required: true, type: 'int' },
          { id: 1, name: 'snapshot_id', required: false, type: 'long' },
          { id: 3, name: 'sequence_number', required: false, type: 'long' },
          { id: 4, name: 'file_sequence_number', required: false, type: 'long' },
        ];
  void partition;
  return [...head, dataFile];
}

export interface ManifestSchemas {
  avroSchemaText: string;
  icebergSchemaText: string;
}

export function manifestEntrySchema(version: number, partition: PartitionTypeField[]): ManifestSchemas {
  const fields = manifestEntryFields(version, partition);
  // nested data_file record is r2; its partition record r102 (handled in toAvro via the partition argument)
  const avro = {
    type: 'record',
    name: 'manifest_entry',
    fields: fields.map((f) =>
      f.id === 2
        ? { name: 'data_file', type: toAvro((f.type as { fields: IField[] }).fields, 'r2', partition), 'field-id': 2 }
        : (toAvro([f], 'x') as { fields: unknown[] }).fields[0],
    ),
  };
  const iceberg = icebergStructJson(
    fields.map((f) =>
      f.id === 2 ? { ...f, type: { type: 'struct', fields: (f.type as { fields: IField[] }).fields } } : f,
    ),
  ) as { fields: { id: number; type: { fields: Record<string, unknown>[] } }[] };
  // fill the partition struct inside data_file's Iceberg JSON
  const df = iceberg.fields.find((f) => f.id === 2)!;
  const icebergDataFile = icebergStructJson(
    (fields.find((f) => f.id === 2)!.type as { fields: IField[] }).fields,
    partition,
  );
  df.type = icebergDataFile as { fields: Record<string, unknown>[] };
  delete (df.type as Record<string, unknown>)['schema-id'];
  return { avroSchemaText: JSON.stringify(avro), icebergSchemaText: JSON.stringify(iceberg) };
}

export function manifestListSchema(version: number): ManifestSchemas {
  const fields = manifestFileFields(version);
  return {
    avroSchemaText: JSON.stringify(toAvro(fields, 'manifest_file')),
    icebergSchemaText: JSON.stringify(icebergStructJson(fields)),
  };
}
