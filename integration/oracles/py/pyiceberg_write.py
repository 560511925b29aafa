"""Create and/or modify an Iceberg table with PyIceberg (SQL catalog in memory, table at a path).

usage: pyiceberg_write.py TABLE_DIR < spec.json      (or --spec FILE)

spec: {formatVersion?, schema?: [{name, type, required?}], partitionSpec?: [{source, transform, name?}],
       identifierFields?, properties?, ops: [{op: "append", rows: [...]} |
                                              {op: "delete", where: {col: value} | [{...}, ...]}]}
Without "schema" the table's current metadata file is registered and ops apply to it. Each append
commits one snapshot with one data file per partition. "delete" is PyIceberg's own delete, which
rewrites data files (copy-on-write): PyIceberg 0.12 writes no delete files.
Prints {location, metadataFile, formatVersion, currentSnapshotId, ops: [...]} as JSON.
"""
from __future__ import annotations

import argparse
import json
import sys

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.expressions import And, EqualTo, IsNull, Or
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import (
    BucketTransform,
    DayTransform,
    HourTransform,
    IdentityTransform,
    MonthTransform,
    TruncateTransform,
    YearTransform,
)
from pyiceberg.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
    TimestamptzType,
    TimeType,
    UUIDType,
)

from canonical import kind_of, metadata_file, parse

_SIMPLE = {
    "int": IntegerType,
    "long": LongType,
    "string": StringType,
    "double": DoubleType,
    "float": FloatType,
    "boolean": BooleanType,
    "binary": BinaryType,
    "date": DateType,
    "time": TimeType,
    "timestamp": TimestampType,
    "timestamptz": TimestamptzType,
    "uuid": UUIDType,
}


def iceberg_type(t: str):
    s = t.replace(" ", "").lower()
    if s in _SIMPLE:
        return _SIMPLE[s]()
    if s.startswith("decimal("):
        p, sc = s[8:-1].split(",")
        return DecimalType(int(p), int(sc))
    if s.startswith("fixed["):
        return FixedType(int(s[6:-1]))
    raise ValueError(f"unsupported type {t}")


def transform(t: str):
    if t == "identity":
        return IdentityTransform()
    if t.startswith("bucket["):
        return BucketTransform(int(t[7:-1]))
    if t.startswith("truncate["):
        return TruncateTransform(int(t[9:-1]))
    return {"day": DayTransform, "month": MonthTransform, "year": YearTransform, "hour": HourTransform}[t]()


def create(catalog: SqlCatalog, location: str, spec: dict):
    fields = []
    ids = {}
    for i, f in enumerate(spec["schema"], start=1):
        fields.append(NestedField(i, f["name"], iceberg_type(f["type"]), required=bool(f.get("required", False))))
        ids[f["name"]] = i
    ident = [ids[n] for n in spec.get("identifierFields", [])]
    schema = Schema(*fields, identifier_field_ids=ident)
    pfields = []
    for j, p in enumerate(spec.get("partitionSpec", [])):
        t = p.get("transform", "identity")
        name = p.get("name") or (
            p["source"] if t == "identity" else f"{p['source']}_{t.split('[')[0]}"
        )
        pfields.append(PartitionField(ids[p["source"]], 1000 + j, transform(t), name))
    props = {str(k): str(v) for k, v in spec.get("properties", {}).items()}
    props["format-version"] = str(spec.get("formatVersion", 2))
    return catalog.create_table(
        ("oracle", "t"), schema=schema, location=location, partition_spec=PartitionSpec(*pfields), properties=props
    )


def where_expr(table, where):
    kinds = {f.name: kind_of(f.field_type) for f in table.schema().fields}
    conds = where if isinstance(where, list) else [where]
    ors = []
    for cond in conds:
        parts = []
        for col, v in cond.items():
            if v is None:
                parts.append(IsNull(col))
            elif kinds[col] in ("int", "long", "double", "float", "boolean"):
                parts.append(EqualTo(col, parse(kinds[col], v)))
            else:  # PyIceberg converts string literals to dates, timestamps, decimals
                parts.append(EqualTo(col, str(v)))
        e = parts[0]
        for p in parts[1:]:
            e = And(e, p)
        ors.append(e)
    out = ors[0]
    for e in ors[1:]:
        out = Or(out, e)
    return out


def arrow_rows(table, rows):
    schema = table.schema()
    arrow_schema = schema.as_arrow()
    cols = {f.name: [] for f in schema.fields}
    for r in rows:
        for f in schema.fields:
            cols[f.name].append(parse(kind_of(f.field_type), r.get(f.name)))
    return pa.Table.from_pydict(cols, schema=arrow_schema)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("table")
    ap.add_argument("--spec")
    a = ap.parse_args()
    spec = json.load(open(a.spec) if a.spec and a.spec != "-" else sys.stdin)
    catalog = SqlCatalog("oracle", uri="sqlite:///:memory:", warehouse=f"file://{a.table}")
    catalog.create_namespace("oracle")
    if "schema" in spec:
        table = create(catalog, a.table, spec)
    else:
        table = catalog.register_table(("oracle", "t"), metadata_file(a.table))
    results = []
    for op in spec.get("ops", []):
        kind = op["op"]
        if kind == "append":
            table.append(arrow_rows(table, op["rows"]))
        elif kind == "delete":
            table.delete(where_expr(table, op["where"]))
        else:
            raise ValueError(f"unknown pyiceberg op {kind}")
        table = catalog.load_table(("oracle", "t"))
        s = table.current_snapshot()
        results.append(
            {
                "op": kind,
                "snapshotId": None if s is None else str(s.snapshot_id),
                "sequenceNumber": None if s is None else str(s.sequence_number),
                "operation": None if s is None else str(s.summary.operation.value),
                "summary": {} if s is None else {k: str(v) for k, v in s.summary.additional_properties.items()},
            }
        )
    s = table.current_snapshot()
    print(
        json.dumps(
            {
                "location": table.location(),
                "metadataFile": table.metadata_location,
                "formatVersion": table.format_version,
                "currentSnapshotId": None if s is None else str(s.snapshot_id),
                "ops": results,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
