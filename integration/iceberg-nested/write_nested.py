"""Write an Iceberg table with nested and wide primitive columns through PyIceberg (pyarrow writes
large_list / large_string / large_binary, as in production PyIceberg tables).

usage: write_nested.py TABLE_DIR FORMAT_VERSION
Creates the table at TABLE_DIR (SQL catalog in memory), commits several small appends, then evolves
the schema by adding a field inside the struct column and one more top-level struct, and appends again.
Prints {"metadataFile": ..., "formatVersion": N, "ns": true|false} as JSON.
"""
from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import sys
import uuid

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import (
    BinaryType, DecimalType, DoubleType, FixedType, IntegerType, ListType, LongType, MapType, NestedField,
    StringType, StructType, TimestampType, TimestamptzType, UUIDType, TimestampNanoType, TimestamptzNanoType,
)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "oracles", "py"))
from canonical import metadata_file  # noqa: E402


def schema(v3: bool) -> Schema:
    fields = [
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "s", StructType(
            NestedField(20, "a", IntegerType(), required=False),
            NestedField(21, "b", StringType(), required=False),
        ), required=False),
        NestedField(3, "tags", ListType(30, LongType(), element_required=False), required=False),
        NestedField(4, "attrs", MapType(40, StringType(), 41, StructType(
            NestedField(42, "x", DoubleType(), required=False),
            NestedField(43, "y", StringType(), required=False),
        ), value_required=False), required=False),
        NestedField(5, "items", ListType(50, StructType(
            NestedField(51, "k", StringType(), required=False),
            NestedField(52, "v", ListType(53, IntegerType(), element_required=False), required=False),
        ), element_required=False), required=False),
        NestedField(6, "u", UUIDType(), required=False),
        NestedField(7, "f", FixedType(4), required=False),
        NestedField(8, "d", DecimalType(38, 10), required=False),
        NestedField(9, "bin", BinaryType(), required=False),
        NestedField(10, "ts", TimestampType(), required=False),
        NestedField(11, "tstz", TimestamptzType(), required=False),
        NestedField(12, "name", StringType(), required=False),
    ]
    if v3:
        fields.append(NestedField(13, "ts_ns", TimestampNanoType(), required=False))
        fields.append(NestedField(14, "tstz_ns", TimestamptzNanoType(), required=False))
    return Schema(*fields)


def row(i: int, v3: bool, evolved: bool) -> dict:
    base = dt.datetime(2024, 1, 1) + dt.timedelta(seconds=i * 3601, microseconds=i * 7)
    r = {
        "id": i,
        "s": None if i % 7 == 3 else {"a": None if i % 5 == 0 else i * 10, "b": f"s{i}é"},
        "tags": None if i % 6 == 5 else [i, -i, 2**62 + i][: i % 4],
        "attrs": None if i % 9 == 4 else {f"k{j}": (None if j == 1 else {"x": i + j / 4, "y": None if j == 2 else f"y{j}"}) for j in range(i % 3 + 1)},
        "items": None if i % 8 == 6 else [{"k": f"it{i}.{j}", "v": [j, None, i][: (i + j) % 4]} if j != 1 else None for j in range(i % 3)],
        "u": None if i % 10 == 9 else uuid.UUID(int=(i * 0x9E3779B97F4A7C15) % (1 << 128)).bytes,
        "f": None if i % 4 == 3 else bytes([i % 256, 1, 2, 255]),
        "d": None if i % 11 == 10 else decimal.Decimal(f"{'-' if i % 2 else ''}{12345678901234567890123456 + i}.{i:010d}"),
        "bin": None if i % 5 == 4 else bytes(range(i % 7)),
        "ts": None if i % 6 == 1 else base,
        "tstz": None if i % 6 == 2 else base.replace(tzinfo=dt.timezone.utc),
        "name": None if i % 13 == 12 else f"name-{i}-" + "x" * (i % 17),
    }
    if evolved and r["s"] is not None:
        r["s"]["c"] = None if i % 2 else f"c{i}"
    if evolved:
        r["extra"] = None if i % 3 == 0 else {"p": i, "q": [f"q{i}"]}
    return r


def arrow_table(tbl, rows: list[dict], v3: bool) -> pa.Table:
    sch = tbl.schema().as_arrow()
    if v3:
        # nanoseconds need an exact integer path: pyarrow takes epoch integers for timestamp[ns]
        cols = {}
        for f in sch:
            if f.name in ("ts_ns", "tstz_ns"):
                vals = [None if r["id"] % 5 == 2 else 1_700_000_000_123_456_789 + r["id"] * 1_000_000_001 for r in rows]
                cols[f.name] = pa.array(vals, type=pa.int64()).cast(f.type)
            else:
                cols[f.name] = pa.array([r.get(f.name) for r in rows], type=f.type)
        return pa.table(cols, schema=sch)
    return pa.Table.from_pylist(rows, schema=sch)


def main() -> int:
    location = os.path.abspath(sys.argv[1])
    version = int(sys.argv[2])
    v3 = version >= 3
    catalog = SqlCatalog("floe", uri="sqlite:///:memory:", warehouse=f"file://{os.path.dirname(location)}")
    catalog.create_namespace("db")
    tbl = catalog.create_table("db.t", schema=schema(v3), location=f"file://{location}",
                               properties={"format-version": str(version)})
    n = 0
    for size in (7, 5, 9, 4):
        rows = [row(n + k, v3, False) for k in range(size)]
        n += size
        tbl.append(arrow_table(tbl, rows, v3))
    with tbl.update_schema() as upd:
        upd.add_column(("s", "c"), StringType())
        upd.add_column("extra", StructType(
            NestedField(60, "p", LongType(), required=False),
            NestedField(61, "q", ListType(62, StringType(), element_required=False), required=False),
        ))
    tbl = catalog.load_table("db.t")
    for size in (6, 3):
        rows = [row(n + k, v3, True) for k in range(size)]
        n += size
        tbl.append(arrow_table(tbl, rows, v3))
    # Publish as a filesystem (Hadoop) table too, so floe and Java's HadoopTables can commit on top.
    final = metadata_file(location)
    hadoop = os.path.join(location, "metadata", "v1.metadata.json")
    with open(final, "rb") as src, open(hadoop, "wb") as dst:
        dst.write(src.read())
    with open(os.path.join(location, "metadata", "version-hint.text"), "w") as hint:
        hint.write("1")
    print(json.dumps({"metadataFile": hadoop, "formatVersion": version, "rows": n}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
