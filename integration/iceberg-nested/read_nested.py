"""Dump the live rows of an Iceberg table with nested columns as canonical JSON lines.

usage: read_nested.py ENGINE TABLE_DIR|METADATA_JSON      ENGINE = pyiceberg | duckdb

Values are rendered by the table's Iceberg type, exactly as the Java oracle renders them (IcebergOracle
renderValue): top-level primitives by the shared canonical rules; a top-level struct/list/map as compact JSON
text with sorted object keys, map keys rendered to strings, the same primitive rules inside. DuckDB exits 3
with {"unsupported": ...} when its iceberg extension cannot scan the table.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles", "py"))
from canonical import emit_rows, kind_of, metadata_file, render  # noqa: E402
from pyiceberg.table import StaticTable  # noqa: E402
from pyiceberg.types import ListType, MapType, StructType  # noqa: E402


def nested(t, v):
    if v is None:
        return None
    if isinstance(t, StructType):
        get = (lambda f: v.get(f.name)) if isinstance(v, dict) else (lambda f: getattr(v, f.name))
        return {f.name: nested(f.field_type, get(f)) for f in t.fields}
    if isinstance(t, ListType):
        return [nested(t.element_type, e) for e in v]
    if isinstance(t, MapType):
        items = v.items() if isinstance(v, dict) else v  # pyarrow: list of (key, value) tuples
        return {str(nested(t.key_type, k)): nested(t.value_type, x) for k, x in items}
    return prim(t, v)


def ns_text(ns: int) -> str:
    """Epoch nanoseconds as the Java oracle's TS_NS pattern (uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS)."""
    secs, frac = divmod(ns, 1_000_000_000)
    d = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=secs)
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d}T{d.hour:02d}:{d.minute:02d}:{d.second:02d}.{frac:09d}"


def prim(t, v):
    k = kind_of(t)
    if k in ("timestamp_ns", "timestamptz_ns"):
        # the caller hands ns columns over as epoch integers (Python datetimes stop at microseconds)
        return None if v is None else ns_text(int(v)) + ("+00:00" if k == "timestamptz_ns" else "")
    if k in ("timestamptz", "timestamp") and isinstance(v, dt.datetime) and v.tzinfo is not None and k == "timestamp":
        v = v.replace(tzinfo=None)
    return render(k, v)


def value(t, v):
    if isinstance(t, (StructType, ListType, MapType)):
        n = nested(t, v)
        return None if n is None else json.dumps(n, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return prim(t, v)


def main() -> int:
    engine, location = sys.argv[1], sys.argv[2]
    md = metadata_file(location)
    table = StaticTable.from_metadata(md)
    fields = table.schema().fields
    rows = []
    if engine == "pyiceberg":
        import pyarrow as pa

        data = table.scan().to_arrow()
        for i, f in enumerate(data.schema):
            if pa.types.is_timestamp(f.type) and f.type.unit == "ns":
                data = data.set_column(i, f.name, data.column(i).cast(pa.int64()))
        for rec in data.to_pylist():
            rows.append({f.name: value(f.field_type, rec.get(f.name)) for f in fields})
    elif engine == "duckdb":
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracles", "py"))
        from duckdb_read import connect

        con = connect()
        con.execute("SET TimeZone='UTC'")
        src = "iceberg_scan('" + md.replace("'", "''") + "')"
        try:
            cur = con.execute(f"SELECT * FROM {src}")
            names = [d[0] for d in cur.description]
            data = cur.fetchall()
        except Exception as e:  # noqa: BLE001 - the engine's own limitation, reported to the caller
            print(json.dumps({"unsupported": f"duckdb: {type(e).__name__}: {e}"}), file=sys.stderr)
            return 3
        by_name = {f.name: f for f in fields}
        for rec in data:
            rows.append({n: value(by_name[n].field_type, v) for n, v in zip(names, rec)})
    else:
        raise SystemExit(f"unknown engine {engine}")
    emit_rows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
