"""Writes the base table of the `compact-1gb` benchmark with PyIceberg (issue 11's shape).

usage: gen_table.py TABLE_DIR --files N [--rows-per-file R]     (run with the project's .venv python)

An Iceberg v2 table at TABLE_DIR (must not exist), 15 columns (5 strings), identity-partitioned by
`region` (8 values): N/8 PyIceberg appends, each one commit of 8 files (one per partition) of R rows,
zstd. At N=480, R=40,000: 19.2 M rows, ~1.06 GB. Written through PyIceberg's SqlCatalog (a throwaway
SQLite file), then made a filesystem ("Hadoop") table — the current metadata copied to
metadata/v1.metadata.json with version-hint.text — so that floe, Java Iceberg's HadoopTables and Spark's
hadoop catalog all open it by path. Data is deterministic: id = 0..rows-1 in order; values derive from id.
Prints {"rows", "files", "bytes", "seconds"} as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
)

REGIONS = ["eu-west", "eu-central", "eu-north", "us-east", "us-west", "ap-south", "ap-east", "sa-east"]
STATUSES = ["new", "paid", "shipped", "delivered", "returned", "cancelled"]
WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basalt cobalt dune ember "
    "fjord granite harbor island jasper kelp lagoon meadow nickel orchid pebble quartz river slate "
    "timber umber valley willow xenon yarrow zephyr"
).split()

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "region", StringType(), required=False),
    NestedField(3, "customer", StringType(), required=False),
    NestedField(4, "product", StringType(), required=False),
    NestedField(5, "status", StringType(), required=False),
    NestedField(6, "note", StringType(), required=False),
    NestedField(7, "qty", IntegerType(), required=False),
    NestedField(8, "price", DoubleType(), required=False),
    NestedField(9, "amount", DecimalType(18, 2), required=False),
    NestedField(10, "discount", FloatType(), required=False),
    NestedField(11, "created_at", TimestampType(), required=False),
    NestedField(12, "ship_date", DateType(), required=False),
    NestedField(13, "is_gift", BooleanType(), required=False),
    NestedField(14, "seq", LongType(), required=False),
    NestedField(15, "score", DoubleType(), required=False),
)


def batch(start: int, rows_per_file: int, rng: np.random.Generator) -> pa.Table:
    """8 × rows_per_file rows: ids start.., region = the file's partition, so each partition gets R rows."""
    n = rows_per_file * len(REGIONS)
    ids = np.arange(start, start + n, dtype=np.int64)
    region_idx = np.repeat(np.arange(len(REGIONS)), rows_per_file)
    words = pa.array(WORDS)
    r = rng.random(n)
    cust = pc.binary_join_element_wise("cust-", pc.cast(pa.array(rng.integers(0, 5_000_000, n)), pa.string()), "")
    product = pc.binary_join_element_wise(
        pc.take(words, pa.array(rng.integers(0, len(WORDS), n))),
        pc.cast(pa.array(rng.integers(0, 500, n)), pa.string()),
        "-",
    )
    note = pc.binary_join_element_wise(
        pc.take(words, pa.array(rng.integers(0, len(WORDS), n))),
        pc.take(words, pa.array(rng.integers(0, len(WORDS), n))),
        pc.cast(pa.array(rng.integers(0, 1_000_000_000, n)), pa.string()),
        " ",
    )
    note = pc.if_else(pa.array(r < 0.15), pa.nulls(n, pa.string()), note)
    price = np.round(rng.random(n) * 1000, 2)
    cents = (ids * 37 % 1_000_000_00).astype(np.int64)
    cols = {
        "id": pa.array(ids),
        "region": pc.take(pa.array(REGIONS), pa.array(region_idx)),
        "customer": cust,
        "product": product,
        "status": pc.take(pa.array(STATUSES), pa.array(rng.integers(0, len(STATUSES), n))),
        "note": note,
        "qty": pa.array(np.where(r < 0.05, 0, rng.integers(1, 100, n)).astype(np.int32), mask=r < 0.05),
        "price": pa.array(price),
        "amount": pc.cast(pc.divide(pa.array(cents.astype(np.float64)), 100.0), pa.decimal128(18, 2)),
        "discount": pa.array((rng.integers(0, 30, n) / 100).astype(np.float32)),
        "created_at": pa.array(1_700_000_000_000_000 + ids * 1_000_003, pa.timestamp("us")),
        "ship_date": pa.array((19_700 + ids // 50_000).astype(np.int32), pa.date32()),
        "is_gift": pa.array(r < 0.1),
        "seq": pa.array(ids // 3 + rng.integers(0, 1000, n)),
        "score": pa.array(rng.random(n)),
    }
    arrow_schema = SCHEMA.as_arrow()
    return pa.table([cols[f.name].cast(arrow_schema.field(f.name).type) for f in arrow_schema], schema=arrow_schema)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("table_dir")
    ap.add_argument("--files", type=int, required=True)
    ap.add_argument("--rows-per-file", type=int, default=40_000)
    a = ap.parse_args()
    if a.files % len(REGIONS) != 0:
        sys.exit(f"--files must be a multiple of {len(REGIONS)}")
    loc = os.path.abspath(a.table_dir)
    if os.path.exists(loc):
        sys.exit(f"{loc} exists")
    t0 = time.time()
    os.makedirs(loc)
    db = os.path.join(os.path.dirname(loc), f".{os.path.basename(loc)}-catalog.db")
    if os.path.exists(db):
        os.remove(db)
    cat = SqlCatalog("bench", uri=f"sqlite:///{db}", warehouse=f"file://{os.path.dirname(loc)}")
    cat.create_namespace("db")
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="region"))
    table = cat.create_table(
        "db.t",
        schema=SCHEMA,
        location=f"file://{loc}",
        partition_spec=spec,
        properties={"format-version": "2", "write.parquet.compression-codec": "zstd"},
    )
    rng = np.random.default_rng(11)
    rows = 0
    for _ in range(a.files // len(REGIONS)):
        table.append(batch(rows, a.rows_per_file, rng))
        rows += a.rows_per_file * len(REGIONS)
    table = cat.load_table("db.t")
    meta_dir = os.path.join(loc, "metadata")
    current = table.metadata_location.removeprefix("file://")
    shutil.copyfile(current, os.path.join(meta_dir, "v1.metadata.json"))
    with open(os.path.join(meta_dir, "version-hint.text"), "w") as f:
        f.write("1")
    os.remove(db)
    data_bytes = 0
    files = 0
    for root, _dirs, names in os.walk(os.path.join(loc, "data")):
        for n in names:
            if n.endswith(".parquet"):
                files += 1
                data_bytes += os.path.getsize(os.path.join(root, n))
    print(json.dumps({"rows": rows, "files": files, "bytes": data_bytes, "seconds": time.time() - t0}))


if __name__ == "__main__":
    main()
